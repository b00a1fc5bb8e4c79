"""USDA text in RoomPlan's layout: layer header, element layers with their material, Cube and Mesh
gprims, group Xforms with their references, and the Section_grp children."""

from .float32 import fmt32, fmt64
from .transforms import frame, usd_matrix

HEADER = '#usda 1.0\n(\n    defaultPrim = "{0}"\n    metersPerUnit = 1\n    upAxis = "Y"\n)\n\n'


def material_block(name, color, opacity, indent="    "):
    c = ", ".join(fmt64(v) for v in color)
    lines = [
        f'def Material "{name}_color"',
        "{",
        f"    token outputs:surface.connect = </{name}/{name}_color/surfaceShader.outputs:surface>",
        "",
        '    def Shader "surfaceShader"',
        "    {",
        '        uniform token info:id = "UsdPreviewSurface"',
        f"        color3f inputs:diffuseColor = ({c})",
        "        color3f inputs:emissiveColor = (0, 0, 0)",
        "        normal3f inputs:normal = (1, 1, 1)",
        "        float inputs:occlusion = 1",
        f"        float inputs:opacity = {fmt64(opacity)}",
        "        token outputs:surface",
        "    }",
        "}",
    ]
    return "\n".join(indent + l if l else "" for l in lines) + "\n"


def element_layer(name, category, ident, body, color=(1, 1, 1), opacity=1.0):
    custom = f'        string Category = "{category}"\n' if category is not None else ""
    return (HEADER.format(name)
            + f'def Xform "{name}" (\n'
            + "    assetInfo = {\n"
            + f"        asset identifier = @./{name}.usda@\n"
            + f'        string name = "{name}"\n'
            + "    }\n"
            + "    customData = {\n"
            + custom
            + f'        string UUID = "{ident}"\n'
            + "    }\n"
            + '    kind = "component"\n'
            + ")\n{\n"
            + body
            + "\n"
            + material_block(name, color, opacity)
            + "}\n\n")


def cube_body(name, transform, scale):
    s = ", ".join(fmt64(v) for v in scale)
    return (f'    def Cube "{name}"\n    {{\n'
            f"        rel material:binding = </{name}/{name}_color>\n"
            "        double size = 1\n"
            f"        double3 xformOp:scale = ({s})\n"
            f"        matrix4d xformOp:transform = {usd_matrix(transform)}\n"
            '        uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:scale"]\n'
            "    }\n")


def mesh_body(name, transform, points, counts, indices, normals):
    pts = ", ".join("(" + ", ".join(fmt32(c) for c in p) + ")" for p in points)
    nrm = ", ".join("(" + ", ".join(fmt32(c) for c in n) + ")" for n in normals)
    return (f'    def Mesh "{name}"\n    {{\n'
            f"        int[] faceVertexCounts = [{', '.join(str(c) for c in counts)}]\n"
            f"        int[] faceVertexIndices = [{', '.join(str(i) for i in indices)}]\n"
            f"        rel material:binding = </{name}/{name}_color>\n"
            f"        normal3f[] normals = [{nrm}]\n"
            f"        point3f[] points = [{pts}]\n"
            '        uniform token subdivisionScheme = "none"\n'
            f"        matrix4d xformOp:transform = {usd_matrix(transform)}\n"
            '        uniform token[] xformOpOrder = ["xformOp:transform"]\n'
            "    }\n")


def group(name, refs, indent, children=""):
    pad = " " * indent
    if refs:
        if len(refs) == 1:
            r = f"{pad}    prepend references = @./{refs[0]}@\n"
        else:
            inner = ",\n".join(f"{pad}        @./{x}@" for x in refs)
            r = f"{pad}    prepend references = [\n{inner}\n{pad}    ]\n"
    else:
        r = ""
    return (f'{pad}def Xform "{name}" (\n{pad}    kind = "group"\n{r}{pad})\n{pad}{{\n'
            + children + f"{pad}}}\n")


def join_blocks(blocks):
    return "\n".join(blocks)


def section_block(sections, indent):
    pad = " " * indent
    out = []
    counts = {}
    for s in sections:
        n = counts.get(s["label"], 0)
        counts[s["label"]] = n + 1
        name = f'{s["label"]}{n}'
        t = frame((1, 0, 0), (0, 1, 0), s["center"])
        top = frame((1, 0, 0), (0, 1, 0), (0, 1.25, 0))
        out.append(
            f'{pad}def Xform "{name}" (\n{pad}    kind = "assembly"\n{pad})\n{pad}{{\n'
            f"{pad}    matrix4d xformOp:transform = {usd_matrix(t)}\n"
            f'{pad}    uniform token[] xformOpOrder = ["xformOp:transform"]\n\n'
            f'{pad}    def Xform "{name}_centerTop" (\n{pad}        kind = "assembly"\n{pad}    )\n{pad}    {{\n'
            f"{pad}        matrix4d xformOp:transform = {usd_matrix(top)}\n"
            f'{pad}        uniform token[] xformOpOrder = ["xformOp:transform"]\n'
            f"{pad}    }}\n{pad}}}\n")
    return join_blocks(out)
