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

import base64
import io
import json
import math
import os
import random
import struct
import sys
import tempfile
import uuid
import zipfile

import numpy as np

FLOOR_Y = -1.25  # floor height in ARKit world space (metres): the device starts above the floor
ZIP_DATE = (2024, 1, 1, 0, 0, 0)


# ---------------------------------------------------------------------------------------------
# Numbers: everything is Float32, as in RoomPlan.

def f32(x):
    return float(np.float32(x))


def fmt32(x):
    """Shortest Float32 text as Swift prints it (1 → "1", 1e-05 → "1e-05")."""
    v = np.float32(x)
    if v == 0:
        return "-0" if math.copysign(1.0, float(v)) < 0 else "0"
    a = abs(float(v))
    if 1e-4 <= a < 2 ** 24:
        return np.format_float_positional(v, unique=True, trim="-")
    return np.format_float_scientific(v, unique=True, trim="-", exp_digits=2)


def fmt64(x):
    """A Float32 widened to double, as RoomPlan's USDA writes matrices and scales."""
    v = f32(x)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


class F32(float):
    """A JSON number written as Float32."""


# ---------------------------------------------------------------------------------------------
# Swift JSONEncoder style: sorted keys, 2-space indent, "key" : value, empty containers on 3 lines,
# "/" escaped, no final newline.

def jstr(s):
    return json.dumps(s, ensure_ascii=False).replace("/", "\\/")


def swift_json(v, indent=0):
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{\n\n" + pad + "}"
        items = [pad + "  " + jstr(k) + " : " + swift_json(v[k], indent + 1) for k in sorted(v)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v:
            return "[\n\n" + pad + "]"
        return "[\n" + ",\n".join(pad + "  " + swift_json(x, indent + 1) for x in v) + "\n" + pad + "]"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, F32):
        return fmt32(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt32(v)
    if isinstance(v, str):
        return jstr(v)
    raise TypeError(type(v))


# ---------------------------------------------------------------------------------------------
# Transforms: 16 floats, column-major (simd_float4x4), metres, +Y up.

def frame(x_axis, y_axis, origin, w=1.0):
    x = np.array(x_axis, dtype=float)
    y = np.array(y_axis, dtype=float)
    z = np.cross(x, y)
    cols = [list(x) + [0], list(y) + [0], list(z) + [0], list(origin) + [w]]
    return [f32(v) for c in cols for v in c]


def yaw_frame(theta, origin):
    """Rotation about +Y by theta (radians), local X = (cos, 0, -sin)."""
    return frame((math.cos(theta), 0, -math.sin(theta)), (0, 1, 0), origin)


def usd_matrix(m):
    rows = [m[i * 4:(i + 1) * 4] for i in range(4)]
    return "( " + ", ".join("(" + ", ".join(fmt64(v) for v in r) + ")" for r in rows) + " )"


def transform_point(m, p):
    x, y, z = p
    return (m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
            m[2] * x + m[6] * y + m[10] * z + m[14])


# ---------------------------------------------------------------------------------------------
# The room description shared by the JSON and the USD.

class Rng:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def uuid(self):
        return str(uuid.UUID(bytes=bytes(self.r.getrandbits(8) for _ in range(16)), version=4)).upper()

    def bytes(self, n):
        return bytes(self.r.getrandbits(8) for _ in range(n))


class Room:
    def __init__(self, name, seed):
        self.name = name
        self.rng = Rng(seed)
        self.walls, self.doors, self.windows, self.openings, self.floors, self.objects = [], [], [], [], [], []
        self.sections = []
        self.reference_origin = None

    def add_walls(self, outline, height, confidences):
        """Walls along a closed plan outline [(x, z), ...]; local Z faces into the room."""
        cx = sum(p[0] for p in outline) / len(outline)
        cz = sum(p[1] for p in outline) / len(outline)
        for i, a in enumerate(outline):
            b = outline[(i + 1) % len(outline)]
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            d = (b[0] - a[0], b[1] - a[1])
            length = math.hypot(*d)
            x = (d[0] / length, 0, d[1] / length)
            z = np.cross(x, (0, 1, 0))
            if z[0] * (cx - mid[0]) + z[2] * (cz - mid[1]) < 0:  # face the room
                x = (-x[0], 0, -x[2])
            self.walls.append(dict(
                kind="wall", id=self.rng.uuid(), dims=(length, height, 0), confidence=confidences[i],
                transform=frame(x, (0, 1, 0), (mid[0], FLOOR_Y + height / 2, mid[1])), hosted=[]))

    def add_hosted(self, kind, wall_index, offset, width, height, sill=0.0, is_open=None, confidence="high"):
        wall = self.walls[wall_index]
        t = wall["transform"]
        x = (t[0], t[1], t[2])
        c = (t[12] + x[0] * offset, FLOOR_Y + sill + height / 2, t[14] + x[2] * offset)
        e = dict(kind=kind, id=self.rng.uuid(), dims=(width, height, 0), confidence=confidence,
                 transform=frame(x, (0, 1, 0), c), parent=wall["id"], is_open=is_open)
        {"door": self.doors, "window": self.windows, "opening": self.openings}[kind].append(e)
        wall["hosted"].append(e)
        return e

    def add_floor(self, outline, confidence="high"):
        xs = [p[0] for p in outline]
        zs = [p[1] for p in outline]
        ox, oz = (min(xs) + max(xs)) / 2, (min(zs) + max(zs)) / 2
        # Local X = world +X, local Y = world -Z, local Z = world +Y.
        t = frame((1, 0, 0), (0, 0, -1), (ox, FLOOR_Y, oz))
        corners = [(p[0] - ox, -(p[1] - oz), 1.1920929e-07) for p in outline]
        self.floors.append(dict(kind="floor", id=self.rng.uuid(), dims=(max(xs) - min(xs), max(zs) - min(zs), 0),
                                confidence=confidence, transform=t, corners=corners))

    def add_object(self, category, center, size, yaw=0.0, parent=None, attributes=None, confidence="high"):
        w, h, d = size
        e = dict(kind="object", category=category, id=self.rng.uuid(), dims=size, confidence=confidence,
                 transform=yaw_frame(yaw, (center[0], FLOOR_Y + h / 2, center[1])),
                 parent=parent["id"] if parent else None, attributes=attributes or {})
        self.objects.append(e)
        return e

    # -----------------------------------------------------------------------------------------
    def json(self, ios16=False):
        def enum(name, payload=None):
            return {name: payload or {}}

        def surface(e, category):
            d = {
                "category": category,
                "completedEdges": [],
                "confidence": enum(e["confidence"]),
                "curve": None,
                "dimensions": [F32(v) for v in e["dims"]],
                "identifier": e["id"],
                "transform": [F32(v) for v in e["transform"]],
            }
            if not ios16:
                d["parentIdentifier"] = e.get("parent")
                d["polygonCorners"] = [[F32(c) for c in p] for p in e.get("corners", [])]
                d["story"] = 0
            return d

        def door_category(e):
            return enum("door", {"isOpen": bool(e["is_open"])})

        room = {
            "coreModel": base64.b64encode(self.rng.bytes(1536)).decode(),
            "walls": [surface(w, enum("wall")) for w in self.walls],
            "doors": [surface(d, door_category(d)) for d in self.doors],
            "windows": [surface(w, enum("window")) for w in self.windows],
            "openings": [surface(o, enum("opening")) for o in self.openings],
            "objects": [],
        }
        for o in self.objects:
            d = {
                "category": enum(o["category"]),
                "confidence": enum(o["confidence"]),
                "dimensions": [F32(v) for v in o["dims"]],
                "identifier": o["id"],
                "transform": [F32(v) for v in o["transform"]],
            }
            if not ios16:
                d["attributes"] = o["attributes"]
                d["parentIdentifier"] = o["parent"]
                d["story"] = 0
            room["objects"].append(d)
        if not ios16:
            room["floors"] = [surface(f, enum("floor")) for f in self.floors]
            room["sections"] = [{"center": [F32(c) for c in s["center"]], "label": s["label"], "story": 0}
                                for s in self.sections]
            room["story"] = 0
            room["version"] = 2
            if self.reference_origin is not None:
                room["referenceOriginTransform"] = [F32(v) for v in self.reference_origin]
        return swift_json(room).encode()


# ---------------------------------------------------------------------------------------------
# USDA text in RoomPlan's layout.

HEADER = '#usda 1.0\n(\n    defaultPrim = "{0}"\n    metersPerUnit = 1\n    upAxis = "Y"\n)\n\n'


def material_block(name, color, opacity, indent="    "):
    c = ", ".join(fmt64(v) for v in color)
    lines = [
        f'def Material "{name}_color"',
        "{",
        f"    token outputs:surface.connect = </{name}/{name}_color/surfaceShader.outputs:surface>",
        "",
        '    def Shader "surfaceShader"',
        "    {",
        '        uniform token info:id = "UsdPreviewSurface"',
        f"        color3f inputs:diffuseColor = ({c})",
        "        color3f inputs:emissiveColor = (0, 0, 0)",
        "        normal3f inputs:normal = (1, 1, 1)",
        "        float inputs:occlusion = 1",
        f"        float inputs:opacity = {fmt64(opacity)}",
        "        token outputs:surface",
        "    }",
        "}",
    ]
    return "\n".join(indent + l if l else "" for l in lines) + "\n"


def element_layer(name, category, ident, body, color=(1, 1, 1), opacity=1.0):
    custom = f'        string Category = "{category}"\n' if category is not None else ""
    return (HEADER.format(name)
            + f'def Xform "{name}" (\n'
            + "    assetInfo = {\n"
            + f"        asset identifier = @./{name}.usda@\n"
            + f'        string name = "{name}"\n'
            + "    }\n"
            + "    customData = {\n"
            + custom
            + f'        string UUID = "{ident}"\n'
            + "    }\n"
            + '    kind = "component"\n'
            + ")\n{\n"
            + body
            + "\n"
            + material_block(name, color, opacity)
            + "}\n\n")


def cube_body(name, transform, scale):
    s = ", ".join(fmt64(v) for v in scale)
    return (f'    def Cube "{name}"\n    {{\n'
            f"        rel material:binding = </{name}/{name}_color>\n"
            "        double size = 1\n"
            f"        double3 xformOp:scale = ({s})\n"
            f"        matrix4d xformOp:transform = {usd_matrix(transform)}\n"
            '        uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:scale"]\n'
            "    }\n")


def mesh_body(name, transform, points, counts, indices, normals):
    pts = ", ".join("(" + ", ".join(fmt32(c) for c in p) + ")" for p in points)
    nrm = ", ".join("(" + ", ".join(fmt32(c) for c in n) + ")" for n in normals)
    return (f'    def Mesh "{name}"\n    {{\n'
            f"        int[] faceVertexCounts = [{', '.join(str(c) for c in counts)}]\n"
            f"        int[] faceVertexIndices = [{', '.join(str(i) for i in indices)}]\n"
            f"        rel material:binding = </{name}/{name}_color>\n"
            f"        normal3f[] normals = [{nrm}]\n"
            f"        point3f[] points = [{pts}]\n"
            '        uniform token subdivisionScheme = "none"\n'
            f"        matrix4d xformOp:transform = {usd_matrix(transform)}\n"
            '        uniform token[] xformOpOrder = ["xformOp:transform"]\n'
            "    }\n")


def box_mesh(x0, x1, y0, y1, z0, z1):
    """RoomPlan's mesh box: 24 vertices (4 per face, per-vertex normals), 12 triangles."""
    faces = [
        ((0, 0, -1), [(x0, y0, z0), (x0, y1, z0), (x1, y1, z0), (x1, y0, z0)]),
        ((0, 0, 1), [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]),
        ((0, 1, 0), [(x0, y1, z1), (x1, y1, z1), (x1, y1, z0), (x0, y1, z0)]),
        ((0, -1, 0), [(x1, y0, z0), (x1, y0, z1), (x0, y0, z1), (x0, y0, z0)]),
        ((1, 0, 0), [(x1, y0, z1), (x1, y0, z0), (x1, y1, z0), (x1, y1, z1)]),
        ((-1, 0, 0), [(x0, y0, z0), (x0, y0, z1), (x0, y1, z1), (x0, y1, z0)]),
    ]
    points, normals, indices = [], [], []
    for n, quad in faces:
        b = len(points)
        points += quad
        normals += [n] * 4
        indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    return points, [3] * 12, indices, normals


def ear_clip(poly):
    """Triangles (counter-clockwise) of a simple polygon [(x, y), ...]."""
    idx = list(range(len(poly)))
    area = sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
               for i in idx)
    if area < 0:
        idx.reverse()

    def cross(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    tris = []
    guard = 0
    while len(idx) > 3 and guard < 10000:
        guard += 1
        for k in range(len(idx)):
            a, b, c = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            if cross(poly[a], poly[b], poly[c]) <= 0:
                continue
            if any(cross(poly[a], poly[b], poly[p]) >= 0 and cross(poly[b], poly[c], poly[p]) >= 0
                   and cross(poly[c], poly[a], poly[p]) >= 0 for p in idx if p not in (a, b, c)):
                continue
            tris.append((a, b, c))
            idx.pop(k)
            break
    tris.append(tuple(idx))
    return tris


def prism_mesh(corners, thickness):
    """The floor prism: polygon top at z = 0 (normal +Z), bottom at -thickness, sides."""
    poly = [(c[0], c[1]) for c in corners]
    n = len(poly)
    tris = ear_clip(poly)
    points = [(x, y, 0) for x, y in poly] + [(x, y, -thickness) for x, y in poly]
    normals = [(0, 0, 1)] * n + [(0, 0, -1)] * n
    indices = []
    for a, b, c in tris:
        indices += [a, b, c]
    for a, b, c in tris:
        indices += [n + a, n + c, n + b]
    ccw = sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n)) > 0
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        if not ccw:
            p, q = q, p
        ln = math.hypot(q[0] - p[0], q[1] - p[1])
        nn = ((q[1] - p[1]) / ln, -(q[0] - p[0]) / ln, 0)
        b = len(points)
        points += [(p[0], p[1], 0), (p[0], p[1], -thickness), (q[0], q[1], -thickness), (q[0], q[1], 0)]
        normals += [nn] * 4
        indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    return points, [3] * (len(indices) // 3), indices, normals


# ---------------------------------------------------------------------------------------------
# The embedded catalog model (`.model` export), written by usd-core as a crate file.

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


# ---------------------------------------------------------------------------------------------
# Packaging: stored entries at 64-byte-aligned offsets, fixed dates.

def write_usdz(path, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED, allowZip64=False) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            offset = buf.tell()
            pad = (-(offset + 30 + len(name.encode()))) % 64
            if 0 < pad < 4:
                pad += 64
            info.extra = struct.pack("<HH", 0x1986, pad - 4) + b"\0" * (pad - 4) if pad else b""
            zf.writestr(info, data)
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
            assert start % 64 == 0, (info.filename, start)
    with open(path, "wb") as f:
        f.write(data)


def group(name, refs, indent, children=""):
    pad = " " * indent
    if refs:
        if len(refs) == 1:
            r = f"{pad}    prepend references = @./{refs[0]}@\n"
        else:
            inner = ",\n".join(f"{pad}        @./{x}@" for x in refs)
            r = f"{pad}    prepend references = [\n{inner}\n{pad}    ]\n"
    else:
        r = ""
    return (f'{pad}def Xform "{name}" (\n{pad}    kind = "group"\n{r}{pad})\n{pad}{{\n'
            + children + f"{pad}}}\n")


def join_blocks(blocks):
    return "\n".join(blocks)


def section_block(sections, indent):
    pad = " " * indent
    out = []
    counts = {}
    for s in sections:
        n = counts.get(s["label"], 0)
        counts[s["label"]] = n + 1
        name = f'{s["label"]}{n}'
        t = frame((1, 0, 0), (0, 1, 0), s["center"])
        top = frame((1, 0, 0), (0, 1, 0), (0, 1.25, 0))
        out.append(
            f'{pad}def Xform "{name}" (\n{pad}    kind = "assembly"\n{pad})\n{pad}{{\n'
            f"{pad}    matrix4d xformOp:transform = {usd_matrix(t)}\n"
            f'{pad}    uniform token[] xformOpOrder = ["xformOp:transform"]\n\n'
            f'{pad}    def Xform "{name}_centerTop" (\n{pad}        kind = "assembly"\n{pad}    )\n{pad}    {{\n'
            f"{pad}        matrix4d xformOp:transform = {usd_matrix(top)}\n"
            f'{pad}        uniform token[] xformOpOrder = ["xformOp:transform"]\n'
            f"{pad}    }}\n{pad}}}\n")
    return join_blocks(out)


CATEGORY_NAME = {"wall": "Wall", "door": "Door", "window": "Window", "opening": "Opening", "floor": "Floor"}


def usd_category(e):
    if e["kind"] == "door":
        return "Door(Isopen: True)" if e["is_open"] else "Door(Isopen: False)"
    if e["kind"] == "object":
        return e["category"][0].upper() + e["category"][1:]
    return CATEGORY_NAME[e["kind"]]


def export_usdz(room, style, out_path, skip_ids=(), wider_walls=(), chair_mesh_height=None):
    """style: parametric | mesh | model | ios16."""
    folder = {"parametric": "Parametric", "mesh": "Mesh", "model": "Model", "ios16": "Mesh"}[style]
    top_group = {"parametric": "Parametric_grp", "mesh": "Mesh_grp", "model": "Model_grp", "ios16": "Mesh_grp"}[style]
    files = []
    counters = {}

    def next_name(prefix):
        n = counters.get(prefix, 0)
        counters[prefix] = n + 1
        return f"{prefix}{n}"

    def surface_body(e, name, thickness_kind):
        t = e["transform"]
        w, h = e["dims"][0], e["dims"][1]
        if style == "parametric":
            depth = {"wall": 0.0001, "floor": 0.0001}.get(e["kind"], 0.0005)
            return cube_body(name, t, (w, h, depth))
        if e["kind"] == "wall":
            extra = 0.16 if e["id"] in wider_walls else 0.0
            pts, counts, idx, nrm = box_mesh(-(w + extra) / 2, (w + extra) / 2, -h / 2, h / 2, -0.16, 0)
        else:
            pts, counts, idx, nrm = box_mesh(-w / 2, w / 2, -h / 2, h / 2, -0.04, 0.04)
        return mesh_body(name, t, pts, counts, idx, nrm)

    def hosted_color(kind):
        return (0.33, 0.33, 0.33) if kind in ("door", "window", "opening") else (1, 1, 1)

    def opacity(kind):
        if kind in ("door", "window", "opening") and style in ("mesh", "model", "ios16"):
            return 0.0
        return 1.0

    arch_children = []
    walls_refs = []
    for wi, wall in enumerate(room.walls):
        refs = []
        wname = f"Wall{wi}"
        if style == "ios16":
            path = f"assets/Mesh/Walls/{wname}.usda"
            files.append((path, element_layer(wname, None, wall["id"], surface_body(wall, wname, "wall"))))
            walls_refs.append(path)
            continue
        base = f"assets/{folder}/Walls/{wname}"
        files.append((f"{base}/{wname}.usda", element_layer(wname, "Wall", wall["id"], surface_body(wall, wname, "wall"))))
        refs.append(f"{base}/{wname}.usda")
        for e in wall["hosted"]:
            if e["id"] in skip_ids:
                continue
            name = next_name(CATEGORY_NAME[e["kind"]])
            files.append((f"{base}/{name}.usda", element_layer(
                name, usd_category(e), e["id"], surface_body(e, name, e["kind"]), hosted_color(e["kind"]),
                opacity(e["kind"]))))
            refs.append(f"{base}/{name}.usda")
        arch_children.append(group(f"Wall_{wi}_grp", refs, 12))

    blocks = []
    if style == "ios16":
        blocks.append(group("Walls_grp", walls_refs, 8))
    else:
        blocks.append(group("Arch_grp", [], 8, join_blocks(arch_children)))
        for fi, fl in enumerate(room.floors):
            name = f"Floor{fi}"
            pts, counts, idx, nrm = prism_mesh(fl["corners"], 0.0001)
            files.append((f"assets/{folder}/Floors/{name}.usda", element_layer(
                name, "Floor", fl["id"], mesh_body(name, fl["transform"], pts, counts, idx, nrm))))
            blocks.append(group("Floor_grp", [f"assets/{folder}/Floors/{name}.usda"], 8))

    by_category = {}
    for o in room.objects:
        by_category.setdefault(o["category"], []).append(o)
    object_children = []
    catalog_written = {}
    for cat, objs in by_category.items():
        cname = cat[0].upper() + cat[1:]
        refs = []
        for o in objs:
            name = next_name(cname)
            path = f"assets/{folder}/{cname}/{name}.usda"
            w, h, d = o["dims"]
            t = o["transform"]
            if style == "parametric":
                body = cube_body(name, t, (w, h, d))
            elif style == "model" and cat in ("chair", "table"):
                model = "DiningChair_sample" if cat == "chair" else "DiningTable_sample"
                if model not in catalog_written:
                    data, size = catalog_usdc(model, CHAIR_PARTS if cat == "chair" else TABLE_PARTS)
                    catalog_written[model] = size
                    files.append((f"assets/{folder}/{cname}/{model}.rooms.usdc", data))
                size = catalog_written[model]
                scale = [f32(w / size[0]), 0, 0, 0, 0, f32(h / size[1]), 0, 0, 0, 0, f32(d / size[2]), 0, 0, 0, 0, 1]
                body = (f'    def Xform "{name}"\n    {{\n'
                        f"        matrix4d xformOp:transform = {usd_matrix(t)}\n"
                        '        uniform token[] xformOpOrder = ["xformOp:transform"]\n\n'
                        f'        def Xform "model" (\n'
                        f"            prepend references = @./{model}.rooms.usdc@\n"
                        "        )\n        {\n"
                        f"            matrix4d xformOp:transform = {usd_matrix(scale)}\n"
                        '            uniform token[] xformOpOrder = ["xformOp:transform"]\n'
                        "        }\n    }\n")
            else:
                mh = chair_mesh_height if (cat == "chair" and chair_mesh_height) else h
                pts, counts, idx, nrm = box_mesh(-w / 2, w / 2, -h / 2, -h / 2 + mh, -d / 2, d / 2)
                body = mesh_body(name, t, pts, counts, idx, nrm)
            files.append((path, element_layer(name, usd_category(o), o["id"], body)))
            refs.append(path)
        object_children.append(group(f"{cname}_grp", refs, 12))
    blocks.append(group("Object_grp", [], 8, join_blocks(object_children)))

    root_name = "room" if style == "ios16" else "Room"
    sections = ""
    if style != "ios16" and room.sections:
        sections = group("Section_grp", [], 4, section_block(room.sections, 8)) + "\n"
    root = (HEADER.format(root_name)
            + f'def Xform "{root_name}" (\n    kind = "assembly"\n)\n{{\n'
            + sections
            + group(top_group, [], 4, join_blocks(blocks))
            + "}\n\n")
    entries = [(f"{root_name}.usda", root.encode())]
    for path, data in files:
        entries.append((path, data.encode() if isinstance(data, str) else data))
    write_usdz(out_path, entries)


# ---------------------------------------------------------------------------------------------
# The four samples.

def dining_attrs():
    return {"ChairArmType": "missing", "ChairBackType": "existing", "ChairLegType": "four", "ChairType": "dining"}


def parametric_two_sections():
    r = Room("parametric_two_sections", seed=17)
    # 6 × 5 m with a 1 × 1 m notch in the south wall: 8 corners, area 29 m², perimeter 24 m.
    outline = [(-3, -2.5), (3, -2.5), (3, 2.5), (0.5, 2.5), (0.5, 1.5), (-0.5, 1.5), (-0.5, 2.5), (-3, 2.5)]
    r.add_walls(outline, 2.5, ["high"] * 8)
    r.add_hosted("door", 0, -1.6, 0.9, 2.05, is_open=True)
    r.add_hosted("door", 0, 1.7, 0.8, 2.05, is_open=False, confidence="medium")
    r.add_hosted("window", 0, 0.1, 1.2, 1.1, sill=0.9)
    r.add_hosted("window", 1, 0.0, 1.4, 1.2, sill=0.8)
    r.add_floor(outline)
    table = r.add_object("table", (-1.5, -0.5), (1.6, 0.75, 0.9), attributes={"TableShapeType": "rectangular",
                                                                               "TableType": "dining"})
    for dx, dz, yaw in [(-0.45, -0.75, 0.0), (0.45, -0.75, 0.0), (-0.45, 0.75, math.pi), (0.45, 0.75, math.pi)]:
        r.add_object("chair", (-1.5 + dx, -0.5 + dz), (0.45, 0.9, 0.5), yaw=yaw, parent=table,
                     attributes=dining_attrs(), confidence="medium")
    r.add_object("sofa", (1.8, 1.6), (2.0, 0.85, 0.9), yaw=math.pi, attributes={"SofaType": "rectangular"})
    r.add_object("storage", (2.6, -1.5), (0.5, 1.8, 0.9), yaw=-math.pi / 2, attributes={"StorageType": "cabinet"})
    r.add_object("television", (1.8, -2.3), (1.2, 0.7, 0.1))
    r.sections = [dict(label="diningRoom", center=(-1.5, FLOOR_Y, 0.0)), dict(label="livingRoom", center=(1.5, FLOOR_Y, 0.0))]
    r.reference_origin = yaw_frame(0.3, (0.25, 0.1, -0.4))
    return r, "parametric", {}


def mesh_opening_unmatched():
    r = Room("mesh_opening_unmatched", seed=23)
    outline = [(-2, -1.5), (2, -1.5), (2, 1.5), (-2, 1.5)]  # 4 × 3 m
    r.add_walls(outline, 2.4, ["high", "high", "medium", "low"])
    r.add_hosted("door", 1, 0.4, 0.85, 2.0, is_open=True)
    r.add_hosted("window", 2, 0.0, 1.5, 1.1, sill=0.9)
    opening = r.add_hosted("opening", 3, 0.0, 1.2, 2.1)
    r.add_floor(outline)
    r.add_object("bed", (-0.6, 0.3), (1.6, 0.55, 2.0), yaw=math.pi / 2)
    r.add_object("storage", (1.6, -1.2), (0.6, 0.8, 0.45), attributes={"StorageType": "shelf"})
    r.add_object("chair", (1.4, 0.9), (0.55, 1.003, 0.6), attributes={"ChairType": "swivel"}, confidence="low")
    r.sections = [dict(label="bedroom", center=(0.0, FLOOR_Y, 0.0))]
    return r, "mesh", dict(skip_ids={opening["id"]}, wider_walls={r.walls[0]["id"], r.walls[2]["id"]},
                           chair_mesh_height=0.643)


def model_catalog():
    r = Room("model_catalog", seed=31)
    outline = [(-1.75, -1.5), (1.75, -1.5), (1.75, 1.5), (-1.75, 1.5)]  # 3.5 × 3 m
    r.add_walls(outline, 2.6, ["high", "high", "high", "medium"])
    r.add_hosted("door", 2, -0.8, 0.9, 2.1, is_open=False)
    r.add_hosted("window", 0, 0.3, 1.0, 1.2, sill=0.9)
    r.add_floor(outline)
    table = r.add_object("table", (0.2, 0.0), (1.2, 0.75, 0.8), yaw=0.2, attributes={"TableShapeType": "rectangular",
                                                                                      "TableType": "dining"})
    r.add_object("chair", (0.2 + 0.1, -0.6), (0.46, 0.92, 0.5), yaw=0.2, parent=table, attributes=dining_attrs())
    r.add_object("chair", (0.2 - 0.1, 0.6), (0.46, 0.92, 0.5), yaw=0.2 + math.pi, parent=table, attributes=dining_attrs())
    r.sections = [dict(label="diningRoom", center=(0.0, FLOOR_Y, 0.0))]
    r.reference_origin = frame((1, 0, 0), (0, 1, 0), (0, 0, 0))
    return r, "model", {}


def ios16_mesh():
    r = Room("ios16_mesh", seed=16)
    outline = [(-2.5, -2), (2.5, -2), (2.5, 2), (-2.5, 2)]  # 5 × 4 m: area 20 m², perimeter 18 m
    r.add_walls(outline, 2.5, ["high", "high", "high", "medium"])
    r.walls[1]["transform"][15] = f32(0.99999994)  # as some iOS 16 exports write it
    r.add_object("sofa", (0.0, 1.4), (2.1, 0.9, 0.95), yaw=math.pi)
    r.add_object("television", (0.0, -1.9), (1.3, 0.8, 0.12))
    r.add_object("storage", (-2.2, 0.0), (0.45, 1.9, 1.0), yaw=math.pi / 2)
    return r, "ios16", {}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "roomplan")
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
