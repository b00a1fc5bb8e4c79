#!/usr/bin/env python3
"""Benchmark our reader against Pixar's usd-core on the same inputs, in the same run.

For every input file and each of the two readers, one warm-up run and then --reps measured runs, each a
separate process (the readers alternate, so machine noise hits both alike):

  ours      <binary> --json --timing --no-scene FILE (binary: transcode-inspect, the inspect command as a
            program of its own; given transcode-worker, its `inspect` command is run instead)
            in-process time = "timing": {"parse_ms": ...} from its JSON output (open, compose, read
            every mesh's points and indices)
  usd-core  a small Python child: imports pxr (not timed), then times Usd.Stage.Open plus a
            Usd.PrimRange traversal with instance proxies that Get()s points, faceVertexCounts and
            faceVertexIndices of every Mesh (no conversion to Python lists)

  ours+scene  <binary> --json --timing FILE: what `inspect --json` does, the parse plus the
            scene counted without vertex streams ("scene_ms" is the decoding of the arrays the
            count reads and the count; "parse_ms" then excludes that decoding)
  ours+full   <binary> --json --timing --full-scene FILE: the whole scene as convert builds
            it (normals, texture coordinates, triangulation, welding)
  worker+scene  transcode-worker inspect --json --timing FILE, when transcode-worker is beside the
            binary: the same report from the worker's CLI, which loads the pipeline's and the
            daemon's libraries at start (the three are skipped with --no-scene)

Measured per run: whole-process wall time (spawn to exit), peak RSS of that child (ru_maxrss from
os.wait4) and the in-process time. Every run goes through a minimal launcher process (python -I -S)
that forks and execs the reader, so the peak RSS is the reader's own and not inherited from this
script (Linux carries the exec()ing process's high-water mark into the new program). Prints a
Markdown table of medians with ratios ours / usd-core (below 1 = ours is faster or smaller), a
second table for inspect with the scene (whole process against usd-core's in-process and whole-process
times), and writes every raw number to OUT/results.json.

Nothing is built here: build the release binaries first (swift build -c release). If the default binary
is missing, only usd-core is measured. Inputs come from gen-bench-inputs.py. The exit status is non-zero
only if a run fails (crash, bad output, timeout) or inputs are missing, never because of the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(REPO, ".build", "release", "transcode-inspect")
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


# The launcher forks, execs the reader with stdout and stderr in files, and reports wall time and the
# child's rusage. It is itself tiny (about 5 MB), so its peak is the floor of the RSS numbers.
LAUNCHER = r"""
import json, os, signal, sys, time
req = json.loads(sys.argv[1])
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.execv(req["argv"][0], req["argv"])
    except BaseException as exc:
        os.write(2, ("cannot run %s: %s\n" % (req["argv"][0], exc)).encode())
    os._exit(127)
expired = []
def on_alarm(signum, frame):
    expired.append(1)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, req["timeout"])
_, status, usage = os.wait4(pid, 0)
signal.setitimer(signal.ITIMER_REAL, 0)
wall = time.perf_counter() - start
print(json.dumps({"wall_s": wall, "rss_kib": usage.ru_maxrss, "exit": os.waitstatus_to_exitcode(status),
                  "timed_out": bool(expired)}))
"""


def run_once(cmd: list[str], timeout: float) -> dict:
    """Run one child process through LAUNCHER; return wall seconds, peak RSS (KiB), the in-process
    times (parse_ms, and scene_ms when reported) and its parsed JSON output."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        request = json.dumps({"argv": cmd, "stdout": out_path, "stderr": err_path, "timeout": timeout})
        try:
            r = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, request], capture_output=True,
                               text=True, timeout=timeout + 60)
            result = json.loads(r.stdout)
        except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
            raise RunError(f"the launcher failed for {' '.join(cmd)}: {exc}") from exc
        with open(out_path, "rb") as f:
            stdout = f.read()
        with open(err_path, "rb") as f:
            stderr = f.read().decode("utf-8", "replace")
    if result["timed_out"]:
        raise RunError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
    if result["exit"] != 0:
        raise RunError(f"exit status {result['exit']}: {' '.join(cmd)}\n{stderr.strip()[-2000:]}")
    try:
        output = json.loads(stdout)
        parse_ms = float(output["timing"]["parse_ms"])
        scene_ms = output["timing"].get("scene_ms")
        scene_ms = float(scene_ms) if scene_ms is not None else None
    except (ValueError, KeyError, TypeError) as exc:
        raise RunError(f"no timing.parse_ms in the output of {' '.join(cmd)} ({exc}): {stdout[:300]!r}") from exc
    return {"wall_s": result["wall_s"], "rss_kib": result["rss_kib"], "parse_ms": parse_ms, "scene_ms": scene_ms,
            "output": output}


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
                        help="our release binary, transcode-inspect or transcode-worker (default: "
                             ".build/release/transcode-inspect; if the default is missing, only usd-core is "
                             "measured)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="where results.json goes (default: bench-out)")
    parser.add_argument("--python", default=sys.executable, help="Python with usd-core for the peer side")
    parser.add_argument("--only", choices=("ours", "usd-core"), help="measure just one reader")
    parser.add_argument("--no-scene", action="store_true",
                        help="do not measure ours+scene and ours+full (inspect with the scene)")
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
            inspect = [binary] if os.path.basename(binary) == "transcode-inspect" else [binary, "inspect"]
            readers["ours"] = inspect + ["--json", "--timing", "--no-scene"]
            if not args.no_scene:
                readers["ours+scene"] = inspect + ["--json", "--timing"]
                readers["ours+full"] = inspect + ["--json", "--timing", "--full-scene"]
                worker = os.path.join(os.path.dirname(binary), "transcode-worker")
                if len(inspect) == 1 and os.access(worker, os.X_OK):
                    readers["worker+scene"] = [worker, "inspect", "--json", "--timing"]
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
                 "runs": {r: {"parse_ms": [], "wall_s": [], "rss_kib": [], "scene_ms": []} for r in readers}, "errors": {}}
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
                    entry.setdefault("warmup", {})[reader] = {k: run[k] for k in ("parse_ms", "wall_s", "rss_kib", "scene_ms")}
                    if reader == "usd-core":
                        entry["usd_core_counts"] = {k: run["output"].get(k) for k in
                                                    ("meshes", "points", "faces", "indices")}
                    continue
                for key in ("parse_ms", "wall_s", "rss_kib", "scene_ms"):
                    if run[key] is not None:
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
    if any("ours+scene" in e["medians"] for e in results["inputs"].values()):
        print()
        print("| input | run | scene ms | parse ms | whole-process s | peak RSS MB "
              "| whole / usd-core in-process | whole / usd-core whole |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, entry in results["inputs"].items():
            peer_in = cell_value(entry, "usd-core", "parse_ms")
            peer_whole = cell_value(entry, "usd-core", "wall_s")
            for reader in ("ours+scene", "ours+full", "worker+scene"):
                if reader not in entry["medians"]:
                    continue
                row = [name, reader]
                for key, digits, scale in (("scene_ms", 1, 1.0), ("parse_ms", 1, 1.0), ("wall_s", 3, 1.0),
                                           ("rss_kib", 1, 1 / 1024)):
                    row.append(cell(entry, reader, cell_value(entry, reader, key), digits, scale))
                whole = cell_value(entry, reader, "wall_s")
                row.append(ratio(whole * 1000 if whole is not None else None, peer_in))
                row.append(ratio(whole, peer_whole))
                print("| " + " | ".join(row) + " |")
        print()
        print("ours+scene is `transcode-inspect --json`: the parse plus the scene counted without vertex streams; "
              "ours+full is `--full-scene`, the scene as convert builds it (with the scene, \"scene_ms\" includes decoding "
              "the arrays: the meshes' topology and, for the full scene, normals and UVs); worker+scene is `transcode-worker inspect --json`, "
              "the same report from the worker's CLI (its start loads the pipeline's and the daemon's libraries).")

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
