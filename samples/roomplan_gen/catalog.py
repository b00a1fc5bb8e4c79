"""The embedded catalog model (`.model` export), written by usd-core as a crate file."""

import os
import tempfile

from .geometry import box_mesh


def catalog_usdc(name, parts):
    """A small catalog model: one Mesh of boxes with faceVarying normals and st, one material,
    centred on its bounding box. `parts` are (min, max) boxes in metres."""
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdShade, Vt

    points, counts, indices, normals, st = [], [], [], [], []
    for lo, hi in parts:
        pts, _, idx, nrm = box_mesh(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        base = len(points)
        points += pts
        for f in range(6):
            counts.append(4)
            indices += [base + f * 4 + k for k in range(4)]
            normals += [nrm[f * 4]] * 4
            st += [(0, 0), (1, 0), (1, 1), (0, 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".rooms.usdc")
        stage = Usd.Stage.CreateNew(path)
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
        root = UsdGeom.Xform.Define(stage, "/" + name)
        Usd.ModelAPI(root.GetPrim()).SetKind("component")
        stage.SetDefaultPrim(root.GetPrim())
        UsdGeom.Scope.Define(stage, f"/{name}/Geom")
        mesh = UsdGeom.Mesh.Define(stage, f"/{name}/Geom/{name}_mesh")
        mesh.CreatePointsAttr(Vt.Vec3fArray([Gf.Vec3f(*p) for p in points]))
        mesh.CreateFaceVertexCountsAttr(Vt.IntArray(counts))
        mesh.CreateFaceVertexIndicesAttr(Vt.IntArray(indices))
        mesh.CreateSubdivisionSchemeAttr("none")
        pv = UsdGeom.PrimvarsAPI(mesh)
        pv.CreatePrimvar("normals", Sdf.ValueTypeNames.Normal3fArray, UsdGeom.Tokens.faceVarying).Set(
            Vt.Vec3fArray([Gf.Vec3f(*n) for n in normals]))
        pv.CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.faceVarying).Set(
            Vt.Vec2fArray([Gf.Vec2f(*t) for t in st]))
        UsdGeom.Scope.Define(stage, f"/{name}/Materials")
        mat = UsdShade.Material.Define(stage, f"/{name}/Materials/roomplan_mat")
        shader = UsdShade.Shader.Define(stage, f"/{name}/Materials/roomplan_mat/surfaceShader")
        shader.CreateIdAttr("UsdPreviewSurface")
        shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(0.62, 0.5, 0.38))
        shader.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(0.8)
        mat.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
        UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(mat)
        stage.GetRootLayer().Save()
        with open(path, "rb") as f:
            data = f.read()
    lo = [min(p[i] for p in points) for i in range(3)]
    hi = [max(p[i] for p in points) for i in range(3)]
    return data, [hi[i] - lo[i] for i in range(3)]


def centred(parts):
    lo = [min(p[0][i] for p in parts) for i in range(3)]
    hi = [max(p[1][i] for p in parts) for i in range(3)]
    c = [(lo[i] + hi[i]) / 2 for i in range(3)]
    return [(tuple(p[0][i] - c[i] for i in range(3)), tuple(p[1][i] - c[i] for i in range(3))) for p in parts]


CHAIR_PARTS = centred([
    ((-0.22, 0.42, -0.22), (0.22, 0.47, 0.22)),      # seat
    ((-0.22, 0.47, 0.18), (0.22, 0.9, 0.22)),        # back
    ((-0.22, 0.0, -0.22), (-0.18, 0.42, -0.18)),     # legs
    ((0.18, 0.0, -0.22), (0.22, 0.42, -0.18)),
    ((-0.22, 0.0, 0.18), (-0.18, 0.42, 0.22)),
    ((0.18, 0.0, 0.18), (0.22, 0.42, 0.22)),
])
TABLE_PARTS = centred([
    ((-0.6, 0.71, -0.4), (0.6, 0.75, 0.4)),          # top
    ((-0.58, 0.0, -0.38), (-0.53, 0.71, -0.33)),     # legs
    ((0.53, 0.0, -0.38), (0.58, 0.71, -0.33)),
    ((-0.58, 0.0, 0.33), (-0.53, 0.71, 0.38)),
    ((0.53, 0.0, 0.33), (0.58, 0.71, 0.38)),
])
