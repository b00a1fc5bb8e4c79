#!/usr/bin/env python3
"""Write small .usdz packages that store other .usdz packages, plus usd-core's view of each.

Every package is written with usd-core's own zip writer (Sdf.ZipFileWriter, which stores entries
uncompressed and 64-byte aligned, as USD requires). The root layers reference, payload or sublayer
the nested packages both by package name (`inner.usdz`, which opens the nested package's root layer)
and by package-relative path (`inner.usdz[parts/quad.usda]`); layers inside a nested package use
relative paths that must resolve inside that package.

Next to the packages, `expected.json` records, per package, what usd-core reports for the composed
stage: every prim in pre-order (`path`, `type`, and `points`, the length of a Mesh's `points`), and
the identifiers of the layers it opened, with the package's own file name left off (`inner.usdz`
stands for `<dir>/outer.usdz[inner.usdz]`). Cases our reader refuses on purpose say so under
`ours` (the error code and the package path the error names).

Usage: gen-nested-packages.py [OUTDIR]   (default: Tests/Fixtures/zip/nested-packages)
       gen-nested-packages.py --check [OUTDIR]   (exit 1 unless the files in OUTDIR match)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from fixturecheck import add_option, check  # noqa: E402

FIXED_MTIME = 1_577_836_800  # 2020-01-01T00:00:00Z, so reruns write identical bytes
DEFAULT_OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "zip", "nested-packages")


def mesh(name: str, points: int, extra: str = "") -> str:
    """A typed Mesh prim with `points` points (a fan of triangles) and optional extra metadata."""
    pts = ", ".join(f"({i}, {i % 2}, 0)" for i in range(points))
    faces = max(points - 2, 1)
    idx = ", ".join(f"0, {i + 1}, {i + 2}" for i in range(faces))
    meta = f" (\n    {extra}\n)" if extra else ""
    return (f'def Mesh "{name}"{meta}\n{{\n    point3f[] points = [{pts}]\n'
            f'    int[] faceVertexCounts = [{", ".join("3" for _ in range(faces))}]\n'
            f'    int[] faceVertexIndices = [{idx}]\n}}\n')


def layer(body: str, header: str = "") -> str:
    return f"#usda 1.0\n({header}\n)\n\n{body}"


class PackageWriter:
    """Builds packages from {archive path: text or bytes or nested spec} in a scratch directory."""

    def __init__(self, scratch: str):
        self.scratch = scratch
        self.counter = 0

    def write(self, path: str, entries: list[tuple[str, object]]) -> str:
        from pxr import Sdf

        self.counter += 1
        workdir = os.path.join(self.scratch, f"p{self.counter}")
        os.makedirs(workdir)
        files = []
        for name, content in entries:
            local = os.path.join(workdir, name.replace("/", "__"))
            if isinstance(content, list):  # a nested package spec
                content = open(self.write(local + ".pkg", content), "rb").read()
            data = content.encode() if isinstance(content, str) else content
            with open(local, "wb") as f:
                f.write(data)
            os.utime(local, (FIXED_MTIME, FIXED_MTIME))  # the zip writer stamps entries with it
            files.append((local, name))
        writer = Sdf.ZipFileWriter.CreateNew(path)
        for local, name in files:
            if not writer.AddFile(local, name):
                raise SystemExit(f"gen-nested-packages: could not add {name} to {path}")
        writer.Save()
        return path


def chain(levels: int) -> list[tuple[str, object]]:
    """A package whose root references `l1.usdz`, which references `l2.usdz`, … `levels` deep;
    the innermost package holds a Mesh."""
    inner: list[tuple[str, object]] = [("root.usda", layer(mesh("Leaf", 4), ' defaultPrim = "Leaf"'))]
    for level in range(levels, 0, -1):
        body = (f'def "L{level}" (\n    prepend references = @l{level}.usdz@\n)\n{{\n}}\n')
        inner = [("root.usda", layer(body, f' defaultPrim = "L{level}"')), (f"l{level}.usdz", inner)]
    return inner


def cases() -> dict[str, list[tuple[str, object]]]:
    tri = layer(mesh("Tri", 3), ' defaultPrim = "Tri"')
    quad = layer('def "Quad" (\n    prepend references = @./tri.usda@\n)\n{\n}\n', ' defaultPrim = "Quad"')
    inner_root = layer('def "Inner" (\n    prepend references = @./parts/tri.usda@\n)\n{\n'
                       '    def "Child" (\n        prepend references = @parts/quad.usda@\n    )\n    {\n    }\n}\n',
                       ' defaultPrim = "Inner"')
    inner = [("root.usda", inner_root), ("parts/tri.usda", tri), ("parts/quad.usda", quad)]

    ref_package = layer(
        'def "World"\n{\n'
        '    def "ByName" (\n        prepend references = @inner.usdz@\n    )\n    {\n    }\n'
        '    def "ByPath" (\n        prepend references = @inner.usdz[parts/quad.usda]@\n    )\n    {\n    }\n'
        '    def "Anchored" (\n        prepend references = @./inner.usdz[parts/tri.usda]@\n    )\n    {\n    }\n'
        '}\n', ' defaultPrim = "World"')

    base = layer(mesh("Base", 5), ' defaultPrim = "Base"')
    sublayer_payload = layer(
        'def "World"\n{\n'
        '    def "Loaded" (\n        prepend payload = @inner.usdz[parts/quad.usda]@\n    )\n    {\n    }\n'
        '}\n', ' defaultPrim = "World"\n    subLayers = [@base.usdz@, @inner.usdz[parts/tri.usda]@]')

    deep = [("root.usda", layer(mesh("Deep", 6), ' defaultPrim = "Deep"')),
            ("extra.usda", layer(mesh("Extra", 3), ' defaultPrim = "Extra"'))]
    mid_root = layer('def "Mid" (\n    prepend references = [@deep.usdz@, @deep.usdz[extra.usda]@</Extra>]\n)\n'
                     '{\n}\n', ' defaultPrim = "Mid"')
    three_levels = layer('def "Top" (\n    prepend references = @mid.usdz@\n)\n{\n}\n', ' defaultPrim = "Top"')

    # The nested package holds an entry with its own name: `inner.usdz` authored inside inner.usdz
    # names that entry (each package is its own sandbox), never the enclosing package.
    twin = [("root.usda", layer(mesh("Twin", 3), ' defaultPrim = "Twin"'))]
    self_inner = [("root.usda", layer('def "Self" (\n    prepend references = @inner.usdz@\n)\n{\n}\n'
                                      'def "Outside" (\n    prepend references = @only_outside.usda@\n)\n{\n}\n',
                                      ' defaultPrim = "Self"')),
                  ("inner.usdz", twin)]
    self_named = layer('def "World" (\n    prepend references = @inner.usdz@\n)\n{\n}\n'
                       'def "Other" (\n    prepend references = @inner.usdz@</Outside>\n)\n{\n}\n',
                       ' defaultPrim = "World"')

    broken = layer('def "World"\n{\n    def "Broken" (\n        prepend references = @broken.usdz@\n'
                   '    )\n    {\n    }\n}\n', ' defaultPrim = "World"')

    return {
        "ref_package.usdz": [("root.usda", ref_package), ("inner.usdz", inner)],
        "sublayer_payload.usdz": [("root.usda", sublayer_payload), ("base.usdz", [("base.usda", base)]),
                                  ("inner.usdz", inner)],
        "three_levels.usdz": [("top.usda", three_levels),
                              ("mid.usdz", [("mid.usda", mid_root), ("deep.usdz", deep)])],
        "self_named.usdz": [("root.usda", self_named), ("inner.usdz", self_inner),
                            ("only_outside.usda", layer(mesh("NotReached", 3)))],
        "depth_4.usdz": chain(4),
        "depth_5.usdz": chain(5),
        "not_a_zip.usdz": [("root.usda", broken), ("broken.usdz", b"this is not a zip archive\n" * 4)],
    }


# What our reader answers instead of composing, where it refuses on purpose.
OURS = {
    "depth_5.usdz": {"error": "USD_LIMIT_EXCEEDED"},
    "not_a_zip.usdz": {"error": "USD_ZIP_INVALID", "names": "not_a_zip.usdz[broken.usdz]"},
}


def deflate_entries(source, deflate: dict[str, dict]) -> tuple[bytes, int]:
    """The zip archive `source` (a path or bytes) rewritten with the entries named in `deflate`
    deflated (each value: the same for the entries of that nested package); returns the bytes and
    the total uncompressed size of every deflated entry, nested ones included."""
    import io

    inflated = 0
    out_bytes = io.BytesIO()
    src_file = source if isinstance(source, str) else io.BytesIO(source)
    with zipfile.ZipFile(src_file) as src, zipfile.ZipFile(out_bytes, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            out = zipfile.ZipInfo(info.filename, date_time=(2020, 1, 1, 0, 0, 0))
            out.compress_type = zipfile.ZIP_STORED
            if info.filename in deflate:
                if deflate[info.filename]:
                    data, nested = deflate_entries(data, deflate[info.filename])
                    inflated += nested
                out.compress_type = zipfile.ZIP_DEFLATED
                inflated += len(data)
            dst.writestr(out, data)
    return out_bytes.getvalue(), inflated


def describe(path: str) -> dict:
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.Open(path)
    prims = []
    for prim in stage.TraverseAll():
        entry = {"path": str(prim.GetPath()), "type": str(prim.GetTypeName())}
        if prim.IsA(UsdGeom.Mesh):
            entry["points"] = len(UsdGeom.Mesh(prim).GetPointsAttr().Get() or [])
        prims.append(entry)
    prefix = os.path.abspath(path)
    layers = []
    for lyr in stage.GetUsedLayers(includeClipLayers=False):
        ident = lyr.identifier
        if lyr.anonymous:
            continue
        if ident.startswith(prefix + "[") and ident.endswith("]"):
            ident = ident[len(prefix) + 1:-1]
        elif os.path.abspath(ident) == prefix:
            ident = "(package)"
        layers.append(ident)
    return {"prims": prims, "layers": sorted(layers)}


def write(outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    expected = {}
    with tempfile.TemporaryDirectory() as scratch:
        writer = PackageWriter(scratch)
        for name, entries in cases().items():
            path = os.path.join(outdir, name)
            tmp = writer.write(os.path.join(scratch, name), entries)
            shutil.copyfile(tmp, path)
            expected[name] = {"usd_core": describe(path), **({"ours": OURS[name]} if name in OURS else {})}
            size = os.path.getsize(path)
            if size > 16_384:
                raise SystemExit(f"gen-nested-packages: {name} is {size} bytes, over the 16 kB budget")
        # usd-core reads stored entries only, so this one has no usd-core answer: the same content
        # as ref_package.usdz with the nested package deflated and, inside it, parts/quad.usda
        # deflated too: for the decompression budget and the nested package's own warnings.
        deflated = os.path.join(outdir, "deflated_inner.usdz")
        data, size = deflate_entries(os.path.join(outdir, "ref_package.usdz"), {"inner.usdz": {"parts/quad.usda": {}}})
        with open(deflated, "wb") as f:
            f.write(data)
        expected["deflated_inner.usdz"] = {"usd_core": None, "ours": {"same_as": "ref_package.usdz",
                                                                      "inflated_bytes": size}}
    with open(os.path.join(outdir, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"gen-nested-packages: wrote {len(expected)} packages to {outdir}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir", nargs="?", default=DEFAULT_OUT, metavar="OUTDIR",
                        help="where to write (default: Tests/Fixtures/zip/nested-packages)")
    add_option(parser, "the files in OUTDIR")
    args = parser.parse_args()
    outdir = os.path.abspath(args.outdir)
    if args.check:
        check("gen-nested-packages", outdir, write, owns=lambda rel: True)
    else:
        write(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
