"""The parts of the USDA fixture generator; `scripts/gen-usda-fixtures.py` runs them (see its
docstring)."""
