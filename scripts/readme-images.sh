#!/usr/bin/env bash
# Makes the two pictures on the front page: the hero view and the top-down plan of one bundled
# sample, as docs/images/hero.png and docs/images/plan.png.
#
#   bash scripts/readme-images.sh
#
# Builds nothing: it runs the converter already built, $BUILD_DIR/release/transcode-worker when
# present, else $BUILD_DIR/debug/transcode-worker (BUILD_DIR defaults to .build; build with
# `swift build` first). It converts samples/roomplan/parametric_two_sections.usdz with its
# CapturedRoom JSON into a temporary folder (`convert --views hero,plan`, default sizes and WebP
# quality), then turns thumbs/hero.webp and thumbs/plan.webp into PNG with `dwebp` (Debian package
# webp) when it is installed, else with python3 and Pillow. The temporary folder is removed on
# exit, also on failure.
#
# The converter's thumbnails are byte-identical for the same input, and neither decoder writes a
# time or other changing metadata, so a rerun with the same binary and decoder rewrites the same
# bytes. dwebp and Pillow may encode the PNG differently; the script prints which one ran. Both
# pictures are decoded before either is moved into docs/images/, so a failure leaves it as it was.
#
# Environment: BUILD_DIR (build directory, default .build), SAMPLE (the sample's name under
# samples/roomplan/, default parametric_two_sections).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-.build}
SAMPLE=${SAMPLE:-parametric_two_sections}
OUT=docs/images

BIN=""
for candidate in "$BUILD_DIR/release/transcode-worker" "$BUILD_DIR/debug/transcode-worker"; do
  if [ -x "$candidate" ]; then BIN=$candidate; break; fi
done
if [ -z "$BIN" ]; then
  echo "readme-images: no transcode-worker under $BUILD_DIR/release or $BUILD_DIR/debug" >&2
  echo "readme-images: build it first (swift build)" >&2
  exit 1
fi

USDZ=samples/roomplan/$SAMPLE.usdz
JSON=samples/roomplan/$SAMPLE.json
for f in "$USDZ" "$JSON"; do
  [ -f "$f" ] || { echo "readme-images: $f is missing" >&2; exit 1; }
done

if command -v dwebp >/dev/null 2>&1; then
  DECODER=dwebp
elif python3 -c 'import sys; from PIL import features; sys.exit(not features.check("webp"))' \
    2>/dev/null; then
  DECODER=pillow
else
  echo "readme-images: needs dwebp (apt-get install webp)" \
    "or python3 with Pillow (pip install pillow)" >&2
  exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readme-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if ! "$BIN" convert "$USDZ" --roomplan "$JSON" --out "$WORK/out" --views hero,plan \
    >"$WORK/convert.log" 2>&1; then
  cat "$WORK/convert.log" >&2
  echo "readme-images: convert failed" >&2
  exit 1
fi

for view in hero plan; do
  src=$WORK/out/thumbs/$view.webp
  [ -f "$src" ] || { echo "readme-images: convert wrote no $src" >&2; exit 1; }
  tmp=$WORK/$view.png
  if [ "$DECODER" = dwebp ]; then
    dwebp -quiet "$src" -o "$tmp"  # PNG is dwebp's default (1.2 has no -png option)
  else
    python3 - "$src" "$tmp" <<'PY'
import sys
from PIL import Image

with Image.open(sys.argv[1]) as image:
    image.save(sys.argv[2], format="PNG", optimize=False)
PY
  fi
done

mkdir -p "$OUT"
for view in hero plan; do
  mv "$WORK/$view.png" "$OUT/$view.png"
  echo "readme-images: $OUT/$view.png ($(wc -c <"$OUT/$view.png") bytes;" \
    "$SAMPLE, $BIN, $DECODER)"
done
