#!/usr/bin/env python3
"""Generate random USD stages for differential tests of the Swift USD reader.

For every case the same stage is written three times: as a crate file (`case_NNN.usdc`, written with a
chosen crate version), as text (`case_NNN.usda`) and as a package (`case_NNN.usdz`, made from the .usdc
with UsdUtils.CreateNewUsdzPackage); every fifth case is also stored inside another package
(`case_NNN.nested.usdz`, whose root layer sublayers it). Next to them, `case_NNN.expected.json`
records what Pixar's usd-core reports for the composed stage. The script opens every file of a case
and fails loudly if they do not compose to identical JSON.

usd-core reads USD_WRITE_NEW_USDC_FILES_AS_VERSION only when `pxr` is first imported, so the cases are
grouped by crate version and each group runs in its own worker process (this script, re-invoked with
`--worker`). Everything is reproducible from `--seed`: case N always has the same content.

Usage: gen-differential.py OUTDIR [--count 200] [--seed 1] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

VERSION_ENV = "USD_WRITE_NEW_USDC_FILES_AS_VERSION"
CRATE_VERSIONS = ("0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "default")
RESULT_MARKER = "GEN-DIFFERENTIAL-RESULT "
# Every NESTED_EVERY-th case is also written as a package inside a package (`case_NNN.nested.usdz`).
NESTED_EVERY = 5

# Small texture files shared by all cases; asset-valued attributes point at them with anchored paths
# ("./textures/x.png"), which the usdz packager keeps unchanged (search-relative or missing paths would
# be rewritten or dropped by the packager, and the three formats would then differ).
TEXTURE_NAMES = ("albedo.png", "normal.png", "roughness.png")

# ---------------------------------------------------------------------------------------------------
# Parent process: no pxr import here.
# ---------------------------------------------------------------------------------------------------


def png_bytes(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A tiny valid RGB PNG filled with one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * height, 9))
            + chunk(b"IEND", b""))


def write_textures(outdir: str) -> int:
    texdir = os.path.join(outdir, "textures")
    os.makedirs(texdir, exist_ok=True)
    colours = ((200, 120, 40), (128, 128, 255), (90, 90, 90))
    for name, colour in zip(TEXTURE_NAMES, colours):
        with open(os.path.join(texdir, name), "wb") as f:
            f.write(png_bytes(4, 4, colour))
    return len(TEXTURE_NAMES)


def assign_versions(count: int, seed: int) -> list[str]:
    """Each run of six cases uses every crate version once, in a seeded order, so a case's version (and
    content) does not depend on --count."""
    versions = []
    for block in range((count + len(CRATE_VERSIONS) - 1) // len(CRATE_VERSIONS)):
        order = list(CRATE_VERSIONS)
        random.Random(f"{seed}:versions:{block}").shuffle(order)
        versions.extend(order)
    return versions[:count]


def run_worker(outdir: str, seed: int, width: int, version: str, cases: list[int]) -> dict:
    env = dict(os.environ)
    env.pop(VERSION_ENV, None)
    if version != "default":
        env[VERSION_ENV] = version
    env["PXR_USDC_EMIT_DEPRECATION_WARNINGS"] = "0"
    cmd = [sys.executable, os.path.abspath(__file__), outdir, "--worker", version, "--seed", str(seed),
           "--width", str(width), "--cases", ",".join(str(c) for c in cases)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_MARKER):
            result = json.loads(line[len(RESULT_MARKER):])
    if proc.returncode != 0 or result is None:
        sys.stderr.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"gen-differential: worker for crate version {version} failed "
                         f"(exit status {proc.returncode})")
    return result


def parent_main(args: argparse.Namespace) -> int:
    start = time.monotonic()
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    files = write_textures(outdir)
    width = max(3, len(str(max(args.count - 1, 0))))
    versions = assign_versions(args.count, args.seed)
    groups: dict[str, list[int]] = {}
    for index, version in enumerate(versions):
        groups.setdefault(version, []).append(index)
    jobs = args.jobs or os.cpu_count() or 2
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_worker, outdir, args.seed, width, v, cases) for v, cases in groups.items()]
        results = [f.result() for f in futures]
    written: dict[str, int] = {}
    cases = 0
    for result in results:
        cases += result["cases"]
        files += result["files"]
        for version, n in result["crate_versions"].items():
            written[version] = written.get(version, 0) + n
    spread = ", ".join(f"{v}: {n}" for v, n in sorted(written.items()))
    print(f"gen-differential: {cases} cases, {files} files in {outdir}, {time.monotonic() - start:.1f} s "
          f"(crate versions written: {spread}; all three formats agree)")
    return 0


# ---------------------------------------------------------------------------------------------------
# Worker process: pxr is imported here, after the parent has set the crate version variable.
# ---------------------------------------------------------------------------------------------------

Sdf = Usd = Gf = Vt = UsdUtils = None  # bound by import_pxr()


def import_pxr() -> None:
    global Sdf, Usd, Gf, Vt, UsdUtils
    from pxr import Gf as _Gf
    from pxr import Sdf as _Sdf
    from pxr import Usd as _Usd
    from pxr import UsdUtils as _UsdUtils
    from pxr import Vt as _Vt

    Sdf, Usd, Gf, Vt, UsdUtils = _Sdf, _Usd, _Gf, _Vt, _UsdUtils


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
        return Sdf.TimeCode(rng.choice((0.0, -1.0, 1.5, 24.0, 1e6, round(rng.uniform(-100, 100), 3))))
    if kind == "str":
        return rng.choice(STRINGS)
    if kind == "tok":
        return rng.choice(TOKENS)
    if kind == "asset":
        return Sdf.AssetPath(rng.choice(ASSETS))
    raise ValueError(kind)


def python_class(type_name: str):
    cls = Sdf.ValueTypeNames.Find(type_name).type.pythonClass
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


class Group:
    """The prims and properties of one top-level subtree. Relationship and connection targets authored
    in a prototype, class or external subtree stay inside it, so they map cleanly through the
    references and inherits that graft the subtree elsewhere."""

    def __init__(self, root: str):
        self.root = root
        self.prims: list = []  # prim specs, in creation order
        self.props: list[str] = []  # property paths

    def all_prim_paths(self) -> list[str]:
        return [str(p.path) for p in self.prims]


class CaseBuilder:
    """Authors the root layer (and optionally an external layer) of one case with the Sdf API."""

    def __init__(self, rng: random.Random, name: str, ext_name: str, allow_timecode: bool):
        self.rng = rng
        self.ext_name = ext_name
        # timecode values force crate 0.9.0. usd-core upgrades the version in the middle of writing, and
        # arrays already written in the pre-0.7.0 layout (u32 counts) are then misread as 0.7.0+ (u64
        # counts): the file is corrupt. So timecodes only go into cases written as 0.7.0 or newer.
        self.use_timecode = rng.random() < 0.3 and allow_timecode
        self.layer = Sdf.Layer.CreateAnonymous(name + ".usda")
        self.ext = None
        # Per prim path: authored attributes as (name, typeName, variability) for overrides.
        self.attrs_by_prim: dict[str, list] = {}
        self.children_by_prim: dict[str, list[str]] = {}

    # --- primitives ---------------------------------------------------------------------------------

    def pick_type_name(self) -> str:
        names = TYPE_NAMES if self.use_timecode else tuple(t for t in TYPE_NAMES if t != "timecode")
        base = self.rng.choice(names)
        return base + "[]" if self.rng.random() < 0.5 else base

    def new_prim(self, parent, name: str, specifier, type_name: str, group: Group | None):
        spec = Sdf.PrimSpec(parent, name, specifier, type_name)
        if group is not None:
            group.prims.append(spec)
        parent_path = str(spec.path.GetParentPath())
        self.children_by_prim.setdefault(parent_path, []).append(name)
        return spec

    def add_attr(self, prim, name: str, type_name: str, *, uniform: bool = False, custom: bool = False,
                 value=None, group: Group | None = None, samples: bool = True):
        if name in prim.attributes:
            return prim.attributes[name]
        variability = Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying
        attr = Sdf.AttributeSpec(prim, name, Sdf.ValueTypeNames.Find(type_name), variability, custom)
        rng = self.rng
        r = rng.random()
        if value is not None:
            attr.default = value
        elif r < 0.06:
            attr.default = Sdf.ValueBlock()
        elif r < 0.11:
            pass  # declaration only
        elif r < 0.93 or uniform or not samples:
            attr.default = gen_value(rng, type_name)
        if samples and not uniform and rng.random() < 0.15:
            self.add_time_samples(attr, type_name)
        self.attrs_by_prim.setdefault(str(prim.path), []).append((name, type_name, uniform))
        if group is not None:
            group.props.append(str(attr.path))
        return attr

    def add_time_samples(self, attr, type_name: str) -> None:
        rng = self.rng
        times = sorted(rng.sample(SAMPLE_TIMES, rng.randint(1, 4)))
        blocked = rng.randrange(len(times)) if rng.random() < 0.35 else -1
        for i, t in enumerate(times):
            value = Sdf.ValueBlock() if i == blocked else gen_value(rng, type_name)
            attr.layer.SetTimeSample(attr.path, t, value)

    def add_random_attrs(self, prim, count: int, group: Group | None) -> None:
        for k in range(count):
            type_name = self.pick_type_name()
            prefix = self.rng.choice(("", "", "user:", "my:ns:"))
            uniform = self.rng.random() < 0.15
            custom = self.rng.random() < 0.25
            self.add_attr(prim, attr_name(prefix, type_name, uniform, k), type_name, uniform=uniform, custom=custom,
                          group=group)

    def add_primvar(self, prim, group: Group | None) -> None:
        type_name = self.rng.choice(("texCoord2f[]", "float[]", "color3f[]", "normal3f[]", "int[]", "float3"))
        attr = self.add_attr(prim, attr_name("primvars:", type_name, False, len(prim.attributes)), type_name,
                             group=group)
        if self.rng.random() < 0.85:
            attr.SetInfo("interpolation", self.rng.choice(INTERPOLATIONS))

    def schema_attrs(self, prim, group: Group | None) -> None:
        """Attributes a real asset would carry for its prim type."""
        rng = self.rng
        t = prim.typeName
        if t in ("Xform", "Mesh", "Cube", "Sphere") and rng.random() < 0.7:
            if rng.random() < 0.5:
                self.add_attr(prim, "xformOp:transform", "matrix4d", group=group)
                ops = ["xformOp:transform"]
            else:
                self.add_attr(prim, "xformOp:translate", "double3", group=group)
                self.add_attr(prim, "xformOp:orient", "quatf", group=group)
                self.add_attr(prim, "xformOp:scale", "float3", group=group)
                ops = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]
            self.add_attr(prim, "xformOpOrder", "token[]", uniform=True, value=Vt.TokenArray(ops), group=group)
        if t == "Mesh":
            nverts = rng.randint(3, 24)
            nfaces = rng.randint(1, 12)
            counts = [rng.choice((3, 4)) for _ in range(nfaces)]
            indices = [rng.randrange(nverts) for _ in range(sum(counts))]
            points = [Gf.Vec3f(*(round(rng.uniform(-5, 5), 4) for _ in range(3))) for _ in range(nverts)]
            self.add_attr(prim, "points", "point3f[]", value=Vt.Vec3fArray(points), group=group)
            self.add_attr(prim, "faceVertexCounts", "int[]", value=Vt.IntArray(counts), group=group)
            self.add_attr(prim, "faceVertexIndices", "int[]", value=Vt.IntArray(indices), group=group)
            normals = self.add_attr(prim, "normals", "normal3f[]", value=Vt.Vec3fArray(
                [Gf.Vec3f(0, 0, 1)] * len(indices)), group=group, samples=False)
            normals.SetInfo("interpolation", "faceVarying")
            st = self.add_attr(prim, "primvars:st", "texCoord2f[]", value=Vt.Vec2fArray(
                [Gf.Vec2f(round(rng.random(), 3), round(rng.random(), 3)) for _ in range(nverts)]), group=group)
            st.SetInfo("interpolation", "vertex")
            self.add_attr(prim, "subdivisionScheme", "token", uniform=True, value="none", group=group)
            self.add_attr(prim, "doubleSided", "bool", uniform=True, value=rng.random() < 0.5, group=group)
        elif t == "Cube":
            self.add_attr(prim, "size", "double", value=rng.choice((1.0, 2.0, 0.25)), group=group)
        elif t == "Sphere":
            self.add_attr(prim, "radius", "double", value=rng.choice((1.0, 0.5, 3.75)), group=group)
        elif t == "Shader":
            self.add_attr(prim, "info:id", "token", uniform=True,
                          value=rng.choice(("UsdPreviewSurface", "UsdUVTexture", "UsdPrimvarReader_float2")),
                          group=group)
            self.add_attr(prim, "inputs:diffuseColor", "color3f", group=group)
            self.add_attr(prim, "inputs:roughness", "float", group=group)
            self.add_attr(prim, "inputs:file", "asset", value=Sdf.AssetPath(rng.choice(ASSETS)), group=group)
            self.add_attr(prim, "outputs:surface", "token", group=group, samples=False)
            self.add_attr(prim, "outputs:rgb", "float3", group=group, samples=False)
        elif t == "Material":
            self.add_attr(prim, "outputs:surface", "token", group=group, samples=False)

    # --- trees --------------------------------------------------------------------------------------

    def grow(self, parent, group: Group, depth: int, max_depth: int, budget: list[int], fanout: int) -> None:
        rng = self.rng
        if depth >= max_depth:
            return
        for _ in range(rng.randint(0, fanout)):
            if budget[0] <= 0:
                return
            budget[0] -= 1
            name = f"{rng.choice(CHILD_NAMES)}_{len(parent.nameChildren)}"  # unique among siblings
            type_name = rng.choice(PRIM_TYPES)
            if parent.typeName == "Material" and rng.random() < 0.7:
                type_name = "Shader"
            child = self.new_prim(parent, name, Sdf.SpecifierDef, type_name, group)
            self.decorate(child, group)
            self.grow(child, group, depth + 1, max_depth, budget, max(1, fanout - 1))

    def decorate(self, prim, group: Group) -> None:
        rng = self.rng
        self.schema_attrs(prim, group)
        self.add_random_attrs(prim, rng.choice((0, 0, 1, 1, 2, 3)), group)
        if rng.random() < 0.25:
            self.add_primvar(prim, group)
        if rng.random() < 0.2:
            prim.customData = gen_dict(rng)

    def wire(self, group: Group, extra_targets: list[str] = ()) -> None:
        """Relationships and connections, all targets inside the group (plus extra_targets)."""
        rng = self.rng
        prim_paths = group.all_prim_paths() + list(extra_targets)
        prop_paths = list(group.props)
        for prim in list(group.prims):
            t = prim.typeName
            if t in ("Mesh", "Cube", "Sphere") and rng.random() < 0.6:
                materials = [str(p.path) for p in group.prims if p.typeName == "Material"] or prim_paths
                rel = Sdf.RelationshipSpec(prim, "material:binding", False)
                rel.targetPathList.explicitItems = [Sdf.Path(rng.choice(materials))]
            if t == "Material":
                shaders = [str(p.path) for p in group.prims if p.typeName == "Shader"]
                if shaders and "outputs:surface" in prim.attributes:
                    out = prim.attributes["outputs:surface"]
                    out.connectionPathList.explicitItems = [Sdf.Path(rng.choice(shaders) + ".outputs:surface")]
            if t == "Shader" and rng.random() < 0.5:
                sources = [p for p in prop_paths if p.endswith(".outputs:rgb") or p.endswith(".outputs:surface")]
                if sources:
                    attr = self.add_attr(prim, "inputs:normal", "normal3f", group=None)
                    attr.connectionPathList.explicitItems = [Sdf.Path(rng.choice(sources))]
            if rng.random() < 0.2:
                rel = Sdf.RelationshipSpec(prim, f"rel{len(prim.relationships)}", rng.random() < 0.3)
                pool = prim_paths + prop_paths
                targets = [] if rng.random() < 0.1 else rng.sample(pool, min(len(pool), rng.randint(1, 3)))
                rel.targetPathList.explicitItems = [Sdf.Path(p) for p in targets]
            if prop_paths and rng.random() < 0.1:
                type_name = self.pick_type_name()
                attr = self.add_attr(prim, attr_name("inputs:", type_name, False, len(prim.attributes)), type_name,
                                     group=None)
                attr.connectionPathList.explicitItems = [
                    Sdf.Path(p) for p in rng.sample(prop_paths, min(len(prop_paths), rng.randint(1, 2)))]

    # --- the case -----------------------------------------------------------------------------------

    def build(self):
        rng = self.rng
        layer = self.layer
        root_md = layer.pseudoRoot
        if rng.random() < 0.8:
            root_md.SetInfo("upAxis", rng.choice(("Y", "Z")))
        if rng.random() < 0.8:
            root_md.SetInfo("metersPerUnit", rng.choice((1.0, 0.01, 0.001, 0.0254, 0.3048, 1e-5, 1234.5678)))

        # Prototypes: targets of internal references. Prototype k may reference prototype j > k.
        protos = []
        for k in range(rng.randint(1, 2)):
            group = Group(f"/Proto_{k}")
            spec = self.new_prim(layer, f"Proto_{k}", Sdf.SpecifierDef, rng.choice(("Xform", "Xform", "Scope", "")),
                                 group)
            self.decorate(spec, group)
            self.grow(spec, group, 1, 3, [rng.randint(1, 6)], 3)
            protos.append((spec, group))
        for k, (spec, group) in enumerate(protos[:-1]):
            if rng.random() < 0.4:
                inner = rng.choice(group.prims)
                inner.referenceList.prependedItems = [Sdf.Reference("", Sdf.Path(f"/Proto_{k + 1}"))]

        # Classes: targets of inherits.
        classes = []
        for k in range(rng.randint(0, 2)):
            group = Group(f"/_class_{k}")
            spec = self.new_prim(layer, f"_class_{k}", Sdf.SpecifierClass, rng.choice(("", "Xform")), group)
            self.add_random_attrs(spec, rng.randint(1, 3), group)
            if rng.random() < 0.5:
                child = self.new_prim(spec, "classChild", Sdf.SpecifierDef, rng.choice(("", "Scope", "Cube")), group)
                self.decorate(child, group)
            classes.append((spec, group))

        # External layer.
        ext_groups = []
        if rng.random() < 0.5:
            ext_groups = self.build_external()

        # The main tree.
        root_group = Group("/Root")
        root = self.new_prim(layer, "Root", Sdf.SpecifierDef, "Xform", root_group)
        self.decorate(root, root_group)
        if rng.random() < 0.5:
            root.customData = gen_dict(rng)
        zoo = self.new_prim(root, "zoo", Sdf.SpecifierDef, rng.choice(("Scope", "")), root_group)
        self.add_random_attrs(zoo, rng.randint(10, 20), root_group)
        if self.use_timecode:
            self.add_attr(zoo, "timeline:start", "timecode", group=root_group)
            self.add_attr(zoo, "timeline:marks", "timecode[]", group=root_group)
        budget = [rng.randint(6, 18)]
        while budget[0] > 0:  # keep growing until the whole budget is used
            self.grow(root, root_group, 1, 5, budget, 4)
        for spec, group in protos + classes:
            self.wire(group)
        self.wire(root_group, extra_targets=[str(s.path) for s, _ in protos])

        # Composition arcs, each on a different prim of the main tree (the tree has at least 6).
        candidates = [p for p in root_group.prims if p.name != "zoo"]
        rng.shuffle(candidates)
        for _ in range(rng.randint(1, 2)):  # internal references: at least one per case
            self.reference(candidates.pop(), protos, ext_groups, internal=True)
        if ext_groups:
            self.reference(candidates.pop(), protos, ext_groups, internal=False)
        if classes:
            for _ in range(rng.randint(1, 2)):
                cls_spec, _ = rng.choice(classes)
                candidates.pop().inheritPathList.prependedItems = [cls_spec.path]
        if rng.random() < 0.85:
            self.variants(candidates.pop())

        # Pure overs: nothing defines these prims.
        if rng.random() < 0.5:
            loose = self.new_prim(layer, "Loose", Sdf.SpecifierOver, "", None)
            self.add_random_attrs(loose, rng.randint(1, 2), None)
            if rng.random() < 0.5:
                self.new_prim(loose, "inner", Sdf.SpecifierOver, rng.choice(("", "Mesh")), None)
        if rng.random() < 0.4:
            host = rng.choice([p for p in root_group.prims if p.name != "zoo" and not p.instanceable])
            over = self.new_prim(host, "overOnly", Sdf.SpecifierOver, "", None)
            self.add_random_attrs(over, 1, None)

        names = [p.name for p in layer.rootPrims]
        r = rng.random()
        if r < 0.7:
            layer.defaultPrim = "Root"
        elif r < 0.85:
            layer.defaultPrim = rng.choice(names)
        return layer, self.ext

    def reference(self, prim, protos, ext_groups, internal: bool) -> None:
        rng = self.rng
        refs = []
        if internal:
            spec, group = rng.choice(protos)
            refs.append(Sdf.Reference("", spec.path))
            target_groups = [group]
        else:
            group = rng.choice(ext_groups)
            asset = "./" + self.ext_name
            # No prim path = the external layer's defaultPrim ("/Asset").
            refs.append(Sdf.Reference(asset, Sdf.Path() if group.root == "/Asset" and rng.random() < 0.7
                                      else Sdf.Path(group.root)))
            target_groups = [group]
            if rng.random() < 0.3:  # two references in one list: earlier is stronger
                spec, group2 = rng.choice(protos)
                refs.append(Sdf.Reference("", spec.path))
                target_groups.append(group2)
        prim.referenceList.prependedItems = refs
        has_local_children = bool(prim.nameChildren)
        if not has_local_children and rng.random() < 0.3:
            prim.instanceable = True
            return
        # Local opinions over the referenced namespace.
        target = target_groups[0]
        source_children = self.children_by_prim.get(target.root, [])
        if source_children and rng.random() < 0.6:
            child_name = rng.choice(source_children)
            if child_name not in prim.nameChildren:
                over = self.new_prim(prim, child_name, Sdf.SpecifierOver, "", None)
                type_name = rng.choice(("float", "int3", "string[]"))
                self.add_attr(over, attr_name("addedByOver:", type_name, False, 0), type_name, group=None)
                self.override_attr(over, target.root + "/" + child_name)
        if rng.random() < 0.5:
            self.override_attr(prim, target.root)

    def override_attr(self, prim, source_path: str) -> None:
        """Author a stronger opinion on one attribute that the referenced prim already has."""
        rng = self.rng
        existing = self.attrs_by_prim.get(source_path)
        if not existing:
            return
        name, type_name, uniform = rng.choice(existing)
        if name in prim.attributes:
            return
        variability = Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying
        attr = Sdf.AttributeSpec(prim, name, Sdf.ValueTypeNames.Find(type_name), variability, False)
        r = rng.random()
        if r < 0.2:
            attr.default = Sdf.ValueBlock()
        elif r < 0.35 and not uniform:
            self.add_time_samples(attr, type_name)
        else:
            attr.default = gen_value(rng, type_name)

    def variants(self, prim) -> None:
        rng = self.rng
        for set_name in rng.sample(("look", "lod", "shadingVariant"), rng.choice((1, 1, 2))):
            vset = Sdf.VariantSetSpec(prim, set_name)
            names = rng.sample(("red", "green", "blue", "high", "low", "none"), rng.randint(2, 3))
            for variant_name in names:
                variant = Sdf.VariantSpec(vset, variant_name)
                vprim = variant.primSpec
                self.add_random_attrs(vprim, rng.randint(1, 2), None)
                if rng.random() < 0.5:
                    child = Sdf.PrimSpec(vprim, f"{set_name}_{variant_name}_child", Sdf.SpecifierDef,
                                         rng.choice(("Cube", "Scope", "")))
                    self.add_random_attrs(child, 1, None)
            prim.variantSetNameList.prependedItems = list(prim.variantSetNameList.prependedItems) + [set_name]
            prim.variantSelections[set_name] = rng.choice(names)

    def build_external(self) -> list[Group]:
        rng = self.rng
        ext = Sdf.Layer.CreateAnonymous(self.ext_name)
        self.ext = ext
        ext.pseudoRoot.SetInfo("upAxis", rng.choice(("Y", "Z")))
        ext.pseudoRoot.SetInfo("metersPerUnit", rng.choice((1.0, 0.01)))
        ext.defaultPrim = "Asset"
        groups = []
        for root_name in ("Asset", "Alt"):
            group = Group(f"/{root_name}")
            spec = self.new_prim(ext, root_name, Sdf.SpecifierDef, rng.choice(("Xform", "Mesh", "")), group)
            spec.customData = {"Category": rng.choice(("Wall", "Door", "Chair")),
                               "UUID": "%08X-0000-4000-8000-%012X" % (rng.getrandbits(32), rng.getrandbits(48))}
            self.decorate(spec, group)
            self.grow(spec, group, 1, 3, [rng.randint(1, 6) if root_name == "Asset" else 2], 3)
            groups.append(group)
        for group in groups:
            self.wire(group)
        # An internal reference inside the external layer (resolved within that layer).
        if rng.random() < 0.4 and len(groups[0].prims) > 1:
            inner = rng.choice(groups[0].prims[1:])
            inner.referenceList.prependedItems = [Sdf.Reference("", Sdf.Path("/Alt"))]
        return groups


# --- reading back: the expected JSON ---------------------------------------------------------------


def encode(value):
    """Canonical JSON encoding of a usd-core value (integers as decimal strings, floats as float.hex(),
    quaternions as [i, j, k, real], matrices flat row-major, asset paths as authored)."""
    if isinstance(value, Sdf.ValueBlock):
        return {"blocked": True}
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, Sdf.AssetPath):
        return value.path
    if isinstance(value, Sdf.TimeCode):
        return float(value).hex()
    name = type(value).__name__
    if name.endswith("Array"):
        return [encode(v) for v in value]
    if name.startswith("Quat"):
        imaginary = value.GetImaginary()
        return [float(imaginary[0]).hex(), float(imaginary[1]).hex(), float(imaginary[2]).hex(),
                float(value.GetReal()).hex()]
    if name.startswith("Matrix"):
        rows, cols = value.dimension
        return [float(value[i][j]).hex() for i in range(rows) for j in range(cols)]
    if name.startswith("Vec"):
        return [encode(c) for c in value]
    raise TypeError(f"cannot encode {name}: {value!r}")


def default_opinion(attr):
    for spec in attr.GetPropertyStack(Usd.TimeCode.Default()):
        if spec.HasDefaultValue():
            return True, spec.default
    return False, None


def describe_stage(path: str) -> dict:
    stage = Usd.Stage.Open(path, Usd.Stage.LoadAll)
    errors = stage.GetCompositionErrors()
    if errors:
        raise SystemExit(f"gen-differential: composition errors in {path}: "
                         + "; ".join(e.GetErrorMessage() for e in errors))

    def meta(key, convert):
        return convert(stage.GetMetadata(key)) if stage.HasAuthoredMetadata(key) else None

    out = {"stage": {"upAxis": meta("upAxis", str), "metersPerUnit": meta("metersPerUnit", lambda v: float(v).hex()),
                     "defaultPrim": meta("defaultPrim", str)}}
    prims = []
    predicate = Usd.TraverseInstanceProxies(Usd.PrimAllPrimsPredicate)
    for prim in Usd.PrimRange(stage.GetPseudoRoot(), predicate):
        if prim.IsPseudoRoot():
            continue
        spec_name = {Sdf.SpecifierDef: "def", Sdf.SpecifierOver: "over", Sdf.SpecifierClass: "class"}
        entry = {"path": str(prim.GetPath()), "type": str(prim.GetTypeName()),
                 "specifier": spec_name[prim.GetSpecifier()]}
        custom = prim.GetAllAuthoredMetadata().get("customData")
        if custom:
            entry["customData"] = encode(dict(custom))
        attrs = {}
        for attr in prim.GetAuthoredAttributes():
            a = {"typeName": str(attr.GetTypeName()),
                 "variability": "uniform" if attr.GetVariability() == Sdf.VariabilityUniform else "varying"}
            has_default, default = default_opinion(attr)
            if has_default:
                a["default"] = encode(default)
            times = attr.GetTimeSamples()
            if times:
                samples = []
                for t in times:
                    v = attr.Get(t)
                    samples.append([float(t).hex(), {"blocked": True} if v is None else encode(v)])
                a["timeSamples"] = samples
            connections = attr.GetConnections()
            if connections:
                a["connections"] = [str(p) for p in connections]
            if attr.HasAuthoredMetadata("interpolation"):
                a["interpolation"] = str(attr.GetMetadata("interpolation"))
            attrs[attr.GetName()] = a
        entry["attributes"] = attrs
        entry["relationships"] = {rel.GetName(): [str(p) for p in rel.GetTargets()]
                                  for rel in prim.GetAuthoredRelationships()}
        prims.append(entry)
    out["prims"] = prims
    return out


def first_difference(a, b, where="") -> str:
    if type(a) is not type(b):
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}/{key}: present in only one"
            d = first_difference(a[key], b[key], f"{where}/{key}")
            if d:
                return d
        return ""
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return f"{where}: lengths {len(a)} != {len(b)}" if len(a) != len(b) else ""
    return "" if a == b else f"{where}: {a!r} != {b!r}"


def format_expected(doc: dict) -> str:
    """Compact JSON, one prim per line (keeps the files small and still diffable)."""
    head = json.dumps({k: v for k, v in doc.items() if k != "prims"}, ensure_ascii=False, separators=(",", ":"))
    prims = ",\n".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) for p in doc["prims"])
    return head[:-1] + ',"prims":[\n' + prims + "\n]}\n"


def generate_case(outdir: str, seed: int, index: int, width: int, version: str) -> tuple[int, str]:
    name = f"case_{index:0{width}d}"
    rng = random.Random(f"{seed}:{index}")
    ext_name = f"ref_{index:0{width}d}." + ("usda" if rng.random() < 0.5 else "usdc")
    builder = CaseBuilder(rng, name, ext_name, allow_timecode=version not in ("0.4.0", "0.5.0", "0.6.0"))
    layer, ext = builder.build()
    files = 0
    if ext is not None:
        ext.Export(os.path.join(outdir, ext_name))
        files += 1
    usdc = os.path.join(outdir, name + ".usdc")
    usda = os.path.join(outdir, name + ".usda")
    usdz = os.path.join(outdir, name + ".usdz")
    if not layer.Export(usdc) or not layer.Export(usda):
        raise SystemExit(f"gen-differential: could not write {name}")
    del layer, ext, builder
    if not UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(usdc), usdz):
        raise SystemExit(f"gen-differential: could not package {usdz}")
    with open(usdc, "rb") as f:
        header = f.read(11)
    if header[:8] != b"PXR-USDC":
        raise SystemExit(f"gen-differential: {usdc} is not a crate file")
    crate_version = f"{header[8]}.{header[9]}.{header[10]}"

    reference = describe_stage(usdc)
    for other in (usda, usdz):
        got = describe_stage(other)
        if got != reference:
            raise SystemExit(f"gen-differential: {os.path.basename(other)} composes differently from "
                             f"{os.path.basename(usdc)}: {first_difference(reference, got)}")
    written = [usdc, usda, usdz, os.path.join(outdir, name + ".expected.json")]
    if index % NESTED_EVERY == 0:
        nested = write_nested_package(outdir, name, usdc, by_path=(index // NESTED_EVERY) % 2 == 1)
        got = describe_stage(nested)
        if got != reference:
            raise SystemExit(f"gen-differential: {os.path.basename(nested)} composes differently from "
                             f"{os.path.basename(usdc)}: {first_difference(reference, got)}")
        written.append(nested)
    doc = {"case": name, "crate_version": crate_version, **reference}
    with open(os.path.join(outdir, name + ".expected.json"), "w", encoding="utf-8") as f:
        f.write(format_expected(doc))
    for path in written:
        size = os.path.getsize(path)
        if size > 200_000:
            raise SystemExit(f"gen-differential: {path} is {size} bytes, over the 200 kB budget")
    return files + len(written), crate_version


def write_nested_package(outdir: str, name: str, usdc: str, by_path: bool) -> str:
    """`case_NNN.nested.usdz`: a package whose root layer sublayers the case's own package, stored
    inside it, by name (`case_NNN.usdz`, its root layer) or by package path
    (`case_NNN.usdz[case_NNN.usdc]`). The root layer copies the case's layer metadata (up axis,
    units, default prim, time codes), so the composed stage is the case's stage."""
    source = Sdf.Layer.FindOrOpen(usdc)
    root_path = os.path.join(outdir, name + ".nested-root.usda")
    root = Sdf.Layer.CreateNew(root_path)
    for key in source.pseudoRoot.ListInfoKeys():
        if key not in ("subLayers", "subLayerOffsets", "primChildren"):
            root.pseudoRoot.SetInfo(key, source.pseudoRoot.GetInfo(key))
    inner = name + ".usdz"
    root.subLayerPaths.append(f"{inner}[{name}.usdc]" if by_path else inner)
    root.Save()
    nested = os.path.join(outdir, name + ".nested.usdz")
    writer = Sdf.ZipFileWriter.CreateNew(nested)
    if not writer.AddFile(root_path, "root.usda") or not writer.AddFile(os.path.join(outdir, inner), inner):
        raise SystemExit(f"gen-differential: could not write {nested}")
    writer.Save()
    del writer, root
    os.remove(root_path)
    return nested


def worker_main(args: argparse.Namespace) -> int:
    import_pxr()
    outdir = os.path.abspath(args.outdir)
    cases = [int(c) for c in args.cases.split(",") if c]
    files = 0
    versions: dict[str, int] = {}
    for index in cases:
        n, version = generate_case(outdir, args.seed, index, args.width, args.worker)
        files += n
        versions[version] = versions.get(version, 0) + 1
    print(RESULT_MARKER + json.dumps({"cases": len(cases), "files": files, "crate_versions": versions}), flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Write random USD stages as .usdc/.usda/.usdz plus the usd-core view of the composed "
                    "stage (case_NNN.expected.json), checking that the three formats agree.")
    parser.add_argument("outdir", help="output directory (created if missing)")
    parser.add_argument("--count", type=int, default=200, help="number of cases (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes in parallel (default: CPU count)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--cases", default="", help=argparse.SUPPRESS)
    parser.add_argument("--width", type=int, default=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker_main(args)
    if args.count < 1:
        parser.error("--count must be at least 1")
    return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
