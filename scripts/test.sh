#!/usr/bin/env bash
# The test command: installs what the tests need, generates the usd-core differential cases,
# starts a throwaway PostgreSQL for the queue tests, builds, runs the whole Swift test suite, checks
# that the committed fixtures are what their generators write and the adversarial inputs against
# the release binary, runs the fault-injection suite against the release worker, a short libFuzzer
# run of every fuzz target, then the parser tests once more under AddressSanitizer.
#   scripts/test.sh            everything
#   SKIP_ASAN=1 scripts/test.sh   skip the sanitizer pass
#   FUZZ_SMOKE_SECONDS=N scripts/test.sh   fuzz each target N s (default 60; 0 skips the stage)
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

CORPUS="$(cd .. && pwd)/shared/corpus"
if [ -d "$CORPUS" ]; then
  export TRANSCODE_REQUIRE_CORPUS=1   # corpus tests are mandatory when the corpus is present
  echo "corpus: $CORPUS"
else
  echo "corpus: not found beside the checkout; corpus tests will be skipped"
fi

WORK=$(mktemp -d /tmp/transcode-tests.XXXXXX)
source scripts/pg-temp.sh
trap 'pg_temp_stop; rm -rf "$WORK"' EXIT

echo "== starting a throwaway PostgreSQL 15 (scripts/pg-temp.sh)"
pg_temp_start "$WORK/pg"
export TRANSCODE_TEST_DATABASE_URL="$DATABASE_URL"
export TRANSCODE_REQUIRE_POSTGRES=1   # queue tests fail instead of skipping without a database
export TRANSCODE_REQUIRE_DENO=1       # the Edge Functions run under Deno (PyPI package deno)
export TRANSCODE_REQUIRE_BROWSER=1    # the console's browser test drives chromium through chromium-driver (selenium)
export TRANSCODE_REQUIRE_SANDBOX=1    # every layer of the job child's sandbox must hold (Landlock, seccomp, namespaces)
# The HTTP tests talk to servers on 127.0.0.1; a proxy from the environment must not catch them.
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"

echo "== starting a local S3 server (moto, signature checks on; scripts/s3-temp.sh)"
source scripts/s3-temp.sh
s3_temp_start "$WORK/s3"
trap 's3_temp_stop; pg_temp_stop; rm -rf "$WORK"' EXIT
export TRANSCODE_REQUIRE_S3=1   # S3 tests fail instead of skipping without a server

echo "== generating differential cases with usd-core"
python3 scripts/gen-differential.py "$WORK/diff" --count 200 --seed 1
export TRANSCODE_DIFF_DIR="$WORK/diff"

echo "== module graph in README.md drawn from Package.swift (scripts/architecture-graph.py)"
python3 scripts/architecture-graph.py --check

echo "== sizes: files <= 400 lines, functions <= 120, Sources folders <= 25 Swift files (scripts/check-sizes.py)"
python3 scripts/check-sizes.py

echo "== swift build (every target imports only what Package.swift says it depends on)"
swift build --build-tests --explicit-target-dependency-import-check error > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; echo "build failed"; exit 1; }
grep -E "warning:" "$WORK/build.log" | sort -u | head -n 20 || true

echo "== swift test"
set +e
swift test --skip-build 2>&1 | tee "$WORK/test.log" | awk '/Test run with/ || !/(started|passed after [0-9.]+ seconds)\.?$/' 
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "swift test failed ($status)"; exit "$status"; }

echo "== converting every sample and corpus file; checking outputs with trimesh, pygltflib and jsonschema"
python3 scripts/check-conversions.py --binary .build/debug/transcode-worker --corpus "$CORPUS"

echo "== report.html in headless Chromium"
python3 scripts/check-report.py --binary .build/debug/transcode-worker

echo "== every sample and corpus RoomPlan model loaded by three.js's GLTFLoader in headless Chromium; layers and elements found by name"
python3 scripts/check-threejs.py --binary .build/debug/transcode-worker --corpus "$CORPUS"

echo "== release build (what scripts/demo.sh and the benchmarks run), one conversion with it"
swift build -c release --scratch-path .build/release-check --explicit-target-dependency-import-check error > "$WORK/release.log" 2>&1 || { grep -E "error" "$WORK/release.log" | head -n 40; echo "release build failed"; exit 1; }
.build/release-check/release/transcode-worker convert samples/roomplan/parametric_two_sections.usdz \
  --roomplan samples/roomplan/parametric_two_sections.json --out "$WORK/release-out" > /dev/null

echo "== committed fixtures are what their generators write (each generator's --check)"
python3 scripts/gen-zip-fixtures.py --check
python3 scripts/gen-nested-packages.py --check
python3 scripts/gen-crate-fixtures.py --check
if [ -d "$CORPUS" ]; then
  python3 scripts/gen-usda-fixtures.py --check --corpus "$CORPUS"
else
  python3 scripts/gen-usda-fixtures.py --check
fi
python3 scripts/gen-time-samples.py --check

echo "== adversarial inputs with the release binary: typed error, < 2 s, < 256 MiB each (scripts/check-adversarial.py)"
python3 scripts/gen-adversarial-fixtures.py --check
python3 scripts/check-adversarial.py --binary .build/release-check/release/transcode-worker

echo "== fault-injection suite against the release worker (scripts/fault-suite.py; its own PostgreSQL, moto and receivers)"
timeout 900 python3 scripts/fault-suite.py --binary .build/release-check/release/transcode-worker

# Its own build directory (.build/fuzz) and work directory (.build/fuzz-work: corpus kept between
# runs, crash inputs under artifacts/<target>/).
echo "== fuzz smoke: every libFuzzer target for ${FUZZ_SMOKE_SECONDS:-60} s (scripts/fuzz)"
if [ "${FUZZ_SMOKE_SECONDS:-60}" -gt 0 ]; then
  scripts/fuzz all "${FUZZ_SMOKE_SECONDS:-60}" > "$WORK/fuzz.log" 2>&1 || {
    cat "$WORK/fuzz.log"; echo "fuzz smoke failed (findings, or a build error)"; exit 1; }
  sed -n '/== fuzz: summary/,$p' "$WORK/fuzz.log"
fi

if [ "${SKIP_ASAN:-0}" != "1" ]; then
  echo "== parser tests under AddressSanitizer"
  set +e
  LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0" \
    swift test --sanitize=address --scratch-path .build/asan --filter USDParseTests > "$WORK/asan.log" 2>&1
  status=$?
  set -e
  tail -n 3 "$WORK/asan.log"
  [ "$status" -eq 0 ] || { grep -E -A 30 "ERROR|✘" "$WORK/asan.log" | head -n 200; echo "sanitizer pass failed"; exit 1; }
fi
echo "all tests passed"
