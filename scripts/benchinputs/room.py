"""room.usdz: a RoomPlan-like parametric export, one USDA layer per element referenced from Room.usda."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
from pxr import Gf, Kind, Sdf, UsdUtils, Vt

ROOM_ARCH = (("Wall", "Walls", 10), ("Door", "Doors", 3), ("Window", "Windows", 4), ("Opening", "Openings", 2))
ROOM_OBJECTS = (("Chair", 10), ("Table", 3), ("Storage", 6), ("Sofa", 2), ("Bed", 2), ("Television", 2),
                ("Sink", 1), ("Toilet", 1), ("Bathtub", 1), ("Stove", 1), ("Refrigerator", 1))
OBJECT_SIZES = {  # width, height, depth in metres
    "Chair": (0.55, 0.9, 0.55), "Table": (1.4, 0.75, 0.8), "Storage": (0.9, 1.8, 0.45), "Sofa": (2.0, 0.85, 0.9),
    "Bed": (1.6, 0.5, 2.0), "Television": (1.2, 0.7, 0.08), "Sink": (0.6, 0.9, 0.5), "Toilet": (0.4, 0.8, 0.65),
    "Bathtub": (1.7, 0.6, 0.75), "Stove": (0.6, 0.9, 0.6), "Refrigerator": (0.7, 1.8, 0.7),
}
WALL_HEIGHT = 2.4


def uuid_from(rng: np.random.Generator) -> str:
    b = rng.integers(0, 256, 16, dtype=np.uint8).tobytes().hex().upper()
    return f"{b[0:8]}-{b[8:12]}-4{b[13:16]}-{'89AB'[int(b[16], 16) % 4]}{b[17:20]}-{b[20:32]}"


def y_rotation(theta: float, tx: float, ty: float, tz: float) -> Gf.Matrix4d:
    """Row-vector matrix: local X along the wall, Y up, Z the wall normal; translation in the last row."""
    c, s = math.cos(theta), math.sin(theta)
    return Gf.Matrix4d(c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, tx, ty, tz, 1)


def room_outline(rng: np.random.Generator) -> list[tuple[float, float]]:
    """A rectilinear room outline (x, z) with two notched corners: 8 corners."""
    w, d = 6.0 + rng.uniform(-0.5, 0.5), 4.5 + rng.uniform(-0.4, 0.4)
    nx, nz = 1.2 + rng.uniform(0, 0.4), 0.9 + rng.uniform(0, 0.3)
    return [(0, 0), (w - nx, 0), (w - nx, nz), (w, nz), (w, d), (nx, d), (nx, d - nz), (0, d - nz)]


def new_element_layer(path: str, name: str, category: str, uuid: str) -> tuple[Sdf.Layer, Sdf.PrimSpec]:
    layer = Sdf.Layer.CreateNew(path)
    layer.pseudoRoot.SetInfo("metersPerUnit", 1.0)
    layer.pseudoRoot.SetInfo("upAxis", "Y")
    layer.defaultPrim = name
    root = Sdf.PrimSpec(layer, name, Sdf.SpecifierDef, "Xform")
    root.assetInfo = {"identifier": Sdf.AssetPath(f"./{name}.usda"), "name": name}
    root.customData = {"Category": category, "UUID": uuid}
    root.kind = Kind.Tokens.component
    return layer, root


def attr(prim: Sdf.PrimSpec, name: str, type_name, value, uniform: bool = False) -> Sdf.AttributeSpec:
    variability = Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying
    spec = Sdf.AttributeSpec(prim, name, type_name, variability)
    if value is not None:
        spec.default = value
    return spec


def add_preview_material(root: Sdf.PrimSpec, name: str, colour: tuple[float, float, float], opacity: float) -> str:
    mat = Sdf.PrimSpec(root, f"{name}_color", Sdf.SpecifierDef, "Material")
    shader = Sdf.PrimSpec(mat, "surfaceShader", Sdf.SpecifierDef, "Shader")
    attr(shader, "info:id", Sdf.ValueTypeNames.Token, "UsdPreviewSurface", uniform=True)
    attr(shader, "inputs:diffuseColor", Sdf.ValueTypeNames.Color3f, Gf.Vec3f(*colour))
    attr(shader, "inputs:emissiveColor", Sdf.ValueTypeNames.Color3f, Gf.Vec3f(0, 0, 0))
    attr(shader, "inputs:normal", Sdf.ValueTypeNames.Normal3f, Gf.Vec3f(1, 1, 1))
    attr(shader, "inputs:occlusion", Sdf.ValueTypeNames.Float, 1.0)
    attr(shader, "inputs:opacity", Sdf.ValueTypeNames.Float, opacity)
    out = attr(shader, "outputs:surface", Sdf.ValueTypeNames.Token, None)
    surface = attr(mat, "outputs:surface", Sdf.ValueTypeNames.Token, None)
    surface.connectionPathList.explicitItems = [out.path]
    return str(mat.path)


def write_cube_element(path: str, name: str, category: str, uuid: str, transform: Gf.Matrix4d,
                       scale: tuple[float, float, float], colour, opacity: float = 1.0) -> None:
    layer, root = new_element_layer(path, name, category, uuid)
    cube = Sdf.PrimSpec(root, name, Sdf.SpecifierDef, "Cube")
    material = add_preview_material(root, name, colour, opacity)
    binding = Sdf.RelationshipSpec(cube, "material:binding", False)
    binding.targetPathList.explicitItems = [Sdf.Path(material)]
    attr(cube, "size", Sdf.ValueTypeNames.Double, 1.0)
    attr(cube, "xformOp:scale", Sdf.ValueTypeNames.Double3, Gf.Vec3d(*scale))
    attr(cube, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d, transform)
    attr(cube, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, Vt.TokenArray(["xformOp:transform", "xformOp:scale"]),
         uniform=True)
    layer.Save()


def write_floor_element(path: str, name: str, uuid: str, outline, transform: Gf.Matrix4d) -> int:
    """A thin prism over the outline, in the floor's local XY plane. Returns its triangle count."""
    layer, root = new_element_layer(path, name, "Floor", uuid)
    mesh = Sdf.PrimSpec(root, name, Sdf.SpecifierDef, "Mesh")
    material = add_preview_material(root, name, (0.55, 0.45, 0.35), 1.0)
    binding = Sdf.RelationshipSpec(mesh, "material:binding", False)
    binding.targetPathList.explicitItems = [Sdf.Path(material)]
    n = len(outline)
    cx = sum(p[0] for p in outline) / n
    cz = sum(p[1] for p in outline) / n
    # Local Y maps to world -Z (see the floor transform), hence -(z - cz).
    top = [Gf.Vec3f(x - cx, -(z - cz), 0.00005) for x, z in outline]
    bottom = [Gf.Vec3f(x - cx, -(z - cz), -0.00005) for x, z in outline]
    points = top + bottom
    counts = [n, n] + [4] * n
    indices = list(range(n)) + list(reversed(range(n, 2 * n)))
    normals = [Gf.Vec3f(0, 0, 1)] * n + [Gf.Vec3f(0, 0, -1)] * n
    for i in range(n):
        j = (i + 1) % n
        indices += [i, n + i, n + j, j]
        ex, ey = points[j][0] - points[i][0], points[j][1] - points[i][1]
        length = math.hypot(ex, ey) or 1.0
        normals += [Gf.Vec3f(ey / length, -ex / length, 0)] * 4
    attr(mesh, "points", Sdf.ValueTypeNames.Point3fArray, Vt.Vec3fArray(points))
    attr(mesh, "faceVertexCounts", Sdf.ValueTypeNames.IntArray, Vt.IntArray(counts))
    attr(mesh, "faceVertexIndices", Sdf.ValueTypeNames.IntArray, Vt.IntArray(indices))
    normals_spec = attr(mesh, "normals", Sdf.ValueTypeNames.Normal3fArray, Vt.Vec3fArray(normals))
    normals_spec.SetInfo("interpolation", "faceVarying")
    attr(mesh, "subdivisionScheme", Sdf.ValueTypeNames.Token, "none", uniform=True)
    attr(mesh, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d, transform * Gf.Matrix4d().SetTranslate(
        Gf.Vec3d(cx, 0, cz)))
    attr(mesh, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, Vt.TokenArray(["xformOp:transform"]), uniform=True)
    layer.Save()
    return sum(c - 2 for c in counts)


def build_room(outdir: str, seed: int) -> tuple[str, int]:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory(dir=outdir, prefix=".room-") as stage_dir:
        outline = room_outline(rng)
        walls = []
        for i in range(len(outline)):
            (x0, z0), (x1, z1) = outline[i], outline[(i + 1) % len(outline)]
            walls.append(((x0 + x1) / 2, (z0 + z1) / 2, math.hypot(x1 - x0, z1 - z0), math.atan2(-(z1 - z0), x1 - x0)))
        # Two interior partition walls.
        walls.append((2.2, 2.0, 1.6, math.pi / 2))
        walls.append((3.6, 2.6, 1.2, 0.0))
        refs: dict[str, list[str]] = {}  # group prim path -> layer paths
        triangles = 0
        counters = {}
        colours = {"Wall": (0.92, 0.92, 0.9), "Door": (0.55, 0.4, 0.3), "Window": (0.7, 0.85, 0.95),
                   "Opening": (0.33, 0.33, 0.33)}

        def element_path(kind: str, folder: str) -> tuple[str, str]:
            n = counters.get(kind, 0)
            counters[kind] = n + 1
            name = f"{kind}{n}"
            return name, f"assets/Parametric/{folder}/{name}/{name}.usda"

        # Doors, windows and openings sit on perimeter walls; RoomPlan references each of them onto
        # the group prim of its host wall, next to the wall's own layer.
        hosted_on: dict[int, list[str]] = {}
        for kind, _, count in ROOM_ARCH[1:]:
            for _ in range(count):
                hosted_on.setdefault(int(rng.integers(0, len(outline))), []).append(kind)
        for w, (cx, cz, width, theta) in enumerate(walls):
            name, rel = element_path("Wall", "Walls")
            os.makedirs(os.path.join(stage_dir, os.path.dirname(rel)), exist_ok=True)
            write_cube_element(os.path.join(stage_dir, rel), name, "Wall", uuid_from(rng),
                               y_rotation(theta, cx, WALL_HEIGHT / 2, cz), (width, WALL_HEIGHT, 0.0001),
                               colours["Wall"])
            triangles += 12
            group = f"/Room/Parametric_grp/Arch_grp/Wall_{w}_grp"
            refs[group] = [rel]
            kinds = hosted_on.get(w, [])
            for k, kind in enumerate(kinds):
                folder = {"Door": "Doors", "Window": "Windows", "Opening": "Openings"}[kind]
                ename, erel = element_path(kind, folder)
                os.makedirs(os.path.join(stage_dir, os.path.dirname(erel)), exist_ok=True)
                ew = {"Door": 0.85, "Window": 1.1, "Opening": 1.6}[kind] * float(rng.uniform(0.9, 1.1))
                eh = {"Door": 2.0, "Window": 1.1, "Opening": 2.05}[kind]
                ey = {"Door": 1.0, "Window": 1.45, "Opening": 1.025}[kind]
                offset = ((k + 0.5) / len(kinds) - 0.5) * width  # spread along the wall
                ex, ez = cx + offset * math.cos(theta), cz - offset * math.sin(theta)
                category = "Door(Isopen: False)" if kind == "Door" else kind
                write_cube_element(os.path.join(stage_dir, erel), ename, category, uuid_from(rng),
                                   y_rotation(theta, ex, ey, ez), (ew, eh, 0.0005), colours[kind])
                triangles += 12
                refs[group].append(erel)

        floor_rel = "assets/Parametric/Floors/Floor0/Floor0.usda"
        os.makedirs(os.path.join(stage_dir, os.path.dirname(floor_rel)), exist_ok=True)
        floor_xf = Gf.Matrix4d(1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1)  # local Z = world +Y
        triangles += write_floor_element(os.path.join(stage_dir, floor_rel), "Floor0", uuid_from(rng),
                                         outline, floor_xf)
        refs["/Room/Parametric_grp/Floor_grp"] = [floor_rel]

        xs = [p[0] for p in outline]
        zs = [p[1] for p in outline]
        for category, count in ROOM_OBJECTS:
            group = f"/Room/Parametric_grp/Object_grp/{category}_grp"
            refs[group] = []
            for _ in range(count):
                name, rel = element_path(category, category)
                os.makedirs(os.path.join(stage_dir, os.path.dirname(rel)), exist_ok=True)
                w, h, d = (s * float(rng.uniform(0.9, 1.1)) for s in OBJECT_SIZES[category])
                theta = float(rng.integers(0, 4)) * math.pi / 2 + float(rng.normal(0, 0.03))
                x = float(rng.uniform(min(xs) + 0.6, max(xs) - 0.6))
                z = float(rng.uniform(min(zs) + 0.6, max(zs) - 0.6))
                colour = tuple(float(c) for c in rng.uniform(0.2, 0.8, 3))
                write_cube_element(os.path.join(stage_dir, rel), name, category, uuid_from(rng),
                                   y_rotation(theta, x, h / 2, z), (w, h, d), colour)
                triangles += 12
                refs[group].append(rel)

        root_path = os.path.join(stage_dir, "Room.usda")
        layer = Sdf.Layer.CreateNew(root_path)
        layer.pseudoRoot.SetInfo("metersPerUnit", 1.0)
        layer.pseudoRoot.SetInfo("upAxis", "Y")
        layer.defaultPrim = "Room"
        room = Sdf.PrimSpec(layer, "Room", Sdf.SpecifierDef, "Xform")
        room.kind = Kind.Tokens.assembly
        sections = Sdf.PrimSpec(room, "Section_grp", Sdf.SpecifierDef, "Xform")
        sections.kind = Kind.Tokens.group
        for label, y in (("livingRoom0", 0.0), ("livingRoom0_centerTop", WALL_HEIGHT)):
            sec = Sdf.PrimSpec(sections, label, Sdf.SpecifierDef, "Xform")
            attr(sec, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d,
                 Gf.Matrix4d().SetTranslate(Gf.Vec3d(sum(xs) / len(xs), y, sum(zs) / len(zs))))
            attr(sec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, Vt.TokenArray(["xformOp:transform"]), uniform=True)
        for group, layers in refs.items():
            prim = Sdf.CreatePrimInLayer(layer, group)
            for ancestor in prim.path.GetAncestorsRange():
                spec = layer.GetPrimAtPath(ancestor)
                if spec.specifier != Sdf.SpecifierDef:
                    spec.specifier = Sdf.SpecifierDef
                    spec.typeName = "Xform"
                    spec.kind = Kind.Tokens.group
            prim.referenceList.prependedItems = [Sdf.Reference("./" + rel) for rel in layers]
        layer.Save()
        out = os.path.join(outdir, "room.usdz")
        if not UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(root_path), out):
            raise SystemExit("gen-bench-inputs: packaging room.usdz failed")
        return out, triangles
