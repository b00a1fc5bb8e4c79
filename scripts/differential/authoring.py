"""Authoring of single prims and their attributes: the base of CaseBuilder (builder.py)."""

from __future__ import annotations

import random

from . import pxrlib
from .values import ASSETS, INTERPOLATIONS, SAMPLE_TIMES, TYPE_NAMES, attr_name, gen_value


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


class PrimAuthor:
    """Authors prims and attributes into a case's layer with the Sdf API, and keeps track of what it
    authored (attributes and children per prim path) for later overrides."""

    def __init__(self, rng: random.Random, name: str, ext_name: str, allow_timecode: bool):
        self.rng = rng
        self.ext_name = ext_name
        # timecode values force crate 0.9.0. usd-core upgrades the version in the middle of writing, and
        # arrays already written in the pre-0.7.0 layout (u32 counts) are then misread as 0.7.0+ (u64
        # counts): the file is corrupt. So timecodes only go into cases written as 0.7.0 or newer.
        self.use_timecode = rng.random() < 0.3 and allow_timecode
        self.layer = pxrlib.Sdf.Layer.CreateAnonymous(name + ".usda")
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
        spec = pxrlib.Sdf.PrimSpec(parent, name, specifier, type_name)
        if group is not None:
            group.prims.append(spec)
        parent_path = str(spec.path.GetParentPath())
        self.children_by_prim.setdefault(parent_path, []).append(name)
        return spec

    def add_attr(self, prim, name: str, type_name: str, *, uniform: bool = False, custom: bool = False,
                 value=None, group: Group | None = None, samples: bool = True):
        if name in prim.attributes:
            return prim.attributes[name]
        variability = pxrlib.Sdf.VariabilityUniform if uniform else pxrlib.Sdf.VariabilityVarying
        attr = pxrlib.Sdf.AttributeSpec(prim, name, pxrlib.Sdf.ValueTypeNames.Find(type_name), variability, custom)
        rng = self.rng
        r = rng.random()
        if value is not None:
            attr.default = value
        elif r < 0.06:
            attr.default = pxrlib.Sdf.ValueBlock()
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
            value = pxrlib.Sdf.ValueBlock() if i == blocked else gen_value(rng, type_name)
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
            self.add_attr(prim, "xformOpOrder", "token[]", uniform=True, value=pxrlib.Vt.TokenArray(ops), group=group)
        if t == "Mesh":
            nverts = rng.randint(3, 24)
            nfaces = rng.randint(1, 12)
            counts = [rng.choice((3, 4)) for _ in range(nfaces)]
            indices = [rng.randrange(nverts) for _ in range(sum(counts))]
            points = [pxrlib.Gf.Vec3f(*(round(rng.uniform(-5, 5), 4) for _ in range(3))) for _ in range(nverts)]
            self.add_attr(prim, "points", "point3f[]", value=pxrlib.Vt.Vec3fArray(points), group=group)
            self.add_attr(prim, "faceVertexCounts", "int[]", value=pxrlib.Vt.IntArray(counts), group=group)
            self.add_attr(prim, "faceVertexIndices", "int[]", value=pxrlib.Vt.IntArray(indices), group=group)
            normals = self.add_attr(prim, "normals", "normal3f[]", value=pxrlib.Vt.Vec3fArray(
                [pxrlib.Gf.Vec3f(0, 0, 1)] * len(indices)), group=group, samples=False)
            normals.SetInfo("interpolation", "faceVarying")
            st = self.add_attr(prim, "primvars:st", "texCoord2f[]", value=pxrlib.Vt.Vec2fArray(
                [pxrlib.Gf.Vec2f(round(rng.random(), 3), round(rng.random(), 3)) for _ in range(nverts)]), group=group)
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
            self.add_attr(prim, "inputs:file", "asset", value=pxrlib.Sdf.AssetPath(rng.choice(ASSETS)), group=group)
            self.add_attr(prim, "outputs:surface", "token", group=group, samples=False)
            self.add_attr(prim, "outputs:rgb", "float3", group=group, samples=False)
        elif t == "Material":
            self.add_attr(prim, "outputs:surface", "token", group=group, samples=False)
