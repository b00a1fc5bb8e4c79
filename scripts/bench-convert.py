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
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(".build", "release", "transcode-worker")
DEFAULT_INPUTS = os.path.join("bench-out", "inputs")
DEFAULT_RESULTS = os.path.join("bench-out", "convert-results.json")
GENERATOR = os.path.join(REPO, "scripts", "gen-bench-inputs.py")
STANDARD_INPUTS = ("room", "dense", "huge")
INPUT_EXTENSIONS = (".usdz", ".usdc", ".usda", ".usd")
TOOLS = ("ours", "usd2gltf", "bpy")
PEERS = ("usd2gltf", "bpy")

BPY_PROGRAM = r"""
import sys
import bpy
src, dst = sys.argv[1], sys.argv[2]
bpy.ops.wm.read_factory_settings(use_empty=True)
result = bpy.ops.wm.usd_import(filepath=src)
if "FINISHED" not in result:
    sys.exit(f"wm.usd_import returned {sorted(result)}")
result = bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB")
if "FINISHED" not in result:
    sys.exit(f"export_scene.gltf returned {sorted(result)}")
"""


class UsageError(Exception):
    pass


class ScriptError(Exception):
    pass


# --------------------------------------------------------------------------------------------------
# Running one child
# --------------------------------------------------------------------------------------------------

# Peak RSS comes from wait4's rusage of the measured process. Linux carries the high-water RSS of the
# process that exec()s into the new program (signal->maxrss is raised to the old mm's peak at exec), so a
# child forked straight from this script would report at least this script's own peak, which grows once
# it has read a large .glb. Each run therefore goes through a minimal launcher (python -I -S, about 5 MB)
# that forks, execs the tool and reports wall time and rusage; its own peak is the floor of the numbers.
LAUNCHER = r"""
import json, os, signal, sys, time
req = json.loads(sys.argv[1])
argv, cwd, log, timeout = req["argv"], req["cwd"], req["log"], req["timeout"]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        os.chdir(cwd)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(argv[0], argv)
    except BaseException as exc:
        os.write(2, f"cannot run {argv[0]}: {exc}\n".encode())
    os._exit(127)
timed_out = []
def expire(signum, frame):
    timed_out.append(True)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
signal.signal(signal.SIGALRM, expire)
signal.setitimer(signal.ITIMER_REAL, timeout)
_, status, usage = os.wait4(pid, 0)
signal.setitimer(signal.ITIMER_REAL, 0)
wall = time.perf_counter() - start
try:
    os.killpg(pid, signal.SIGKILL)  # anything the tool left running in its group
except (ProcessLookupError, PermissionError):
    pass
print(json.dumps({"wall_s": wall, "rss_kib": usage.ru_maxrss, "exit": os.waitstatus_to_exitcode(status),
                  "timed_out": bool(timed_out)}))
"""


def run_child(cmd: list[str], cwd: str, timeout: float) -> dict:
    """Run one process to completion (or kill its process group at the timeout) through LAUNCHER.

    Returns wall seconds (fork to reaped), ru_maxrss in KiB, the exit code, whether it timed out and
    the tail of its output (stdout and stderr go to one file so a chatty tool never blocks on a pipe).
    """
    log = os.path.join(cwd, ".bench-convert.log")
    request = json.dumps({"argv": cmd, "cwd": cwd, "log": log, "timeout": timeout})
    stderr = ""
    try:
        r = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, request], capture_output=True,
                           text=True, timeout=timeout + 120)
        stderr = r.stderr
        result = json.loads(r.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise ScriptError(f"the launcher failed for {' '.join(cmd)}: {exc} {stderr.strip()[-1000:]}") from exc
    try:
        with open(log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4000))
            result["output_tail"] = f.read().decode("utf-8", "replace")
        os.remove(log)
    except OSError:
        result["output_tail"] = ""
    return result


# --------------------------------------------------------------------------------------------------
# Reading a .glb back
# --------------------------------------------------------------------------------------------------

def read_glb_json(path: str) -> dict:
    """The JSON chunk of a glTF 2.0 binary; raises ValueError when the file is not one."""
    with open(path, "rb") as f:
        header = f.read(20)
        if len(header) < 20:
            raise ValueError("shorter than a GLB header")
        magic, version, length, chunk_len, chunk_type = struct.unpack("<4sIIII", header)
        if magic != b"glTF" or version != 2:
            raise ValueError(f"not a glTF 2.0 binary (magic {magic!r}, version {version})")
        if length != os.path.getsize(path):
            raise ValueError(f"header length {length} != file size {os.path.getsize(path)}")
        if chunk_type != 0x4E4F534A:
            raise ValueError("first chunk is not JSON")
        return json.loads(f.read(chunk_len))


def mat_mul(a: list[float], b: list[float]) -> list[float]:
    """4x4 column-major product a*b."""
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def node_matrix(node: dict) -> list[float]:
    if "matrix" in node:
        return [float(v) for v in node["matrix"]]
    tx, ty, tz = node.get("translation", (0.0, 0.0, 0.0))
    qx, qy, qz, qw = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    sx, sy, sz = node.get("scale", (1.0, 1.0, 1.0))
    r = [1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw), 2 * (qx * qz - qy * qw), 0.0,
         2 * (qx * qy - qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw), 0.0,
         2 * (qx * qz + qy * qw), 2 * (qy * qz - qx * qw), 1 - 2 * (qx * qx + qy * qy), 0.0,
         0.0, 0.0, 0.0, 1.0]
    for i in range(3):
        r[0 + i] *= sx
        r[4 + i] *= sy
        r[8 + i] *= sz
    r[12], r[13], r[14] = tx, ty, tz
    return r


def glb_binary_chunk(path: str) -> bytes:
    """The BIN chunk of a .glb (empty when it has none)."""
    with open(path, "rb") as f:
        data = f.read()
    offset = 12 + 8 + struct.unpack_from("<I", data, 12)[0]
    if offset + 8 <= len(data):
        length, kind = struct.unpack_from("<II", data, offset)
        if kind == 0x004E4942:
            return data[offset + 8:offset + 8 + length]
    return b""


def float_positions(doc: dict, binary: bytes, index: int, cache: dict):
    """POSITION accessor `index` as an (N, 3) float32 numpy array, or None when numpy is missing or the
    accessor is not plain float data in the BIN chunk (sparse, quantized or an external buffer)."""
    if index in cache:
        return cache[index]
    result = None
    try:
        import numpy as np
    except ImportError:
        np = None
    accessor = doc["accessors"][index]
    if np is not None and accessor.get("componentType") == 5126 and "bufferView" in accessor \
            and "sparse" not in accessor:
        view = doc["bufferViews"][accessor["bufferView"]]
        if view.get("buffer", 0) == 0 and "uri" not in doc["buffers"][0]:
            start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
            stride = view.get("byteStride", 12)
            count = accessor["count"]
            if count and start + stride * (count - 1) + 12 <= len(binary):
                result = np.ndarray((count, 3), dtype="<f4", buffer=binary, offset=start, strides=(stride, 4))
    cache[index] = result
    return result


def glb_summary(path: str) -> dict:
    """Triangle count (instanced meshes counted per node) and the world-space bounding box of a .glb:
    tight (every vertex transformed) when numpy is there, else from the POSITION accessors' min/max."""
    doc = read_glb_json(path)
    binary = glb_binary_chunk(path)
    nodes, meshes, accessors = doc.get("nodes", []), doc.get("meshes", []), doc.get("accessors", [])
    scenes = doc.get("scenes", [])
    scene = scenes[doc.get("scene", 0)] if scenes else {"nodes": list(range(len(nodes)))}
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    triangles = primitives = 0
    tight = True
    cache: dict = {}
    identity = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]
    stack = [(i, identity) for i in scene.get("nodes", [])]
    visits = 0
    while stack:
        index, parent = stack.pop()
        visits += 1
        if visits > 1_000_000:
            raise ValueError("node graph too large or cyclic")
        node = nodes[index]
        world = mat_mul(parent, node_matrix(node))
        if "mesh" in node:
            for prim in meshes[node["mesh"]].get("primitives", []):
                primitives += 1
                mode = prim.get("mode", 4)
                pos_index = prim.get("attributes", {}).get("POSITION")
                position = accessors[pos_index] if pos_index is not None else None
                count = accessors[prim["indices"]]["count"] if "indices" in prim else (position or {}).get("count", 0)
                triangles += count // 3 if mode == 4 else max(0, count - 2) if mode in (5, 6) else 0
                if position is None:
                    continue
                points = float_positions(doc, binary, pos_index, cache)
                if points is not None:
                    import numpy as np
                    m = np.array(world, dtype=np.float64).reshape(4, 4).T  # column-major -> rows
                    moved = points.astype(np.float64) @ m[:3, :3].T + m[:3, 3]
                    corners = [moved.min(axis=0).tolist(), moved.max(axis=0).tolist()]
                elif "min" in position and "max" in position:
                    tight = False
                    mn, mx = position["min"], position["max"]
                    corners = []
                    for corner in range(8):
                        p = [mx[i] if corner >> i & 1 else mn[i] for i in range(3)]
                        corners.append([world[a] * p[0] + world[4 + a] * p[1] + world[8 + a] * p[2] + world[12 + a]
                                        for a in range(3)])
                else:
                    continue
                for c in corners:
                    for axis in range(3):
                        lo[axis], hi[axis] = min(lo[axis], c[axis]), max(hi[axis], c[axis])
        stack.extend((child, world) for child in node.get("children", []))
    has_box = lo[0] <= hi[0]
    return {"triangles": triangles, "primitives": primitives, "nodes": len(nodes), "meshes": len(meshes),
            "bbox_min": lo if has_box else None, "bbox_max": hi if has_box else None,
            "extent": [hi[i] - lo[i] for i in range(3)] if has_box else None, "bbox_tight": tight,
            "generator": doc.get("asset", {}).get("generator")}


def compare_to(reference: dict | None, summary: dict | None) -> str:
    """How a peer's output differs from ours: triangle count and world-space extent (1 % tolerance)."""
    if not reference or not summary:
        return "–"
    notes = []
    if summary["triangles"] != reference["triangles"]:
        notes.append(f"{summary['triangles'] - reference['triangles']:+d} triangles")
    a, b = reference.get("extent"), summary.get("extent")
    if a and b:
        def close(x: float, y: float) -> bool:
            return abs(x - y) <= 0.01 * max(abs(x), abs(y), 1e-9)
        if not all(close(x, y) for x, y in zip(a, b)):
            if all(close(x, y) for x, y in zip(sorted(a), sorted(b))):
                notes.append("same size, axes swapped (rotated)")
            elif a[0] and b[0] and all(close(y / x if x else 0, b[0] / a[0]) for x, y in zip(a, b)):
                notes.append(f"scaled ×{b[0] / a[0]:.3g}")
            else:
                notes.append("extent differs")
    elif a or b:
        notes.append("no geometry" if not b else "extent differs")
    return "; ".join(notes) or "same"


# --------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------

def python_has(python: str, module: str) -> bool:
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    try:
        return subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def dist_version(python: str, dist: str) -> str | None:
    probe = f"import importlib.metadata as m; print(m.version({dist!r}))"
    try:
        r = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def swift_binary_version(binary: str) -> str | None:
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() or None if r.returncode == 0 else None


def convert_option(binary: str, option: str) -> bool:
    """Whether `convert --help` of this binary lists the option."""
    try:
        r = subprocess.run([binary, "convert", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return option in r.stdout + r.stderr


def resolve_tools(args: argparse.Namespace) -> tuple[dict, dict]:
    """{tool: spec} for the tools that can run, and {tool: reason} for those that cannot."""
    available: dict = {}
    missing: dict = {}
    wanted = args.tools

    if "ours" in wanted:
        binary = os.path.abspath(args.binary) if args.binary_given else os.path.join(REPO, args.binary)
        if os.path.isfile(binary) and os.access(binary, os.X_OK):
            # The peers write one .glb and nothing else, so thumbnails are left out when convert has the
            # option (builds from before the thumbnailer reject it and render none anyway).
            extra = ["--no-thumbnails"] if convert_option(binary, "--no-thumbnails") else []
            # The extent check reads the accessors back, which needs the uncompressed model (the
            # peers write uncompressed ones too); bench-glb-size.py measures the compressed size.
            if convert_option(binary, "--glb-compression"):
                extra += ["--glb-compression", "none", "--texture-format", "original"]
            # Nor do the peers draw a floor plan.
            if convert_option(binary, "--no-plan"):
                extra += ["--no-plan"]
            available["ours"] = {
                "argv": lambda src, run: [binary, "convert", src, "--out", os.path.join(run, "out"), *extra],
                "glb": lambda run: os.path.join(run, "out", "model.glb"),
                "invocation": f"{binary} convert INPUT --out DIR{''.join(' ' + e for e in extra)}   (DIR/model.glb)",
                "version": swift_binary_version(binary), "path": binary}
        elif args.binary_given:
            raise UsageError(f"--binary {args.binary}: not found or not executable")
        else:
            missing["ours"] = f"not built ({binary}; swift build -c release --product transcode-worker)"

    if "usd2gltf" in wanted:
        exe = os.path.abspath(args.usd2gltf) if args.usd2gltf else shutil.which("usd2gltf") or ""
        if not exe:
            sibling = os.path.join(os.path.dirname(args.python), "usd2gltf")
            exe = sibling if os.access(sibling, os.X_OK) else ""
        if exe and os.access(exe, os.X_OK):
            available["usd2gltf"] = {
                "argv": lambda src, run: [os.path.abspath(exe), "-i", src, "-o", os.path.join(run, "out.glb")],
                "glb": lambda run: os.path.join(run, "out.glb"),
                "invocation": f"{exe} -i INPUT -o DIR/out.glb",
                "version": dist_version(args.python, "usd2gltf"), "path": exe}
        elif args.usd2gltf:
            raise UsageError(f"--usd2gltf {args.usd2gltf}: not found or not executable")
        else:
            missing["usd2gltf"] = "not installed (pip install usd2gltf)"

    if "bpy" in wanted:
        if python_has(args.python, "bpy"):
            python = shutil.which(args.python) or os.path.abspath(args.python)
            available["bpy"] = {
                "argv": lambda src, run: [python, "-c", BPY_PROGRAM, src, os.path.join(run, "out.glb")],
                "glb": lambda run: os.path.join(run, "out.glb"),
                "invocation": (f"{python} -c PROGRAM INPUT DIR/out.glb   (PROGRAM: import bpy; "
                               "bpy.ops.wm.read_factory_settings(use_empty=True); "
                               "bpy.ops.wm.usd_import(filepath=INPUT); "
                               "bpy.ops.export_scene.gltf(filepath=OUT, export_format='GLB'))"),
                "version": dist_version(python, "bpy"), "path": python}
        else:
            missing["bpy"] = f"not installed for {args.python} (pip install bpy)"
    return available, missing


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------

def generate(directory: str, names: list[str], python: str) -> None:
    print(f"bench-convert: generating {', '.join(n + '.usdz' for n in names)} in {directory}", file=sys.stderr)
    r = subprocess.run([python, GENERATOR, directory, "--only", ",".join(names)], stdout=sys.stderr)
    if r.returncode != 0:
        raise ScriptError(f"{GENERATOR} exited with status {r.returncode}")


def usd_files(directory: str) -> list[str]:
    names = [n for n in os.listdir(directory) if n.endswith(INPUT_EXTENSIONS) and not n.startswith(".")]
    order = {f"{n}.usdz": i for i, n in enumerate(STANDARD_INPUTS)}
    return [os.path.join(directory, n) for n in sorted(names, key=lambda n: (order.get(n, len(order)), n))]


def resolve_inputs(items: list[str], python: str) -> list[str]:
    """Each item is a directory, a file, or a bare name (room, dense, huge) looked up in bench-out/inputs.
    The default directory, or a standard input missing from it, is generated with gen-bench-inputs.py."""
    default_dir = os.path.join(REPO, DEFAULT_INPUTS)
    paths: list[str] = []
    for item in items:
        stem = item[:-5] if item.endswith(".usdz") else item
        directory = default_dir if item == DEFAULT_INPUTS else os.path.abspath(item)
        if os.sep not in item and stem in STANDARD_INPUTS and not os.path.exists(item):
            path = os.path.join(default_dir, f"{stem}.usdz")
            if not os.path.isfile(path):
                generate(default_dir, [stem], python)
            paths.append(path)
        elif os.path.isfile(directory):
            paths.append(directory)
        elif directory == default_dir:
            have = {os.path.basename(p) for p in usd_files(directory)} if os.path.isdir(directory) else set()
            lacking = [n for n in STANDARD_INPUTS if f"{n}.usdz" not in have]
            if lacking:
                generate(directory, lacking, python)
            paths.extend(usd_files(directory))
        elif os.path.isdir(directory):
            found = usd_files(directory)
            if not found:
                raise UsageError(f"--inputs {item}: no {'/'.join(INPUT_EXTENSIONS)} files in it "
                                 f"(make them with: python3 scripts/gen-bench-inputs.py {item})")
            paths.extend(found)
        else:
            raise UsageError(f"--inputs {item}: no such file or directory")
    unique = list(dict.fromkeys(paths))
    if not unique:
        raise UsageError("no input files")
    return unique


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------

def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def status_text(cell: dict) -> str | None:
    """Table text for a tool that has no measurement on an input; None when it has numbers."""
    if cell.get("status") == "timeout":
        return f"timeout (> {cell['timeout_s']:g} s)"
    if cell.get("status") == "failed":
        return f"failed ({cell.get('why', 'error')})"
    if cell.get("status") in ("not installed", "not built", "not selected"):
        return cell["status"]
    return None


def fmt_time(cell: dict) -> str:
    text = status_text(cell)
    if text:
        return text
    value = cell.get("median_wall_s")
    return "n/a" if value is None else f"{value:.3f}" if value < 10 else f"{value:.2f}"


def fmt_rss(cell: dict) -> str:
    text = status_text(cell)
    if text:
        return text
    value = cell.get("median_rss_kib")
    return "n/a" if value is None else f"{value / 1024:.0f}"


def speedup(entry: dict) -> str:
    ours = entry["tools"].get("ours", {})
    if ours.get("status") != "ok" or not ours.get("median_wall_s"):
        return "n/a"
    peers = [(entry["tools"][p]["median_wall_s"], p) for p in PEERS
             if entry["tools"].get(p, {}).get("status") == "ok" and entry["tools"][p].get("median_wall_s")]
    timeouts = [p for p in PEERS if entry["tools"].get(p, {}).get("status") == "timeout"]
    if not peers:
        if timeouts:
            return (f"> {entry['tools'][timeouts[0]]['timeout_s'] / ours['median_wall_s']:.0f}× "
                    f"({', '.join(timeouts)} timed out)")
        return "n/a (no peer result)"
    fastest, name = min(peers)
    return f"{fastest / ours['median_wall_s']:.1f}× (vs {name})"


def fmt_extent(summary: dict | None) -> str:
    if not summary or not summary.get("extent"):
        return "–"
    return " × ".join(f"{v:.2f}" for v in summary["extent"])


def compare_outputs(results: dict) -> None:
    """Record, for each peer's warm-up .glb, how it differs from ours on the same input."""
    for entry in results["inputs"].values():
        reference = entry["tools"].get("ours", {}).get("glb_summary")
        for tool in PEERS:
            cell = entry["tools"].get(tool, {})
            if cell.get("glb_summary"):
                cell["vs_ours"] = compare_to(reference, cell["glb_summary"])


def print_report(results: dict, tools: list[str]) -> None:
    print()
    print("| input | ours s | usd2gltf s | bpy s | speed-up vs fastest peer | ours RSS MB | usd2gltf RSS MB | bpy RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, entry in results["inputs"].items():
        t = entry["tools"]
        print(f"| {name} | " + " | ".join(fmt_time(t[x]) for x in TOOLS) + f" | {speedup(entry)} | "
              + " | ".join(fmt_rss(t[x]) for x in TOOLS) + " |")
    reps = sorted({len(c.get("runs", {}).get("wall_s", [])) for e in results["inputs"].values()
                   for c in e["tools"].values() if c.get("status") == "ok"})
    rep_text = "/".join(str(r) for r in reps) if reps else str(results["reps"])
    print()
    print(f"Whole-process wall time and peak RSS (ru_maxrss / 1024): medians of {rep_text} runs after one "
          f"warm-up, every run a separate process. Speed-up = fastest peer's median / ours (above 1: ours is "
          f"faster). Only numbers from the same run are comparable.")

    print()
    print("| input | tool | .glb MB | triangles | primitives | extent x × y × z m | vs ours |")
    print("|---|---|---:|---:|---:|---|---|")
    for name, entry in results["inputs"].items():
        for tool in tools:
            cell = entry["tools"][tool]
            if cell.get("glb_bytes") is None:
                continue
            s = cell.get("glb_summary") or {}
            versus = cell.get("vs_ours") or ""
            print(f"| {name} | {tool} | {cell['glb_bytes'] / 1e6:.2f} | {s.get('triangles', '–')} "
                  f"| {s.get('primitives', '–')} | {fmt_extent(s)} | {versus} |")
    print()
    print("Read back from each tool's warm-up .glb: triangles and primitives per scene node (instances counted "
          "each time); extent = world-space bounding box in glTF units (metres, +Y up), so a dropped prim, an "
          "ignored up axis or unit scale shows as a difference from ours.")


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------

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


def measure(args: argparse.Namespace, inputs: list[str], available: dict, missing: dict, results: dict) -> None:
    work = tempfile.mkdtemp(prefix="bench-convert-")
    try:
        for path in inputs:
            name = os.path.basename(path)
            entry = {"path": path, "size_bytes": os.path.getsize(path), "tools": {}}
            results["inputs"][name] = entry
            for tool in TOOLS:
                if tool in available:
                    entry["tools"][tool] = {"status": "ok", "runs": {"wall_s": [], "rss_kib": [], "glb_bytes": []},
                                            "timeout_s": args.timeout}
                elif tool in missing:
                    entry["tools"][tool] = {"status": "not built" if tool == "ours" else "not installed",
                                            "reason": missing[tool]}
                else:
                    entry["tools"][tool] = {"status": "not selected"}
            planned = {tool: args.reps for tool in available}
            print(f"bench-convert: {name} ({entry['size_bytes'] / 1e6:.1f} MB) ", end="", file=sys.stderr, flush=True)
            rep = 0
            while any(entry["tools"][t]["status"] == "ok" and rep <= planned[t] for t in available):
                for tool, spec in available.items():
                    cell = entry["tools"][tool]
                    if cell["status"] != "ok" or rep > planned[tool]:
                        continue
                    run_dir = tempfile.mkdtemp(prefix=f"{tool}-", dir=work)
                    run = run_child(spec["argv"](path, run_dir), run_dir, args.timeout)
                    glb = spec["glb"](run_dir)
                    problem = None
                    if run["timed_out"]:
                        cell.update(status="timeout", error=f"killed after {args.timeout:g} s", rep=rep)
                    elif run["exit"] != 0:
                        problem = f"exit status {run['exit']}"
                        why = f"exit {run['exit']}" if run["exit"] >= 0 else f"signal {-run['exit']}"
                    elif not os.path.isfile(glb):
                        problem = "exit status 0 but no .glb written"
                        why = "no .glb"
                    if problem is None and cell["status"] == "ok":
                        try:
                            if rep == 0:
                                summary = glb_summary(glb)
                            else:
                                read_glb_json(glb)  # every run must write a valid glTF 2.0 binary
                        except (ValueError, KeyError, IndexError, TypeError, OSError) as exc:
                            problem = f"invalid .glb: {exc}"
                            why = "invalid .glb"
                    if problem:
                        cell.update(status="failed", error=problem, why=why, rep=rep)
                    if cell["status"] != "ok":
                        cell["output_tail"] = run["output_tail"][-2000:]
                        cell["failed_run"] = {"wall_s": run["wall_s"], "rss_kib": run["rss_kib"]}
                        print("T" if cell["status"] == "timeout" else "F", end="", file=sys.stderr, flush=True)
                        shutil.rmtree(run_dir, ignore_errors=True)
                        continue
                    size = os.path.getsize(glb)
                    if rep == 0:
                        cell["warmup"] = {"wall_s": run["wall_s"], "rss_kib": run["rss_kib"], "glb_bytes": size}
                        cell["glb_bytes"] = size
                        cell["glb_summary"] = summary
                        if args.slow_reps is not None and run["wall_s"] > args.slow_after:
                            planned[tool] = args.slow_reps
                        if args.keep_outputs:
                            keep = os.path.join(args.keep_outputs, os.path.splitext(name)[0])
                            os.makedirs(keep, exist_ok=True)
                            shutil.copyfile(glb, os.path.join(keep, f"{tool}.glb"))
                    else:
                        for key, value in (("wall_s", run["wall_s"]), ("rss_kib", run["rss_kib"]), ("glb_bytes", size)):
                            cell["runs"][key].append(value)
                    shutil.rmtree(run_dir, ignore_errors=True)
                print("." if rep else "w", end="", file=sys.stderr, flush=True)
                rep += 1
            print(file=sys.stderr)
            for tool in available:
                cell = entry["tools"][tool]
                cell["reps"] = len(cell["runs"]["wall_s"])
                ok = cell["status"] == "ok"  # a tool that failed part-way has no median: its runs are kept
                cell["median_wall_s"] = median(cell["runs"]["wall_s"]) if ok else None
                cell["median_rss_kib"] = median(cell["runs"]["rss_kib"]) if ok else None
    finally:
        shutil.rmtree(work, ignore_errors=True)


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
