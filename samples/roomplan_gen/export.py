"""A room written as a USDZ package in one of RoomPlan's export styles (parametric, mesh, model, iOS 16
mesh): the root layer, one layer per element, and the catalog models of a `.model` export."""

from .catalog import CHAIR_PARTS, TABLE_PARTS, catalog_usdc
from .float32 import f32
from .geometry import box_mesh, prism_mesh
from .transforms import usd_matrix
from .usda import HEADER, cube_body, element_layer, group, join_blocks, mesh_body, section_block
from .usdz import write_usdz


CATEGORY_NAME = {"wall": "Wall", "door": "Door", "window": "Window", "opening": "Opening", "floor": "Floor"}


def usd_category(e):
    if e["kind"] == "door":
        return "Door(Isopen: True)" if e["is_open"] else "Door(Isopen: False)"
    if e["kind"] == "object":
        return e["category"][0].upper() + e["category"][1:]
    return CATEGORY_NAME[e["kind"]]


def export_usdz(room, style, out_path, skip_ids=(), wider_walls=(), chair_mesh_height=None, catalog=None):
    """style: parametric | mesh | model | ios16. `catalog` (model style): category → (model name, crate
    bytes, size) to embed instead of the generated chair and table models; objects of the categories
    it names reference that model, the others stay boxes."""
    folder = {"parametric": "Parametric", "mesh": "Mesh", "model": "Model", "ios16": "Mesh"}[style]
    top_group = {"parametric": "Parametric_grp", "mesh": "Mesh_grp", "model": "Model_grp", "ios16": "Mesh_grp"}[style]
    files = []
    counters = {}

    def next_name(prefix):
        n = counters.get(prefix, 0)
        counters[prefix] = n + 1
        return f"{prefix}{n}"

    def surface_body(e, name, thickness_kind):
        t = e["transform"]
        w, h = e["dims"][0], e["dims"][1]
        if style == "parametric":
            depth = {"wall": 0.0001, "floor": 0.0001}.get(e["kind"], 0.0005)
            return cube_body(name, t, (w, h, depth))
        if e["kind"] == "wall":
            extra = 0.16 if e["id"] in wider_walls else 0.0
            pts, counts, idx, nrm = box_mesh(-(w + extra) / 2, (w + extra) / 2, -h / 2, h / 2, -0.16, 0)
        else:
            pts, counts, idx, nrm = box_mesh(-w / 2, w / 2, -h / 2, h / 2, -0.04, 0.04)
        return mesh_body(name, t, pts, counts, idx, nrm)

    def hosted_color(kind):
        return (0.33, 0.33, 0.33) if kind in ("door", "window", "opening") else (1, 1, 1)

    def opacity(kind):
        if kind in ("door", "window", "opening") and style in ("mesh", "model", "ios16"):
            return 0.0
        return 1.0

    arch_children = []
    walls_refs = []
    for wi, wall in enumerate(room.walls):
        refs = []
        wname = f"Wall{wi}"
        if style == "ios16":
            path = f"assets/Mesh/Walls/{wname}.usda"
            files.append((path, element_layer(wname, None, wall["id"], surface_body(wall, wname, "wall"))))
            walls_refs.append(path)
            continue
        base = f"assets/{folder}/Walls/{wname}"
        files.append((f"{base}/{wname}.usda", element_layer(wname, "Wall", wall["id"], surface_body(wall, wname, "wall"))))
        refs.append(f"{base}/{wname}.usda")
        for e in wall["hosted"]:
            if e["id"] in skip_ids:
                continue
            name = next_name(CATEGORY_NAME[e["kind"]])
            files.append((f"{base}/{name}.usda", element_layer(
                name, usd_category(e), e["id"], surface_body(e, name, e["kind"]), hosted_color(e["kind"]),
                opacity(e["kind"]))))
            refs.append(f"{base}/{name}.usda")
        arch_children.append(group(f"Wall_{wi}_grp", refs, 12))

    blocks = []
    if style == "ios16":
        blocks.append(group("Walls_grp", walls_refs, 8))
    else:
        blocks.append(group("Arch_grp", [], 8, join_blocks(arch_children)))
        for fi, fl in enumerate(room.floors):
            name = f"Floor{fi}"
            pts, counts, idx, nrm = prism_mesh(fl["corners"], 0.0001)
            files.append((f"assets/{folder}/Floors/{name}.usda", element_layer(
                name, "Floor", fl["id"], mesh_body(name, fl["transform"], pts, counts, idx, nrm))))
            blocks.append(group("Floor_grp", [f"assets/{folder}/Floors/{name}.usda"], 8))

    by_category = {}
    for o in room.objects:
        by_category.setdefault(o["category"], []).append(o)
    object_children = []
    catalog_written = {}
    for cat, objs in by_category.items():
        cname = cat[0].upper() + cat[1:]
        refs = []
        for o in objs:
            name = next_name(cname)
            path = f"assets/{folder}/{cname}/{name}.usda"
            w, h, d = o["dims"]
            t = o["transform"]
            if style == "parametric":
                body = cube_body(name, t, (w, h, d))
            elif style == "model" and cat in (catalog or ("chair", "table")):
                model = catalog[cat][0] if catalog else "DiningChair_sample" if cat == "chair" else "DiningTable_sample"
                if model not in catalog_written:
                    if catalog:
                        data, size = catalog[cat][1:]
                    else:
                        data, size = catalog_usdc(model, CHAIR_PARTS if cat == "chair" else TABLE_PARTS)
                    catalog_written[model] = size
                    files.append((f"assets/{folder}/{cname}/{model}.rooms.usdc", data))
                size = catalog_written[model]
                scale = [f32(w / size[0]), 0, 0, 0, 0, f32(h / size[1]), 0, 0, 0, 0, f32(d / size[2]), 0, 0, 0, 0, 1]
                body = (f'    def Xform "{name}"\n    {{\n'
                        f"        matrix4d xformOp:transform = {usd_matrix(t)}\n"
                        '        uniform token[] xformOpOrder = ["xformOp:transform"]\n\n'
                        f'        def Xform "model" (\n'
                        f"            prepend references = @./{model}.rooms.usdc@\n"
                        "        )\n        {\n"
                        f"            matrix4d xformOp:transform = {usd_matrix(scale)}\n"
                        '            uniform token[] xformOpOrder = ["xformOp:transform"]\n'
                        "        }\n    }\n")
            else:
                mh = chair_mesh_height if (cat == "chair" and chair_mesh_height) else h
                pts, counts, idx, nrm = box_mesh(-w / 2, w / 2, -h / 2, -h / 2 + mh, -d / 2, d / 2)
                body = mesh_body(name, t, pts, counts, idx, nrm)
            files.append((path, element_layer(name, usd_category(o), o["id"], body)))
            refs.append(path)
        object_children.append(group(f"{cname}_grp", refs, 12))
    blocks.append(group("Object_grp", [], 8, join_blocks(object_children)))

    root_name = "room" if style == "ios16" else "Room"
    sections = ""
    if style != "ios16" and room.sections:
        sections = group("Section_grp", [], 4, section_block(room.sections, 8)) + "\n"
    root = (HEADER.format(root_name)
            + f'def Xform "{root_name}" (\n    kind = "assembly"\n)\n{{\n'
            + sections
            + group(top_group, [], 4, join_blocks(blocks))
            + "}\n\n")
    entries = [(f"{root_name}.usda", root.encode())]
    for path, data in files:
        entries.append((path, data.encode() if isinstance(data, str) else data))
    write_usdz(out_path, entries)
