"""Random attribute values, dictionaries and attribute names for the generated stages."""

from __future__ import annotations

import random

from . import pxrlib
from .constants import TEXTURE_NAMES

INF = float("inf")
NAN = float("nan")

# Element kinds: (component kind, component count, constructor name or None).
# Component kinds: b = bool, u8/i32/u32/i64/u64 = integers, f16/f32/f64 = floating point,
# str/tok/asset = text, tc = timecode, quat*/mat* = composite.
BASE_TYPES = {
    "bool": ("b", 1), "uchar": ("u8", 1), "int": ("i32", 1), "uint": ("u32", 1),
    "int64": ("i64", 1), "uint64": ("u64", 1),
    "half": ("f16", 1), "float": ("f32", 1), "double": ("f64", 1),
    "string": ("str", 1), "token": ("tok", 1), "asset": ("asset", 1), "timecode": ("tc", 1),
    "int2": ("i32", 2), "int3": ("i32", 3), "int4": ("i32", 4),
    "half2": ("f16", 2), "half3": ("f16", 3), "half4": ("f16", 4),
    "float2": ("f32", 2), "float3": ("f32", 3), "float4": ("f32", 4),
    "double2": ("f64", 2), "double3": ("f64", 3), "double4": ("f64", 4),
    "point3f": ("f32", 3), "normal3f": ("f32", 3), "color3f": ("f32", 3), "color4f": ("f32", 4),
    "texCoord2f": ("f32", 2), "vector3f": ("f32", 3),
    "quath": ("f16", 4), "quatf": ("f32", 4), "quatd": ("f64", 4),
    "matrix2d": ("f64", 4), "matrix3d": ("f64", 9), "matrix4d": ("f64", 16), "frame4d": ("f64", 16),
}
TYPE_NAMES = tuple(BASE_TYPES)
NUMERIC_SCALARS = ("uchar", "int", "uint", "int64", "uint64", "half", "float", "double")

INT_RANGES = {
    "u8": (0, 255), "i32": (-(2**31), 2**31 - 1), "u32": (0, 2**32 - 1),
    "i64": (-(2**63), 2**63 - 1), "u64": (0, 2**64 - 1),
}
SPECIAL_FLOATS = (
    0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, 0.1, 1.0 / 3.0, 65504.0, 1e-40, 1.4e-45,
    5.960464477539063e-08, 6.1e-05, 5e-324, 2.2250738585072014e-308, 3.4028234663852886e38,
    1e300, -123456.789,
)
STRINGS = (
    "", "plain", "with space", 'double "quoted" text', "single 'quoted' text", "back\\slash",
    "a literal \\n is not a newline", "line one\nline two", "tab\there", "cr\rlf\r\n", "Grüße, 日本語, émoji 😀",
    "'''triple single'''", '"""triple double"""', "mixed '\" \\ \n\t end", "trailing space ",
    "e\u0301 combining", "@at@signs@", "ctrl \x01 \x1f \x7f", "#not a comment", "{braces} [brackets] (parens)",
)
TOKENS = ("", "vertex", "faceVarying", "UsdPreviewSurface", "a:b:c", "with space", "ünïcödé", "x" * 48,
          'quote"tok', "0leadingDigit")
ASSETS = tuple(f"./textures/{name}" for name in TEXTURE_NAMES)
INTERPOLATIONS = ("constant", "uniform", "varying", "vertex", "faceVarying")
SAMPLE_TIMES = (-10.0, -1.0, 0.0, 1.0, 1.5, 2.0, 3.25, 24.0, 100.0, 1e5)
PRIM_TYPES = ("Xform", "Scope", "Mesh", "Cube", "Sphere", "Material", "Shader", "")
CHILD_NAMES = ("geo", "part", "node", "grp", "leaf", "item", "pivot", "look", "frame", "shell")
DICT_KEYS = ("name", "id", "Category", "UUID", "weight", "enabled", "nested", "version", "scale", "note",
             "ünï", "snake_case", "x2")


def gen_int(rng: random.Random, kind: str) -> int:
    lo, hi = INT_RANGES[kind]
    r = rng.random()
    if r < 0.12:
        return lo
    if r < 0.24:
        return hi
    if r < 0.30:
        return 0
    if kind in ("i64", "u64") and r < 0.6:
        magnitude = rng.randint(2**32, 2**62)
        return magnitude if kind == "u64" or rng.random() < 0.5 else -magnitude
    if r < 0.8:
        return rng.randint(max(lo, -1000), min(hi, 1000))
    return rng.randint(lo, hi)


def gen_float(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.25:
        return rng.choice(SPECIAL_FLOATS)
    if r < 0.45:
        return float(rng.randint(-100, 100))
    return round(rng.uniform(-1000.0, 1000.0), rng.randint(1, 7))


def gen_component(rng: random.Random, kind: str):
    if kind == "b":
        return rng.random() < 0.5
    if kind in INT_RANGES:
        return gen_int(rng, kind)
    if kind in ("f16", "f32", "f64"):
        return gen_float(rng)
    if kind == "tc":
        return pxrlib.Sdf.TimeCode(rng.choice((0.0, -1.0, 1.5, 24.0, 1e6, round(rng.uniform(-100, 100), 3))))
    if kind == "str":
        return rng.choice(STRINGS)
    if kind == "tok":
        return rng.choice(TOKENS)
    if kind == "asset":
        return pxrlib.Sdf.AssetPath(rng.choice(ASSETS))
    raise ValueError(kind)


def python_class(type_name: str):
    cls = pxrlib.Sdf.ValueTypeNames.Find(type_name).type.pythonClass
    if cls is None:
        raise ValueError(f"no Python class for {type_name}")
    return cls


def components(value) -> list[float]:
    """The stored components of a Gf vector, quaternion (real first) or matrix (row-major)."""
    name = type(value).__name__
    if name.startswith("Quat"):
        return [float(value.GetReal())] + [float(c) for c in value.GetImaginary()]
    if name.startswith("Matrix"):
        rows, cols = value.dimension
        return [float(value[i][j]) for i in range(rows) for j in range(cols)]
    return [float(c) for c in value]


def zero_sign_safe(value, base: str):
    """usd-core's crate writer stores a vector/quaternion/matrix whose components are all small integers
    inline as int8 values, and float arrays of >= 16 integral values as integers (code 'i') or through a
    lookup table keyed by value equality (code 't'): all three lose the sign of -0.0, so the .usdc would
    no longer match the .usda. Keep -0.0 only where every writer path preserves it (checked on the
    values after rounding to the element precision)."""
    comps = components(value)
    if all(c == c and abs(c) != INF and c.is_integer() for c in comps):
        return python_class(base)(*[0.0 if c == 0.0 else c for c in comps])
    return value


def gen_element(rng: random.Random, base: str):
    kind, n = BASE_TYPES[base]
    if n == 1:
        return gen_component(rng, kind)
    if base.startswith("matrix") or base == "frame4d":
        if rng.random() < 0.25:  # identity and diagonal matrices are stored inline in crate files
            return python_class(base)(rng.choice((1.0, 2.0, -1.0)))
        return zero_sign_safe(python_class(base)(*[gen_float(rng) for _ in range(n)]), base)
    comps = [gen_component(rng, kind) for _ in range(n)]
    if kind in ("f16", "f32", "f64") and rng.random() < 0.3:
        comps = [float(rng.randint(-8, 8)) for _ in range(n)]  # small integers: inline in crate files
    if kind not in ("f16", "f32", "f64"):
        return python_class(base)(*comps)
    return zero_sign_safe(python_class(base)(*comps), base)  # quaternions take (real, i, j, k)


def gen_array(rng: random.Random, base: str):
    """An array value: empty, short, or one of the layouts that exercise crate compression."""
    kind = BASE_TYPES[base][0]
    cls = python_class(base + "[]")
    r = rng.random()
    if r < 0.1:
        return cls()
    if base in NUMERIC_SCALARS and r < 0.7:
        count = rng.randint(16, 160)
        if kind in INT_RANGES:
            if rng.random() < 0.5:  # small deltas, like mesh indices
                start = gen_int(rng, kind) if rng.random() < 0.2 else rng.randint(0, 50)
                lo, hi = INT_RANGES[kind]
                values, v = [], start
                for _ in range(count):
                    v = min(hi, max(lo, v + rng.randint(-3, 5)))
                    values.append(v)
                return cls(values)
            return cls([gen_int(rng, kind) for _ in range(count)])
        mode = rng.choice(("ints", "lut", "raw"))
        if mode == "ints":  # every element an integer value: written with code 'i' from crate 0.6.0
            limit = {"f16": 2048, "f32": 2**24}.get(kind, 2**31 - 1)
            values = [float(rng.randint(-300, 300)) for _ in range(count)]
            values[rng.randrange(count)] = float(rng.choice((limit, -limit)))
            return cls(values)
        if mode == "lut":  # few distinct values: written with code 't' from crate 0.6.0
            table = [round(rng.uniform(-50, 50), 3) + 0.5 for _ in range(rng.randint(1, max(1, count // 5)))]
            return cls([rng.choice(table) for _ in range(count)])
        values = [round(rng.uniform(-1000, 1000), 5) + 0.001 * i for i in range(count)]
        for _ in range(rng.randint(0, 4)):
            values[rng.randrange(count)] = rng.choice(SPECIAL_FLOATS)
        return cls(values)
    count = rng.randint(1, 15) if r < 0.85 else rng.randint(16, 48)
    values = [gen_element(rng, base) for _ in range(count)]
    array = cls(values)
    if count >= 16 and kind in ("f16", "f32", "f64") and BASE_TYPES[base][1] == 1:
        array = cls([0.0 if v == 0.0 else v for v in array])  # see zero_sign_safe
    return array


def gen_value(rng: random.Random, type_name: str):
    if type_name.endswith("[]"):
        return gen_array(rng, type_name[:-2])
    return gen_element(rng, type_name)


def gen_dict(rng: random.Random, depth: int = 0) -> dict:
    out = {}
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(DICT_KEYS)
        r = rng.random()
        if r < 0.3:
            out[key] = rng.choice(STRINGS)
        elif r < 0.5:
            out[key] = gen_int(rng, "i64") if rng.random() < 0.3 else rng.randint(-1000, 1000)
        elif r < 0.7:
            out[key] = gen_float(rng)
        elif r < 0.85 or depth >= 2:
            out[key] = rng.random() < 0.5
        else:
            out[key] = gen_dict(rng, depth + 1)
    return out


def attr_name(prefix: str, type_name: str, uniform: bool, k: int) -> str:
    """Names carry the type and variability, so specs of one attribute never disagree about them."""
    return f"{prefix}{type_name.replace('[]', '_arr')}{'_u' if uniform else ''}_{k}"
