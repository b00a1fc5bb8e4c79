"""One case: writes its .usdc/.usda/.usdz (and nested package), checks that they compose alike and
writes case_NNN.expected.json."""

from __future__ import annotations

import os
import random

from . import pxrlib
from .builder import CaseBuilder
from .constants import NESTED_EVERY
from .expected import describe_stage, first_difference, format_expected
from .packaging import write_nested_package


def generate_case(outdir: str, seed: int, index: int, width: int, version: str) -> tuple[int, str]:
    name = f"case_{index:0{width}d}"
    rng = random.Random(f"{seed}:{index}")
    ext_name = f"ref_{index:0{width}d}." + ("usda" if rng.random() < 0.5 else "usdc")
    builder = CaseBuilder(rng, name, ext_name, allow_timecode=version not in ("0.4.0", "0.5.0", "0.6.0"))
    layer, ext = builder.build()
    files = 0
    if ext is not None:
        ext.Export(os.path.join(outdir, ext_name))
        files += 1
    usdc = os.path.join(outdir, name + ".usdc")
    usda = os.path.join(outdir, name + ".usda")
    usdz = os.path.join(outdir, name + ".usdz")
    if not layer.Export(usdc) or not layer.Export(usda):
        raise SystemExit(f"gen-differential: could not write {name}")
    del layer, ext, builder
    if not pxrlib.UsdUtils.CreateNewUsdzPackage(pxrlib.Sdf.AssetPath(usdc), usdz):
        raise SystemExit(f"gen-differential: could not package {usdz}")
    with open(usdc, "rb") as f:
        header = f.read(11)
    if header[:8] != b"PXR-USDC":
        raise SystemExit(f"gen-differential: {usdc} is not a crate file")
    crate_version = f"{header[8]}.{header[9]}.{header[10]}"

    reference = describe_stage(usdc)
    for other in (usda, usdz):
        got = describe_stage(other)
        if got != reference:
            raise SystemExit(f"gen-differential: {os.path.basename(other)} composes differently from "
                             f"{os.path.basename(usdc)}: {first_difference(reference, got)}")
    written = [usdc, usda, usdz, os.path.join(outdir, name + ".expected.json")]
    if index % NESTED_EVERY == 0:
        nested = write_nested_package(outdir, name, usdc, by_path=(index // NESTED_EVERY) % 2 == 1)
        got = describe_stage(nested)
        if got != reference:
            raise SystemExit(f"gen-differential: {os.path.basename(nested)} composes differently from "
                             f"{os.path.basename(usdc)}: {first_difference(reference, got)}")
        written.append(nested)
    doc = {"case": name, "crate_version": crate_version, **reference}
    with open(os.path.join(outdir, name + ".expected.json"), "w", encoding="utf-8") as f:
        f.write(format_expected(doc))
    for path in written:
        size = os.path.getsize(path)
        if size > 200_000:
            raise SystemExit(f"gen-differential: {path} is {size} bytes, over the 200 kB budget")
    return files + len(written), crate_version
