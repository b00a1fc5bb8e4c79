"""Command line: the parent run by default, a worker with the hidden --worker option."""

from __future__ import annotations

import argparse

from .driver import parent_main
from .worker import worker_main


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Write random USD stages as .usdc/.usda/.usdz plus the usd-core view of the composed "
                    "stage (case_NNN.expected.json), checking that the three formats agree.")
    parser.add_argument("outdir", help="output directory (created if missing)")
    parser.add_argument("--count", type=int, default=200, help="number of cases (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes in parallel (default: CPU count)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--cases", default="", help=argparse.SUPPRESS)
    parser.add_argument("--width", type=int, default=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker_main(args)
    if args.count < 1:
        parser.error("--count must be at least 1")
    return parent_main(args)
