#!/usr/bin/env bash
# The main job on the embedded default: builds the release binary and converts the bundled RoomPlan
# sample (USDZ + CapturedRoom JSON) into out/sample/model.glb and out/sample/layer_manifest.json.
# Pass INPUT [ROOM.json] to convert something else.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
SKIP_PIP=1 bash scripts/install-deps.sh
# transcode-worker runs `convert` and `inspect` in transcode-job and transcode-inspect, beside it.
for product in transcode-worker transcode-job transcode-inspect; do
  swift build -c release --product "$product" > /tmp/transcode-build.log 2>&1 || { cat /tmp/transcode-build.log; exit 1; }
done
INPUT=${1:-samples/roomplan/parametric_two_sections.usdz}
JSON=${2:-}
if [ -z "$JSON" ] && [ "$#" -eq 0 ]; then JSON=samples/roomplan/parametric_two_sections.json; fi
OUT=out/sample
args=(convert "$INPUT" --out "$OUT")
[ -n "$JSON" ] && args+=(--roomplan "$JSON")
.build/release/transcode-worker "${args[@]}"
echo
echo "outputs in $OUT/ (inspect the input with: .build/release/transcode-worker inspect $INPUT)"
