#!/usr/bin/env python3
"""Writes the USDA fixtures used by Tests/USDParseTests/USDAFixtureTests.swift.

Requires Pixar's usd-core (`pip install usd-core`). For each fixture below it writes, into
Tests/Fixtures/usda/:

  NAME.usda           the text exactly as written here;
  NAME.expected.json  every spec of the layer as usd-core reads it (spec type and every stored field);
  NAME.usdc           the same layer saved as a crate file by usd-core (for the USDA/crate parity test).

Layers are loaded with Sdf.Layer.ImportFromString, the same route the crate fixtures use, so the
stored fields are those a crate writer emits: `custom` only when true, `variability` only when not
the default, children lists only when non-empty, no `specifier` on variants.

    python3 scripts/gen-usda-fixtures.py
    python3 scripts/gen-usda-fixtures.py --corpus ../shared/corpus   # also writes corpus-facts.json
    python3 scripts/gen-usda-fixtures.py --check [--corpus DIR]      # exit 1 unless the committed files match

With --corpus it also records, for every USDA layer of the real-world corpus (standalone `.usda` and
`#usda`-headed `.usd` files, and `#usda` entries of `.usdz` packages, nested ones included), the facts
USDACorpusTests checks: spec counts per type, the total number of stored fields, and the complete
pseudo-root and default-prim specs (field names only for the RoomPlan captures, which carry no
licence). The corpus files themselves are never copied.
"""
import argparse
import json
import os
import sys

from pxr import Sdf

# The generator's parts live in scripts/usdafixtures/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixturecheck import add_option, check
from usdafixtures.corpus import corpus_facts
from usdafixtures.describe import describe
from usdafixtures.fixtures import FIXTURES, OUT


def write(out, corpus=None):
    os.makedirs(out, exist_ok=True)
    for name, text in FIXTURES.items():
        layer = Sdf.Layer.CreateAnonymous(name + ".usda")
        if not layer.ImportFromString(text):
            raise SystemExit("usd-core rejected fixture " + name)
        with open(os.path.join(out, name + ".usda"), "w") as f:
            f.write(text)
        with open(os.path.join(out, name + ".expected.json"), "w") as f:
            json.dump(describe(layer), f, indent=1, sort_keys=True)
            f.write("\n")
        layer.Export(os.path.join(out, name + ".usdc"))
        print("wrote", name, len(describe(layer)["specs"]), "specs")
    if corpus:
        corpus_facts(corpus, out)


def owned(rel):
    """The committed files this script writes (time_samples_* are gen-time-samples.py's)."""
    stem = rel.split(".", 1)[0]
    return "/" not in rel and stem in FIXTURES


def main():
    parser = argparse.ArgumentParser(
        description="Writes the USDA fixtures (NAME.usda, NAME.expected.json, NAME.usdc) into Tests/Fixtures/usda/.")
    parser.add_argument("--corpus", metavar="DIR",
                        help="also write corpus-facts.json from the USDA layers of this corpus (e.g. ../shared/corpus)")
    add_option(parser, "the committed files (corpus-facts.json too, given --corpus)")
    args = parser.parse_args()
    if args.check:
        check("gen-usda-fixtures", OUT, lambda out: write(out, args.corpus), owns=owned)
    else:
        write(OUT, args.corpus)

if __name__ == "__main__":
    main()
