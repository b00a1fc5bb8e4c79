#!/usr/bin/env python3
"""Generates the adversarial inputs under Tests/Fixtures/adversarial/ and their index cases.json.

Each case is a small hostile file (zip bombs, crate counts near 2^32, cyclic path trees,
self-referencing values, LZ4 streams that expand past their declared size, deeply nested USDA,
composition cycles, a huge PNG texture, a tiny file claiming 50 M triangles, hostile CapturedRoom
JSON). `scripts/check-adversarial.py` runs `transcode-worker convert` on every case and checks that
it ends in the expected typed error code within the time and memory bounds.

Every byte is assembled here with `struct`, `zlib` and hand-written LZ4 blocks (Python 3 standard
library only); the output is deterministic, so re-running rewrites the same bytes:

    python3 scripts/gen-adversarial-fixtures.py            # writes Tests/Fixtures/adversarial/
    python3 scripts/gen-adversarial-fixtures.py --list     # prints the cases
    python3 scripts/gen-adversarial-fixtures.py --check    # exit 1 unless the committed files match
"""
import argparse
import json
import os
import sys

# The generator's parts live in scripts/adversarial/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from adversarial.cases import cases

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "adversarial")


def main():
    parser = argparse.ArgumentParser(
        description="Writes the hostile inputs and cases.json into Tests/Fixtures/adversarial/ "
                    "(removing files no case names).")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="print the cases (name, code, bytes, attack) and write nothing")
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 unless the committed files are exactly what would be written")
    args = parser.parse_args()
    listing, checking = args.list, args.check
    index = []
    files = {}
    for name, case_files, invocation, attack, code in cases():
        for fname, data in case_files.items():
            assert fname not in files, fname
            files[fname] = data
        entry = {"name": name, "files": sorted(case_files), "attack": attack, "expected_code": code}
        entry.update(invocation)
        index.append(entry)
        if not checking:
            print("%-30s %-26s %9d bytes  %s" % (name, code, sum(len(d) for d in case_files.values()), attack))
    files["cases.json"] = (json.dumps({"cases": index}, indent=2, sort_keys=True) + "\n").encode()
    if listing:
        return
    if checking:
        stale = []
        present = set(os.listdir(OUT)) if os.path.isdir(OUT) else set()
        for fname, data in sorted(files.items()):
            path = os.path.join(OUT, fname)
            if fname not in present or open(path, "rb").read() != data:
                stale.append(fname)
        stale += sorted(present - set(files))
        if stale:
            sys.exit("gen-adversarial-fixtures: out of date: %s (rerun scripts/gen-adversarial-fixtures.py)"
                     % ", ".join(stale))
        print("gen-adversarial-fixtures: %d cases, %d files up to date" % (len(index), len(files)))
        return
    os.makedirs(OUT, exist_ok=True)
    for stale in sorted(set(os.listdir(OUT)) - set(files)):
        os.remove(os.path.join(OUT, stale))
    for fname, data in files.items():
        with open(os.path.join(OUT, fname), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
