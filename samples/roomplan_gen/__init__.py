"""The parts of the RoomPlan-style sample generator; `samples/make_roomplan_samples.py` runs them
(see its docstring and samples/README.md)."""
