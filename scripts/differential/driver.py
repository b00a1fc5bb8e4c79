"""Parent process: splits the cases into one worker process per crate version, runs the workers in
parallel and prints the summary line. No pxr import here."""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from .constants import CRATE_VERSIONS, RESULT_MARKER, VERSION_ENV
from .textures import write_textures

# The entry script, re-invoked with --worker for each group of cases.
ENTRY_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gen-differential.py")


def assign_versions(count: int, seed: int) -> list[str]:
    """Each run of six cases uses every crate version once, in a seeded order, so a case's version (and
    content) does not depend on --count."""
    versions = []
    for block in range((count + len(CRATE_VERSIONS) - 1) // len(CRATE_VERSIONS)):
        order = list(CRATE_VERSIONS)
        random.Random(f"{seed}:versions:{block}").shuffle(order)
        versions.extend(order)
    return versions[:count]


def run_worker(outdir: str, seed: int, width: int, version: str, cases: list[int]) -> dict:
    env = dict(os.environ)
    env.pop(VERSION_ENV, None)
    if version != "default":
        env[VERSION_ENV] = version
    env["PXR_USDC_EMIT_DEPRECATION_WARNINGS"] = "0"
    cmd = [sys.executable, ENTRY_SCRIPT, outdir, "--worker", version, "--seed", str(seed),
           "--width", str(width), "--cases", ",".join(str(c) for c in cases)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_MARKER):
            result = json.loads(line[len(RESULT_MARKER):])
    if proc.returncode != 0 or result is None:
        sys.stderr.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"gen-differential: worker for crate version {version} failed "
                         f"(exit status {proc.returncode})")
    return result


def parent_main(args: argparse.Namespace) -> int:
    start = time.monotonic()
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    files = write_textures(outdir)
    width = max(3, len(str(max(args.count - 1, 0))))
    versions = assign_versions(args.count, args.seed)
    groups: dict[str, list[int]] = {}
    for index, version in enumerate(versions):
        groups.setdefault(version, []).append(index)
    jobs = args.jobs or os.cpu_count() or 2
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_worker, outdir, args.seed, width, v, cases) for v, cases in groups.items()]
        results = [f.result() for f in futures]
    written: dict[str, int] = {}
    cases = 0
    for result in results:
        cases += result["cases"]
        files += result["files"]
        for version, n in result["crate_versions"].items():
            written[version] = written.get(version, 0) + n
    spread = ", ".join(f"{v}: {n}" for v, n in sorted(written.items()))
    print(f"gen-differential: {cases} cases, {files} files in {outdir}, {time.monotonic() - start:.1f} s "
          f"(crate versions written: {spread}; all three formats agree)")
    return 0
