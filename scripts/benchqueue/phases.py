"""The benchmark run: phase 1 (crash and drain), phase 2 (wake-up latency), the checks and the report;
with the claim-log trigger it adds to room_versions and the percentile of its figures."""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import time

from .cluster import TempPostgres
from .pgclient import PG, quote
from .settings import SAMPLE, SOURCE_JSON_KEY, SOURCE_USDZ_KEY, BenchError, log
from .worker import Worker


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (q in 0..100)."""
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


CLAIM_LOG_SQL = """
CREATE TABLE IF NOT EXISTS bench_claims (
  version_id  uuid NOT NULL,
  lease_id    uuid NOT NULL,
  locked_by   text,
  enqueued_at timestamptz,
  locked_at   timestamptz NOT NULL,
  attempt     integer
);
CREATE OR REPLACE FUNCTION bench_record_claim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO bench_claims VALUES (NEW.id, NEW.lease_id, NEW.locked_by, NEW.enqueued_at, NEW.locked_at, NEW.attempt);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS bench_record_claim ON transcode_private.room_versions;
CREATE TRIGGER bench_record_claim AFTER UPDATE OF lease_id ON transcode_private.room_versions
  FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL AND NEW.lease_id IS DISTINCT FROM OLD.lease_id)
  EXECUTE FUNCTION bench_record_claim();
"""


def run(args, binary: str, work: str, pg: TempPostgres, workers: list[Worker], sessions: list[PG]) -> bool:
    url = pg.start()
    storage = os.path.join(work, "storage")
    for key, ext in ((SOURCE_USDZ_KEY, ".usdz"), (SOURCE_JSON_KEY, ".json")):
        dest = os.path.join(storage, key)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(SAMPLE + ext, dest)

    m = subprocess.run([binary, "migrate", "--database-url", url], capture_output=True, text=True)
    if m.returncode != 0:
        raise BenchError(f"migrate failed ({m.returncode}): {m.stderr.strip() or m.stdout.strip()}")

    db = PG(url)
    sessions.append(db)
    db.query(CLAIM_LOG_SQL)

    listener = PG(url, application_name="bench-queue-listen")
    sessions.append(listener)
    listener.query("LISTEN transcode_events")

    env = dict(os.environ)
    env.update({"DATABASE_URL": url, "TRANSCODE_STORAGE_URL": "file://" + storage, "TRANSCODE_HTTP_ADDR": "127.0.0.1:0",
                "TRANSCODE_SOURCE_PREFIX": "bench/sources/",
                "TRANSCODE_RETRY_BASE_SECONDS": f"{args.retry_base_seconds:g}"})
    common = ["--concurrency", "2", "--lease-seconds", "6", "--heartbeat-seconds", "1", "--rescue-seconds", "1",
              "--poll-seconds", "5"]

    # ---------------- phase 1: crash and drain
    n = args.count
    db.query(f"""
        WITH r AS (INSERT INTO rooms (name) VALUES ('bench-queue phase 1') RETURNING id)
        INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path, source_json_path, run_after, enqueued_at)
        SELECT r.id, 'queued', {quote(SOURCE_USDZ_KEY)}, {quote(SOURCE_JSON_KEY)}, now(), now()
          FROM r, generate_series(1, {n})
    """)
    phase1_ids = [r[0] for r in db.query("SELECT id FROM transcode_private.room_versions")]
    log(f"phase 1: {n} versions queued; starting 2 workers")

    t0 = time.time()
    for i in (1, 2):
        e = dict(env, TRANSCODE_WORKER_ID=f"bench-p1-w{i}")
        workers.append(Worker(f"phase1-worker-{i}", binary, ["--exit-when-idle"] + common, e, work))
    w1, w2 = workers[0], workers[1]

    killed_at = None
    half_at = None
    ready_at_kill = 0
    leases_at_kill = 0
    deadline = t0 + args.timeout
    while time.time() < deadline:
        listener.wait(0.02)
        ready, held = (int(x) for x in db.query(
            "SELECT count(*) FILTER (WHERE status = 'ready'), count(*) FILTER (WHERE locked_by = 'bench-p1-w1') "
            "FROM transcode_private.room_versions")[0])
        if killed_at is None and ready >= n * args.kill_at:
            half_at = half_at or time.time()
            # Kill it mid-job: while it holds a lease (up to 15 s later, then regardless).
            if held == 0 and time.time() - half_at < 15:
                continue
            leases_at_kill = held
            w1.signal_group(signal.SIGKILL)
            killed_at = time.time() - t0
            ready_at_kill = ready
            w1.wait(10)
            log(f"phase 1: SIGKILL to worker 1 at {ready}/{n} ready, t={killed_at:.1f} s "
                f"({leases_at_kill} of its leases left behind)")
        if not w2.alive():
            break
        if killed_at is None and not w1.alive():
            raise BenchError(f"worker 1 exited on its own ({w1.proc.returncode}) before the kill:\n{w1.tail()}")
    wall = time.time() - t0
    w2_status = w2.wait(0)
    if w2_status is None:
        raise BenchError(f"worker 2 did not finish within {args.timeout:.0f} s:\n{w2.tail()}")
    listener.wait(0.5)

    checks: list[tuple[str, bool]] = []
    checks.append((f"worker 1 killed mid-run (at {ready_at_kill}/{n} ready)", killed_at is not None))
    checks.append((f"worker 2 exited 0 when idle (exit {w2_status})", w2_status == 0))
    st = db.query("""
        SELECT count(*) FILTER (WHERE status = 'ready'),
               count(*) FILTER (WHERE status = 'ready' AND output_revision = 1),
               count(*) FILTER (WHERE lease_id IS NOT NULL),
               count(*) FILTER (WHERE errors @> '[{"code": "LEASE_EXPIRED"}]'),
               count(*) FILTER (WHERE status = 'failed'),
               min(transcoded_at), max(transcoded_at)
          FROM transcode_private.room_versions
    """)[0]
    n_ready, n_rev1, n_leased, n_rescued, n_failed = (int(x) for x in st[:5])
    checks.append((f"every version ready ({n_ready}/{n}, failed {n_failed})", n_ready == n))
    checks.append((f"output_revision = 1 for each ({n_rev1}/{n})", n_rev1 == n))
    checks.append((f"no lease left ({n_leased})", n_leased == 0))
    claims = int(db.scalar("SELECT count(*) FROM bench_claims"))
    claimed_twice = int(db.scalar("SELECT count(*) FROM (SELECT version_id FROM bench_claims GROUP BY 1 HAVING count(*) > 1) x"))
    missing = [gp for (gp,) in db.query("SELECT glb_path FROM transcode_private.room_versions WHERE status = 'ready'")
               if not gp or not os.path.isfile(os.path.join(storage, gp))]
    checks.append((f"every glb_path exists in the storage ({n_ready - len(missing)}/{n_ready})", not missing))

    ready_events: dict[str, int] = {}
    other_events: dict[str, int] = {}
    with open(os.path.join(work, "events.jsonl"), "w") as f:
        for ts, channel, payload in listener.notifications:
            f.write(json.dumps({"t": ts, "channel": channel, "notification": json.loads(payload)}) + "\n")
            ev = json.loads(payload)
            vid = (ev.get("payload") or {}).get("version_id", "?")
            if ev.get("event") == "ready":
                ready_events[vid] = ready_events.get(vid, 0) + 1
            elif ev.get("event") != "transcode_progress":
                other_events[ev.get("event", "?")] = other_events.get(ev.get("event", "?"), 0) + 1
    doubled = [v for v, c in ready_events.items() if c > 1]
    checks.append((f"one ready event per version ({len(ready_events)} versions, {sum(ready_events.values())} events)",
                   len(ready_events) == n and not doubled and set(ready_events) == set(phase1_ids)))
    checks.append((f"no version with two ready events ({len(doubled)})", not doubled))
    checks.append((f"no failure events ({other_events or 'none'})", not other_events.get("failed")))
    listener.notifications.clear()

    # ---------------- phase 2: wake-up latency
    m2 = args.latency_count
    gap = args.gap_ms / 1000
    log(f"phase 2: starting 2 idle workers; {m2} versions each {args.gap_ms:g} ms after the workers went idle, "
        f"then {m2} versions {args.gap_ms:g} ms apart")
    p2 = []
    for i in (1, 2):
        e = dict(env, TRANSCODE_WORKER_ID=f"bench-p2-w{i}")
        w = Worker(f"phase2-worker-{i}", binary, common, e, work)
        workers.append(w)
        p2.append(w)
    # Wait until both listen (their LISTEN sessions show in pg_stat_activity), then a moment more.
    t_listen = time.time()
    while True:
        listening = int(db.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND query ILIKE 'LISTEN%transcode_queued%' AND pid <> pg_backend_pid()"))
        if listening >= 2:
            break
        if time.time() - t_listen > 30 or not all(w.alive() for w in p2):
            raise BenchError("phase 2 workers are not listening on transcode_queued after 30 s:\n"
                             + "\n".join(w.tail() for w in p2))
        time.sleep(0.1)
    time.sleep(1.0)

    def busy() -> bool:
        return db.scalar("SELECT EXISTS (SELECT 1 FROM transcode_private.room_versions WHERE lease_id IS NOT NULL OR status = 'queued')") == "t"

    def wait_until(cond, what: str) -> None:
        t_end = time.time() + args.timeout
        while not cond():
            if time.time() > t_end:
                raise BenchError(f"phase 2: timed out waiting for {what}")
            if not all(w.alive() for w in p2):
                raise BenchError("a phase 2 worker exited:\n" + "\n".join(w.tail() for w in p2))
            time.sleep(0.02)

    def insert(room: str) -> None:
        db.query(f"""
            INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path, source_json_path)
            VALUES ({quote(room)}, 'queued', {quote(SOURCE_USDZ_KEY)}, {quote(SOURCE_JSON_KEY)})""")

    def measure(room: str) -> tuple[list[float], list[float], int]:
        rows = db.query(f"""
            SELECT extract(epoch FROM c.locked_at - c.enqueued_at) * 1000,
                   extract(epoch FROM v.transcoded_at - v.enqueued_at) * 1000, v.status::text
              FROM bench_claims c JOIN transcode_private.room_versions v ON v.id = c.version_id
             WHERE v.room_id = {quote(room)} AND c.attempt = 1""")
        return ([float(r[0]) for r in rows], [float(r[1]) for r in rows if r[1] is not None],
                sum(1 for r in rows if r[2] == "ready"))

    # 2a: every insert finds both workers idle (all earlier versions finished, then the gap).
    idle_room = db.scalar("INSERT INTO rooms (name) VALUES ('bench-queue phase 2 idle') RETURNING id")
    for _ in range(m2):
        wait_until(lambda: not busy(), "the workers to go idle")
        time.sleep(gap)
        insert(idle_room)
    wait_until(lambda: not busy(), "the idle-phase versions")
    lat_idle, ready_ms_idle, ok_idle = measure(idle_room)
    # 2b: inserts at a fixed pace, whether or not a slot is free.
    paced_room = db.scalar("INSERT INTO rooms (name) VALUES ('bench-queue phase 2 paced') RETURNING id")
    for _ in range(m2):
        insert(paced_room)
        time.sleep(gap)
    wait_until(lambda: not busy(), "the paced versions")
    lat_paced, ready_ms_paced, ok_paced = measure(paced_room)
    exits2 = [w.stop(grace=30) for w in p2]
    checks.append((f"phase 2: every version claimed once and ready (idle {len(lat_idle)}/{m2} claimed, {ok_idle} ready; "
                   f"paced {len(lat_paced)}/{m2} claimed, {ok_paced} ready)",
                   len(lat_idle) == m2 and ok_idle == m2 and len(lat_paced) == m2 and ok_paced == m2))
    checks.append((f"phase 2 workers stopped cleanly on SIGTERM (exit {exits2})", all(x == 0 for x in exits2)))

    # ---------------- report
    print(f"bench-queue: {n} versions, 2 workers x concurrency 2, lease 6 s, heartbeat 1 s, rescue 1 s, poll 5 s, "
          f"retry base {args.retry_base_seconds:g} s; sample {os.path.basename(SAMPLE)}")
    print(f"phase 1 (kill one worker at {args.kill_at:.0%}, drain with the other): wall {wall:.2f} s, "
          f"{n / wall:.2f} jobs/s; worker 1 killed at t={killed_at or float('nan'):.2f} s with {ready_at_kill}/{n} ready "
          f"and {leases_at_kill} leases held; {claims} claims ({claimed_twice} versions claimed twice), "
          f"{n_rescued} versions rescued (LEASE_EXPIRED)")
    def stats(values: list[float]) -> str:
        if not values:
            return "no data"
        return (f"median {statistics.median(values):.1f} ms, p90 {percentile(values, 90):.1f} ms, "
                f"max {max(values):.1f} ms")

    print(f"phase 2a (wake-up of idle workers, {m2} inserts, each {args.gap_ms:g} ms after the previous job finished): "
          f"enqueue -> claim {stats(lat_idle)}; enqueue -> ready median "
          f"{statistics.median(ready_ms_idle) if ready_ms_idle else float('nan'):.0f} ms")
    print(f"phase 2b ({m2} inserts {args.gap_ms:g} ms apart, 4 slots; includes waiting for a free slot): "
          f"enqueue -> claim {stats(lat_paced)}; enqueue -> ready median "
          f"{statistics.median(ready_ms_paced) if ready_ms_paced else float('nan'):.0f} ms")
    failed = False
    for text, passed in checks:
        print(f"  [{'ok' if passed else 'FAIL'}] {text}")
        failed |= not passed
    if failed:
        for w in workers:
            log(f"last lines of {w.name}.log:\n{w.tail()}")
    return not failed
