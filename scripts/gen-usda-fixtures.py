#!/usr/bin/env python3
"""Writes the USDA fixtures used by Tests/USDParseTests/USDAFixtureTests.swift.

Requires Pixar's usd-core (`pip install usd-core`). For each fixture below it writes, into
Tests/Fixtures/usda/:

  NAME.usda           the text exactly as written here;
  NAME.expected.json  every spec of the layer as usd-core reads it (spec type and every stored field);
  NAME.usdc           the same layer saved as a crate file by usd-core (for the USDA/crate parity test).

Layers are loaded with Sdf.Layer.ImportFromString, the same route the crate fixtures use, so the
stored fields are those a crate writer emits: `custom` only when true, `variability` only when not
the default, children lists only when non-empty, no `specifier` on variants.

    python3 scripts/gen-usda-fixtures.py
    python3 scripts/gen-usda-fixtures.py --corpus ../shared/corpus   # also writes corpus-facts.json

With --corpus it also records, for every USDA layer of the real-world corpus (standalone `.usda` and
`#usda`-headed `.usd` files, and `#usda` entries of `.usdz` packages, nested ones included), the facts
USDACorpusTests checks: spec counts per type, the total number of stored fields, and the complete
pseudo-root and default-prim specs (field names only for the RoomPlan captures, which carry no
licence). The corpus files themselves are never copied.
"""
import io
import json
import math
import os
import sys
import zipfile

from pxr import Gf, Sdf, Vt

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "usda")

FIXTURES = {}

# A RoomPlan-style element layer (structure of a parametric export, values made up).
FIXTURES["roomplan_element"] = """#usda 1.0
(
    defaultPrim = "Door2"
    metersPerUnit = 1
    upAxis = "Y"
)

def Xform "Door2" (
    assetInfo = {
        asset identifier = @./Door2.usda@
        string name = "Door2"
    }
    customData = {
        string Category = "Door(Isopen: False)"
        string UUID = "00000000-1111-2222-3333-444444444444"
    }
    kind = "component"
)
{
    def Cube "Door2"
    {
        rel material:binding = </Door2/Door2_color>
        double size = 1
        double3 xformOp:scale = (0.8036838173866272, 2.2481765747070312, 0.0005000000237487257)
        matrix4d xformOp:transform = ( (-0.984385073184967, 0, -0.1760285198688507, 0), (0, 1, 0, 0), (0.17602850496768951, 0, -0.984385073184967, 0), (-2.7829549312591553, -0.522170901298523, 0.9749706387519836, 1) )
        uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:scale"]
    }

    def Material "Door2_color"
    {
        token outputs:surface.connect = </Door2/Door2_color/surfaceShader.outputs:surface>

        def Shader "surfaceShader"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor = (0.33, 0.33, 0.33)
            color3f inputs:emissiveColor = (0, 0, 0)
            normal3f inputs:normal = (1, 1, 1)
            float inputs:occlusion = 1
            float inputs:opacity = 1
            token outputs:surface
        }
    }
}
"""

# A RoomPlan-style root layer: groups that reference element layers.
FIXTURES["roomplan_root"] = """#usda 1.0
(
    defaultPrim = "Room"
    metersPerUnit = 1
    upAxis = "Y"
)

def Xform "Room" (
    kind = "assembly"
)
{
    def Xform "Section_grp" (
        kind = "group"
    )
    {
        def Xform "livingRoom0" (
            kind = "assembly"
        )
        {
            matrix4d xformOp:transform = ( (0.6262052059173584, 0, 0.7796582579612732, 0), (0, 1, 0, 0), (-0.7796584963798523, 0, 0.6262052059173584, 0), (-6.325547218322754, -0.18192246556282043, -4.359333515167236, 1) )
            uniform token[] xformOpOrder = ["xformOp:transform"]
        }
    }

    def Xform "Parametric_grp" (
        kind = "group"
    )
    {
        def Xform "Arch_grp" (
            kind = "group"
        )
        {
            def Xform "Wall_0_grp" (
                kind = "group"
                prepend references = [
                    @./assets/Parametric/Walls/Wall0/Wall0.usda@,
                    @./assets/Parametric/Walls/Wall0/Door1.usda@
                ]
            )
            {
            }

            def Xform "Wall_1_grp" (
                kind = "group"
                prepend references = @./assets/Parametric/Walls/Wall1/Wall1.usda@
            )
            {
            }
        }

        def Mesh "Floor0"
        {
            int[] faceVertexCounts = [3, 3, 4]
            int[] faceVertexIndices = [0, 1, 2, 0, 2, 3, 1, 2, 3, 0]
            normal3f[] normals = [(0, 1, 0), (0, 1, 0), (0, 1, 0), (0, 1, 0)] (
                interpolation = "vertex"
            )
            point3f[] points = [(-1.5, 0, -2), (1.5, 0, -2), (1.5, 0, 2), (-1.5, 0, 2.25)]
            uniform token subdivisionScheme = "none"
        }
    }
}
"""

# Shading, variants, time samples, quaternions, halves and property metadata.
FIXTURES["shading_variants"] = """#usda 1.0
(
    "hand-written fixture"
    doc = "shading and variants"
    endTimeCode = 10
    framesPerSecond = 24
    startTimeCode = 0
    timeCodesPerSecond = 24
)

def Xform "Model" (
    prepend apiSchemas = ["MaterialBindingAPI"]
    variants = {
        string look = "red"
    }
    prepend variantSets = "look"
)
{
    float3 xformOp:rotateXYZ.timeSamples = {
        0: (0, 0, 0),
        5: None,
        10: (0, 90, 0),
    }
    quatf xformOp:orient = (0.70710677, 0, 0, 0.70710677)
    quath qh = (1, 0.5, 0.25, 0.125)
    half3 h3 = (0.1, -2, 65504)
    double3 xformOp:translate = (1, 2, 3)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient", "xformOp:rotateXYZ"]
    custom string note = "it's \\"quoted\\"\\n" (
        doc = "a note"
        customData = {
            int version = 2
            dictionary nested = {
                float3 v = (1, 2, 3)
                string[] names = ["a", "b"]
            }
        }
    )
    rel material:binding = </Model/Looks/Red> (
        bindMaterialAs = "strongerThanDescendants"
    )
    varying rel loose
    custom rel targets = [
        <Geom>,
        <../Model.note>,
    ]

    def Scope "Looks"
    {
        def Material "Red"
        {
            token outputs:surface.connect = <Shader.outputs:surface>
            asset inputs:file = @./textures/red.png@

            def Shader "Shader"
            {
                uniform token info:id = "UsdPreviewSurface"
                color3f inputs:diffuseColor.connect = <../Tex.outputs:rgb>
                float inputs:roughness = 0.5
                int inputs:useSpecularWorkflow = 0
                normal3f inputs:normal = (0, 0, 1)
                token outputs:surface
            }

            def Shader "Tex"
            {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file.connect = <../../Red.inputs:file>
                token inputs:wrapS = "repeat" (
                    allowedTokens = ["black", "clamp", "repeat", "mirror"]
                )
                float4 inputs:scale = (2, 2, 2, 1)
                float3 outputs:rgb
            }
        }
    }

    def Mesh "Geom"
    {
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (
            interpolation = "faceVarying"
        )
        int[] primvars:st:indices = [0, 1, 2, 3]
        color3f[] primvars:displayColor = [(1, 0, 0)] (
            elementSize = 1
            interpolation = "constant"
        )
    }

    variantSet "look" = {
        "blue" (
            doc = "the blue look"
        ) {
            rel material:binding = </Model/Looks/Blue>

            def Material "Extra"
            {
            }
        }
        "red" {
            over "Geom"
            {
                color3f[] primvars:displayColor = [(0.8, 0.1, 0.1)]
            }
        }
    }
}
"""

# Values of every kind, layer-level composition metadata and list ops.
FIXTURES["values_composition"] = """#usda 1.0
(
    customLayerData = {
        string creator = "gen-usda-fixtures"
        double[] ds = [0.5, 1.5]
    }
    defaultPrim = "Root"
    metersPerUnit = 0.01
    subLayers = [
        @./sub_a.usda@ (offset = 10; scale = 2),
        @./sub_b.usda@
    ]
    upAxis = "Z"
)

class "_Class"
{
    double classValue = 1
}

def Xform "Root" (
    active = true
    prepend apiSchemas = ["GeomModelAPI"]
    append apiSchemas = ["CollectionAPI:a"]
    delete apiSchemas = ["Old"]
    inherits = </_Class>
    instanceable = false
    kind = "component"
    payload = @./payload.usda@</P>
    prepend references = [
        @./ref.usda@</Src> (offset = 5; scale = 2),
        </Internal> (
            customData = {
                int refData = 7
            }
        )
    ]
    specializes = [
        </_Class>
    ]
)
{
    bool b = 1
    uchar uc = 200
    int i = -7
    uint ui = 4000000000
    int64 i64 = -9223372036854775808
    uint64 u64 = 18446744073709551615
    half h = 0.1
    float f = 0.1
    double d = 0.1
    double dneg0 = -0
    double dexp = 1.5e-7
    double dinf = inf
    double dninf = -inf
    string s = "line1\\nline2\\ttab"
    string multi = \"\"\"first
second\"\"\"
    token t = "tok"
    asset a = @@@at@sign.usda@@@
    timecode tc = 12.5
    int2 i2 = (1, -2)
    int3 i3 = (1, 2, 3)
    int4 i4 = (1, 2, 3, 4)
    float2 f2 = (0.25, 0.5)
    double4 d4 = (1, 2, 3, 4)
    color4f c4 = (0.1, 0.2, 0.3, 1)
    vector3d v3 = (0, 1, 0)
    texCoord3h tc3 = (0.5, 0.25, 1)
    quatd qd = (0.5, 0.5, 0.5, 0.5)
    matrix2d m2 = ( (1, 2), (3, 4) )
    matrix3d m3 = ( (1, 0, 0), (0, 1, 0), (0, 0, 1) )
    frame4d fr = ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (5, 6, 7, 1) )
    bool[] bs = [1, 0, 1]
    int[] is = [1, -2, 300000]
    uint[] uis = []
    int64[] i64s = [1099511627776, -1]
    half[] hs = [0, 1, -1.5, 65504]
    float[] fs = [0.1, 0.2, 1e-3]
    double[] dsn = None
    string[] ss = ["a", "b c", ""]
    token[] ts = ["x", "y"]
    asset[] as = [@a.png@, @b.png@]
    float3[] f3s = [(1, 2, 3), (4, 5, 6)]
    quatf[] qfs = [(1, 0, 0, 0), (0, 1, 0, 0)]
    matrix4d[] m4s = [( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1) )]
    double animated.timeSamples = {
        -1: 0.5,
        2.5: 1,
        100: None,
    }
    int[] arrAnim.timeSamples = {
        1: [1, 2],
        2: [],
    }
    reorder properties = ["i", "b"]

    def "Internal"
    {
    }
}

over "Ov" (
    hidden = true
    permission = private
    "over comment"
)
{
    rel none = None
    prepend rel pre = </Root>
    delete rel del = [</A>, </B>]
}

reorder rootPrims = ["Root", "_Class"]
"""


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


def corpus_layers(root):
    """(key, text) for every USDA layer in the corpus; package entries are keyed `pkg!entry[!entry]`."""
    def walk_zip(data, prefix):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                entry = z.read(info.filename)
                key = prefix + "!" + info.filename
                if entry.startswith(b"#usda"):
                    yield key, entry
                elif entry.startswith(b"PK\x03\x04"):
                    yield from walk_zip(entry, key)

    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            with open(full, "rb") as fh:
                data = fh.read()
            if data.startswith(b"#usda"):
                yield rel, data
            elif f.endswith(".usdz") and data.startswith(b"PK\x03\x04"):
                try:
                    yield from walk_zip(data, rel)
                except zipfile.BadZipFile:
                    pass


def corpus_facts(root):
    facts = {}
    for key, data in corpus_layers(root):
        layer = Sdf.Layer.CreateAnonymous("corpus.usda")
        if not layer.ImportFromString(data.decode("utf-8")):
            raise SystemExit("usd-core rejected " + key)
        specs = describe(layer)["specs"]
        counts = {}
        for spec in specs.values():
            counts[spec["type"]] = counts.get(spec["type"], 0) + 1
        default_prim = layer.defaultPrim or (layer.rootPrims[0].name if layer.rootPrims else "")
        entry = {
            "specCount": len(specs),
            "specTypes": counts,
            "fieldCount": sum(len(spec["fields"]) for spec in specs.values()),
            "specs": {"/": specs["/"]},
        }
        if default_prim and "/" + default_prim in specs:
            entry["specs"]["/" + default_prim] = specs["/" + default_prim]
        if key.startswith("roomplan/"):
            # Captures of real rooms carry no licence: record field names only, not their values.
            entry["specs"] = {path: {"type": spec["type"], "fieldNames": sorted(spec["fields"])}
                              for path, spec in entry["specs"].items()}
        facts[key] = entry
    with open(os.path.join(OUT, "corpus-facts.json"), "w") as f:
        lines = [json.dumps(k) + ": " + json.dumps(facts[k], sort_keys=True, separators=(",", ":"))
                 for k in sorted(facts)]
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print("wrote corpus facts for", len(facts), "layers")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, text in FIXTURES.items():
        layer = Sdf.Layer.CreateAnonymous(name + ".usda")
        if not layer.ImportFromString(text):
            raise SystemExit("usd-core rejected fixture " + name)
        with open(os.path.join(OUT, name + ".usda"), "w") as f:
            f.write(text)
        with open(os.path.join(OUT, name + ".expected.json"), "w") as f:
            json.dump(describe(layer), f, indent=1, sort_keys=True)
            f.write("\n")
        layer.Export(os.path.join(OUT, name + ".usdc"))
        print("wrote", name, len(describe(layer)["specs"]), "specs")
    if "--corpus" in sys.argv:
        corpus_facts(sys.argv[sys.argv.index("--corpus") + 1])


if __name__ == "__main__":
    main()
