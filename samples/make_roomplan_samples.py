#!/usr/bin/env python3
"""Writes the project's own RoomPlan-style samples: USDZ packages laid out like real RoomPlan
exports, each with a matching CapturedRoom JSON.

    python3 samples/make_roomplan_samples.py [OUT_DIR]      (default: samples/roomplan)

Deterministic: identifiers and the opaque `coreModel` bytes come from seeded generators, no clock
is read, zip entries carry a fixed date and are stored uncompressed at 64-byte-aligned offsets (as
RoomPlan writes them), and the embedded catalog `.usdc` is written by usd-core from fixed data.
Running the script twice gives byte-identical files. Needs Python 3.9+, numpy and usd-core (`pxr`).

Samples (see samples/README.md):
  parametric_two_sections  iOS 17 `.parametric`: 8-corner floor, 2 sections, doors open and closed,
                           two doors and a window referenced onto one wall group, chairs of a table
  mesh_opening_unmatched   iOS 17 `.mesh`: 12-triangle boxes with per-vertex normals; the JSON has
                           an opening with no USD element; walls 0.16 m thick, some 0.16 m wider
  model_catalog            `.model`: objects reference an embedded crate catalog model generated here
  ios16_mesh               iOS 16 `.mesh`: one Walls_grp, wall customData with UUID only, no sections,
                           no floor; the JSON has no version, floors, sections, story
"""

import argparse
import json
import os
import sys

# The generator's parts live in samples/roomplan_gen/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from roomplan_gen.export import export_usdz
from roomplan_gen.samples import ios16_mesh, mesh_opening_unmatched, model_catalog, parametric_two_sections


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description="Writes the RoomPlan-style sample USDZ packages, their CapturedRoom JSON and index.json.")
    parser.add_argument("out", nargs="?", default=os.path.join(here, "roomplan"), metavar="OUT_DIR",
                        help="where to write them (default: samples/roomplan, next to this script)")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    index = []
    for make in (parametric_two_sections, mesh_opening_unmatched, model_catalog, ios16_mesh):
        room, style, extra = make()
        usdz = room.name + ".usdz"
        js = room.name + ".json"
        export_usdz(room, style, os.path.join(out, usdz), **extra)
        with open(os.path.join(out, js), "wb") as f:
            f.write(room.json(ios16=(style == "ios16")))
        index.append({"name": room.name, "export": style, "usdz": usdz, "json": js})
    with open(os.path.join(out, "index.json"), "w") as f:
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")
    total = sum(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out))
    print(f"wrote {len(index)} samples to {out} ({total} bytes)")


if __name__ == "__main__":
    main()
