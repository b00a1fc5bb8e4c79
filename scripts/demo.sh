#!/usr/bin/env bash
# The main job on the embedded default: the queue worker end to end on one machine.
#
#   bash scripts/demo.sh
#
# Installs the missing Debian packages, builds the release binary, starts a throwaway PostgreSQL
# in a temporary folder (scripts/pg-temp.sh; no system service is touched), creates the schema,
# submits every bundled sample (samples/roomplan/index.json, samples/room.usdz and the textured
# sample with its redacted texture) into a local storage folder, records the queue's events,
# runs the worker until the queue is empty, and prints the events, the queue status and where
# each version's outputs are. Exits 0 only if every submitted version ended `ready` with its
# files in storage.
#
# Outputs (wiped at the start):
#   out/demo/storage/       the storage folder (TRANSCODE_STORAGE_URL): rooms/<room>/versions/<version>/
#   out/demo/events.jsonl   every event, as `transcode-worker watch --json` printed it
#   out/demo/worker.log     the worker's JSON-lines log
#   out/demo/versions.tsv   name, version id and `show --json` of each submitted version
#
# Environment: BUILD_DIR (build directory, default .build), DEMO_TIMEOUT (seconds the worker
# may run, default 1800).
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/out/demo
BUILD_DIR=${BUILD_DIR:-.build}
DEMO_TIMEOUT=${DEMO_TIMEOUT:-1800}

WORK=""
WATCH_PID=""
WORKER_PID=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "$WORKER_PID" "$WATCH_PID"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if declare -F pg_temp_stop >/dev/null; then pg_temp_stop; fi
  [ -z "$WORK" ] || rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted" >&2; exit 130' INT
trap 'echo "demo: terminated" >&2; exit 143' TERM

echo "== installing missing Debian packages (scripts/install-deps.sh, no Python packages)"
SKIP_PIP=1 bash scripts/install-deps.sh

echo "== building the release binaries (transcode-worker, and transcode-job that runs its jobs)"
mkdir -p "$ROOT/out"
if ! { swift build -c release --scratch-path "$BUILD_DIR" --product transcode-worker \
       && swift build -c release --scratch-path "$BUILD_DIR" --product transcode-job; } >"$ROOT/out/demo-build.log" 2>&1; then
  cat "$ROOT/out/demo-build.log"
  echo "demo: the build failed" >&2
  exit 1
fi
BIN=$(swift build -c release --scratch-path "$BUILD_DIR" --show-bin-path)/transcode-worker
tw() { "$BIN" "$@"; }

rm -rf "$OUT"
mkdir -p "$OUT/storage"
mv "$ROOT/out/demo-build.log" "$OUT/build.log"

echo "== starting a throwaway PostgreSQL (scripts/pg-temp.sh)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/transcode-demo.XXXXXX")
# shellcheck source=scripts/pg-temp.sh
source scripts/pg-temp.sh
pg_temp_start "$WORK/pg"
export DATABASE_URL
export TRANSCODE_STORAGE_URL="file://$OUT/storage"
export TRANSCODE_HTTP_ADDR="127.0.0.1:0"   # probes, metrics and API on a free loopback port

echo "== transcode-worker migrate"
tw migrate

echo "== transcode-worker submit (every sample)"
# name|usdz|json-or-empty|redacted-dir-or-empty ("|", not a tab: read would merge empty fields)
SAMPLES=()
if command -v python3 >/dev/null 2>&1; then
  while IFS= read -r line; do SAMPLES+=("$line"); done < <(python3 - <<'PY'
import json
for e in json.load(open("samples/roomplan/index.json")):
    print("|".join([e["name"], "samples/roomplan/" + e["usdz"], "samples/roomplan/" + e["json"], ""]))
PY
)
else
  for usdz in samples/roomplan/*.usdz; do
    SAMPLES+=("$(basename "$usdz" .usdz)|$usdz|${usdz%.usdz}.json|")
  done
fi
SAMPLES+=("room|samples/room.usdz||")
SAMPLES+=("textured_box|samples/textured/textured_box.usdz||samples/textured/redacted")

NAMES=()
IDS=()
for entry in "${SAMPLES[@]}"; do
  IFS='|' read -r name usdz json redacted <<<"$entry"
  args=(submit --usdz "$usdz" --name "$name")
  [ -z "$json" ] || args+=(--roomplan "$json")
  [ -z "$redacted" ] || args+=(--redacted-textures "$redacted")
  printed=$(tw "${args[@]}")
  id=${printed%%$'\n'*}
  NAMES+=("$name")
  IDS+=("$id")
  printf '  %-26s %s\n' "$name" "$id"
done

echo "== transcode-worker watch --json (background) → out/demo/events.jsonl"
"$BIN" watch --json --until-idle >"$OUT/events.jsonl" 2>"$OUT/watch.log" &
WATCH_PID=$!
# Wait until the watcher's connection is open (it LISTENs right after connecting).
for _ in $(seq 1 100); do
  n=$("$PG_TEMP_BIN/psql" "$DATABASE_URL" -X -A -t -c \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'transcode-worker operator'" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 1 ] && break
  kill -0 "$WATCH_PID" 2>/dev/null || { cat "$OUT/watch.log" >&2; echo "demo: watch exited early" >&2; exit 1; }
  sleep 0.1
done
sleep 0.3

echo "== transcode-worker run --exit-when-idle (log → out/demo/worker.log)"
worker_status=0
timeout --signal=TERM "$DEMO_TIMEOUT" "$BIN" run --exit-when-idle --poll-seconds 0.5 --progress-interval-seconds 0.1 2>"$OUT/worker.log" &
WORKER_PID=$!
wait "$WORKER_PID" || worker_status=$?
WORKER_PID=""
[ "$worker_status" -eq 0 ] || echo "demo: the worker exited with status $worker_status (see out/demo/worker.log)" >&2

# watch exits by itself once the queue is idle; give it a moment, then stop it.
for _ in $(seq 1 50); do kill -0 "$WATCH_PID" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$WATCH_PID" 2>/dev/null; then kill -TERM "$WATCH_PID" 2>/dev/null || true; fi
wait "$WATCH_PID" 2>/dev/null || true
WATCH_PID=""

: >"$OUT/versions.tsv"
for i in "${!IDS[@]}"; do
  printf '%s\t%s\t%s\n' "${NAMES[$i]}" "${IDS[$i]}" "$(tw show "${IDS[$i]}" --json)" >>"$OUT/versions.tsv"
done

echo
echo "== events received ($(wc -l <"$OUT/events.jsonl") in out/demo/events.jsonl)"
if command -v python3 >/dev/null 2>&1; then
  python3 - "$OUT/events.jsonl" "$OUT/versions.tsv" <<'PY'
import json, sys
names = {}
for line in open(sys.argv[2]):
    name, vid, raw = line.rstrip("\n").split("\t", 2)
    names[json.loads(raw).get("room_id")] = name
for raw in open(sys.argv[1]):
    raw = raw.strip()
    if not raw:
        continue
    try:
        e = json.loads(raw)
    except ValueError:
        print("  " + raw[:160])
        continue
    p = e.get("payload") or {}
    event = e.get("event", "?")
    if event == "ready":
        detail = "revision %s, seq %s" % (p.get("output_revision"), p.get("seq"))
    elif event in ("failed", "reprocess_failed"):
        detail = "%s: %s (failure %s)" % (p.get("reason"), (p.get("message") or "")[:100], p.get("failure_count"))
    else:
        parts = [str(p[k]) for k in ("phase", "step") if p.get(k)]
        if p.get("seq") is not None:
            parts.append("seq %s" % p["seq"])
        if p.get("attempt") is not None:
            parts.append("attempt %s/%s" % (p["attempt"], p.get("max_attempts", "?")))
        detail = " ".join(parts)
    at = (p.get("at") or "")[11:23]
    who = names.get(e.get("topic", "")[len("room:"):], e.get("topic", "?"))
    print("  %-12s %-24s %-19s %s" % (at, who, event, detail))
PY
else
  sed 's/^/  /' "$OUT/events.jsonl"
fi

echo
echo "== transcode-worker status"
tw status

echo
echo "== outputs (under out/demo/storage/)"
ready_all=0
if command -v python3 >/dev/null 2>&1; then
  python3 - "$OUT/versions.tsv" "$OUT/storage" <<'PY' || ready_all=$?
import json, os, sys
tsv, storage = sys.argv[1], sys.argv[2]
bad = 0
for line in open(tsv):
    name, vid, raw = line.rstrip("\n").split("\t", 2)
    row = json.loads(raw)
    status = row.get("status")
    print("%s (version %s): %s" % (name, vid, status))
    if status != "ready":
        bad += 1
        if row.get("last_error_code"):
            print("    error: %s: %s" % (row.get("last_error_code"), row.get("last_error")))
        continue
    for kind in ("glb", "manifest"):
        p = row.get(kind + "_path")
        ok = bool(p) and os.path.isfile(os.path.join(storage, p))
        bad += 0 if ok else 1
        print("    %-9s out/demo/storage/%s%s" % (kind, p, "" if ok else "  (MISSING)"))
    thumbs = [t.get("path") if isinstance(t, dict) else t for t in (row.get("thumbnail_paths") or [])]
    if not thumbs and row.get("thumbnail_path"):
        thumbs = [row["thumbnail_path"]]
    thumbs = [t for t in thumbs if t]
    if thumbs:
        folder = os.path.dirname(thumbs[0])
        missing = [t for t in thumbs if not os.path.isfile(os.path.join(storage, t))]
        print("    %-9s out/demo/storage/%s/ %s%s" % ("thumbs", folder, " ".join(os.path.basename(t) for t in thumbs),
                                                    "  (MISSING: %d)" % len(missing) if missing else ""))
    else:
        print("    %-9s none" % "thumbs")
    # The floor plan, as the manifest lists it (rooms only).
    manifest_path = os.path.join(storage, row.get("manifest_path") or "")
    if os.path.isfile(manifest_path):
        m = json.load(open(manifest_path))
        plan = m.get("plan") or {}
        files = [f["path"] for f in plan.get("files") or []]
        if files:
            folder = os.path.dirname(row["manifest_path"])
            missing = [f for f in files if not os.path.isfile(os.path.join(storage, folder, f))]
            bad += len(missing)
            rooms = ", ".join("%s %.1f m²" % (r["name"], r["area"]) for r in m.get("rooms") or [])
            print("    %-9s out/demo/storage/%s/ %s%s" % ("plan", folder, " ".join(files), "  (MISSING: %d)" % len(missing) if missing else ""))
            print("    %-9s %s" % ("rooms", rooms))
        elif plan.get("note"):
            print("    %-9s none (%s)" % ("plan", plan["note"]))
sys.exit(1 if bad else 0)
PY
else
  for i in "${!IDS[@]}"; do
    echo "${NAMES[$i]}  ${IDS[$i]}"
    tw show "${IDS[$i]}" | grep -E '^(status|glb_path|manifest_path|thumbnail_path) ' | sed 's/^/    /'
    tw show "${IDS[$i]}" | grep -qE '^status +ready$' || ready_all=1
  done
fi

echo
if [ "$ready_all" -eq 0 ] && [ "$worker_status" -eq 0 ]; then
  echo "demo: all ${#IDS[@]} versions are ready; outputs in out/demo/storage/rooms/, events in out/demo/events.jsonl, worker log in out/demo/worker.log"
  exit 0
fi
echo "demo: not every version is ready (worker status $worker_status); see out/demo/worker.log" >&2
tail -n 20 "$OUT/worker.log" >&2 || true
exit 1
