"""Paths, input names, the tools compared and the two error kinds of the convert benchmark."""

from __future__ import annotations

import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(".build", "release", "transcode-worker")
DEFAULT_INPUTS = os.path.join("bench-out", "inputs")
DEFAULT_RESULTS = os.path.join("bench-out", "convert-results.json")
GENERATOR = os.path.join(REPO, "scripts", "gen-bench-inputs.py")
STANDARD_INPUTS = ("room", "dense", "huge")
INPUT_EXTENSIONS = (".usdz", ".usdc", ".usda", ".usd")
TOOLS = ("ours", "usd2gltf", "bpy")
PEERS = ("usd2gltf", "bpy")


class UsageError(Exception):
    pass


class ScriptError(Exception):
    pass
