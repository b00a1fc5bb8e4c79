#!/usr/bin/env bash
# What libwebp costs of the thumbnails: converts one input with every view, then times libwebp's
# import and its encoding at methods 0 to 3 (quality 75, one segment, as the worker encodes) on the
# eleven views it wrote, and prints the bytes of each method.
#
#   bash scripts/bench-webp.sh [INPUT] [TRANSCODE_WORKER]
#
# INPUT defaults to samples/room.usdz; TRANSCODE_WORKER to .build/release/transcode-worker (build
# it with `swift build -c release` first). Needs gcc and Debian libwebp-dev. The images timed are
# the decoded output, so they carry the first encoding's loss; the times are within a few per cent
# of encoding the rendered pixels.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
input=${1:-samples/room.usdz}
worker=${2:-.build/release/transcode-worker}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/webp-cost" scripts/webpcost/webp-cost.c -lwebp
"$worker" convert "$input" --out "$work/out" >/dev/null
"$work/webp-cost" "$work"/out/thumbs/*.webp
