"""Paths, the sample's storage keys, the error type and the log line of the queue benchmark."""

from __future__ import annotations

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(".build", "release", "transcode-worker")
SAMPLE = os.path.join(REPO, "samples", "roomplan", "parametric_two_sections")
PG_TEMP = os.path.join(REPO, "scripts", "pg-temp.sh")
PG_BIN = os.environ.get("PG_TEMP_BIN", "/usr/lib/postgresql/15/bin")
SOURCE_USDZ_KEY = "bench/sources/parametric_two_sections.usdz"
SOURCE_JSON_KEY = "bench/sources/parametric_two_sections.json"


class BenchError(Exception):
    pass


def log(msg: str) -> None:
    print(f"bench-queue: {msg}", file=sys.stderr, flush=True)
