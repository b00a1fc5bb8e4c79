"""Values as the expected JSON records them: storage type names, numbers (`inf`, `-inf`, `nan` as
strings), flattened vectors, quaternions and matrices, dictionary entries, list ops and arcs."""

import math

from pxr import Gf, Sdf


def storage_name(type_name):
    """SdfValueType raw name (storage type) of an attribute typeName, or None."""
    name = type_name[:-2] if type_name.endswith("[]") else type_name
    roles = {"point3": 3, "normal3": 3, "vector3": 3, "color3": 3, "color4": 4, "texCoord2": 2, "texCoord3": 3}
    for prefix, n in roles.items():
        if name.startswith(prefix) and len(name) == len(prefix) + 1:
            base = {"h": "half", "f": "float", "d": "double"}[name[-1]]
            return base + str(n)
    if name == "frame4d":
        return "matrix4d"
    return name


def num(x):
    if isinstance(x, bool):
        return x
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def flatten(v):
    """Components of a scalar value in storage order (quaternions imaginary first, matrices row-major)."""
    if isinstance(v, (Gf.Quatf, Gf.Quatd, Gf.Quath)):
        return [num(c) for c in v.imaginary] + [num(v.real)]
    if isinstance(v, (Gf.Matrix2d, Gf.Matrix3d, Gf.Matrix4d)):
        return [num(c) for row in v for c in row]
    if isinstance(v, Sdf.AssetPath):
        return [v.path]
    if isinstance(v, str):
        return [v]
    if hasattr(v, "__len__"):
        return [num(c) for c in v]
    return [num(v)]


def typed(v, type_name):
    """A scalar or array value of a known attribute/metadata type."""
    if isinstance(v, Sdf.ValueBlock) or type(v).__name__ == "ValueBlock":
        return {"block": True}
    storage = storage_name(type_name)
    if type_name.endswith("[]"):
        out = []
        for e in v:
            out.extend(flatten(e))
        return {"array": storage, "v": out}
    return {"scalar": storage, "v": flatten(v)}


def loose(v):
    """Dictionary entries: Python loses int/float and token/string distinctions, so compare by shape."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, str):
        return v
    if isinstance(v, Sdf.AssetPath):
        return {"asset": v.path}
    if isinstance(v, dict):
        return {"dict": {k: loose(x) for k, x in v.items()}}
    if isinstance(v, (Gf.Quatf, Gf.Quatd, Gf.Quath, Gf.Matrix2d, Gf.Matrix3d, Gf.Matrix4d)):
        return flatten(v)
    if hasattr(v, "__len__"):
        return [loose(x) for x in v]
    raise SystemExit("unhandled dictionary value %r" % (v,))


def list_op(op, kind, item):
    return {
        "listop": kind,
        "explicit": op.isExplicit,
        "explicitItems": [item(x) for x in op.explicitItems],
        "added": [item(x) for x in op.addedItems],
        "prepended": [item(x) for x in op.prependedItems],
        "appended": [item(x) for x in op.appendedItems],
        "deleted": [item(x) for x in op.deletedItems],
        "ordered": [item(x) for x in op.orderedItems],
    }


def arc(r):
    d = {"asset": r.assetPath, "prim": str(r.primPath), "offset": num(r.layerOffset.offset),
         "scale": num(r.layerOffset.scale)}
    if hasattr(r, "customData"):
        d["customData"] = {k: loose(x) for k, x in r.customData.items()}
    return d
