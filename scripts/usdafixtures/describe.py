"""A layer described spec by spec: each spec's type and every stored field, as the expected JSON and
the corpus facts record them."""

from pxr import Sdf

from .values import arc, list_op, loose, num, typed


SCALAR_INFO_TYPES = {"TfToken": "token", "string": "string", "double": "double", "int": "int", "bool": "bool",
                     "float": "float", "SdfAssetPath": "asset", "int64_t": "int64"}


def encode_field(layer, spec, key):
    v = spec.GetInfo(key)
    tname = spec.GetTypeForInfo(key).typeName
    if key in ("default",):
        return typed(v, spec.typeName.__str__())
    if key == "timeSamples":
        samples = [[num(t), typed(layer.QueryTimeSample(spec.path, t), str(spec.typeName))]
                   for t in sorted(v.keys())]
        return {"timeSamples": samples}
    if isinstance(v, Sdf.Specifier):
        return {"specifier": {Sdf.SpecifierDef: "def", Sdf.SpecifierOver: "over", Sdf.SpecifierClass: "class"}[v]}
    if isinstance(v, Sdf.Variability):
        return {"variability": "uniform" if v == Sdf.VariabilityUniform else "varying"}
    if isinstance(v, Sdf.Permission):
        return {"permission": "private" if v == Sdf.PermissionPrivate else "public"}
    if isinstance(v, Sdf.PathListOp):
        return list_op(v, "path", str)
    if isinstance(v, Sdf.TokenListOp):
        return list_op(v, "token", str)
    if isinstance(v, Sdf.StringListOp):
        return list_op(v, "string", str)
    if isinstance(v, Sdf.ReferenceListOp):
        return list_op(v, "reference", arc)
    if isinstance(v, Sdf.PayloadListOp):
        return list_op(v, "payload", arc)
    if key == "variantSelection":
        return {"variantSelection": dict(v)}
    if tname == "VtDictionary":
        return {"dict": {k: loose(x) for k, x in v.items()}}
    if key in ("primOrder", "propertyOrder") or tname.startswith("vector<TfToken"):
        return {"tokenVector": list(v)}
    if tname.startswith("vector<string"):
        return {"stringVector": list(v)}
    if tname == "VtArray<TfToken>":
        return typed(v, "token[]")
    if tname in SCALAR_INFO_TYPES:
        return typed(v, SCALAR_INFO_TYPES[tname])
    raise SystemExit("unhandled field %s of %s (%s)" % (key, spec.path, tname))


SPEC_TYPES = {"PseudoRootSpec": "pseudoRoot", "PrimSpec": "prim", "AttributeSpec": "attribute",
              "RelationshipSpec": "relationship", "VariantSpec": "variant", "VariantSetSpec": "variantSet"}
CHILDREN = {"pseudoRoot": ["primChildren"], "prim": ["primChildren", "properties", "variantSetChildren"],
            "variant": ["primChildren", "properties", "variantSetChildren"], "variantSet": ["variantChildren"]}


def describe(layer):
    specs = {}

    def visit(path):
        spec = layer.GetObjectAtPath(path)
        if spec is None:  # relationship targets / connections are not stored specs
            return
        kind = SPEC_TYPES[type(spec).__name__]
        fields = {}
        for key in spec.ListInfoKeys():
            if key == "subLayerOffsets":
                continue
            fields[key] = encode_field(layer, spec, key)
        # Required fields that ListInfoKeys reports with their fallback are not stored.
        if kind in ("attribute", "relationship"):
            if fields.get("custom") is not None and spec.GetInfo("custom") is False:
                del fields["custom"]
            if fields.get("variability") == {"variability": "varying"}:
                del fields["variability"]
        if kind == "variant":
            fields.pop("specifier", None)
        if kind == "pseudoRoot" and layer.subLayerPaths:
            fields["subLayerOffsets"] = {"layerOffsets": [[num(o.offset), num(o.scale)] for o in layer.subLayerOffsets]}
        for key in CHILDREN.get(kind, []):
            names = list(spec.GetInfo(key))
            if names:
                fields[key] = {"tokenVector": [str(n) for n in names]}
        specs[str(path)] = {"type": kind, "fields": fields}

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return {"specs": specs}
