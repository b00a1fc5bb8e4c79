#!/usr/bin/env python3
"""Fault-injection suite: the running queue worker (`transcode-worker run`) on a real PostgreSQL,
with faults injected from outside the worker. Every scenario prints one PASS or FAIL line with its
figures; the last line is `N passed, M failed`; the exit status is 1 when anything failed.

    python3 scripts/fault-suite.py --binary .build/release-check/release/transcode-worker
                                   [--only 1,3] [--keep DIR] [--jobs-6 300]

Scenarios (each on a database of its own in one throwaway cluster, file:// storage unless said):

 1. kill      SIGKILL of a worker's process group while it runs a job: another worker rescues the
              expired lease and finishes the version exactly once; time to rescue measured.
 2. pg-restart  PostgreSQL stopped (fast shutdown) and started again on the same port and data
              directory while jobs are in flight and queued, once for less than the lease and once
              for longer: the workers reconnect and every version ends ready exactly once; outage
              length and time to recover measured.
 3. callback  TRANSCODE_DONE_URL points at a loopback receiver that refuses connections, then
              answers 503, then finalizes with transcode_finalize as the backend would but loses
              the first answer (504): the worker retries the report without converting again and
              gets the idempotent replay; the version ends ready.
 4. storage   s3:// storage through a loopback proxy in front of moto (signature checks on):
              4a transient 503s and dropped connections are retried and the versions end ready;
              4b a wrong secret (403) and 4c a missing source fail the version at once with the
              contract reason, without retries.
 5. disk-full file:// storage on a tiny tmpfs that is full: the version fails with
              OUTPUT_UPLOAD_FAILED (STORAGE_NO_SPACE), no output is left visible, the worker stays
              healthy and converts the next version once space is freed; then the job workspace
              (TMPDIR) on a tmpfs too small for the outputs: INTERNAL, retried, nothing visible.
              Needs root (mount).
 6. load      4 workers, 300 versions queued at once: each finalized exactly once, one output
              prefix each; throughput and latency.

Everything listens on 127.0.0.1 only: PostgreSQL (scripts/pg-temp.sh), moto (scripts/s3-temp.sh),
the S3 proxy and the callback receiver (threads of this script). Everything started is stopped on
exit, also on failure or Ctrl-C; the tmpfs is unmounted; the work directory is removed unless
--keep names it. The PostgreSQL client, the worker process wrapper and the temporary cluster come
from scripts/bench-queue.py.

Instrumentation: each scenario's database gets two AFTER UPDATE triggers on room_versions that
log every claim (new lease_id) and every finalize (output_revision bumped, or the row turning
failed) into fault_claims and fault_finalized, so "exactly once" is checked from the database
itself, also across a restart that drops every LISTEN connection.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

# The suite's parts live in scripts/faultsuite/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from faultsuite.base import SAMPLE, Suite, log
from faultsuite.process import scenario_kill, scenario_pg_restart
from faultsuite.callback import scenario_callback
from faultsuite.storage import scenario_storage
from faultsuite.disk_load import scenario_disk_full, scenario_load


SCENARIOS = [
    (1, "SIGKILL of a worker mid-job", scenario_kill),
    (2, "PostgreSQL restart mid-run", scenario_pg_restart),
    (3, "transcode-done endpoint down", scenario_callback),
    (4, "storage faults (transient, forbidden, missing)", scenario_storage),
    (5, "full disk under file:// storage", scenario_disk_full),
    (6, "load: 4 workers at once", scenario_load),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the release transcode-worker to run")
    ap.add_argument("--only", default="", help="comma-separated scenario numbers (default: all)")
    ap.add_argument("--jobs-6", type=int, default=300, help="versions in scenario 6 (default 300)")
    ap.add_argument("--keep", metavar="DIR", help="work directory to create and keep (logs, storage)")
    args = ap.parse_args()

    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print(f"fault-suite: no executable at {binary}", file=sys.stderr)
        return 2
    only = {int(x) for x in args.only.split(",") if x.strip()} if args.only else {n for n, _, _ in SCENARIOS}
    for ext in (".usdz", ".json"):
        if not os.path.exists(SAMPLE + ext):
            print(f"fault-suite: missing sample {SAMPLE + ext}", file=sys.stderr)
            return 2

    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="fault-suite-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    suite = Suite(args, binary, work)
    passed = failed = 0
    t_suite = time.time()
    try:
        suite.start_pg()
        for number, title, fn in SCENARIOS:
            if number not in only:
                continue
            log(f"scenario {number}: {title}")
            t0 = time.time()
            try:
                ok, figures = fn(suite)
            except KeyboardInterrupt:
                raise
            except Exception as e:  # noqa: BLE001 - one scenario's error fails that scenario only
                ok, figures = False, f"error: {e}"
                traceback.print_exc(file=sys.stderr)
            finally:
                suite.release()
            print(f"{'PASS' if ok else 'FAIL'} {number} {title} ({time.time() - t0:.1f} s): {figures}", flush=True)
            if ok:
                passed += 1
            else:
                failed += 1
    except KeyboardInterrupt as e:
        log(f"interrupted ({e})")
        failed += 1
    except Exception as e:  # noqa: BLE001
        log(f"error: {e}")
        traceback.print_exc(file=sys.stderr)
        failed += 1
    finally:
        suite.shutdown()
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"suite time {time.time() - t_suite:.1f} s")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
