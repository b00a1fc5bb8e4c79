#!/usr/bin/env python3
"""A RoomPlan `.model` export furnished with Apple's own catalog models, for measuring the model size.

RoomPlan's `.model` export places each object as `Xform "<Cat><n>" / Xform "model"` referencing a
catalog crate file embedded in the package, with a per-instance non-uniform scale from the catalog
model's size (centimetres) to the object's measured dimensions (metres). This script lays out a
9 × 7 m dining hall in that form (the layout of `samples/roomplan_gen`) and embeds the real catalog
models of the corpus (`roomplan/catalog/`): three round tables with eight chairs each, a sofa and
two shelves, 130,140 triangles in all. Each chair gets dimensions of its own, as a scan measures
them. A second room holds one of each model, so that nothing repeats. The packages and their
CapturedRoom JSON go to OUT_DIR (never into the repository: the catalog models have no licence
stated).

    python3 scripts/gen-model-export.py [--corpus ../shared/corpus] [OUT_DIR]   (default bench-out/inputs)

Writes OUT_DIR/catalog_dining.usdz, OUT_DIR/catalog_living.usdz and their `.json`; deterministic (seeded
identifiers, fixed zip dates). Needs numpy and usd-core (`pxr`). Exit status 0, or 2 when the
catalog folder is missing.
"""
import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))

from roomplan_gen.export import export_usdz  # noqa: E402
from roomplan_gen.room import Room  # noqa: E402

# category → (catalog file stem, JSON attributes)
MODELS = {
    "chair": ("DefaultChair", {"ChairArmType": "missing", "ChairBackType": "existing", "ChairLegType": "four",
                               "ChairType": "dining"}),
    "table": ("DiningTable_circularElliptic", {"TableShapeType": "circularElliptic", "TableType": "dining"}),
    "sofa": ("Rectangular_sofa", {"SofaType": "rectangular"}),
    "storage": ("shelf_vertical", {"StorageType": "shelf"}),
}


def catalog_entry(folder, stem):
    """(model name, crate bytes, size of the model's points in its own units)."""
    from pxr import Usd, UsdGeom

    path = os.path.join(folder, stem + ".rooms.usdc")
    stage = Usd.Stage.Open(path)
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for prim in stage.Traverse():
        if prim.IsA(UsdGeom.Mesh):
            for p in UsdGeom.Mesh(prim).GetPointsAttr().Get():
                lo = [min(lo[i], p[i]) for i in range(3)]
                hi = [max(hi[i], p[i]) for i in range(3)]
    with open(path, "rb") as f:
        data = f.read()
    return stem, data, [hi[i] - lo[i] for i in range(3)]


def dining_hall():
    r = Room("catalog_dining", seed=41)
    outline = [(-4.5, -3.5), (4.5, -3.5), (4.5, 3.5), (-4.5, 3.5)]
    r.add_walls(outline, 2.7, ["high", "high", "high", "medium"])
    r.add_hosted("door", 2, -2.0, 0.9, 2.1, is_open=False)
    r.add_hosted("window", 0, 1.0, 1.6, 1.3, sill=0.9)
    r.add_hosted("window", 0, -2.0, 1.6, 1.3, sill=0.9)
    r.add_floor(outline)
    for t, cx in enumerate((-3.0, 0.0, 3.0)):
        table = r.add_object("table", (cx, -0.8), (1.07 + 0.01 * t, 0.75, 1.06), attributes=MODELS["table"][1])
        for k in range(8):
            a = 2 * math.pi * k / 8
            size = (0.62 + 0.004 * ((3 * k + t) % 5), 0.88 + 0.003 * ((k + 2 * t) % 4), 0.54 + 0.005 * ((k + t) % 3))
            r.add_object("chair", (cx + 0.95 * math.sin(a), -0.8 + 0.95 * math.cos(a)), size, yaw=a + math.pi,
                         parent=table, attributes=MODELS["chair"][1], confidence="high" if k % 3 else "medium")
    r.add_object("sofa", (0.0, 2.8), (2.0, 1.0, 0.92), yaw=math.pi, attributes=MODELS["sofa"][1])
    r.add_object("storage", (-4.15, 2.0), (0.53, 1.79, 0.53), yaw=math.pi / 2, attributes=MODELS["storage"][1])
    r.add_object("storage", (4.15, 2.0), (0.52, 1.8, 0.52), yaw=-math.pi / 2, attributes=MODELS["storage"][1])
    r.sections = [dict(label="diningRoom", center=(0.0, -1.25, 0.0))]
    return r


def living_room():
    """One of each catalog model: nothing repeats, so nothing can be shared."""
    r = Room("catalog_living", seed=43)
    outline = [(-2.5, -2.0), (2.5, -2.0), (2.5, 2.0), (-2.5, 2.0)]
    r.add_walls(outline, 2.6, ["high", "high", "medium", "high"])
    r.add_hosted("door", 1, 0.8, 0.9, 2.1, is_open=True)
    r.add_floor(outline)
    table = r.add_object("table", (-0.8, -0.6), (1.07, 0.75, 1.06), attributes=MODELS["table"][1])
    r.add_object("chair", (-0.8, 0.3), (0.63, 0.89, 0.55), yaw=math.pi, parent=table, attributes=MODELS["chair"][1])
    r.add_object("sofa", (0.9, 1.4), (2.0, 1.0, 0.92), yaw=math.pi, attributes=MODELS["sofa"][1])
    r.add_object("storage", (2.15, -1.2), (0.53, 1.79, 0.53), yaw=-math.pi / 2, attributes=MODELS["storage"][1])
    r.sections = [dict(label="livingRoom", center=(0.0, -1.25, 0.0))]
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=os.path.join(ROOT, "bench-out", "inputs"), metavar="OUT_DIR")
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
    args = ap.parse_args()
    folder = os.path.join(args.corpus, "roomplan", "catalog")
    if not os.path.isdir(folder):
        print(f"no catalog models at {folder}", file=sys.stderr)
        return 2
    catalog = {cat: catalog_entry(folder, stem) for cat, (stem, _) in MODELS.items()}
    os.makedirs(args.out, exist_ok=True)
    for room in (dining_hall(), living_room()):
        usdz = os.path.join(args.out, room.name + ".usdz")
        export_usdz(room, "model", usdz, catalog=catalog)
        with open(os.path.join(args.out, room.name + ".json"), "wb") as f:
            f.write(room.json())
        print(f"wrote {usdz} ({os.path.getsize(usdz)} bytes) and its JSON")
    return 0


if __name__ == "__main__":
    sys.exit(main())
