#!/usr/bin/env python3
"""Writes the small crate (.usdc) fixtures used by Tests/USDParseTests/Crate*Tests.swift.

Requires Pixar's usd-core (`pip install usd-core`). Each fixture is written by a child process so that
USD_WRITE_NEW_USDC_FILES_AS_VERSION can select the crate version written for new files.

    python3 scripts/gen-crate-fixtures.py            # writes Tests/Fixtures/crate/*.usdc
    python3 scripts/gen-crate-fixtures.py --dump     # also prints each fixture as USDA (the test oracle)
    python3 scripts/gen-crate-fixtures.py --check    # exit 1 unless the committed files match
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from fixturecheck import add_option, check  # noqa: E402

OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "crate")

# Content that needs no crate feature newer than 0.4.0, so the requested version is kept.
BASIC = """#usda 1.0
(
    customLayerData = {
        string creator = "gen-crate-fixtures"
        dictionary nested = {
            int answer = 42
            double[] ds = [0.5, 1.5]
        }
    }
    defaultPrim = "Root"
    doc = "basic fixture"
    metersPerUnit = 0.01
    subLayers = [
        @./a.usda@ (offset = 10; scale = 2),
        @./b.usda@
    ]
    timeCodesPerSecond = 24
    upAxis = "Z"
)

def Xform "Root" (
    prepend apiSchemas = ["MaterialBindingAPI"]
    customData = {
        bool b = 1
        double d = 0.1
        int i = 5
        string s = "v"
        token t = "tok"
    }
    inherits = </Class>
    kind = "component"
    payload = @./payload.usda@</P>
    prepend references = [
        @./ref.usda@</Src> (offset = 5; scale = 2),
        </Internal>
    ]
    variants = {
        string shading = "red"
    }
    prepend variantSets = "shading"
)
{
    int[] bigInts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 1000000]
    int[] smallInts = [5, -3, 7]
    uint[] bigUInts = [4000000000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
    int64[] bigInt64s = [1099511627776, -1099511627776, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, -9223372036854775808]
    uint64[] bigUInt64s = [18446744073709551615, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    float[] intFloats = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, -19]
    float[] lutFloats = [0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25, 0.5, 1.25]
    double[] lutDoubles = [0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2]
    half[] intHalfs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
    float[] rawFloats = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7]
    double dOut = 0.1
    double dIn = 1.5
    int64 i64In = -5
    int64 i64Out = 1099511627776
    uint64 u64Out = 18446744073709551615
    float3 vIn = (1, -2, 3)
    float3 vOut = (1.5, 2, 3)
    half2 h2 = (0.5, 1)
    half3 h3 = (1, 2, 3)
    half3 h3Out = (0.5, 2, 3)
    matrix4d mId = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
    matrix4d mOut = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (1, 2, 3, 1))
    matrix2d m2 = ((2, 0), (0, -3))
    quatf qf = (0.5, 1, 2, 3)
    quatd qd = (1, 0, 0, 0)
    quath qh = (0.5, 0.25, 0, 1)
    token tok = "hello"
    string str = "world"
    asset file = @./tex.png@
    asset[] files = [@a.png@, @b.png@]
    string[] strs = ["x", "y"]
    token[] toks = ["p", "q"]
    bool flag = 1
    bool[] flags = [1, 0, 1]
    uchar uc = 200
    uint u = 4000000000
    int2 i2 = (1, 2)
    double3 d3 = (0.1, 0.2, 0.3)
    point3f[] pts = [(0, 0, 0), (1, 0, 0), (0, 1.5, 0)]
    uniform token orient = "rightHanded"
    custom float anim.timeSamples = {
        0: 1,
        10: 2.5,
        20: None,
    }
    double3 xlate.timeSamples = {
        1: (1, 2, 3.5),
        2: (1, 2, 3),
    }
    float blocked = None
    float inp.connect = </Root/Mat.outputs:x>
    rel material:binding = </Root/Mat>
    int[] emptyInts = []

    def Material "Mat"
    {
        float outputs:x
    }
    variantSet "shading" = {
        "blue" {
        }
        "red" {
            float v = 1

            def Sphere "Inner"
            {
                double radius = 2
            }
        }
    }
}

def "Internal" (
    permission = private
)
{
}

class "Class"
{
}

over "Ov"
{
}
"""

# Values that need crate 0.8.0 (payload list ops with layer offsets) plus list ops of every item type.
RICH = """#usda 1.0
def "Root" (
    prepend payload = [
        @./p1.usda@</A> (offset = 3; scale = 1),
        @./p2.usda@
    ]
    prepend references = @./r.usda@ (
        customData = {
            int refData = 7
        }
    )
)
{
}
"""

NEWER = """#usda 1.0
def "Root"
{
    timecode tc = 12.5
    timecode[] tcs = [1, 2.5]
    pathExpression pe = "/a/b //c"
    pathExpression[] pes = ["/x", "/y"]
}
"""

UNSUPPORTED = """#usda 1.0
def "Root"
{
    custom int plain = 7
}
"""


def child(kind, path):
    from pxr import Gf, Sdf, Ts, Usd, Vt

    if kind == "mesh":
        # Authored spec by spec into a new crate layer (as a stage would) so the file is byte for
        # byte the 699-byte example annotated in usd-format.md §10.1; exporting imported text
        # orders the tokens differently.
        layer = Sdf.Layer.CreateNew(path)
        prim = Sdf.PrimSpec(layer, "M", Sdf.SpecifierDef, "Mesh")
        attr = Sdf.AttributeSpec(prim, "points", Sdf.ValueTypeNames.Point3fArray)
        attr.default = Vt.Vec3fArray([Gf.Vec3f(0, 0, 0), Gf.Vec3f(1, 0, 0), Gf.Vec3f(0, 1.5, 0)])
        layer.Save()
        return
    layer = Sdf.Layer.CreateAnonymous(".usda")
    if kind == "basic":
        layer.ImportFromString(BASIC)
    elif kind == "rich":
        layer.ImportFromString(RICH)
        prim = layer.GetPrimAtPath("/Root")
        prim.SetInfo("customData", {
            "intOps": Sdf.IntListOp.Create(prependedItems=[1, -2], appendedItems=[3]),
            "int64Ops": Sdf.Int64ListOp.CreateExplicit([2**40, -5]),
            "uintOps": Sdf.UIntListOp.Create(deletedItems=[7]),
            "uint64Ops": Sdf.UInt64ListOp.Create(appendedItems=[2**63]),
            "strOps": Sdf.StringListOp.Create(deletedItems=["a"]),
            "pathOps": Sdf.PathListOp.CreateExplicit(["/A", "/A.b"]),
            "tokOps": Sdf.TokenListOp.Create(prependedItems=["t"]),
            "unreg": Sdf.UnregisteredValue("hi"),
        })
    elif kind == "newer":
        layer.ImportFromString(NEWER)
        prim = layer.GetPrimAtPath("/Root")
        attr = Sdf.AttributeSpec(prim, "dur", Sdf.ValueTypeNames.Duration)
        attr.default = Gf.Duration(2.0)
        attr = Sdf.AttributeSpec(prim, "durs", Sdf.ValueTypeNames.DurationArray)
        attr.default = Vt.DurationArray([Gf.Duration(1.0), Gf.Duration(0.5)])
        layer.relocates = [(Sdf.Path("/Root/A"), Sdf.Path("/Root/B"))]
    elif kind == "unsupported":
        layer.ImportFromString(UNSUPPORTED)
        stage = Usd.Stage.Open(layer)
        prim = stage.GetPrimAtPath("/Root")
        spline = Ts.Spline()
        for t, v in ((0.0, 1.0), (10.0, 2.0)):
            knot = Ts.Knot()
            knot.SetTime(t)
            knot.SetValue(v)
            spline.SetKnot(knot)
        prim.CreateAttribute("sp", Sdf.ValueTypeNames.Double).SetSpline(spline)
        builder = Vt.IntArrayEditBuilder()
        builder.Append(5)
        prim.CreateAttribute("ae", Sdf.ValueTypeNames.IntArray).Set(builder.FinalizeAndReset())
        layer.GetPrimAtPath("/Root").SetInfo("customData", {
            "uvlo": Sdf.UnregisteredValueListOp.Create(prependedItems=[Sdf.UnregisteredValue("x")]),
        })
    else:
        raise SystemExit("unknown fixture kind " + kind)
    layer.Export(path)


FIXTURES = [
    ("mesh-0.8.0.usdc", "mesh", "0.8.0"),
    ("basic-0.4.0.usdc", "basic", "0.4.0"),
    ("basic-0.5.0.usdc", "basic", "0.5.0"),
    ("basic-0.6.0.usdc", "basic", "0.6.0"),
    ("basic-0.7.0.usdc", "basic", "0.7.0"),
    ("basic-0.8.0.usdc", "basic", "0.8.0"),
    ("rich-0.8.0.usdc", "rich", "0.8.0"),
    ("newer-0.16.0.usdc", "newer", "0.8.0"),
    ("unsupported-0.14.0.usdc", "unsupported", "0.8.0"),
]


def write(out, dump=False):
    os.makedirs(out, exist_ok=True)
    for name, kind, version in FIXTURES:
        path = os.path.join(out, name)
        env = dict(os.environ, USD_WRITE_NEW_USDC_FILES_AS_VERSION=version)
        subprocess.run([sys.executable, __file__, "--child", kind, path], env=env, check=True,
                       stderr=subprocess.DEVNULL)
        with open(path, "rb") as f:
            head = f.read(11)
        print("%-26s %6d bytes, crate %d.%d.%d" % (name, os.path.getsize(path), head[8], head[9], head[10]))
        if dump:
            from pxr import Sdf
            print(Sdf.Layer.OpenAsAnonymous(path).ExportToString())


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dump", action="store_true", help="also print each fixture as usd-core reads it, as USDA")
    add_option(mode)
    args = parser.parse_args()
    if args.check:
        check("gen-crate-fixtures", OUT, write, owns=lambda rel: True)
    else:
        write(OUT, args.dump)

if __name__ == "__main__":
    main()
