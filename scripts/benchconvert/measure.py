"""The measurement loop: a warm-up and the measured runs of every tool on every input, tools alternating."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

from .glb import glb_summary, read_glb_json
from .launcher import run_child
from .report import median
from .settings import TOOLS


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
