"""The parts of the adversarial fixture generator; `scripts/gen-adversarial-fixtures.py` runs them
(see its docstring and docs/RELIABILITY.md)."""
