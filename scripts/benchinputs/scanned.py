"""dense.usdz and huge.usdz: scanned-room-like crate files of many triangles, with a generated PNG."""

from __future__ import annotations

import math
import os
import struct
import tempfile
import zlib

import numpy as np
from pxr import Gf, Kind, Sdf, Usd, UsdGeom, UsdShade, UsdUtils, Vt


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
