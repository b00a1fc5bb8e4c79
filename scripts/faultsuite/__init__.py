"""The fault-injection suite's parts; `scripts/fault-suite.py` runs them (see its help)."""
