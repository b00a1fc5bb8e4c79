"""Worker process: pxr is imported here, after the parent has set the crate version variable."""

from __future__ import annotations

import argparse
import json
import os

from .cases import generate_case
from .constants import RESULT_MARKER
from .pxrlib import import_pxr


def worker_main(args: argparse.Namespace) -> int:
    import_pxr()
    outdir = os.path.abspath(args.outdir)
    cases = [int(c) for c in args.cases.split(",") if c]
    files = 0
    versions: dict[str, int] = {}
    for index in cases:
        n, version = generate_case(outdir, args.seed, index, args.width, args.worker)
        files += n
        versions[version] = versions.get(version, 0) + 1
    print(RESULT_MARKER + json.dumps({"cases": len(cases), "files": files, "crate_versions": versions}), flush=True)
    return 0
