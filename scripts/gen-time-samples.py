#!/usr/bin/env python3
"""Writes the time-sample fixtures and usd-core's answers for them.

Tests/Fixtures/usda/time_samples_<case>.usda (and .usdc, the same stage written by usd-core's
crate writer) hold meshes whose points, normals, xform ops and visibility are authored only as
time samples, with and without `startTimeCode`. time_samples.expected.json records, per file:

  time      the time code a viewer uses: startTimeCode when authored, else null (earliest sample)
  instances per PointInstancer: UsdGeom.PointInstancer.ComputeInstanceTransformsAtTime(time) with
            the prototype transform excluded and invisible ids masked out (row-major, 16 numbers each)
  prims     per prim path: the values usd-core's UsdAttribute.Get(time) returns at that time
            (Usd.TimeCode.EarliestTime() when `time` is null) for points and normals, the local
            transform from UsdGeom.Xformable.GetLocalTransformation(time) (row-major, 16 numbers),
            the visibility token, and `points_default`: whether Get() at the default time code
            returns a value (usd-core returns None when only time samples are authored).

Usage: python3 scripts/gen-time-samples.py [output-dir]   (needs usd-core: pip install usd-core)
       python3 scripts/gen-time-samples.py --check [output-dir]   (exit 1 unless the files there match)
"""
import json
import argparse
import math
import os
import sys

from pxr import Gf, Sdf, Usd, UsdGeom, Vt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixturecheck import add_option, check  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "usda")

CUBE = [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)]
COUNTS = [4] * 6
INDICES = [0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7]


def scaled(points, s, offset=(0, 0, 0)):
    return [Gf.Vec3f(p[0] * s[0] + offset[0], p[1] * s[1] + offset[1], p[2] * s[2] + offset[2]) for p in points]


def normals_of(points):
    out = []
    for p in points:
        length = math.sqrt(p[0] ** 2 + p[1] ** 2 + p[2] ** 2) or 1
        out.append(Gf.Vec3f(p[0] / length, p[1] / length, p[2] / length))
    return out


def build(stage, t0, t1, start, matrix_ops):
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    if start is not None:
        stage.SetStartTimeCode(start)
        stage.SetEndTimeCode(t1)
    root = UsdGeom.Xform.Define(stage, "/Root")
    stage.SetDefaultPrim(root.GetPrim())
    if matrix_ops:
        op = root.AddTransformOp()
        op.Set(Gf.Matrix4d().SetTranslate(Gf.Vec3d(1, 2, 3)), t0)
        m = Gf.Matrix4d().SetRotate(Gf.Rotation(Gf.Vec3d(0, 1, 0), 90)) * Gf.Matrix4d().SetTranslate(Gf.Vec3d(-4, 0, 2))
        op.Set(m, t1)
    else:
        tr = root.AddTranslateOp()
        tr.Set(Gf.Vec3d(0, 0, 0), t0)
        tr.Set(Gf.Vec3d(4, -2, 10), t1)
        orient = root.AddOrientOp()
        orient.Set(Gf.Quatf(1, 0, 0, 0), t0)
        orient.Set(Gf.Quatf(math.cos(math.radians(60)), 0, math.sin(math.radians(60)), 0), t1)
        sc = root.AddScaleOp()
        sc.Set(Gf.Vec3f(1, 1, 1), t0)
        sc.Set(Gf.Vec3f(2, 0.5, 3), t1)

    box = UsdGeom.Mesh.Define(stage, "/Root/Box")
    box.CreateFaceVertexCountsAttr(COUNTS)
    box.CreateFaceVertexIndicesAttr(INDICES)
    p0 = scaled(CUBE, (1, 1, 1))
    p1 = scaled(CUBE, (2, 3, 0.5), (1, 0, -1))
    box.GetPointsAttr().Set(Vt.Vec3fArray(p0), t0)
    box.GetPointsAttr().Set(Vt.Vec3fArray(p1), t1)
    box.GetNormalsAttr().Set(Vt.Vec3fArray(normals_of(p0)), t0)
    box.GetNormalsAttr().Set(Vt.Vec3fArray(normals_of(p1)), t1)
    box.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    mx = box.AddTranslateOp()
    mx.Set(Gf.Vec3d(0, 1, 0), t0)
    mx.Set(Gf.Vec3d(0, 5, 0), t1)

    # Points arrays of different lengths cannot be interpolated: the earlier sample holds.
    held = UsdGeom.Mesh.Define(stage, "/Root/Held")
    held.CreateFaceVertexCountsAttr([3])
    held.CreateFaceVertexIndicesAttr([0, 1, 2])
    held.GetPointsAttr().Set(Vt.Vec3fArray([(0, 0, 0), (1, 0, 0), (0, 1, 0), (5, 5, 5)]), t0)
    held.GetPointsAttr().Set(Vt.Vec3fArray([(0, 0, 0), (2, 0, 0), (0, 2, 0)]), t1)

    # Visibility switches to invisible between the samples (tokens hold, never interpolate).
    hidden = UsdGeom.Mesh.Define(stage, "/Root/Blink")
    hidden.CreateFaceVertexCountsAttr([3])
    hidden.CreateFaceVertexIndicesAttr([0, 1, 2])
    hidden.CreatePointsAttr(Vt.Vec3fArray([(0, 0, 0), (1, 0, 0), (0, 1, 0)]))
    hidden.GetVisibilityAttr().Set(UsdGeom.Tokens.inherited, t0)
    hidden.GetVisibilityAttr().Set(UsdGeom.Tokens.invisible, t0 + (t1 - t0) * 0.3)

    # A PointInstancer whose every instance attribute has only time samples: three instances at
    # the first sample, one of them invisible, four at the last (array lengths differ, so the
    # earlier sample holds until the last one).
    scatter = UsdGeom.PointInstancer.Define(stage, "/Root/Scatter")
    proto = UsdGeom.Mesh.Define(stage, "/Root/Scatter/Protos/Tri")
    proto.CreateFaceVertexCountsAttr([3])
    proto.CreateFaceVertexIndicesAttr([0, 1, 2])
    proto.CreatePointsAttr(Vt.Vec3fArray([(0, 0, 0), (1, 0, 0), (0, 1, 0)]))
    scatter.CreatePrototypesRel().SetTargets([proto.GetPath()])
    q = Gf.Quath(math.cos(math.radians(45)), 0, math.sin(math.radians(45)), 0)
    samples = {
        t0: ([0, 0, 0], [(0, 0, 0), (2, 0, 0), (4, 0, 0)], [q] * 3, [(1, 2, 1)] * 3, [10, 11, 12], [11]),
        t1: ([0, 0, 0, 0], [(0, 0, 1), (2, 0, 2), (4, 0, 3), (6, 0, 4)], [Gf.Quath(1, 0, 0, 0)] * 4, [(1, 1, 1)] * 4,
             [10, 11, 12, 13], []),
    }
    for time, (indices, positions, orientations, scales, ids, invisible) in samples.items():
        scatter.CreateProtoIndicesAttr().Set(Vt.IntArray(indices), time)
        scatter.CreatePositionsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(*p) for p in positions]), time)
        scatter.CreateOrientationsAttr().Set(Vt.QuathArray(orientations), time)
        scatter.CreateScalesAttr().Set(Vt.Vec3fArray([Gf.Vec3f(*s) for s in scales]), time)
        scatter.CreateIdsAttr().Set(Vt.Int64Array(ids), time)
        scatter.CreateInvisibleIdsAttr().Set(Vt.Int64Array(invisible), time)


def flat(v):
    if v is None:
        return None
    return [float(c) for e in v for c in e]


def iter_ancestors(prim):
    p = prim.GetParent()
    while p and p.GetPath() != Sdf.Path.absoluteRootPath:
        yield p
        p = p.GetParent()


def answers(stage):
    start = stage.GetStartTimeCode() if stage.HasAuthoredMetadata("startTimeCode") else None
    t = Usd.TimeCode(start) if start is not None else Usd.TimeCode.EarliestTime()
    prims = {}
    for prim in stage.Traverse():
        # Prototypes under a PointInstancer are drawn only through its instances.
        if any(a.IsA(UsdGeom.PointInstancer) for a in iter_ancestors(prim)):
            continue
        entry = {}
        xf = UsdGeom.Xformable(prim)
        if xf:
            m = xf.GetLocalTransformation(t)
            entry["local"] = [float(m[r][c]) for r in range(4) for c in range(4)]
            entry["visibility"] = str(UsdGeom.Imageable(prim).GetVisibilityAttr().Get(t))
        if prim.IsA(UsdGeom.PointInstancer):
            # The instance transforms (prototype transform excluded), invisible ids masked out, at
            # the time used: what the scene's `<instancer>_<i>` nodes must hold, in order.
            pi = UsdGeom.PointInstancer(prim)
            mats = pi.ComputeInstanceTransformsAtTime(t, t, UsdGeom.PointInstancer.ExcludeProtoXform)
            entry["instances"] = [[float(m[r][c]) for r in range(4) for c in range(4)] for m in mats]
        if prim.IsA(UsdGeom.Mesh):
            mesh = UsdGeom.Mesh(prim)
            entry["points"] = flat(mesh.GetPointsAttr().Get(t))
            entry["normals"] = flat(mesh.GetNormalsAttr().Get(t))
            entry["points_default"] = mesh.GetPointsAttr().Get() is not None
        prims[str(prim.GetPath())] = entry
    return {"time": start, "prims": prims}


CASES = [
    # name, first sample, last sample, startTimeCode, matrix op instead of translate/orient/scale
    ("start", 5.0, 10.0, 7.0, False),
    ("earliest", 5.0, 10.0, None, False),
    ("before_first", 2.0, 4.0, 0.0, True),
    ("matrix", 0.0, 5.0, 2.5, True),
]


def write(out):
    os.makedirs(out, exist_ok=True)
    expected = {}
    for name, t0, t1, start, matrix in CASES:
        for ext in ("usda", "usdc"):
            file = "time_samples_%s.%s" % (name, ext)
            path = os.path.join(out, file)
            if os.path.exists(path):
                os.remove(path)
            stage = Usd.Stage.CreateNew(path)
            build(stage, t0, t1, start, matrix)
            stage.GetRootLayer().Save()
            expected[file] = answers(Usd.Stage.Open(path))
    with open(os.path.join(out, "time_samples.expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d fixtures to %s" % (len(expected), out))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=DEFAULT_OUT, metavar="OUT_DIR",
                        help="where to write (default: Tests/Fixtures/usda)")
    add_option(parser, "the files in OUT_DIR")
    args = parser.parse_args()
    if args.check:
        # The folder is shared with gen-usda-fixtures.py: only the time_samples files are this script's.
        check("gen-time-samples", args.out, write, owns=lambda rel: rel.startswith("time_samples"))
    else:
        write(args.out)


if __name__ == "__main__":
    main()
