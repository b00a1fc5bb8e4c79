#!/usr/bin/env python3
"""How the USDA reader's time grows with the width of a block: one prim holding N variant sets,
one variant set of N variants and N child prims (the input of USDAErrorTests.wideBlocksListEveryChild),
for N doubling from --from to --to.

    python3 scripts/bench-usda-wide.py [--binary .build/release/transcode-inspect] [--from 5000] [--to 80000] [--reps 3]

Each file is read --reps times by `<binary> --json --timing --no-scene FILE`; the table gives the
median in-process parse time ("timing": {"parse_ms"}) and its ratio to the previous width. A
reader linear in the width keeps the ratio near 2; a quadratic one tends to 4. Nothing is checked:
the exit status is non-zero only when a run fails. The files go to a temporary folder, removed
afterwards. Standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(REPO, ".build", "release", "transcode-inspect")


def wide_layer(n):
    """The text of a layer with one prim holding n variant sets, a set of n variants and n children."""
    parts = ["#usda 1.0\ndef \"P\" {\n"]
    parts += [f"variantSet \"s{i}\" = {{\n\"v\" {{\n}}\n}}\n" for i in range(n)]
    parts.append("variantSet \"big\" = {\n")
    parts += [f"\"v{i}\" {{\n}}\n" for i in range(n)]
    parts.append("}\n")
    parts += [f"def \"c{i}\" {{\n}}\n" for i in range(n)]
    parts.append("}\n")
    return "".join(parts)


def parse_ms(binary, path):
    out = subprocess.run([binary, "--json", "--timing", "--no-scene", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["timing"]["parse_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    parser.add_argument("--from", dest="start", type=int, default=5_000)
    parser.add_argument("--to", dest="end", type=int, default=80_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"no binary at {args.binary}: build it first (swift build -c release)")

    print("| width | bytes | parse ms (median) | ratio to the previous width |")
    print("| ---: | ---: | ---: | ---: |")
    previous = None
    with tempfile.TemporaryDirectory(prefix="bench-usda-wide-") as work:
        n = args.start
        while n <= args.end:
            path = os.path.join(work, f"wide-{n}.usda")
            with open(path, "w") as f:
                f.write(wide_layer(n))
            try:
                median = statistics.median(parse_ms(args.binary, path) for _ in range(args.reps))
            except (subprocess.CalledProcessError, KeyError, ValueError) as e:
                sys.exit(f"width {n}: {e}")
            ratio = f"{median / previous:.2f}" if previous else ""
            print(f"| {n} | {os.path.getsize(path)} | {median:.1f} | {ratio} |")
            previous = median
            n *= 2


if __name__ == "__main__":
    main()
