"""The convert benchmark's parts; `scripts/bench-convert.py` runs them (see its help)."""
