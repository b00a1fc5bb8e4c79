#!/usr/bin/env python3
"""Queue acceptance run: two workers, one of them killed half-way, every version ready exactly once;
then the wake-up latency of idle workers.

    python3 scripts/bench-queue.py [--binary .build/release/transcode-worker] [--count 100] [--keep DIR]

What it does, all on a throwaway PostgreSQL 15 cluster (scripts/pg-temp.sh; without it, initdb/pg_ctl
on a free port the same way) and a file storage directory, both under one work directory:

 1. `transcode-worker migrate`, then one sample (samples/roomplan/parametric_two_sections.usdz + .json)
    is put into the storage once and --count versions pointing at the same source keys are inserted
    `queued` with one INSERT ... SELECT generate_series.
 2. Phase 1 (crash and drain): two workers
        transcode-worker run --exit-when-idle --concurrency 2 --lease-seconds 6 --heartbeat-seconds 1
                             --rescue-seconds 1 --poll-seconds 5
    (env DATABASE_URL, TRANSCODE_STORAGE_URL=file://..., TRANSCODE_RETRY_BASE_SECONDS from
    --retry-base-seconds, logs to phase1-worker-N.log). Once about half of the versions are ready, worker
    1 gets SIGKILL (its whole process group, as a crashed pod would) at the first moment it holds a lease,
    so that it dies mid-job; the other one must rescue the expired leases and exit 0 once the queue is
    empty. Verified from SQL: every version `ready`, output_revision = 1 for each (exactly one
    successful finalize), no lease left, each glb_path present in the storage; and from a LISTEN session
    on transcode_events (opened before the workers start, saved to events.jsonl): exactly one `ready`
    event per version and no `failed` event.
 3. Phase 2 (wake-up latency): two fresh workers (same options, without --exit-when-idle; stopped with
    SIGTERM at the end). 2a: --latency-count versions inserted one at a time, each --gap-ms after the
    workers went idle (everything before it finished), so every insert meets idle, waiting workers.
    2b: as many inserted --gap-ms apart regardless, which also shows waiting for a free slot when a job
    takes longer than the gap times the four slots. The latency is locked_at - enqueued_at of each
    claim, both stamped by the server's clock. Claims are recorded by an AFTER UPDATE trigger the script
    adds to room_versions (table bench_claims), because a finalize clears locked_at. With
    --poll-seconds 5, anything well under 5 s in 2a came from the NOTIFY.

Prints the phase 1 wall time and jobs/s, the checks, and median / p90 / max of the wake-up latency.
Exit status: 0 when every check passed, 1 when a check failed or a step broke, 2 on a usage error.
Everything the script started (workers, the LISTEN session, PostgreSQL) is stopped on exit, also on
failure or Ctrl-C; the work directory is removed unless --keep DIR names it.

Only the Python standard library: the script talks to PostgreSQL through a small client of the
frontend/backend protocol (trust, password or md5 authentication; the temporary cluster uses trust).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

# The benchmark's parts live in scripts/benchqueue/.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchqueue.cluster import TempPostgres
from benchqueue.phases import percentile, run
from benchqueue.pgclient import PG, PGError, quote
from benchqueue.settings import DEFAULT_BINARY, REPO, SAMPLE, BenchError, log
from benchqueue.worker import Worker

# scripts/faultsuite/ loads this file as a module and uses these names from it.
__all__ = ["PG", "PGError", "TempPostgres", "Worker", "quote", "percentile"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=DEFAULT_BINARY, help=f"transcode-worker to run (default {DEFAULT_BINARY})")
    ap.add_argument("--count", type=int, default=100, help="versions in phase 1 (default 100)")
    ap.add_argument("--keep", metavar="DIR", help="work directory to create and keep (logs, storage, events)")
    ap.add_argument("--latency-count", type=int, default=20, help="versions inserted one by one in phase 2 (default 20)")
    ap.add_argument("--gap-ms", type=float, default=200, help="gap between phase 2 inserts (default 200)")
    ap.add_argument("--kill-at", type=float, default=0.5, help="fraction of ready versions at which worker 1 is killed")
    ap.add_argument("--retry-base-seconds", type=float, default=1.0,
                    help="TRANSCODE_RETRY_BASE_SECONDS for the workers: backoff of the rescued versions (default 1)")
    ap.add_argument("--timeout", type=float, default=900, help="limit for each phase, seconds (default 900)")
    args = ap.parse_args()

    binary = args.binary if os.path.isabs(args.binary) else os.path.join(REPO, args.binary)
    if not os.access(binary, os.X_OK):
        print(f"bench-queue: no executable at {binary}; build it with "
              "`swift build -c release` or pass --binary PATH", file=sys.stderr)
        return 2
    if args.count < 2 or args.latency_count < 1 or not (0 < args.kill_at < 1):
        print("bench-queue: --count must be ≥ 2, --latency-count ≥ 1, --kill-at in (0, 1)", file=sys.stderr)
        return 2
    for ext in (".usdz", ".json"):
        if not os.path.exists(SAMPLE + ext):
            print(f"bench-queue: missing sample {SAMPLE + ext}", file=sys.stderr)
            return 2
    help_run = subprocess.run([binary, "run", "--help"], capture_output=True, text=True)
    if help_run.returncode != 0 or "--exit-when-idle" not in help_run.stdout + help_run.stderr:
        print(f"bench-queue: `{binary} run --help` does not describe the daemon (--exit-when-idle missing); "
              "this build cannot run the benchmark", file=sys.stderr)
        return 2

    if args.keep:
        work = os.path.abspath(args.keep)
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="bench-queue-")
    os.chmod(work, 0o755)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    pg = TempPostgres(os.path.join(work, "pg"))
    workers: list[Worker] = []
    sessions: list[PG] = []
    ok = False
    try:
        ok = run(args, binary, work, pg, workers, sessions)
    except KeyboardInterrupt as e:
        log("interrupted" + (f" ({e})" if str(e) else ""))
    except (BenchError, PGError, OSError) as e:
        log(f"error: {e}")
    finally:
        for w in workers:
            w.stop(grace=5)
        for s in sessions:
            try:
                s.close()
            except OSError:
                pass
        pg.stop()
        if args.keep:
            log(f"kept {work} (worker logs, storage, events.jsonl)")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
