"""The expected answers: what usd-core reports for a composed stage, as canonical JSON."""

from __future__ import annotations

import json

from . import pxrlib


def encode(value):
    """Canonical JSON encoding of a usd-core value (integers as decimal strings, floats as float.hex(),
    quaternions as [i, j, k, real], matrices flat row-major, asset paths as authored)."""
    if isinstance(value, pxrlib.Sdf.ValueBlock):
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
    if isinstance(value, pxrlib.Sdf.AssetPath):
        return value.path
    if isinstance(value, pxrlib.Sdf.TimeCode):
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
    for spec in attr.GetPropertyStack(pxrlib.Usd.TimeCode.Default()):
        if spec.HasDefaultValue():
            return True, spec.default
    return False, None


def describe_stage(path: str) -> dict:
    stage = pxrlib.Usd.Stage.Open(path, pxrlib.Usd.Stage.LoadAll)
    errors = stage.GetCompositionErrors()
    if errors:
        raise SystemExit(f"gen-differential: composition errors in {path}: "
                         + "; ".join(e.GetErrorMessage() for e in errors))

    def meta(key, convert):
        return convert(stage.GetMetadata(key)) if stage.HasAuthoredMetadata(key) else None

    out = {"stage": {"upAxis": meta("upAxis", str), "metersPerUnit": meta("metersPerUnit", lambda v: float(v).hex()),
                     "defaultPrim": meta("defaultPrim", str)}}
    prims = []
    predicate = pxrlib.Usd.TraverseInstanceProxies(pxrlib.Usd.PrimAllPrimsPredicate)
    for prim in pxrlib.Usd.PrimRange(stage.GetPseudoRoot(), predicate):
        if prim.IsPseudoRoot():
            continue
        spec_name = {pxrlib.Sdf.SpecifierDef: "def", pxrlib.Sdf.SpecifierOver: "over",
                     pxrlib.Sdf.SpecifierClass: "class"}
        entry = {"path": str(prim.GetPath()), "type": str(prim.GetTypeName()),
                 "specifier": spec_name[prim.GetSpecifier()]}
        custom = prim.GetAllAuthoredMetadata().get("customData")
        if custom:
            entry["customData"] = encode(dict(custom))
        attrs = {}
        for attr in prim.GetAuthoredAttributes():
            a = {"typeName": str(attr.GetTypeName()),
                 "variability": "uniform" if attr.GetVariability() == pxrlib.Sdf.VariabilityUniform else "varying"}
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
