"""The hand-written USDA fixtures, by name, and the directory they are written to
(Tests/Fixtures/usda/)."""

import os

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(SCRIPTS, "..", "Tests", "Fixtures", "usda")

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
