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
import hashlib
import json
import os
import select
import shlex
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(".build", "release", "transcode-worker")
SAMPLE = os.path.join(REPO, "samples", "roomplan", "parametric_two_sections")
PG_TEMP = os.path.join(REPO, "scripts", "pg-temp.sh")
PG_BIN = os.environ.get("PG_TEMP_BIN", "/usr/lib/postgresql/15/bin")
SOURCE_USDZ_KEY = "bench/sources/parametric_two_sections.usdz"
SOURCE_JSON_KEY = "bench/sources/parametric_two_sections.json"


class BenchError(Exception):
    pass


def log(msg: str) -> None:
    print(f"bench-queue: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# A minimal PostgreSQL client (protocol 3.0, simple queries, LISTEN/NOTIFY).


class PGError(Exception):
    pass


class PG:
    def __init__(self, url: str, application_name: str = "bench-queue", timeout: float = 10.0):
        u = urllib.parse.urlparse(url)
        if u.scheme not in ("postgres", "postgresql"):
            raise PGError(f"not a postgresql:// URL: {url}")
        self.user = urllib.parse.unquote(u.username or os.environ.get("USER", "postgres"))
        self.password = urllib.parse.unquote(u.password) if u.password else None
        self.database = urllib.parse.unquote(u.path.lstrip("/")) or self.user
        self.sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 5432), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.notifications: list[tuple[float, str, str]] = []  # (arrival time, channel, payload)
        params = {"user": self.user, "database": self.database, "application_name": application_name,
                  "client_encoding": "UTF8"}
        body = struct.pack("!i", 196608) + b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in params.items()) + b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while True:
            t, m = self._read()
            if t == b"R":
                code = struct.unpack("!i", m[:4])[0]
                if code == 0:
                    continue
                if code == 3 and self.password is not None:
                    self._send(b"p", self.password.encode() + b"\0")
                elif code == 5 and self.password is not None:
                    inner = hashlib.md5(self.password.encode() + self.user.encode()).hexdigest().encode()
                    self._send(b"p", b"md5" + hashlib.md5(inner + m[4:8]).hexdigest().encode() + b"\0")
                else:
                    raise PGError(f"unsupported authentication request {code} (use a trust or md5 cluster)")
            elif t == b"E":
                raise PGError(self._error_text(m))
            elif t == b"Z":
                break
        self.sock.settimeout(None)

    def _send(self, t: bytes, payload: bytes) -> None:
        self.sock.sendall(t + struct.pack("!i", len(payload) + 4) + payload)

    def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise PGError("the server closed the connection")
            self.buf += chunk

    def _read(self) -> tuple[bytes, bytes]:
        """Reads one message, keeping notifications aside."""
        while True:
            self._fill(5)
            t = self.buf[:1]
            n = struct.unpack("!i", self.buf[1:5])[0]
            self._fill(1 + n)
            m = self.buf[5:1 + n]
            self.buf = self.buf[1 + n:]
            if t == b"A":
                self._notification(m)
                continue
            if t in (b"N", b"S", b"K"):
                continue
            return t, m

    def _notification(self, m: bytes) -> None:
        rest = m[4:]
        channel, rest = rest.split(b"\0", 1)
        payload = rest.split(b"\0", 1)[0]
        self.notifications.append((time.time(), channel.decode(), payload.decode()))

    @staticmethod
    def _error_text(m: bytes) -> str:
        fields = {}
        for part in m.split(b"\0"):
            if part:
                fields[part[:1]] = part[1:].decode(errors="replace")
        return f"{fields.get(b'S', 'ERROR')}: {fields.get(b'M', '?')} (SQLSTATE {fields.get(b'C', '?')})"

    def query(self, sql: str) -> list[tuple]:
        """Runs one or more statements; returns the rows of the last result (text values, None for NULL)."""
        self._send(b"Q", sql.encode() + b"\0")
        rows: list[tuple] = []
        error = None
        while True:
            t, m = self._read()
            if t == b"T":
                rows = []
            elif t == b"D":
                count = struct.unpack("!h", m[:2])[0]
                pos, values = 2, []
                for _ in range(count):
                    length = struct.unpack("!i", m[pos:pos + 4])[0]
                    pos += 4
                    if length < 0:
                        values.append(None)
                    else:
                        values.append(m[pos:pos + length].decode())
                        pos += length
                rows.append(tuple(values))
            elif t == b"E":
                error = self._error_text(m)
            elif t == b"Z":
                break
        if error:
            raise PGError(error)
        return rows

    def scalar(self, sql: str):
        rows = self.query(sql)
        return rows[0][0] if rows else None

    def wait(self, timeout: float) -> None:
        """Collects the notifications that arrive within `timeout` seconds (into .notifications)."""
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return
            chunk = self.sock.recv(65536)
            if not chunk:
                raise PGError("the server closed the connection")
            self.buf += chunk
            while len(self.buf) >= 5:
                n = struct.unpack("!i", self.buf[1:5])[0]
                if len(self.buf) < 1 + n:
                    break
                t, m = self.buf[:1], self.buf[5:1 + n]
                self.buf = self.buf[1 + n:]
                if t == b"A":
                    self._notification(m)
                elif t == b"E":
                    raise PGError(self._error_text(m))

    def close(self) -> None:
        try:
            self._send(b"X", b"")
        except OSError:
            pass
        self.sock.close()


def quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


# ---------------------------------------------------------------------------------------------
# Throwaway PostgreSQL


class TempPostgres:
    """scripts/pg-temp.sh when present, else initdb + pg_ctl on a free port (same settings)."""

    def __init__(self, directory: str):
        self.dir = directory
        self.env: dict[str, str] = {}
        self.own_data: str | None = None
        self.url = ""

    def start(self) -> str:
        if os.path.exists(PG_TEMP):
            script = (f"source {shlex.quote(PG_TEMP)} && pg_temp_start {shlex.quote(self.dir)} >&2 && "
                      "printf 'DATABASE_URL=%s\\nPG_TEMP_DIR=%s\\nPG_TEMP_DATA=%s\\nPG_TEMP_PORT=%s\\n_PG_TEMP_SOCKDIR=%s\\n_PG_TEMP_URL=%s\\n' "
                      "\"$DATABASE_URL\" \"$PG_TEMP_DIR\" \"$PG_TEMP_DATA\" \"$PG_TEMP_PORT\" \"$_PG_TEMP_SOCKDIR\" \"$_PG_TEMP_URL\"")
            p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
            for line in p.stdout.splitlines():
                k, _, v = line.partition("=")
                if k:
                    self.env[k] = v
            if p.returncode != 0 or not self.env.get("DATABASE_URL"):
                sys.stderr.write(p.stderr)
                raise BenchError("pg_temp_start failed")
            self.url = self.env["DATABASE_URL"]
            log(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"PostgreSQL at {self.url}")
            return self.url
        return self._start_own()

    def _as_owner(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        if os.geteuid() == 0:
            args = ["runuser", "-u", "postgres", "--"] + args
        return subprocess.run(args, cwd="/", **kw)

    def _start_own(self) -> str:
        data = os.path.join(self.dir, "pgdata")
        os.makedirs(self.dir, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        if self._as_owner([f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"],
                          capture_output=True).returncode != 0:
            raise BenchError("initdb failed")
        self.own_data = data
        for _ in range(5):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            opts = f"-p {port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
            r = self._as_owner([f"{PG_BIN}/pg_ctl", "-D", data, "-o", opts, "-l", os.path.join(self.dir, "pg.log"),
                                "-w", "-t", "60", "start"], capture_output=True)
            if r.returncode == 0:
                admin = PG(f"postgresql://postgres@127.0.0.1:{port}/postgres")
                admin.query("CREATE DATABASE transcode")
                admin.close()
                self.url = f"postgresql://postgres@127.0.0.1:{port}/transcode"
                log(f"PostgreSQL on 127.0.0.1:{port} (own cluster; scripts/pg-temp.sh not found)")
                return self.url
        raise BenchError("pg_ctl start failed (see pg.log)")

    def stop(self) -> None:
        if self.env:
            exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items() if k != "DATABASE_URL")
            subprocess.run(["bash", "-c", f"source {shlex.quote(PG_TEMP)} && export {exports} "
                                          f"DATABASE_URL={shlex.quote(self.env.get('DATABASE_URL', ''))} && pg_temp_stop"],
                           capture_output=True)
            self.env = {}
        if self.own_data:
            self._as_owner([f"{PG_BIN}/pg_ctl", "-D", self.own_data, "-m", "immediate", "-w", "stop"], capture_output=True)
            shutil.rmtree(self.own_data, ignore_errors=True)
            self.own_data = None


# ---------------------------------------------------------------------------------------------
# Workers


class Worker:
    def __init__(self, name: str, binary: str, args: list[str], env: dict[str, str], logdir: str):
        self.name = name
        self.log_path = os.path.join(logdir, f"{name}.log")
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen([binary, "run"] + args, env=env, stdout=self.log_file, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.started = time.time()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after `grace` seconds; always reaps the whole process group."""
        if self.alive():
            self.signal_group(signal.SIGTERM)
            if self.wait(grace) is None:
                self.signal_group(signal.SIGKILL)
                self.wait(10)
        # Children that outlived the worker (they share its process group).
        self.signal_group(signal.SIGKILL)
        self.log_file.close()
        return self.proc.returncode

    def tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


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
DROP TRIGGER IF EXISTS bench_record_claim ON room_versions;
CREATE TRIGGER bench_record_claim AFTER UPDATE OF lease_id ON room_versions
  FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL AND NEW.lease_id IS DISTINCT FROM OLD.lease_id)
  EXECUTE FUNCTION bench_record_claim();
"""


# ---------------------------------------------------------------------------------------------


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
        INSERT INTO room_versions (room_id, status, source_usdz_path, source_json_path, run_after, enqueued_at)
        SELECT r.id, 'queued', {quote(SOURCE_USDZ_KEY)}, {quote(SOURCE_JSON_KEY)}, now(), now()
          FROM r, generate_series(1, {n})
    """)
    phase1_ids = [r[0] for r in db.query("SELECT id FROM room_versions")]
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
            "FROM room_versions")[0])
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
          FROM room_versions
    """)[0]
    n_ready, n_rev1, n_leased, n_rescued, n_failed = (int(x) for x in st[:5])
    checks.append((f"every version ready ({n_ready}/{n}, failed {n_failed})", n_ready == n))
    checks.append((f"output_revision = 1 for each ({n_rev1}/{n})", n_rev1 == n))
    checks.append((f"no lease left ({n_leased})", n_leased == 0))
    claims = int(db.scalar("SELECT count(*) FROM bench_claims"))
    claimed_twice = int(db.scalar("SELECT count(*) FROM (SELECT version_id FROM bench_claims GROUP BY 1 HAVING count(*) > 1) x"))
    missing = [gp for (gp,) in db.query("SELECT glb_path FROM room_versions WHERE status = 'ready'")
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
        return db.scalar("SELECT EXISTS (SELECT 1 FROM room_versions WHERE lease_id IS NOT NULL OR status = 'queued')") == "t"

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
            INSERT INTO room_versions (room_id, status, source_usdz_path, source_json_path)
            VALUES ({quote(room)}, 'queued', {quote(SOURCE_USDZ_KEY)}, {quote(SOURCE_JSON_KEY)})""")

    def measure(room: str) -> tuple[list[float], list[float], int]:
        rows = db.query(f"""
            SELECT extract(epoch FROM c.locked_at - c.enqueued_at) * 1000,
                   extract(epoch FROM v.transcoded_at - v.enqueued_at) * 1000, v.status::text
              FROM bench_claims c JOIN room_versions v ON v.id = c.version_id
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


if __name__ == "__main__":
    sys.exit(main())
