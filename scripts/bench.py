#!/usr/bin/env python3
"""Benchmark our reader against Pixar's usd-core on the same inputs, in the same run.

For every input file and each of the two readers, one warm-up run and then --reps measured runs, each a
separate process (the readers alternate, so machine noise hits both alike):

  ours      <binary> inspect --json --timing --no-scene FILE
            in-process time = "timing": {"parse_ms": ...} from its JSON output (open, compose, read
            every mesh's points and indices)
  usd-core  a small Python child: imports pxr (not timed), then times Usd.Stage.Open plus a
            Usd.PrimRange traversal with instance proxies that Get()s points, faceVertexCounts and
            faceVertexIndices of every Mesh (no conversion to Python lists)

Measured per run: whole-process wall time (spawn to exit), peak RSS of that child (ru_maxrss from
os.wait4) and the in-process time. Prints a Markdown table of medians with ratios ours / usd-core
(below 1 = ours is faster or smaller) and writes every raw number to OUT/results.json.

Nothing is built here: build the release binary first (swift build -c release). If the default binary
is missing, only usd-core is measured. Inputs come from gen-bench-inputs.py. The exit status is non-zero
only if a run fails (crash, bad output, timeout) or inputs are missing, never because of the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(REPO, ".build", "release", "transcode-worker")
DEFAULT_OUT = os.path.join(REPO, "bench-out")
DEFAULT_INPUTS = os.path.join(DEFAULT_OUT, "inputs")
PREFERRED_ORDER = ("room.usdz", "dense.usdz", "huge.usdz")
INPUT_EXTENSIONS = (".usdz", ".usdc", ".usda", ".usd")

USD_CORE_PROGRAM = r"""
import json, sys, time
from pxr import Usd
path = sys.argv[1]
start = time.perf_counter()
stage = Usd.Stage.Open(path)
meshes = points = counts = indices = 0
for prim in Usd.PrimRange(stage.GetPseudoRoot(), Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
    if prim.GetTypeName() != "Mesh":
        continue
    meshes += 1
    p = prim.GetAttribute("points").Get()
    c = prim.GetAttribute("faceVertexCounts").Get()
    i = prim.GetAttribute("faceVertexIndices").Get()
    points += len(p) if p is not None else 0
    counts += len(c) if c is not None else 0
    indices += len(i) if i is not None else 0
elapsed_ms = (time.perf_counter() - start) * 1000.0
print(json.dumps({"timing": {"parse_ms": elapsed_ms},
                  "meshes": meshes, "points": points, "faces": counts, "indices": indices}))
"""


class RunError(Exception):
    pass


def run_once(cmd: list[str], timeout: float) -> dict:
    """Run one child process; return wall seconds, peak RSS (KiB) and its parsed JSON output."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            stdout = proc.stdout.read()
            proc.stdout.close()
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait again
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if timed_out.is_set():
        raise RunError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
    if proc.returncode != 0:
        raise RunError(f"exit status {proc.returncode}: {' '.join(cmd)}\n{stderr.strip()[-2000:]}")
    try:
        output = json.loads(stdout)
        parse_ms = float(output["timing"]["parse_ms"])
    except (ValueError, KeyError, TypeError) as exc:
        raise RunError(f"no timing.parse_ms in the output of {' '.join(cmd)} ({exc}): {stdout[:300]!r}") from exc
    return {"wall_s": wall, "rss_kib": usage.ru_maxrss, "parse_ms": parse_ms, "output": output}


def find_inputs(directory: str) -> list[str]:
    if not os.path.isdir(directory):
        return []
    names = [n for n in os.listdir(directory) if n.endswith(INPUT_EXTENSIONS) and not n.startswith(".")]
    ordered = [n for n in PREFERRED_ORDER if n in names] + sorted(n for n in names if n not in PREFERRED_ORDER)
    return [os.path.join(directory, n) for n in ordered]


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def cell_value(entry: dict, reader: str, key: str) -> float | None:
    return entry["medians"].get(reader, {}).get(key)


def cell(entry: dict, reader: str, value: float | None, digits: int, scale: float) -> str:
    if reader in entry["errors"]:
        return "error"
    return fmt(None if value is None else value * scale, digits)


def ratio(ours: float | None, peer: float | None) -> str:
    if ours is None or peer is None or peer == 0:
        return "n/a"
    return f"{ours / peer:.3g}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", default=DEFAULT_INPUTS,
                        help="directory with the input files (default: bench-out/inputs; "
                             "create them with scripts/gen-bench-inputs.py DIR)")
    parser.add_argument("--reps", type=int, default=7, help="measured runs per input and reader (default 7)")
    parser.add_argument("--binary", default=None,
                        help="our release binary (default: .build/release/transcode-worker; "
                             "if the default is missing, only usd-core is measured)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="where results.json goes (default: bench-out)")
    parser.add_argument("--python", default=sys.executable, help="Python with usd-core for the peer side")
    parser.add_argument("--only", choices=("ours", "usd-core"), help="measure just one reader")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is killed (default 600)")
    args = parser.parse_args()
    if args.reps < 1:
        parser.error("--reps must be at least 1")

    inputs = find_inputs(args.inputs)
    if not inputs:
        print(f"bench: no inputs in {args.inputs}; run scripts/gen-bench-inputs.py {args.inputs}", file=sys.stderr)
        return 2

    binary = os.path.abspath(args.binary) if args.binary else DEFAULT_BINARY
    readers: dict[str, list[str]] = {}
    if args.only != "usd-core":
        if os.access(binary, os.X_OK):
            readers["ours"] = [binary, "inspect", "--json", "--timing", "--no-scene"]
        elif args.binary or args.only == "ours":
            print(f"bench: binary {binary} not found or not executable", file=sys.stderr)
            return 2
        else:
            print(f"bench: {binary} not built yet (swift build -c release); measuring usd-core only",
                  file=sys.stderr)
    if args.only != "ours":
        readers["usd-core"] = [args.python, "-c", USD_CORE_PROGRAM]

    results: dict = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "reps": args.reps, "binary": binary if "ours" in readers else None, "inputs": {},
    }
    failures: list[str] = []
    for path in inputs:
        name = os.path.basename(path)
        entry = {"path": path, "size_bytes": os.path.getsize(path),
                 "runs": {r: {"parse_ms": [], "wall_s": [], "rss_kib": []} for r in readers}, "errors": {}}
        results["inputs"][name] = entry
        print(f"bench: {name} ({entry['size_bytes'] / 1e6:.1f} MB): ", end="", file=sys.stderr, flush=True)
        broken: set[str] = set()
        for rep in range(args.reps + 1):  # rep 0 is the warm-up
            for reader, cmd in readers.items():
                if reader in broken:
                    continue
                try:
                    run = run_once(cmd + [path], args.timeout)
                except RunError as exc:
                    broken.add(reader)
                    entry["errors"][reader] = str(exc)
                    failures.append(f"{name} / {reader}: {exc}")
                    continue
                if rep == 0:
                    entry.setdefault("warmup", {})[reader] = {k: run[k] for k in ("parse_ms", "wall_s", "rss_kib")}
                    if reader == "usd-core":
                        entry["usd_core_counts"] = {k: run["output"].get(k) for k in
                                                    ("meshes", "points", "faces", "indices")}
                    continue
                for key in ("parse_ms", "wall_s", "rss_kib"):
                    entry["runs"][reader][key].append(run[key])
            print("." if rep else "w", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        entry["medians"] = {r: {k: median(v) for k, v in runs.items()} for r, runs in entry["runs"].items()}

    print()
    print("| input | ours in-process ms | usd-core in-process ms | ratio | ours whole-process s "
          "| usd-core whole-process s | ratio | ours peak RSS MB | usd-core peak RSS MB | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, entry in results["inputs"].items():
        row = [name]
        for key, digits, scale in (("parse_ms", 1, 1.0), ("wall_s", 3, 1.0), ("rss_kib", 1, 1 / 1024)):
            ours, peer = (cell_value(entry, reader, key) for reader in ("ours", "usd-core"))
            row += [cell(entry, "ours", ours, digits, scale), cell(entry, "usd-core", peer, digits, scale),
                    ratio(ours, peer)]
        print("| " + " | ".join(row) + " |")
    print()
    print(f"Medians of {args.reps} runs after one warm-up; ratio = ours / usd-core (below 1: ours is faster or "
          f"smaller). Only ratios from one run are comparable.")

    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, "results.json")
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print(f"Raw numbers: {out_path}")
    if failures:
        print("\nbench: failed runs:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
