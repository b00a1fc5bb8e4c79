#!/usr/bin/env python3
"""Benchmark our whole-process `convert` against two USD-to-glTF converters a user could run instead.

Tools, each run as its own process on the same input, in the same run:

  ours      <binary> convert INPUT --out DIR --no-thumbnails (writes DIR/model.glb and layer_manifest.json;
            --no-thumbnails only when the binary's convert --help lists it)
  usd2gltf  usd2gltf -i INPUT -o OUT.glb                     (PyPI package usd2gltf, its own CLI)
  bpy       python3 -c <program> INPUT OUT.glb               (PyPI package bpy, Blender as a module:
            read_factory_settings(use_empty=True), wm.usd_import, export_scene.gltf(export_format='GLB'))

For every input and tool: one warm-up run, then --reps measured runs; the tools alternate within each
repetition so machine noise hits them alike. Measured per run: whole-process wall time (spawn to exit,
so interpreter start-up and imports count for the Python tools), peak RSS of that child (ru_maxrss from
os.wait4) and the size of the .glb it wrote. Every run is started by a minimal launcher process
(python -I -S, about 5 MB), because Linux hands the peak RSS of whoever exec()s a program on to it:
started straight from this script, a small run would report this script's own peak instead.

A run that exits non-zero, writes no valid .glb or exceeds --timeout is recorded as failed or timed
out, and that tool is not run again on that input. With --slow-reps N, a tool whose warm-up on an
input took longer than --slow-after seconds gets N measured runs there instead of --reps.

Prints a Markdown table of medians (speed-up = fastest peer's median / ours: above 1 means ours is
faster), then a table of what each tool wrote (.glb size, triangles, world-space extent read back from
the .glb, so dropped geometry or a unit/axis mix-up shows), and writes every raw number to
bench-out/convert-results.json.

Inputs come from scripts/gen-bench-inputs.py; a missing default input directory (or a missing
room/dense/huge file named with --inputs) is generated first. Install the peers with
`pip install usd2gltf bpy`; a peer that is not installed is reported as such and the others still run.
The exit status is 0 whenever the benchmark ran, whatever the ratios and even if a tool failed or timed
out; it is 2 on a usage error (bad option, missing --binary, nothing to run) and 1 if the script itself
cannot carry on (inputs cannot be generated, results cannot be written).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

# The benchmark's parts live in scripts/benchconvert/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchconvert.inputs import resolve_inputs
from benchconvert.measure import measure
from benchconvert.report import compare_outputs, print_report
from benchconvert.settings import DEFAULT_BINARY, DEFAULT_INPUTS, DEFAULT_RESULTS, REPO, TOOLS, ScriptError, UsageError
from benchconvert.tools import resolve_tools


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", nargs="+", default=[DEFAULT_INPUTS], metavar="PATH",
                        help="input directories, files, or the names room, dense, huge (default: bench-out/inputs, "
                             "generated with scripts/gen-bench-inputs.py if missing)")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help=f"comma-separated subset of {','.join(TOOLS)} (default: all)")
    parser.add_argument("--binary", default=None,
                        help=f"our release binary (default: {DEFAULT_BINARY} in the repository; if that is "
                             "not built, ours is reported as 'not built' and the peers still run)")
    parser.add_argument("--reps", type=int, default=5, help="measured runs per input and tool (default 5)")
    parser.add_argument("--slow-reps", type=int, default=None, metavar="N",
                        help="measured runs for a tool whose warm-up on an input took longer than --slow-after "
                             "(default: same as --reps)")
    parser.add_argument("--slow-after", type=float, default=60.0, metavar="SECONDS",
                        help="warm-up time above which --slow-reps applies (default 60)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds before one run of a tool is killed (default 300)")
    parser.add_argument("--python", default=sys.executable,
                        help="Python that has bpy (and runs gen-bench-inputs.py) (default: this one)")
    parser.add_argument("--usd2gltf", default=None, help="usd2gltf executable (default: found on PATH)")
    parser.add_argument("--results", default=None,
                        help="where the raw numbers go (default: bench-out/convert-results.json)")
    parser.add_argument("--keep-outputs", default=None, metavar="DIR",
                        help="copy each tool's warm-up .glb to DIR/<input>/<tool>.glb for inspection")
    args = parser.parse_args(argv)
    args.binary_given = args.binary is not None
    args.binary = args.binary or DEFAULT_BINARY
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        parser.error(f"--tools: unknown {', '.join(unknown) or '(empty)'}; choose from {','.join(TOOLS)}")
    args.tools = [t for t in TOOLS if t in tools]
    if args.reps < 1:
        parser.error("--reps must be at least 1")
    if args.slow_reps is not None and args.slow_reps < 1:
        parser.error("--slow-reps must be at least 1")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        available, missing = resolve_tools(args)
        if not available:
            raise UsageError("none of the selected tools can run: "
                             + "; ".join(f"{t}: {why}" for t, why in missing.items()))
        inputs = resolve_inputs(args.inputs, args.python)
    except UsageError as exc:
        print(f"bench-convert: {exc}", file=sys.stderr)
        return 2
    except ScriptError as exc:
        print(f"bench-convert: {exc}", file=sys.stderr)
        return 1
    for tool, why in missing.items():
        print(f"bench-convert: skipping {tool}: {why}", file=sys.stderr)

    results: dict = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "loadavg_at_start": os.getloadavg()},
        "reps": args.reps, "slow_reps": args.slow_reps, "slow_after_s": args.slow_after, "timeout_s": args.timeout,
        "tools": {t: {"invocation": s["invocation"], "version": s["version"], "path": s["path"]}
                  for t, s in available.items()},
        "missing_tools": missing,
        "units": {"wall_s": "seconds", "rss_kib": "KiB (ru_maxrss)", "glb_bytes": "bytes"},
        "inputs": {},
    }
    try:
        measure(args, inputs, available, missing, results)
    except ScriptError as exc:
        print(f"\nbench-convert: {exc}", file=sys.stderr)
        return 1
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    compare_outputs(results)

    results_path = os.path.abspath(args.results) if args.results else os.path.join(REPO, DEFAULT_RESULTS)
    try:
        os.makedirs(os.path.dirname(results_path), exist_ok=True)
        with open(results_path, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    except OSError as exc:
        print(f"bench-convert: cannot write {results_path}: {exc}", file=sys.stderr)
        return 1

    print_report(results, [t for t in TOOLS if t in available])
    print()
    for tool, spec in available.items():
        version = f" {spec['version']}" if spec["version"] else ""
        print(f"- {tool}{version}: {spec['invocation']}")
    problems = [(name, tool, cell) for name, e in results["inputs"].items() for tool, cell in e["tools"].items()
                if cell.get("status") in ("failed", "timeout")]
    for name, tool, cell in problems:
        last = cell.get("output_tail", "").strip().splitlines()[-1:] or [""]
        when = "warm-up" if cell["rep"] == 0 else f"measured run {cell['rep']}"
        print(f"- {name} / {tool}: {cell['status']} on the {when} ({cell['error']}) {last[0][:300]}")
    print(f"\nRaw numbers: {results_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
