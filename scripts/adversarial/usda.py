"""USDA text: a one-prim layer with optional metadata, deeply nested prims, and a textured root layer
whose texture file name is filled in."""


def usda_layer(default_prim, prim_name, metadata=""):
    return ("#usda 1.0\n(\n    defaultPrim = \"%s\"\n)\n\ndef Xform \"%s\" (\n%s)\n{\n}\n"
            % (default_prim, prim_name, metadata)).encode()


def nested_usda(depth):
    out = ["#usda 1.0\n"]
    out.append('def "a"{' * depth)
    out.append("}" * depth + "\n")
    return "".join(out).encode()


TEXTURED_ROOT = b"""#usda 1.0
(
    defaultPrim = "Root"
    metersPerUnit = 1
    upAxis = "Y"
)

def Xform "Root"
{
    def Mesh "Box" (
        prepend apiSchemas = ["MaterialBindingAPI"]
    )
    {
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (
            interpolation = "vertex"
        )
        rel material:binding = </Root/Mat>
    }

    def Material "Mat"
    {
        token outputs:surface.connect = </Root/Mat/PBR.outputs:surface>

        def Shader "PBR"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor.connect = </Root/Mat/Tex.outputs:rgb>
            token outputs:surface
        }

        def Shader "Tex"
        {
            uniform token info:id = "UsdUVTexture"
            asset inputs:file = @./textures/huge.%s@
            float2 inputs:st.connect = </Root/Mat/St.outputs:result>
            float3 outputs:rgb
        }

        def Shader "St"
        {
            uniform token info:id = "UsdPrimvarReader_float2"
            token inputs:varname = "st"
            float2 outputs:result
        }
    }
}
"""
