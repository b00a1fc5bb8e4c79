"""Reading a .glb back: its JSON and BIN chunks, triangle count and world-space bounding box, and how a
peer's output compares with ours."""

from __future__ import annotations

import json
import math
import os
import struct


def read_glb_json(path: str) -> dict:
    """The JSON chunk of a glTF 2.0 binary; raises ValueError when the file is not one."""
    with open(path, "rb") as f:
        header = f.read(20)
        if len(header) < 20:
            raise ValueError("shorter than a GLB header")
        magic, version, length, chunk_len, chunk_type = struct.unpack("<4sIIII", header)
        if magic != b"glTF" or version != 2:
            raise ValueError(f"not a glTF 2.0 binary (magic {magic!r}, version {version})")
        if length != os.path.getsize(path):
            raise ValueError(f"header length {length} != file size {os.path.getsize(path)}")
        if chunk_type != 0x4E4F534A:
            raise ValueError("first chunk is not JSON")
        return json.loads(f.read(chunk_len))


def mat_mul(a: list[float], b: list[float]) -> list[float]:
    """4x4 column-major product a*b."""
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def node_matrix(node: dict) -> list[float]:
    if "matrix" in node:
        return [float(v) for v in node["matrix"]]
    tx, ty, tz = node.get("translation", (0.0, 0.0, 0.0))
    qx, qy, qz, qw = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    sx, sy, sz = node.get("scale", (1.0, 1.0, 1.0))
    r = [1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw), 2 * (qx * qz - qy * qw), 0.0,
         2 * (qx * qy - qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw), 0.0,
         2 * (qx * qz + qy * qw), 2 * (qy * qz - qx * qw), 1 - 2 * (qx * qx + qy * qy), 0.0,
         0.0, 0.0, 0.0, 1.0]
    for i in range(3):
        r[0 + i] *= sx
        r[4 + i] *= sy
        r[8 + i] *= sz
    r[12], r[13], r[14] = tx, ty, tz
    return r


def glb_binary_chunk(path: str) -> bytes:
    """The BIN chunk of a .glb (empty when it has none)."""
    with open(path, "rb") as f:
        data = f.read()
    offset = 12 + 8 + struct.unpack_from("<I", data, 12)[0]
    if offset + 8 <= len(data):
        length, kind = struct.unpack_from("<II", data, offset)
        if kind == 0x004E4942:
            return data[offset + 8:offset + 8 + length]
    return b""


def float_positions(doc: dict, binary: bytes, index: int, cache: dict):
    """POSITION accessor `index` as an (N, 3) float32 numpy array, or None when numpy is missing or the
    accessor is not plain float data in the BIN chunk (sparse, quantized or an external buffer)."""
    if index in cache:
        return cache[index]
    result = None
    try:
        import numpy as np
    except ImportError:
        np = None
    accessor = doc["accessors"][index]
    if np is not None and accessor.get("componentType") == 5126 and "bufferView" in accessor \
            and "sparse" not in accessor:
        view = doc["bufferViews"][accessor["bufferView"]]
        if view.get("buffer", 0) == 0 and "uri" not in doc["buffers"][0]:
            start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
            stride = view.get("byteStride", 12)
            count = accessor["count"]
            if count and start + stride * (count - 1) + 12 <= len(binary):
                result = np.ndarray((count, 3), dtype="<f4", buffer=binary, offset=start, strides=(stride, 4))
    cache[index] = result
    return result


def glb_summary(path: str) -> dict:
    """Triangle count (instanced meshes counted per node) and the world-space bounding box of a .glb:
    tight (every vertex transformed) when numpy is there, else from the POSITION accessors' min/max."""
    doc = read_glb_json(path)
    binary = glb_binary_chunk(path)
    nodes, meshes, accessors = doc.get("nodes", []), doc.get("meshes", []), doc.get("accessors", [])
    scenes = doc.get("scenes", [])
    scene = scenes[doc.get("scene", 0)] if scenes else {"nodes": list(range(len(nodes)))}
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    triangles = primitives = 0
    tight = True
    cache: dict = {}
    identity = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]
    stack = [(i, identity) for i in scene.get("nodes", [])]
    visits = 0
    while stack:
        index, parent = stack.pop()
        visits += 1
        if visits > 1_000_000:
            raise ValueError("node graph too large or cyclic")
        node = nodes[index]
        world = mat_mul(parent, node_matrix(node))
        if "mesh" in node:
            for prim in meshes[node["mesh"]].get("primitives", []):
                primitives += 1
                mode = prim.get("mode", 4)
                pos_index = prim.get("attributes", {}).get("POSITION")
                position = accessors[pos_index] if pos_index is not None else None
                count = accessors[prim["indices"]]["count"] if "indices" in prim else (position or {}).get("count", 0)
                triangles += count // 3 if mode == 4 else max(0, count - 2) if mode in (5, 6) else 0
                if position is None:
                    continue
                points = float_positions(doc, binary, pos_index, cache)
                if points is not None:
                    import numpy as np
                    m = np.array(world, dtype=np.float64).reshape(4, 4).T  # column-major -> rows
                    moved = points.astype(np.float64) @ m[:3, :3].T + m[:3, 3]
                    corners = [moved.min(axis=0).tolist(), moved.max(axis=0).tolist()]
                elif "min" in position and "max" in position:
                    tight = False
                    mn, mx = position["min"], position["max"]
                    corners = []
                    for corner in range(8):
                        p = [mx[i] if corner >> i & 1 else mn[i] for i in range(3)]
                        corners.append([world[a] * p[0] + world[4 + a] * p[1] + world[8 + a] * p[2] + world[12 + a]
                                        for a in range(3)])
                else:
                    continue
                for c in corners:
                    for axis in range(3):
                        lo[axis], hi[axis] = min(lo[axis], c[axis]), max(hi[axis], c[axis])
        stack.extend((child, world) for child in node.get("children", []))
    has_box = lo[0] <= hi[0]
    return {"triangles": triangles, "primitives": primitives, "nodes": len(nodes), "meshes": len(meshes),
            "bbox_min": lo if has_box else None, "bbox_max": hi if has_box else None,
            "extent": [hi[i] - lo[i] for i in range(3)] if has_box else None, "bbox_tight": tight,
            "generator": doc.get("asset", {}).get("generator")}


def compare_to(reference: dict | None, summary: dict | None) -> str:
    """How a peer's output differs from ours: triangle count and world-space extent (1 % tolerance)."""
    if not reference or not summary:
        return "–"
    notes = []
    if summary["triangles"] != reference["triangles"]:
        notes.append(f"{summary['triangles'] - reference['triangles']:+d} triangles")
    a, b = reference.get("extent"), summary.get("extent")
    if a and b:
        def close(x: float, y: float) -> bool:
            return abs(x - y) <= 0.01 * max(abs(x), abs(y), 1e-9)
        if not all(close(x, y) for x, y in zip(a, b)):
            if all(close(x, y) for x, y in zip(sorted(a), sorted(b))):
                notes.append("same size, axes swapped (rotated)")
            elif a[0] and b[0] and all(close(y / x if x else 0, b[0] / a[0]) for x, y in zip(a, b)):
                notes.append(f"scaled ×{b[0] / a[0]:.3g}")
            else:
                notes.append("extent differs")
    elif a or b:
        notes.append("no geometry" if not b else "extent differs")
    return "; ".join(notes) or "same"
