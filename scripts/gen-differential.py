#!/usr/bin/env python3
"""Generate random USD stages for differential tests of the Swift USD reader.

For every case the same stage is written three times: as a crate file (`case_NNN.usdc`, written with a
chosen crate version), as text (`case_NNN.usda`) and as a package (`case_NNN.usdz`, made from the .usdc
with UsdUtils.CreateNewUsdzPackage); every fifth case is also stored inside another package
(`case_NNN.nested.usdz`, whose root layer sublayers it). Next to them, `case_NNN.expected.json`
records what Pixar's usd-core reports for the composed stage. The script opens every file of a case
and fails loudly if they do not compose to identical JSON.

usd-core reads USD_WRITE_NEW_USDC_FILES_AS_VERSION only when `pxr` is first imported, so the cases are
grouped by crate version and each group runs in its own worker process (this script, re-invoked with
`--worker`). Everything is reproducible from `--seed`: case N always has the same content.

Usage: gen-differential.py OUTDIR [--count 200] [--seed 1] [--jobs N]
"""

from __future__ import annotations

import os
import sys

# The generator's parts live in scripts/differential/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from differential.cli import main


if __name__ == "__main__":
    sys.exit(main())
