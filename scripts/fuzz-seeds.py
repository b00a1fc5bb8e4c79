#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target (scripts/fuzz calls this).

    python3 scripts/fuzz-seeds.py OUTDIR [SOURCE_DIR...]

Walks the source directories (default: samples/, Tests/Fixtures/ and ../shared/corpus when it
exists) and writes OUTDIR/<target>/ for each target: zip (.usdz), crate (.usdc and crate .usd, also
taken out of packages), usda (.usda, also out of packages), compose (packages, layers and small
layer stacks joined as scripts/fuzz documents), roomplan (CapturedRoom .json), texture (.png and
.jpg, also out of packages) and convert (packages with their RoomPlan JSON, JSON alone, layers).
Seed files are named after a hash of their bytes, so duplicates collapse. Prints one count per target.
"""
import argparse
import hashlib
import os
import zipfile

TARGETS = ["zip", "crate", "usda", "compose", "roomplan", "texture", "convert"]
MARKER = b"\n@@@ "
MAX_SEED = 4 << 20  # larger files slow every mutation down; they add little coverage


def join(first, others):
    """FuzzSections.join: the first file, then `\\n@@@ NAME\\n` + bytes for each other file."""
    out = first
    for name, data in others:
        out += MARKER + name.encode() + b"\n" + data
    return out


def kind(data, name):
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        return "usdz"
    if data.startswith(b"PXR-USDC"):
        return "usdc"
    if data.startswith(b"#usda"):
        return "usda"
    if data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8\xff"):
        return "image"
    if name.endswith(".json") and data.lstrip().startswith(b"{"):
        return "json"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUTDIR", help="where the seed folders are written")
    parser.add_argument("sources", nargs="*", metavar="SOURCE_DIR", help="folders to walk (default: see above)")
    args = parser.parse_args()
    out = args.out
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sources = args.sources or [os.path.join(root, "samples"), os.path.join(root, "Tests", "Fixtures"),
                               os.path.join(root, "..", "shared", "corpus")]
    seeds = {t: {} for t in TARGETS}

    def add(target, data):
        if 0 < len(data) <= MAX_SEED:
            seeds[target][hashlib.sha1(data).hexdigest()[:16]] = data

    def add_file(data, name, depth=0):
        k = kind(data, name)
        if k == "usdz":
            add("zip", data)
            add("compose", data)
            add("convert", data)
            if depth < 2:
                try:
                    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
                        for info in z.infolist():
                            if info.file_size <= MAX_SEED:
                                add_file(z.read(info), info.filename, depth + 1)
                except Exception:
                    pass  # malformed packages are seeds for zip only
        elif k == "usdc":
            add("crate", data)
            add("compose", data)
        elif k == "usda":
            add("usda", data)
            add("compose", data)
            add("convert", data)
        elif k == "image":
            add("texture", data)
        elif k == "json":
            add("roomplan", data)
            add("convert", data)

    jsons = {}
    for src in sources:
        if not os.path.isdir(src):
            continue
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            if os.path.basename(dirpath) == "fuzz" or "/fuzz/" in dirpath + "/":
                dirnames[:] = []
                continue  # crash fixtures are replayed by the tests, not used as seeds
            for f in sorted(filenames):
                path = os.path.join(dirpath, f)
                if os.path.getsize(path) > MAX_SEED:
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
                add_file(data, f)
                if f.endswith(".json"):
                    jsons[os.path.splitext(path)[0]] = data

    # RoomPlan pairs (name.usdz beside name.json) for the whole pipeline.
    for stem, js in jsons.items():
        if os.path.exists(stem + ".usdz") and kind(js, "x.json") == "json":
            with open(stem + ".usdz", "rb") as fh:
                add("convert", join(fh.read(), [("room.json", js)]))
    redacted = os.path.join(root, "samples", "textured")
    png = os.path.join(redacted, "redacted", "textures", "albedo.png")
    if os.path.exists(png) and os.path.exists(os.path.join(redacted, "textured_box.usdz")):
        with open(os.path.join(redacted, "textured_box.usdz"), "rb") as a, open(png, "rb") as b:
            add("convert", join(a.read(), [("redacted/textures/albedo.png", b.read())]))

    # Small layer stacks: every composition arc across files.
    stacks = [
        (b'#usda 1.0\n(\n    defaultPrim = "World"\n    subLayers = [@sub.usda@]\n    upAxis = "Y"\n)\n'
         b'def Xform "World" (\n    references = @ref.usda@</Thing>\n    payload = @pay.usdc@\n)\n{\n'
         b'    over "Mesh" { float3[] extent = [(-1, -1, -1), (1, 1, 1)] }\n}\n',
         [("sub.usda", b'#usda 1.0\nover "World" { double3 xformOp:translate = (1, 2, 3)\n'
                       b'    uniform token[] xformOpOrder = ["xformOp:translate"] }\n'),
          ("ref.usda", b'#usda 1.0\ndef Xform "Thing" {\n    def Mesh "Mesh" {\n'
                       b'        int[] faceVertexCounts = [3]\n        int[] faceVertexIndices = [0, 1, 2]\n'
                       b'        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]\n    }\n}\n')]),
        (b'#usda 1.0\n(\n    defaultPrim = "A"\n)\nclass "_base" { def Cube "c" { double size = 2 } }\n'
         b'def "A" (\n    inherits = </_base>\n    variants = { string v = "two" }\n    prepend variantSets = "v"\n)\n'
         b'{\n    variantSet "v" = {\n        "one" { def Sphere "s" {} }\n        "two" { def Cone "k" (references = @other.usda@) {} }\n    }\n}\n',
         [("other.usda", b'#usda 1.0\n(\n    defaultPrim = "P"\n    metersPerUnit = 0.01\n)\ndef Cylinder "P" { double height = 3 }\n')]),
        (b'#usda 1.0\n(\n    subLayers = [@a.usda@, @b.usda@]\n)\n',
         [("a.usda", b'#usda 1.0\n(\n    subLayers = [@b.usda@]\n)\n'),
          ("b.usda", b'#usda 1.0\n(\n    subLayers = [@a.usda@]\n)\n')]),
    ]
    for first, others in stacks:
        add("compose", join(first, others))
        add("convert", join(first, others))
    for name in ("values_composition", "shading_variants", "roomplan_root"):
        for ext in ("usda", "usdc"):
            p = os.path.join(root, "Tests", "Fixtures", "usda", name + "." + ext)
            q = os.path.join(root, "Tests", "Fixtures", "usda", "roomplan_element." + ("usdc" if ext == "usda" else "usda"))
            if os.path.exists(p) and os.path.exists(q):
                with open(p, "rb") as a, open(q, "rb") as b:
                    add("compose", join(a.read(), [("roomplan_element." + ("usdc" if ext == "usda" else "usda"), b.read())]))

    for t in TARGETS:
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        for h, data in seeds[t].items():
            with open(os.path.join(d, h), "wb") as fh:
                fh.write(data)
        print(f"seeds: {t}: {len(seeds[t])} files")


if __name__ == "__main__":
    main()
