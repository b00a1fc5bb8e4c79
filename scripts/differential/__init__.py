"""The differential-test corpus generator's parts; `scripts/gen-differential.py` runs them (see its help)."""
