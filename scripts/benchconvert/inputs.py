"""The inputs: directories, files or the standard names, generated with gen-bench-inputs.py when missing."""

from __future__ import annotations

import os
import subprocess
import sys

from .settings import DEFAULT_INPUTS, GENERATOR, INPUT_EXTENSIONS, REPO, STANDARD_INPUTS, ScriptError, UsageError


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
