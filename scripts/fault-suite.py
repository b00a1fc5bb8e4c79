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
import http.client
import http.server
import importlib.util
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(REPO, "samples", "roomplan", "parametric_two_sections")
USDZ_KEY = "faults/sources/parametric_two_sections.usdz"
JSON_KEY = "faults/sources/parametric_two_sections.json"
PG_BIN = os.environ.get("PG_TEMP_BIN", "/usr/lib/postgresql/15/bin")
S3_TEMP = os.path.join(REPO, "scripts", "s3-temp.sh")

_spec = importlib.util.spec_from_file_location("bench_queue", os.path.join(REPO, "scripts", "bench-queue.py"))
bq = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bq)
PG, PGError, TempPostgres, Worker, quote, percentile = bq.PG, bq.PGError, bq.TempPostgres, bq.Worker, bq.quote, bq.percentile

# The suite starts its own services: settings of a caller's cluster, S3 server or worker (e.g.
# scripts/test.sh exports DATABASE_URL, PG_TEMP_*, S3_TEMP_* and AWS_* for the Swift tests) must
# reach neither scripts/pg-temp.sh, scripts/s3-temp.sh nor the workers.
for _k in list(os.environ):
    if (_k.startswith(("PG_TEMP_", "_PG_TEMP_", "S3_TEMP_", "_S3_TEMP_", "TRANSCODE_", "AWS_"))
            or _k in ("DATABASE_URL", "INITIAL_NO_AUTH_ACTION_COUNT")) and _k != "PG_TEMP_BIN":
        del os.environ[_k]
# Loopback only: no proxy from the environment may catch the requests of this script or the workers.
os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1,localhost"
for _k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
    os.environ.pop(_k, None)

INSTRUMENT_SQL = """
CREATE TABLE fault_claims (
  version_id uuid NOT NULL, lease_id uuid NOT NULL, locked_by text, attempt integer,
  enqueued_at timestamptz, locked_at timestamptz, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION fault_record_claim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fault_claims (version_id, lease_id, locked_by, attempt, enqueued_at, locked_at)
  VALUES (NEW.id, NEW.lease_id, NEW.locked_by, NEW.attempt, NEW.enqueued_at, NEW.locked_at);
  RETURN NULL;
END $$;
CREATE TRIGGER fault_record_claim AFTER UPDATE OF lease_id ON room_versions
  FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL AND NEW.lease_id IS DISTINCT FROM OLD.lease_id)
  EXECUTE FUNCTION fault_record_claim();
CREATE TABLE fault_finalized (
  version_id uuid NOT NULL, status text, output_revision integer, glb_path text, reason text,
  locked_by text, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION fault_record_finalize() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fault_finalized (version_id, status, output_revision, glb_path, reason, locked_by)
  VALUES (NEW.id, NEW.status::text, NEW.output_revision, NEW.glb_path, NEW.last_error_code, OLD.locked_by);
  RETURN NULL;
END $$;
CREATE TRIGGER fault_record_finalize AFTER UPDATE ON room_versions
  FOR EACH ROW WHEN (NEW.output_revision IS DISTINCT FROM OLD.output_revision
                     OR (NEW.status = 'failed' AND OLD.status IS DISTINCT FROM 'failed'))
  EXECUTE FUNCTION fault_record_finalize();
"""


class SuiteError(Exception):
    pass


class SuiteWorker(Worker):
    """A worker process that is stopped (and its process group reaped) once only, so a group id
    is never signalled again after the suite is done with it."""

    def stop(self, grace: float = 10.0) -> int | None:
        if getattr(self, "_stopped", False):
            return self.proc.returncode
        self._stopped = True
        return super().stop(grace=grace)


def log(msg: str) -> None:
    print(f"fault-suite: {msg}", file=sys.stderr, flush=True)


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stats_ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"median {statistics.median(values):.0f} ms, p90 {percentile(values, 90):.0f} ms, max {max(values):.0f} ms"


def http_status(url: str, timeout: float = 3.0) -> int:
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


class Check:
    """Collects the named checks of one scenario."""

    def __init__(self) -> None:
        self.items: list[tuple[str, bool]] = []

    def __call__(self, text: str, ok: bool) -> bool:
        self.items.append((text, bool(ok)))
        return bool(ok)

    @property
    def ok(self) -> bool:
        return all(ok for _, ok in self.items)

    def failed(self) -> list[str]:
        return [t for t, ok in self.items if not ok]


# ---------------------------------------------------------------------------------------------
# The suite's environment: one cluster, databases per scenario, workers, cleanup.


class Suite:
    def __init__(self, args, binary: str, work: str):
        self.args = args
        self.binary = binary
        self.work = work
        self.pg = TempPostgres(os.path.join(work, "pg"))
        self.url_base = ""
        self.port = 0
        self.workers: list[Worker] = []
        self.connections: list[PG] = []
        self.cleanups: list = []  # callables, run last-in first-out

    # -- PostgreSQL

    def start_pg(self) -> None:
        url = self.pg.start()
        self.url_base = url.rsplit("/", 1)[0]
        self.port = int(self.pg.env.get("PG_TEMP_PORT") or url.rsplit(":", 1)[1].split("/")[0])

    def _pg_ctl(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        data = self.pg.env.get("PG_TEMP_DATA")
        if not data:
            raise SuiteError("the cluster was not started through scripts/pg-temp.sh; cannot restart it")
        cmd = [f"{PG_BIN}/pg_ctl", "-D", data] + list(args)
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--"] + cmd
        return subprocess.run(cmd, cwd="/", capture_output=True, text=True, timeout=timeout)

    def pg_stop(self) -> None:
        r = self._pg_ctl("-m", "fast", "-w", "-t", "30", "stop")
        if r.returncode != 0:
            raise SuiteError(f"pg_ctl stop failed: {r.stderr.strip()}")

    def pg_start(self) -> None:
        log_path = os.path.join(self.pg.env.get("PG_TEMP_DIR", self.work), "pg.log")
        r = self._pg_ctl("-l", log_path, "-o", f"-p {self.port}", "-w", "-t", "60", "start")
        if r.returncode != 0:
            raise SuiteError(f"pg_ctl start failed: {r.stderr.strip()}")

    def connect(self, url: str, tries: int = 1, name: str = "fault-suite") -> PG:
        last = None
        for _ in range(max(1, tries)):
            try:
                s = PG(url, application_name=name)
                self.connections.append(s)
                return s
            except (OSError, PGError) as e:
                last = e
                time.sleep(0.25)
        raise SuiteError(f"cannot connect to {url}: {last}")

    def new_database(self, name: str) -> str:
        admin = self.connect(self.url_base + "/postgres")
        admin.query(f"CREATE DATABASE {name}")
        self.close(admin)
        url = f"{self.url_base}/{name}"
        m = subprocess.run([self.binary, "migrate", "--database-url", url], capture_output=True, text=True, timeout=120)
        if m.returncode != 0:
            raise SuiteError(f"migrate failed ({m.returncode}): {m.stderr.strip() or m.stdout.strip()}")
        db = self.connect(url)
        db.query(INSTRUMENT_SQL)
        self.close(db)
        return url

    def close(self, s: PG) -> None:
        try:
            s.close()
        except OSError:
            pass
        if s in self.connections:
            self.connections.remove(s)

    # -- workers

    def worker(self, name: str, url: str, storage_url: str, args: list[str], env: dict[str, str] | None = None,
               http_port: int | None = None, tmpdir: str | None = None) -> Worker:
        tmp = tmpdir or os.path.join(self.work, "tmp", name)
        os.makedirs(tmp, exist_ok=True)
        e = dict(os.environ)
        # Every version reads the shared sources below faults/sources/ (a source prefix without
        # the version id; the default confines each version to rooms/<room>/versions/<version>/).
        e.update({"DATABASE_URL": url, "TRANSCODE_STORAGE_URL": storage_url, "TMPDIR": tmp,
                  "TRANSCODE_WORKER_ID": name, "TRANSCODE_LOG_LEVEL": "info", "TRANSCODE_SOURCE_PREFIX": "faults/sources/"})
        if env:
            e.update(env)
        addr = f"127.0.0.1:{http_port}" if http_port else "127.0.0.1:0"
        w = SuiteWorker(name, self.binary, ["--http-addr", addr] + args, e, os.path.join(self.work, "logs"))
        self.workers.append(w)
        return w

    def stop_workers(self, workers: list[Worker], grace: float = 20) -> list[int | None]:
        return [w.stop(grace=grace) for w in workers]

    def shutdown(self) -> None:
        for w in self.workers:
            try:
                w.stop(grace=5)
            except Exception:  # noqa: BLE001 - cleanup goes on
                pass
        for s in list(self.connections):
            self.close(s)
        while self.cleanups:
            fn = self.cleanups.pop()
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                log(f"cleanup step failed: {e}")
        self.pg.stop()


# ---------------------------------------------------------------------------------------------
# Shared functions


def stage_file_sources(storage: str) -> None:
    for key, ext in ((USDZ_KEY, ".usdz"), (JSON_KEY, ".json")):
        dest = os.path.join(storage, key)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(SAMPLE + ext, dest)


def insert_versions(db: PG, n: int, room_name: str, usdz_key: str = USDZ_KEY, json_key: str | None = JSON_KEY,
                    max_attempts: int = 5) -> tuple[str, list[str]]:
    room = db.scalar(f"INSERT INTO rooms (name) VALUES ({quote(room_name)}) RETURNING id")
    json_sql = quote(json_key) if json_key else "NULL"
    rows = db.query(f"""
        INSERT INTO room_versions (room_id, status, source_usdz_path, source_json_path, max_attempts, run_after, enqueued_at)
        SELECT {quote(room)}, 'queued', {quote(usdz_key)}, {json_sql}, {max_attempts}, now(), now()
          FROM generate_series(1, {n}) RETURNING id""")
    return room, [r[0] for r in rows]


def wait_until(cond, timeout: float, what: str, workers: list[Worker] = (), listener: PG | None = None,
               step: float = 0.1) -> float:
    """Polls `cond` until true; returns the seconds it took. Fails when a worker dies meanwhile."""
    t0 = time.time()
    while True:
        if cond():
            return time.time() - t0
        if time.time() - t0 > timeout:
            raise SuiteError(f"timed out after {timeout:.0f} s waiting for {what}")
        for w in workers:
            if not w.alive():
                raise SuiteError(f"worker {w.name} exited ({w.proc.returncode}) while waiting for {what}:\n{w.tail()}")
        if listener is not None:
            listener.wait(step)
        else:
            time.sleep(step)


def final_state(db: PG, ids: list[str]) -> dict:
    """Counts over the given versions from the row and the instrumentation tables."""
    idlist = ",".join(quote(i) for i in ids)
    r = db.query(f"""
        SELECT count(*) FILTER (WHERE status = 'ready'),
               count(*) FILTER (WHERE status = 'ready' AND output_revision = 1),
               count(*) FILTER (WHERE status = 'failed'),
               count(*) FILTER (WHERE lease_id IS NOT NULL),
               coalesce(max(attempt), 0)
          FROM room_versions WHERE id IN ({idlist})""")[0]
    fin = dict(db.query(f"""SELECT version_id, count(*) FROM fault_finalized WHERE status = 'ready'
                             AND version_id IN ({idlist}) GROUP BY 1"""))
    claims = dict(db.query(f"SELECT version_id, count(*) FROM fault_claims WHERE version_id IN ({idlist}) GROUP BY 1"))
    return {
        "ready": int(r[0]), "rev1": int(r[1]), "failed": int(r[2]), "leased": int(r[3]), "max_attempt": int(r[4]),
        "finalized_once": sum(1 for i in ids if int(fin.get(i, 0)) == 1),
        "finalized_twice": sum(1 for i in ids if int(fin.get(i, 0)) > 1),
        "claims": sum(int(c) for c in claims.values()),
    }


def ready_events(listener: PG, ids: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Ready events per version and other terminal events by name, from collected notifications."""
    wanted = set(ids)
    ready: dict[str, int] = {}
    other: dict[str, int] = {}
    for _, channel, payload in listener.notifications:
        if channel != "transcode_events":
            continue
        ev = json.loads(payload)
        vid = (ev.get("payload") or {}).get("version_id")
        if vid not in wanted:
            continue
        if ev.get("event") == "ready":
            ready[vid] = ready.get(vid, 0) + 1
        elif ev.get("event") != "transcode_progress":
            other[ev.get("event", "?")] = other.get(ev.get("event", "?"), 0) + 1
    return ready, other


def file_prefixes(storage: str, room: str, vid: str) -> dict[str, list[str]]:
    """Output prefixes (r<rev>-<lease8>) of a version in file storage and the files under each,
    temporary files of unfinished writes included."""
    base = os.path.join(storage, "rooms", room, "versions", vid)
    out: dict[str, list[str]] = {}
    if not os.path.isdir(base):
        return out
    for d in sorted(os.listdir(base)):
        files = []
        for root, _, names in os.walk(os.path.join(base, d)):
            files += [os.path.relpath(os.path.join(root, n), os.path.join(base, d)) for n in names]
        if files:
            out[d] = sorted(files)
    return out


def log_records(worker: Worker) -> list[dict]:
    out = []
    try:
        with open(worker.log_path, "rb") as f:
            for line in f.read().decode(errors="replace").splitlines():
                line = line.strip()
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def conversions(workers: list[Worker]) -> dict[str, int]:
    """Child conversions per version: the `job phase` lines of the pipeline's first phase, which
    only a running child process reports."""
    counts: dict[str, int] = {}
    for w in workers:
        for rec in log_records(w):
            if rec.get("msg") == "job phase" and rec.get("phase") in ("reading", "parsing") and rec.get("version_id"):
                counts[rec["version_id"]] = counts.get(rec["version_id"], 0) + 1
    return counts


def epoch(db: PG, expr: str) -> float | None:
    v = db.scalar(f"SELECT extract(epoch FROM ({expr}))")
    return float(v) if v is not None else None


FAST = ["--heartbeat-seconds", "1", "--rescue-seconds", "1", "--poll-seconds", "2",
        "--retry-base-seconds", "1", "--retry-max-seconds", "4", "--shutdown-grace-seconds", "20",
        "--progress-interval-seconds", "2"]


# ---------------------------------------------------------------------------------------------
# 1. SIGKILL of a worker mid-job


def scenario_kill(suite: Suite) -> tuple[bool, str]:
    url = suite.new_database("s1_kill")
    storage = os.path.join(suite.work, "s1-storage")
    stage_file_sources(storage)
    db = suite.connect(url)
    listener = suite.connect(url, name="fault-suite-listen")
    listener.query("LISTEN transcode_events")
    n = 8
    _, ids = insert_versions(db, n, "s1 kill")
    args = ["--concurrency", "1", "--lease-seconds", "4"] + FAST
    storage_url = "file://" + storage
    victim = suite.worker("s1-victim", url, storage_url, args)
    survivor = suite.worker("s1-survivor", url, storage_url, args)

    # Kill the victim while it holds a lease it claimed at least 150 ms ago (its child is converting);
    # if that job finished between the look and the kill, the kill did not hit a job: start another
    # victim and try again.
    killed = None
    for round_ in range(1, 4):
        def holding():
            return db.query("""SELECT id, lease_id, transcode_phase FROM room_versions
                                WHERE locked_by = 's1-victim' AND locked_at < now() - interval '150 milliseconds'""")
        held: list = []
        wait_until(lambda: bool(held.extend(holding()) or held), 60, "the victim to hold a lease",
                   [victim, survivor], listener, step=0.02)
        vid, lease, _ = held[0]
        t_kill = time.time()
        victim.signal_group(signal.SIGKILL)
        victim.wait(10)
        still = db.scalar(f"SELECT lease_id FROM room_versions WHERE id = {quote(vid)}")
        if still == lease:
            killed = (vid, lease, t_kill, round_)
            break
        log(f"scenario 1: the victim's job {vid} ended before the kill landed; another round")
        victim = suite.worker(f"s1-victim", url, storage_url, args)
    if killed is None:
        return False, "could not kill the victim while it ran a job in 3 rounds"
    vid, lease, t_kill, rounds = killed
    # The whole process group is gone (the child conversion included).
    time.sleep(0.3)
    group_gone = subprocess.run(["pgrep", "-g", str(victim.proc.pid)], capture_output=True).returncode != 0

    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({','.join(quote(i) for i in ids)}) "
                                     "AND status = 'ready'")) == n,
               120, "every version ready", [survivor], listener)
    listener.wait(0.5)
    st = final_state(db, ids)
    rescued_at = epoch(db, f"""SELECT (e->>'at')::timestamptz FROM room_versions, jsonb_array_elements(errors) e
                                WHERE id = {quote(vid)} AND e->>'code' = 'LEASE_EXPIRED' LIMIT 1""")
    reclaim = db.query(f"""SELECT locked_by, extract(epoch FROM locked_at), attempt FROM fault_claims
                            WHERE version_id = {quote(vid)} AND lease_id <> {quote(lease)} ORDER BY at LIMIT 1""")
    ready_at = epoch(db, f"SELECT transcoded_at FROM room_versions WHERE id = {quote(vid)}")
    row = db.query(f"SELECT attempt, output_revision, locked_by FROM room_versions WHERE id = {quote(vid)}")[0]
    ev_ready, ev_other = ready_events(listener, ids)
    exit_code = survivor.stop(grace=20)

    c = Check()
    c("victim's process group gone after SIGKILL", group_gone)
    c(f"all {n} ready", st["ready"] == n)
    c("output_revision 1 each", st["rev1"] == n)
    c("one successful finalize each", st["finalized_once"] == n and st["finalized_twice"] == 0)
    c("no lease left", st["leased"] == 0)
    c("killed version rescued with LEASE_EXPIRED", rescued_at is not None)
    c("killed version finished by the survivor", bool(reclaim) and reclaim[0][0] == "s1-survivor")
    c("one ready event each, no failure event", len(ev_ready) == n and all(v == 1 for v in ev_ready.values())
      and not ev_other)
    c(f"survivor exits 0 on SIGTERM ({exit_code})", exit_code == 0)
    rescue = (rescued_at - t_kill) if rescued_at else float("nan")
    reclaim_s = (float(reclaim[0][1]) - t_kill) if reclaim else float("nan")
    done_s = (ready_at - t_kill) if ready_at else float("nan")
    figures = (f"lease 4 s, rescue sweep 1 s; kill -> rescued {rescue:.1f} s, -> claimed again {reclaim_s:.1f} s, "
               f"-> ready {done_s:.1f} s; killed version attempt {row[0]}, output_revision {row[1]}; "
               f"{st['claims']} claims for {n} versions; ready events {sum(ev_ready.values())}; kill round {rounds}")
    return c.ok, figures + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


# ---------------------------------------------------------------------------------------------
# 2. PostgreSQL restart mid-run


def scenario_pg_restart(suite: Suite) -> tuple[bool, str]:
    url = suite.new_database("s2_restart")
    storage = os.path.join(suite.work, "s2-storage")
    stage_file_sources(storage)
    lease = 15
    args = ["--concurrency", "2", "--lease-seconds", str(lease)] + FAST
    ports = [free_port(), free_port()]
    ws = [suite.worker(f"s2-w{i}", url, "file://" + storage, args, http_port=ports[i - 1]) for i in (1, 2)]
    c = Check()
    parts = []
    # Round a: an outage shorter than the lease (in-flight jobs keep their leases and finalize
    # after the restart). Round b: longer than the lease (the workers give their jobs up, the
    # rescuer re-queues the expired leases after the restart, the versions still end ready once).
    for label, n, down_for in (("a", 40, 6.0), ("b", 12, lease + 5.0)):
        db = suite.connect(url, tries=40)
        room, ids = insert_versions(db, n, f"s2 restart {label}")
        idlist = ",".join(quote(i) for i in ids)

        def counts():
            r = db.query(f"SELECT count(*) FILTER (WHERE status = 'ready'), count(*) FILTER (WHERE lease_id IS NOT NULL) "
                         f"FROM room_versions WHERE id IN ({idlist})")[0]
            return int(r[0]), int(r[1])

        snap: list = []
        want = max(1, n // 5)
        wait_until(lambda: (lambda x: (x[0] >= want and x[1] >= 1) and not snap.append(x))(counts()), 120,
                   f"{want} versions ready with jobs in flight", ws, step=0.05)
        ready_before, inflight = snap[0]
        suite.close(db)
        t_down = time.time()
        suite.pg_stop()
        t_stopped = time.time()
        time.sleep(min(3.0, down_for / 2))
        # /readyz runs SELECT 1: unavailable while the database is down; /livez does not care.
        probes_down = [(http_status(f"http://127.0.0.1:{p}/livez"), http_status(f"http://127.0.0.1:{p}/readyz"))
                       for p in ports]
        time.sleep(max(0.0, down_for - (time.time() - t_stopped)))
        alive_during = all(w.alive() for w in ws)
        suite.pg_start()
        t_up = time.time()
        outage = t_up - t_down
        db = suite.connect(url, tries=40)
        wait_until(lambda: counts()[0] == n, 240, f"every version of round {label} ready after the restart", ws, step=0.2)
        t_all = time.time()
        probes_up = [http_status(f"http://127.0.0.1:{p}/readyz") for p in ports]
        st = final_state(db, ids)
        first_after = epoch(db, f"SELECT min(at) FROM fault_finalized WHERE at > to_timestamp({t_up}) "
                                f"AND version_id IN ({idlist})")
        retried = int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({idlist}) AND attempt > 1"))
        error_codes = db.query(f"""SELECT e->>'code', count(*) FROM room_versions, jsonb_array_elements(errors) e
                                    WHERE id IN ({idlist}) GROUP BY 1 ORDER BY 1""")
        missing = [i for i in ids if len(file_prefixes(storage, room, i)) < 1]
        extra = sum(max(0, len(file_prefixes(storage, room, i)) - 1) for i in ids)
        suite.close(db)
        ok = all([
            c(f"2{label} workers survived the outage", alive_during),
            c(f"2{label} /livez 200 and /readyz 503 during the outage ({probes_down})",
              all(p == (200, 503) for p in probes_down)),
            c(f"2{label} /readyz 200 after the restart ({probes_up})", all(p == 200 for p in probes_up)),
            c(f"2{label} all {n} ready ({st['ready']}, failed {st['failed']})", st["ready"] == n),
            c(f"2{label} output_revision 1 each", st["rev1"] == n),
            c(f"2{label} one successful finalize each", st["finalized_once"] == n and st["finalized_twice"] == 0),
            c(f"2{label} no lease left", st["leased"] == 0),
            c(f"2{label} every version has its outputs in storage", not missing),
        ])
        recover = (first_after - t_up) if first_after else float("nan")
        parts.append(f"2{label} {'ok' if ok else 'FAIL'}: {n} versions, stopped at {ready_before}/{n} ready with "
                     f"{inflight} in flight; outage {outage:.1f} s (lease {lease} s; fast stop took "
                     f"{t_stopped - t_down:.1f} s); first finalize {recover:.1f} s after the restart, all ready "
                     f"{t_all - t_up:.1f} s after it; {st['claims']} claims; {retried} versions took another attempt; "
                     f"recorded attempt errors {dict((k, int(v)) for k, v in error_codes) or 'none'}; "
                     f"orphaned output prefixes {extra}")
    exits = suite.stop_workers(ws)
    c(f"workers exit 0 on SIGTERM ({exits})", all(x == 0 for x in exits))
    reconnects = sum(1 for w in ws for r in log_records(w) if "fail" in str(r.get("msg", "")).lower()
                     or "reconnect" in str(r.get("msg", "")).lower())
    parts.append(f"2 workers x 2 slots; {reconnects} failure/reconnect log lines")
    return c.ok, "; ".join(parts) + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


# ---------------------------------------------------------------------------------------------
# 3. transcode-done endpoint down, then a receiver that finalizes like the backend


class DoneReceiver:
    """`transcode-done` on 127.0.0.1:port: not listening until `listen()`, then 503 until
    `up_at`, then transcode_finalize on its own connection, as the backend's function does. The
    first answer of each committed finalize is replaced by a 504 (`lose_first_answer`)."""

    def __init__(self, suite: Suite, url: str, port: int, secret: str):
        self.suite = suite
        self.db_url = url
        self.port = port
        self.secret = secret
        self.up_at = float("inf")
        self.lose_first_answer = True
        self.lock = threading.Lock()
        self.posts: list[dict] = []  # {t, version_id, lease_id, answered, replay, auth_ok, key_ok}
        self.server: http.server.ThreadingHTTPServer | None = None
        self.db: PG | None = None

    def listen(self) -> None:
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, answer = receiver.handle(self.path, dict(self.headers.items()), raw)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def handle(self, path: str, headers: dict, raw: bytes) -> tuple[int, dict]:
        h = {k.lower(): v for k, v in headers.items()}
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return 400, {"ok": False, "error": "MALFORMED_JSON"}
        vid = body.get("version_id")
        lease = (body.get("lease") or {}).get("lease_id")
        rec = {"t": time.time(), "version_id": vid, "lease_id": lease, "status": body.get("status"),
               "auth_ok": h.get("authorization") == f"Bearer {self.secret}" and h.get("apikey") == self.secret,
               "key_ok": h.get("idempotency-key") == f"{vid}:{lease}", "schema": body.get("schema")}
        with self.lock:
            self.posts.append(rec)
            if time.time() < self.up_at:
                rec["answered"] = 503
                return 503, {"ok": False, "error": "UNAVAILABLE"}
            if not rec["auth_ok"]:
                rec["answered"] = 401
                return 401, {"ok": False, "error": "UNAUTHORIZED"}
            if self.db is None:
                self.db = PG(self.db_url, application_name="fault-suite-done")
            if body.get("status") == "ready":
                o = body.get("outputs") or {}
                thumbs = o.get("thumbnails") or []
                hero = next((t["path"] for t in thumbs if t.get("kind") == "hero"), None) or \
                    next((t["path"] for t in thumbs if t.get("kind") == "card"), None)
                outputs = {"glb_path": o.get("glb_path"), "manifest_path": o.get("manifest_path"),
                           "thumbnails": thumbs, "thumbnail_path": hero,
                           "manifest_schema_version": o.get("manifest_schema_version")}
                sql = (f"SELECT transcode_finalize({quote(vid)}, {quote(lease)}, 'ready', "
                       f"{quote(json.dumps(outputs))}::jsonb, NULL)")
            else:
                e = body.get("error") or {}
                err = {k: e.get(k) for k in ("reason", "message", "phase", "retryable")}
                sql = (f"SELECT transcode_finalize({quote(vid)}, {quote(lease)}, 'failed', NULL, "
                       f"{quote(json.dumps(err))}::jsonb)")
            result = json.loads(self.db.scalar(sql))
            rec["replay"] = bool(result.get("idempotent_replay"))
            if result.get("ok") and not rec["replay"] and self.lose_first_answer:
                # Committed, but the answer is lost on the way back (a gateway timeout after the
                # function finished): the worker must retry and get the idempotent replay.
                rec["answered"] = 504
                rec["lost"] = True
                return 504, {"ok": False, "error": "GATEWAY_TIMEOUT"}
            if result.get("ok"):
                rec["answered"] = 200
                return 200, result
            rec["answered"] = 409 if result.get("error") == "LEASE_LOST" else 422
            return rec["answered"], result

    def close(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        if self.db:
            try:
                self.db.close()
            except OSError:
                pass
            self.db = None


def scenario_callback(suite: Suite) -> tuple[bool, str]:
    url = suite.new_database("s3_callback")
    storage = os.path.join(suite.work, "s3-storage")
    stage_file_sources(storage)
    db = suite.connect(url)
    port = free_port()
    secret = "fault-suite-done-secret-0123456789abcdef"
    receiver = DoneReceiver(suite, url, port, secret)
    suite.cleanups.append(receiver.close)
    refused_for, unavailable_for = 5.0, 6.0
    n = 3
    room, ids = insert_versions(db, n, "s3 callback")
    idlist = ",".join(quote(i) for i in ids)
    args = ["--concurrency", "2", "--lease-seconds", "6",
            "--done-url", f"http://127.0.0.1:{port}/functions/v1/transcode-done"] + FAST
    # Secrets go through the environment, never argv (the worker refuses --done-secret).
    w = suite.worker("s3-w1", url, "file://" + storage, args, env={"TRANSCODE_DONE_SECRET": secret})
    t0 = time.time()
    # Phase 1: nothing listens (connection refused) until the first report was due for a while.
    wait_until(lambda: any(r.get("msg") == "transcode-done not accepted yet" for r in log_records(w)), 60,
               "the first refused report", [w], step=0.1)
    time.sleep(refused_for)
    receiver.up_at = time.time() + unavailable_for
    receiver.listen()
    t_listen = time.time()
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({idlist}) AND status = 'ready'")) == n,
               120, "every version ready", [w], step=0.2)
    t_ready = time.time()
    # A version is ready as soon as the receiver committed; the worker is done with it once its
    # retried report got the answer (the idempotent replay after a lost one).
    wait_until(lambda: {r.get("version_id") for r in log_records(w) if r.get("msg") == "job finished"} >= set(ids),
               90, "the worker to finish every job", [w], step=0.2)
    t_done = time.time()
    st = final_state(db, ids)
    conv = conversions([w])
    prefixes = {i: file_prefixes(storage, room, i) for i in ids}
    recs = log_records(w)
    refused = sum(1 for r in recs if r.get("msg") == "transcode-done not accepted yet"
                  and "HTTP_CONNECT_FAILED" in str(r.get("error", "")))
    with receiver.lock:
        posts = list(receiver.posts)
    n503 = sum(1 for p in posts if p.get("answered") == 503)
    n200 = sum(1 for p in posts if p.get("answered") == 200)
    replays = sum(1 for p in posts if p.get("replay"))
    lost = sum(1 for p in posts if p.get("lost"))
    outcomes = {r.get("version_id"): r.get("outcome") for r in log_records(w) if r.get("msg") == "job finished"}
    exit_code = w.stop(grace=20)
    c = Check()
    c(f"all {n} ready", st["ready"] == n)
    c(f"the worker's outcome is ready for each ({sorted(set(outcomes.values()))})",
      all(outcomes.get(i) == "ready" for i in ids))
    c("output_revision 1 each", st["rev1"] == n)
    c("one successful finalize each", st["finalized_once"] == n and st["finalized_twice"] == 0)
    c("one claim and one child conversion per version", st["claims"] == n and all(conv.get(i) == 1 for i in ids))
    c("one output prefix per version", all(len(p) == 1 for p in prefixes.values()))
    c("the report was refused, then answered 503, then accepted", refused >= 1 and n503 >= 1 and n200 >= n)
    c(f"after a lost answer the retry got the idempotent replay ({lost} lost, {replays} replays)",
      lost == n and replays == n)
    c("every report carried the secret and the Idempotency-Key",
      all(p["auth_ok"] and p["key_ok"] and p["schema"] == "transcode-done/v1" for p in posts))
    c("no lease left", st["leased"] == 0)
    c(f"worker exits 0 on SIGTERM ({exit_code})", exit_code == 0)
    figures = (f"{n} versions; endpoint refused connections for {t_listen - t0:.1f} s after start, then 503 for "
               f"{unavailable_for:.0f} s, then each first committed answer lost (504); {refused} refused reports, "
               f"{n503} answered 503, {lost} answers lost, {n200} accepted ({replays} idempotent replays); ready {t_ready - receiver.up_at:.1f} s after the endpoint came back, the worker done with the last report "
               f"{t_done - receiver.up_at:.1f} s after it; "
               f"child conversions per version {sorted(conv.values())}; claims {st['claims']}")
    return c.ok, figures + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


# ---------------------------------------------------------------------------------------------
# 4. storage faults (moto behind a loopback proxy)


class S3Proxy:
    """HTTP/1.1 proxy on 127.0.0.1 in front of moto. Forwards each request unchanged (method, raw
    path, every header including Host, body) and the answer back, unless the fault policy says
    `503` (answers 503 SlowDown) or `drop` (closes the connection without an answer)."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.policy = lambda index: "pass"
        self.count = 0
        self.log: list[tuple[float, str, str, str]] = []  # (t, method, path, action)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with proxy.lock:
                    index = proxy.count
                    proxy.count += 1
                    action = proxy.policy(index)
                    proxy.log.append((time.time(), self.command, self.path, action))
                if action == "drop":
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                if action == "503":
                    data = b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>injected</Message></Error>"
                    self.send_response(503)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                up = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=30)
                try:
                    up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                    for k, v in self.headers.items():
                        up.putheader(k, v)
                    up.endheaders(body if body else None)
                    resp = up.getresponse()
                    data = resp.read()
                    self.send_response(resp.status)
                    for k, v in resp.getheaders():
                        if k.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    up.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def reset(self, policy) -> None:
        with self.lock:
            self.policy = policy
            self.count = 0
            self.log = []

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Moto:
    """moto_server through scripts/s3-temp.sh (signature checks on)."""

    def __init__(self, directory: str):
        self.dir = directory
        self.env: dict[str, str] = {}

    def start(self) -> None:
        script = (f"source {shlex.quote(S3_TEMP)} && s3_temp_start {shlex.quote(self.dir)} >&2 && "
                  "printf 'PID=%s\\nPORT=%s\\nKEY=%s\\nSECRET=%s\\n' \"$S3_TEMP_PID\" \"$S3_TEMP_PORT\" "
                  "\"$AWS_ACCESS_KEY_ID\" \"$AWS_SECRET_ACCESS_KEY\"")
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        for line in p.stdout.splitlines():
            k, _, v = line.partition("=")
            self.env[k] = v
        if p.returncode != 0 or not self.env.get("PORT"):
            self.stop()
            raise SuiteError(f"s3_temp_start failed: {p.stderr.strip()[-500:]}")

    def stop(self) -> None:
        pid = self.env.pop("PID", None)
        proc = getattr(self, "_proc", None)
        self._proc = None
        if proc is not None:  # our own child
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            return
        if not pid:
            return
        try:
            with open(f"/proc/{int(pid)}/cmdline", "rb") as f:
                if b"moto_server" not in f.read():
                    return  # it exited already and the id belongs to someone else now
        except OSError:
            return
        try:  # started by s3-temp.sh's shell, which has exited: not our child
            os.kill(int(pid), signal.SIGTERM)
            for _ in range(40):
                os.kill(int(pid), 0)
                time.sleep(0.25)
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


class S3Setup:
    """A moto server, a bucket with the sample sources under `s4/`, and the fault proxy in front."""

    def __init__(self, suite: Suite, name: str):
        import boto3  # moto[server] brings it
        from botocore.config import Config
        self.moto = Moto(os.path.join(suite.work, name))
        suite.cleanups.append(self.moto.stop)
        self.moto.start()
        mport = int(self.moto.env["PORT"])
        self.key, self.secret = self.moto.env["KEY"], self.moto.env["SECRET"]
        self.s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{mport}", region_name="us-east-1",
                               aws_access_key_id=self.key, aws_secret_access_key=self.secret,
                               config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}))
        self.bucket, self.prefix = "faults", "s4"
        self.s3.create_bucket(Bucket=self.bucket)
        for k, ext in ((USDZ_KEY, ".usdz"), (JSON_KEY, ".json")):
            with open(SAMPLE + ext, "rb") as f:
                self.s3.put_object(Bucket=self.bucket, Key=f"{self.prefix}/{k}", Body=f.read())
        self.proxy = S3Proxy(mport)
        suite.cleanups.append(self.proxy.close)
        # moto decodes %2F in a query string before it verifies a signature: the worker signs the
        # `/` of its list prefixes literally for it (query_slash=literal).
        self.storage_url = (f"s3://{self.bucket}/{self.prefix}?endpoint=http://127.0.0.1:{self.proxy.port}"
                            "&region=us-east-1&query_slash=literal")
        self.env = {"AWS_ACCESS_KEY_ID": self.key, "AWS_SECRET_ACCESS_KEY": self.secret}

    def prefixes(self, room: str, vid: str) -> dict[str, int]:
        out: dict[str, int] = {}
        # Listed with a prefix without `/` and filtered here: boto3 signs a `/` in the query as %2F,
        # which moto's signature check refuses.
        want = f"{self.prefix}/rooms/{room}/versions/{vid}/"
        objects = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix):
            objects += [o for o in page.get("Contents", []) if o["Key"].startswith(want)]
        for o in objects:
            first = o["Key"].split(f"/versions/{vid}/", 1)[1].split("/", 1)[0]
            out[first] = out.get(first, 0) + 1
        return out


def scenario_storage(suite: Suite) -> tuple[bool, str]:
    try:
        import boto3  # noqa: F401 - moto[server] brings it
    except ImportError as e:
        return False, f"boto3 is missing ({e}); install moto[server]"
    url = suite.new_database("s4_storage")
    db = suite.connect(url)
    args = ["--concurrency", "1", "--lease-seconds", "10"] + FAST
    c = Check()
    parts = []
    su = S3Setup(suite, "moto-4a")
    proxy, storage_url, good_env = su.proxy, su.storage_url, su.env
    prefixes_in_s3 = su.prefixes

    # 4a: transient faults. The first 6 requests answer 503, the next 2 lose their connection
    # (one GET is tried 4 times by the worker: this also fails a whole attempt once), then a window
    # of 2 s later on where every request answers 503.
    window: list[float] = []

    def transient(index: int) -> str:
        if index < 6:
            return "503"
        if index < 8:
            return "drop"
        if window and window[0] <= time.time() < window[0] + 2.0:
            return "503"
        return "pass"

    proxy.reset(transient)
    n = 3
    room, ids = insert_versions(db, n, "s4 transient")
    idlist = ",".join(quote(i) for i in ids)
    w = suite.worker("s4-transient", url, storage_url, args, env=good_env)
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({idlist}) AND status = 'ready'")) >= 1,
               90, "the first version ready", [w], step=0.1)
    window.append(time.time())
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({idlist}) AND status IN ('ready', 'failed')")) == n,
               120, "every transient-fault version finished", [w], step=0.2)
    st = final_state(db, ids)
    with proxy.lock:
        plog = list(proxy.log)
    injected = sum(1 for x in plog if x[3] != "pass")
    s3_prefixes = {i: prefixes_in_s3(room, i) for i in ids}
    errors = db.query(f"""SELECT e->>'code', count(*) FROM room_versions, jsonb_array_elements(errors) e
                           WHERE id IN ({idlist}) GROUP BY 1""")
    exit_a = w.stop(grace=20)
    ok_a = all([
        c(f"4a all {n} ready", st["ready"] == n),
        c("4a output_revision 1 each, one finalize each", st["rev1"] == n and st["finalized_once"] == n),
        c("4a one output prefix per version in S3", all(len(p) == 1 for p in s3_prefixes.values())),
        c("4a faults were injected", injected >= 8),
        c(f"4a worker exits 0 ({exit_a})", exit_a == 0),
    ])
    parts.append(f"4a {'ok' if ok_a else 'FAIL'}: {injected} of {len(plog)} requests faulted (6x503, 2 dropped, "
                 f"2 s 503 window), {st['claims']} claims for {n} versions, attempt errors "
                 f"{dict((k, int(v)) for k, v in errors) or 'none'}, all ready")

    # 4b: wrong secret (moto answers 403 SignatureDoesNotMatch) and 4c: a missing source, on one
    # worker each; both must fail at once (attempt 1, nothing retried).
    key, secret = su.key, su.secret
    proxy.reset(lambda i: "pass")
    _, ids_b = insert_versions(db, 1, "s4 forbidden")
    bad = suite.worker("s4-forbidden", url, storage_url, args,
                       env={"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": "wrong" + secret[5:]})
    t_b = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids_b[0])}") == "failed",
               60, "the forbidden version to fail", [bad], step=0.1)
    fail_b = time.time() - t_b
    time.sleep(2.5)  # room for retries that must not happen
    rb = db.query(f"SELECT status, attempt, last_error_code, last_error, jsonb_array_length(errors) FROM room_versions "
                  f"WHERE id = {quote(ids_b[0])}")[0]
    with proxy.lock:
        req_b = len(proxy.log)
    exit_b = bad.stop(grace=20)
    ok_b = all([
        c("4b failed with SOURCE_DOWNLOAD_FAILED", rb[0] == "failed" and rb[2] == "SOURCE_DOWNLOAD_FAILED"),
        c("4b message names STORAGE_FORBIDDEN", "STORAGE_FORBIDDEN" in (rb[3] or "")),
        c(f"4b no retry (attempt {rb[1]}, {rb[4]} errors)", int(rb[1]) == 1 and int(rb[4]) == 1),
        c(f"4b no request storm ({req_b} requests)", req_b <= 4),
        c(f"4b worker exits 0 ({exit_b})", exit_b == 0),
    ])
    parts.append(f"4b {'ok' if ok_b else 'FAIL'}: wrong secret -> {rb[0]} {rb[2]} after {fail_b:.1f} s, attempt {rb[1]}, "
                 f"{req_b} storage requests")

    proxy.reset(lambda i: "pass")
    _, ids_c = insert_versions(db, 1, "s4 missing", usdz_key="faults/sources/does-not-exist.usdz")
    w_c = suite.worker("s4-missing", url, storage_url, args, env=good_env)
    t_c = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids_c[0])}") == "failed",
               60, "the missing-source version to fail", [w_c], step=0.1)
    fail_c = time.time() - t_c
    time.sleep(2.5)
    rc = db.query(f"SELECT status, attempt, last_error_code, last_error, jsonb_array_length(errors) FROM room_versions "
                  f"WHERE id = {quote(ids_c[0])}")[0]
    with proxy.lock:
        req_c = len(proxy.log)
    exit_c = w_c.stop(grace=20)
    ok_c = all([
        c("4c failed with SOURCE_NOT_FOUND", rc[0] == "failed" and rc[2] == "SOURCE_NOT_FOUND"),
        c(f"4c no retry (attempt {rc[1]}, {rc[4]} errors)", int(rc[1]) == 1 and int(rc[4]) == 1),
        c(f"4c no request storm ({req_c} requests)", req_c <= 4),
        c(f"4c worker exits 0 ({exit_c})", exit_c == 0),
    ])
    parts.append(f"4c {'ok' if ok_c else 'FAIL'}: missing source -> {rc[0]} {rc[2]} after {fail_c:.1f} s, "
                 f"attempt {rc[1]}, {req_c} storage requests")
    return c.ok, "; ".join(parts) + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


# ---------------------------------------------------------------------------------------------
# 5. full disk under file:// storage


def scenario_disk_full(suite: Suite) -> tuple[bool, str]:
    if os.geteuid() != 0:
        return False, "needs root to mount a tmpfs (CI runs as root)"
    mnt = os.path.join(suite.work, "s5-storage")
    os.makedirs(mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", mnt], capture_output=True, text=True,
                       timeout=30)
    if r.returncode != 0:
        return False, f"mount -t tmpfs failed: {r.stderr.strip()}"
    suite.cleanups.append(lambda: subprocess.run(["umount", "-l", mnt], capture_output=True, timeout=30))
    stage_file_sources(mnt)
    # Fill what is left with one file (ENOSPC ends the write).
    filler = os.path.join(mnt, "filler.bin")
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while os.write(fd, b"\0" * 65536) > 0:
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    free = shutil.disk_usage(mnt).free
    url = suite.new_database("s5_disk")
    db = suite.connect(url)
    http_port = free_port()
    args = ["--concurrency", "1", "--lease-seconds", "10"] + FAST
    tmpdir = os.path.join(suite.work, "tmp", "s5-w1")
    w = suite.worker("s5-w1", url, "file://" + mnt, args, http_port=http_port)
    room, ids = insert_versions(db, 1, "s5 full", max_attempts=2)
    vid = ids[0]
    t0 = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(vid)}") == "failed",
               60, "the version on the full disk to fail", [w], step=0.1)
    t_failed = time.time() - t0
    row = db.query(f"SELECT attempt, last_error_code, last_error, lease_id FROM room_versions WHERE id = {quote(vid)}")[0]
    leftover = file_prefixes(mnt, room, vid)
    temps = [os.path.join(d, n) for d, _, names in os.walk(mnt) for n in names if n.startswith(".tmp-put-")]
    # The attempt removes its workspace right after it recorded the failure: give it a moment.
    workspaces: list[str] = []
    for _ in range(30):
        workspaces = [n for n in os.listdir(tmpdir) if n.startswith("transcode-job-")] if os.path.isdir(tmpdir) else []
        if not workspaces:
            break
        time.sleep(0.1)
    livez, readyz = http_status(f"http://127.0.0.1:{http_port}/livez"), http_status(f"http://127.0.0.1:{http_port}/readyz")
    # Free the space; the next version must go through on the same worker.
    os.unlink(filler)
    _, ids2 = insert_versions(db, 1, "s5 after", max_attempts=2)
    t1 = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids2[0])}") in ("ready", "failed"),
               60, "the next version after freeing space", [w], step=0.1)
    t_next = time.time() - t1
    row2 = db.query(f"SELECT status, output_revision, glb_path FROM room_versions WHERE id = {quote(ids2[0])}")[0]
    exit_code = w.stop(grace=20)
    c = Check()
    c(f"failed with OUTPUT_UPLOAD_FAILED ({row[1]})", row[1] == "OUTPUT_UPLOAD_FAILED")
    c("message names STORAGE_NO_SPACE", "STORAGE_NO_SPACE" in (row[2] or ""))
    c(f"attempts bounded by the row's max_attempts 2 ({row[0]})", int(row[0]) == 2)
    c("no lease left", row[3] is None)
    c(f"no output of the failed version visible ({leftover})", not leftover)
    c(f"no temporary write files left ({len(temps)})", not temps)
    c(f"job workspaces removed ({workspaces})", not workspaces)
    c(f"/livez and /readyz 200 while the disk is full ({livez}, {readyz})", livez == 200 and readyz == 200)
    c(f"next version ready after freeing space ({row2[0]})", row2[0] == "ready" and int(row2[1]) == 1
      and bool(row2[2]) and os.path.isfile(os.path.join(mnt, row2[2])))
    c(f"worker exits 0 on SIGTERM ({exit_code})", exit_code == 0)
    figures = (f"5a storage: 1 MiB tmpfs, {free} bytes free; failed after {t_failed:.1f} s with {row[1]} after "
               f"{row[0]} attempts (\"{(row[2] or '')[:80]}\"); next version ready {t_next:.1f} s after freeing space")

    # 5b: the job workspace (TMPDIR) on a tmpfs that holds the downloaded sources (~55 KB) but not
    # the outputs (~175 KB): the child runs out of space while it writes.
    ws_mnt = os.path.join(suite.work, "s5-workspace")
    os.makedirs(ws_mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k,mode=0700", "tmpfs", ws_mnt], capture_output=True,
                       text=True, timeout=30)
    if not c(f"5b mount -t tmpfs ({r.stderr.strip()})", r.returncode == 0):
        return False, figures + "; FAILED: " + "; ".join(c.failed())
    suite.cleanups.append(lambda: subprocess.run(["umount", "-l", ws_mnt], capture_output=True, timeout=30))
    storage_b = os.path.join(suite.work, "s5b-storage")
    stage_file_sources(storage_b)
    port_b = free_port()
    wb = suite.worker("s5-workspace", url, "file://" + storage_b, args, http_port=port_b, tmpdir=ws_mnt)
    room_b, ids_b = insert_versions(db, 1, "s5 workspace full", max_attempts=2)
    t0 = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids_b[0])}") in ("failed", "ready"),
               60, "the version with a full workspace to finish", [wb], step=0.1)
    t_b = time.time() - t0
    rowb = db.query(f"SELECT status, attempt, last_error_code, last_error, errors::text FROM room_versions "
                    f"WHERE id = {quote(ids_b[0])}")[0]
    leftover_b = file_prefixes(storage_b, room_b, ids_b[0])
    ws_left: list[str] = []
    for _ in range(30):
        ws_left = [n for n in os.listdir(ws_mnt) if n.startswith("transcode-job-")]
        if not ws_left:
            break
        time.sleep(0.1)
    livez_b = http_status(f"http://127.0.0.1:{port_b}/livez")
    grow = subprocess.run(["mount", "-o", "remount,size=64m", ws_mnt], capture_output=True, text=True, timeout=30)
    _, ids_b2 = insert_versions(db, 1, "s5 workspace after", max_attempts=2)
    t1 = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids_b2[0])}") in ("ready", "failed"),
               60, "the next version after growing the workspace", [wb], step=0.1)
    t_b2 = time.time() - t1
    st_b2 = db.scalar(f"SELECT status FROM room_versions WHERE id = {quote(ids_b2[0])}")
    exit_b = wb.stop(grace=20)
    c(f"5b failed, not ready ({rowb[0]})", rowb[0] == "failed")
    c(f"5b reason is a worker fault, retried, not an input reason ({rowb[2]}, attempt {rowb[1]})",
      rowb[2] == "INTERNAL" and int(rowb[1]) == 2)
    c("5b message names its code once", (rowb[3] or "").count("IO_WRITE_FAILED") == 1)
    c(f"5b no output visible ({leftover_b})", not leftover_b)
    c(f"5b job workspaces removed ({ws_left})", not ws_left)
    c(f"5b /livez 200 ({livez_b})", livez_b == 200)
    c(f"5b next version ready after the workspace grew ({st_b2}; remount {grow.returncode})",
      st_b2 == "ready" and grow.returncode == 0)
    c(f"5b worker exits 0 on SIGTERM ({exit_b})", exit_b == 0)
    figures += (f"; 5b workspace: 128 KiB tmpfs TMPDIR -> {rowb[0]} {rowb[2]} after {rowb[1]} attempts in {t_b:.1f} s "
                f"(\"{(rowb[3] or '')[:80]}\"); next version {st_b2} {t_b2:.1f} s after growing it to 64 MiB")
    return c.ok, figures + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


# ---------------------------------------------------------------------------------------------
# 6. load: 4 workers, many versions at once


def scenario_load(suite: Suite) -> tuple[bool, str]:
    n = suite.args.jobs_6
    url = suite.new_database("s6_load")
    storage = os.path.join(suite.work, "s6-storage")
    stage_file_sources(storage)
    db = suite.connect(url)
    listener = suite.connect(url, name="fault-suite-listen")
    listener.query("LISTEN transcode_events")
    args = ["--concurrency", "1", "--lease-seconds", "30", "--heartbeat-seconds", "5", "--rescue-seconds", "5",
            "--poll-seconds", "2", "--retry-base-seconds", "1", "--shutdown-grace-seconds", "20"]
    ws = [suite.worker(f"s6-w{i}", url, "file://" + storage, args) for i in (1, 2, 3, 4)]
    # Every worker is listening before the versions arrive.
    wait_until(lambda: int(db.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                     "AND query ILIKE 'LISTEN%transcode_queued%'")) >= 4, 30, "4 listening workers", ws)
    t0 = time.time()
    room, ids = insert_versions(db, n, "s6 load")
    idlist = ",".join(quote(i) for i in ids)
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM room_versions WHERE id IN ({idlist}) "
                                     "AND status IN ('ready', 'failed')")) == n,
               max(300, n * 2.0), f"{n} versions finished", ws, listener, step=0.5)
    wall = time.time() - t0
    listener.wait(0.5)
    st = final_state(db, ids)
    ev_ready, ev_other = ready_events(listener, ids)
    claim_ms = [float(r[0]) for r in db.query(
        f"SELECT extract(epoch FROM locked_at - enqueued_at) * 1000 FROM fault_claims WHERE version_id IN ({idlist})")]
    ready_ms = [float(r[0]) for r in db.query(
        f"SELECT extract(epoch FROM transcoded_at - enqueued_at) * 1000 FROM room_versions WHERE id IN ({idlist})")]
    job_ms = [float(r[0]) for r in db.query(
        f"""SELECT extract(epoch FROM f.at - c.locked_at) * 1000 FROM fault_claims c
              JOIN fault_finalized f ON f.version_id = c.version_id WHERE c.version_id IN ({idlist})""")]
    per_worker = dict((k, int(v)) for k, v in db.query(
        f"SELECT locked_by, count(*) FROM fault_finalized WHERE version_id IN ({idlist}) GROUP BY 1 ORDER BY 1"))
    span = epoch(db, f"SELECT max(transcoded_at) - min(enqueued_at) FROM room_versions WHERE id IN ({idlist})")
    prefix_counts = [len(file_prefixes(storage, room, i)) for i in ids]
    glb_ok = sum(1 for (gp,) in db.query(f"SELECT glb_path FROM room_versions WHERE id IN ({idlist})")
                 if gp and os.path.isfile(os.path.join(storage, gp)))
    exits = suite.stop_workers(ws)
    c = Check()
    c(f"all {n} ready ({st['ready']}, failed {st['failed']})", st["ready"] == n)
    c("output_revision 1 each", st["rev1"] == n)
    c(f"exactly one successful finalize each ({st['finalized_once']}, twice {st['finalized_twice']})",
      st["finalized_once"] == n and st["finalized_twice"] == 0)
    c(f"each version claimed once ({st['claims']} claims)", st["claims"] == n)
    c("one ready event each, no failure event", len(ev_ready) == n and all(v == 1 for v in ev_ready.values())
      and not ev_other)
    c(f"one output prefix per version (max {max(prefix_counts)})", all(p == 1 for p in prefix_counts))
    c(f"every glb_path in storage ({glb_ok})", glb_ok == n)
    c("no lease left", st["leased"] == 0)
    c(f"workers exit 0 on SIGTERM ({exits})", all(x == 0 for x in exits))
    figures = (f"{n} versions, 4 workers x 1 slot; {wall:.1f} s wall ({span or 0:.1f} s enqueue->last ready), "
               f"{n / wall:.2f} jobs/s; per worker {per_worker}; enqueue->claim {stats_ms(claim_ms)}; "
               f"claim->finalize {stats_ms(job_ms)}; enqueue->ready {stats_ms(ready_ms)}")
    return c.ok, figures + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))


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
                for w in list(suite.workers):
                    w.stop(grace=5)
                    suite.workers.remove(w)
                for s in list(suite.connections):
                    suite.close(s)
                while suite.cleanups:
                    cleanup = suite.cleanups.pop()
                    try:
                        cleanup()
                    except Exception as e:  # noqa: BLE001
                        log(f"cleanup step failed: {e}")
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
