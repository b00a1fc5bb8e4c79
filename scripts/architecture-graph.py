#!/usr/bin/env python3
"""Draws the module graph of Package.swift (as `swift package dump-package` reports it) as a
Mermaid diagram between the markers `<!-- module-graph:begin -->` and `<!-- module-graph:end -->`
of README.md.

  python3 scripts/architecture-graph.py           rewrite the diagram in README.md
  python3 scripts/architecture-graph.py --check   exit 1 when README.md's diagram differs

Library targets and the executables are drawn; test targets (and their TestSupport), fuzz executables and C wrappers are
left out (each C wrapper is named on the target that uses it). Edges point from a target to what it
depends on.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- module-graph:begin -->", "<!-- module-graph:end -->"

GROUPS = [
    ("features", "feature modules: bytes in, bytes out", ["SceneModel", "USDParse", "Layering", "GLBWriter", "Thumbnailer", "FloorPlan", "Manifest"]),
    ("leaf", "shared by features and runtime", ["JSONCore"]),
    ("runtime", "runtime: never imports a feature module", ["CommandCore", "WorkerCore", "ObjectStorage", "PGQueue", "WorkerHTTP", "WorkerRuntime"]),
    ("files", "disk reads shared by the job child and inspect", ["SourceFiles"]),
    ("child", "job child: the pipeline without the daemon", ["JobPipeline", "transcode-job"]),
    ("inspect", "inspect: the reader alone", ["USDInspect", "transcode-inspect"]),
    ("daemon", "daemon and its CLI: links no feature module", ["TranscodeWorker", "transcode-worker"]),
]


def targets():
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    found = {}
    for t in json.loads(out)["targets"]:
        deps = [v[0] for d in t.get("dependencies", []) for v in d.values()]
        found[t["name"]] = (t["type"], deps)
    return found


def diagram(found):
    drawn = [name for _, _, names in GROUPS for name in names]
    missing = [n for n, (kind, _) in found.items()
               if kind in ("regular", "executable") and n not in drawn and not n.startswith(("fuzz-", "Fuzz", "C")) and n != "TestSupport"]
    if missing:
        sys.exit("architecture-graph: targets without a group: " + ", ".join(missing))
    lines = ["```mermaid", "flowchart BT"]
    for key, title, names in GROUPS:
        lines.append(f'  subgraph {key}["{title}"]')
        for n in names:
            c = sorted(d for d in found[n][1] if d.startswith("C") and found.get(d, ("",))[0] in ("system", "regular")
                       and d not in drawn)
            label = n + (f"<br/><small>{', '.join(c)}</small>" if c else "")
            lines.append(f'    {n.replace("-", "_")}["{label}"]')
        lines.append("  end")
    for n in drawn:
        for d in found[n][1]:
            if d in drawn:
                lines.append(f"  {n.replace('-', '_')} --> {d.replace('-', '_')}")
    lines.append("```")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 unless README.md's graph matches Package.swift")
    check = parser.parse_args().check
    text = open(README, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        sys.exit(f"architecture-graph: README.md has no {BEGIN} … {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + diagram(targets()) + "\n" + END + tail
    if check:
        if new != text:
            print("architecture-graph: README.md's module graph differs from Package.swift; "
                  "run python3 scripts/architecture-graph.py", file=sys.stderr)
            return 1
        print("architecture-graph: README.md's module graph matches Package.swift")
        return 0
    open(README, "w", encoding="utf-8").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
