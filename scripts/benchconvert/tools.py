"""The tools compared: which of ours, usd2gltf and bpy can run here, how each is invoked, and versions."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess

from .settings import REPO, UsageError

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
            missing["ours"] = (f"not built ({binary}; swift build -c release --product transcode-worker"
                              " && swift build -c release --product transcode-job)")

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
