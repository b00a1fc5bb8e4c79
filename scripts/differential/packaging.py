"""The nested package (`case_NNN.nested.usdz`) written for every NESTED_EVERY-th case."""

from __future__ import annotations

import os

from . import pxrlib


def write_nested_package(outdir: str, name: str, usdc: str, by_path: bool) -> str:
    """`case_NNN.nested.usdz`: a package whose root layer sublayers the case's own package, stored
    inside it, by name (`case_NNN.usdz`, its root layer) or by package path
    (`case_NNN.usdz[case_NNN.usdc]`). The root layer copies the case's layer metadata (up axis,
    units, default prim, time codes), so the composed stage is the case's stage."""
    source = pxrlib.Sdf.Layer.FindOrOpen(usdc)
    root_path = os.path.join(outdir, name + ".nested-root.usda")
    root = pxrlib.Sdf.Layer.CreateNew(root_path)
    for key in source.pseudoRoot.ListInfoKeys():
        if key not in ("subLayers", "subLayerOffsets", "primChildren"):
            root.pseudoRoot.SetInfo(key, source.pseudoRoot.GetInfo(key))
    inner = name + ".usdz"
    root.subLayerPaths.append(f"{inner}[{name}.usdc]" if by_path else inner)
    root.Save()
    nested = os.path.join(outdir, name + ".nested.usdz")
    writer = pxrlib.Sdf.ZipFileWriter.CreateNew(nested)
    if not writer.AddFile(root_path, "root.usda") or not writer.AddFile(os.path.join(outdir, inner), inner):
        raise SystemExit(f"gen-differential: could not write {nested}")
    writer.Save()
    del writer, root
    os.remove(root_path)
    return nested
