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
import math
import os
import shutil
import struct
import sys
import tempfile
import time
import zlib

os.environ.pop("USD_WRITE_NEW_USDC_FILES_AS_VERSION", None)  # usd-core defaults, read at pxr import

import numpy as np  # noqa: E402
from pxr import Gf, Kind, Sdf, Usd, UsdGeom, UsdShade, UsdUtils, Vt  # noqa: E402

# ---------------------------------------------------------------------------------------------------
# room.usdz
# ---------------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------------
# dense.usdz / huge.usdz
# ---------------------------------------------------------------------------------------------------


def png_rgb(image: np.ndarray) -> bytes:
    height, width, _ = image.shape
    raw = np.concatenate([np.zeros((height, 1), np.uint8), image.reshape(height, width * 3)], axis=1).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b""))


def wood_texture(rng: np.random.Generator, size: int = 1024) -> bytes:
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    rings = np.sin((x * 9 + 2.5 * np.sin(y * 5.0) + 0.8 * np.sin(x * 23 + y * 3)) * 2 * np.pi)
    grain = rng.normal(0, 1, (size, size)).astype(np.float32)
    base = np.array([150, 105, 60], np.float32)
    shade = (1.0 + 0.18 * rings)[..., None] + 0.035 * grain[..., None]
    return png_rgb(np.clip(base * shade, 0, 255).astype(np.uint8))


def surface(kind: str, nu: int, nv: int, dims: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Grid of (nv+1, nu+1, 3) points of a parametric surface with scan-like bumps."""
    u = np.linspace(0.0, 1.0, nu + 1, dtype=np.float64)
    v = np.linspace(0.0, 1.0, nv + 1, dtype=np.float64)
    uu, vv = np.meshgrid(u, v)
    phase = rng.uniform(0, 2 * np.pi, 4)
    bumps = (0.02 * np.sin(uu * 17 + phase[0]) * np.sin(vv * 13 + phase[1])
             + 0.006 * np.sin(uu * 71 + phase[2]) * np.sin(vv * 59 + phase[3]))
    if kind == "plane":
        p = np.stack([(uu - 0.5) * dims[0], vv * dims[1], bumps * 0.2], axis=-1)
    elif kind == "blob":
        theta, phi = uu * 2 * np.pi, vv * np.pi
        r = 1.0 + 0.15 * np.sin(3 * theta + phase[0]) * np.sin(2 * phi) + bumps
        p = np.stack([r * np.sin(phi) * np.cos(theta), -r * np.cos(phi), r * np.sin(phi) * np.sin(theta)], axis=-1)
        p = p * dims / 2
    elif kind == "torus":
        theta, phi = uu * 2 * np.pi, vv * 2 * np.pi
        ring = 1.0 + (0.35 + bumps) * np.cos(phi)
        p = np.stack([ring * np.cos(theta), (0.35 + bumps) * np.sin(phi), ring * np.sin(theta)], axis=-1)
        p = p * dims / 2.7
    else:  # "box": a superellipsoid, furniture-like
        theta, phi = uu * 2 * np.pi - np.pi, vv * np.pi - np.pi / 2
        e = 0.25

        def spow(a):
            return np.sign(a) * np.abs(a) ** e

        p = np.stack([spow(np.cos(phi)) * spow(np.cos(theta)), spow(np.sin(phi)),
                      spow(np.cos(phi)) * spow(np.sin(theta))], axis=-1) * (1 + 0.3 * bumps[..., None])
        p = p * dims / 2
    return p


def vertex_normals(grid: np.ndarray) -> np.ndarray:
    du = np.gradient(grid, axis=1)
    dv = np.gradient(grid, axis=0)
    n = np.cross(dv, du)
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    fallback = np.zeros_like(n)
    fallback[..., 1] = 1.0
    return np.where(length > 1e-12, n / np.maximum(length, 1e-12), fallback)


def grid_triangles(nu: int, nv: int) -> np.ndarray:
    j, i = np.meshgrid(np.arange(nu), np.arange(nv))
    v00 = (i * (nu + 1) + j).ravel()
    v01, v10 = v00 + 1, v00 + nu + 1
    v11 = v10 + 1
    return np.stack([np.stack([v00, v10, v11], 1), np.stack([v00, v11, v01], 1)], 1).reshape(-1, 3).astype(np.int32)


def make_material(stage: Usd.Stage, path: str, colour, textured: bool) -> UsdShade.Material:
    material = UsdShade.Material.Define(stage, path)
    shader = UsdShade.Shader.Define(stage, path + "/PreviewSurface")
    shader.CreateIdAttr("UsdPreviewSurface")
    shader.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(0.7)
    if textured:
        reader = UsdShade.Shader.Define(stage, path + "/StReader")
        reader.CreateIdAttr("UsdPrimvarReader_float2")
        reader.CreateInput("varname", Sdf.ValueTypeNames.Token).Set("st")
        st_out = reader.CreateOutput("result", Sdf.ValueTypeNames.Float2)
        texture = UsdShade.Shader.Define(stage, path + "/Albedo")
        texture.CreateIdAttr("UsdUVTexture")
        texture.CreateInput("file", Sdf.ValueTypeNames.Asset).Set(Sdf.AssetPath("./textures/albedo.png"))
        texture.CreateInput("st", Sdf.ValueTypeNames.Float2).ConnectToSource(st_out)
        texture.CreateInput("wrapS", Sdf.ValueTypeNames.Token).Set("repeat")
        texture.CreateInput("wrapT", Sdf.ValueTypeNames.Token).Set("repeat")
        rgb = texture.CreateOutput("rgb", Sdf.ValueTypeNames.Float3)
        shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).ConnectToSource(rgb)
    else:
        shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*colour))
    material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
    return material


def build_scanned(outdir: str, name: str, seed: int, target_triangles: int, texture: bool,
                  face_varying_weight: float) -> tuple[str, int]:
    """A room of walls, floor and furniture meshes totalling about target_triangles. A few small meshes
    (relative size face_varying_weight) carry per face-vertex normals and st, like catalog models."""
    rng = np.random.default_rng(seed)
    plan = [("plane", "Walls", f"Wall_{i}", np.array([5.0, 2.4, 1.0]), 3.0) for i in range(4)]
    plan.append(("plane", "Floor", "Floor_0", np.array([6.0, 5.0, 1.0]), 4.0))
    kinds = ("box", "box", "blob", "torus")
    face_varying = set()
    for i in range(36):
        kind = kinds[i % len(kinds)]
        dims = rng.uniform(0.3, 1.6, 3)
        weight = float(rng.uniform(0.4, 1.6))
        if i % 12 == 5:
            face_varying.add(f"Object_{i}")
            weight *= face_varying_weight
        plan.append((kind, "Objects", f"Object_{i}", dims, weight))
    total_weight = sum(p[4] for p in plan)

    with tempfile.TemporaryDirectory(dir=outdir, prefix=f".{name}-") as stage_dir:
        root_path = os.path.join(stage_dir, f"{name}.usdc")
        stage = Usd.Stage.CreateNew(root_path)
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0)
        room = UsdGeom.Xform.Define(stage, "/Room")
        stage.SetDefaultPrim(room.GetPrim())
        Usd.ModelAPI(room.GetPrim()).SetKind(Kind.Tokens.assembly)
        materials = [make_material(stage, "/Room/Materials/Textured", (1, 1, 1), texture)]
        for k in range(5):
            materials.append(make_material(stage, f"/Room/Materials/Plain_{k}",
                                           tuple(float(c) for c in rng.uniform(0.2, 0.9, 3)), False))
        triangles = 0
        for index, (kind, folder, prim_name, dims, weight) in enumerate(plan):
            share = target_triangles * weight / total_weight
            aspect = 2.0 if kind in ("blob", "torus", "box") else dims[0] / dims[1]
            nv = max(4, int(round(math.sqrt(share / 2 / aspect))))
            nu = max(4, int(round(share / 2 / nv)))
            grid = surface(kind, nu, nv, dims, rng)
            normals = vertex_normals(grid).reshape(-1, 3).astype(np.float32)
            points = grid.reshape(-1, 3).astype(np.float32)
            uu, vv = np.meshgrid(np.linspace(0, 1, nu + 1), np.linspace(0, 1, nv + 1))
            st = np.stack([uu * max(1.0, dims[0]), vv * max(1.0, dims[1])], -1).reshape(-1, 2).astype(np.float32)
            tris = grid_triangles(nu, nv)
            triangles += len(tris)
            per_corner = prim_name in face_varying
            if per_corner:
                flat = tris.ravel()
                normals, st = normals[flat], st[flat]

            mesh = UsdGeom.Mesh.Define(stage, f"/Room/Geometry/{folder}/{prim_name}")
            mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points))
            mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(tris), 3, np.int32)))
            mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(tris.ravel()))
            mesh.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(normals))
            interpolation = UsdGeom.Tokens.faceVarying if per_corner else UsdGeom.Tokens.vertex
            mesh.SetNormalsInterpolation(interpolation)
            UsdGeom.PrimvarsAPI(mesh).CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray, interpolation).Set(
                Vt.Vec2fArray.FromNumpy(st))
            lo, hi = points.min(axis=0), points.max(axis=0)
            mesh.CreateExtentAttr(Vt.Vec3fArray([Gf.Vec3f(*map(float, lo)), Gf.Vec3f(*map(float, hi))]))
            mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            xform = UsdGeom.Xformable(mesh)
            if folder == "Walls":
                rot = Gf.Rotation(Gf.Vec3d(0, 1, 0), 90.0 * index)
                xform.AddTransformOp().Set(Gf.Matrix4d().SetRotate(rot) * Gf.Matrix4d().SetTranslate(
                    rot.TransformDir(Gf.Vec3d(0, 0, -2.5))))
            elif folder == "Floor":
                xform.AddRotateXOp().Set(-90.0)
            else:
                xform.AddTranslateOp().Set(Gf.Vec3d(float(rng.uniform(-2.3, 2.3)), float(dims[1] / 2),
                                                    float(rng.uniform(-2.0, 2.0))))
                xform.AddRotateYOp().Set(float(rng.uniform(0, 360)))
            material = materials[0] if (texture and kind in ("plane", "box")) else materials[1 + index % 5]
            UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(material)
        stage.GetRootLayer().Save()
        del stage
        if texture:
            os.makedirs(os.path.join(stage_dir, "textures"), exist_ok=True)
            with open(os.path.join(stage_dir, "textures", "albedo.png"), "wb") as f:
                f.write(wood_texture(rng))
        out = os.path.join(outdir, f"{name}.usdz")
        if not UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(root_path), out):
            raise SystemExit(f"gen-bench-inputs: packaging {name}.usdz failed")
        return out, triangles


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
