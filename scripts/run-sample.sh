#!/usr/bin/env bash
# The main job on the embedded default: builds the release binary and converts the bundled RoomPlan
# sample (USDZ + CapturedRoom JSON) into out/sample/model.glb and out/sample/layer_manifest.json.
# Pass INPUT [ROOM.json] to convert something else.
set -euo pipefail
cd "$(dirname "$0")/.."
SKIP_PIP=1 bash scripts/install-deps.sh
swift build -c release --product transcode-worker > /tmp/transcode-build.log 2>&1 || { cat /tmp/transcode-build.log; exit 1; }
INPUT=${1:-samples/roomplan/parametric_two_sections.usdz}
JSON=${2:-}
if [ -z "$JSON" ] && [ "$#" -eq 0 ]; then JSON=samples/roomplan/parametric_two_sections.json; fi
OUT=out/sample
args=(convert "$INPUT" --out "$OUT")
[ -n "$JSON" ] && args+=(--roomplan "$JSON")
.build/release/transcode-worker "${args[@]}"
echo
echo "outputs in $OUT/ (inspect the input with: .build/release/transcode-worker inspect $INPUT)"
