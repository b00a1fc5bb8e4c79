#!/usr/bin/env python3
"""Write the benchmark inputs with Pixar's usd-core (deterministic, seeded).

  room.usdz   RoomPlan-like parametric export: root Room.usda + one USDA layer per element (~50 walls,
              doors, windows, openings, one floor Mesh and objects), pulled in with
              `prepend references = @./assets/Parametric/...@`; Cube gprims with
              xformOpOrder = [transform, scale]; one UsdPreviewSurface per element.
  dense.usdz  a scanned-room-like crate file: ~600k triangles over ~40 meshes with vertex/faceVarying
              normals and st, one generated 1024x1024 PNG texture (~12 MB).
  huge.usdz   the same kind of scene at ~3M triangles (~50 MB).

Crate files are written with usd-core's default crate version (the version override variable is
cleared before pxr is imported).

Usage: gen-bench-inputs.py OUTDIR [--seed 7] [--only room,dense,huge]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# The writers live in scripts/benchinputs/; importing it clears the crate version override before pxr loads.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchinputs.room import build_room
from benchinputs.scanned import build_scanned


def main() -> int:
    parser = argparse.ArgumentParser(description="Write the benchmark inputs room.usdz, dense.usdz and huge.usdz "
                                                 "with usd-core (deterministic for a given seed).")
    parser.add_argument("outdir", help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--only", default="room,dense,huge", help="comma-separated subset of room,dense,huge")
    args = parser.parse_args()
    wanted = [w for w in args.only.split(",") if w]
    unknown = set(wanted) - {"room", "dense", "huge"}
    if unknown:
        parser.error(f"unknown input(s): {', '.join(sorted(unknown))}")
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    builders = {
        "room": lambda: build_room(outdir, args.seed),
        "dense": lambda: build_scanned(outdir, "dense", args.seed + 1, 600_000, True, 0.5),
        "huge": lambda: build_scanned(outdir, "huge", args.seed + 2, 3_000_000, False, 0.2),
    }
    for name in ("room", "dense", "huge"):
        if name not in wanted:
            continue
        start = time.monotonic()
        path, triangles = builders[name]()
        size = os.path.getsize(path)
        print(f"{os.path.basename(path):<11} {size / 1e6:8.2f} MB  {triangles:>9,} triangles  "
              f"({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
