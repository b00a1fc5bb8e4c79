"""The queue benchmark's parts; `scripts/bench-queue.py` runs them (see its help)."""
