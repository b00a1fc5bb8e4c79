"""The suite's settings and environment: the sample, the PostgreSQL client and worker wrapper
of scripts/bench-queue.py, the instrumentation triggers, and `Suite` (one cluster, a database per
scenario, workers, cleanup)."""

from __future__ import annotations

import importlib.util
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
CREATE TRIGGER fault_record_claim AFTER UPDATE OF lease_id ON transcode_private.room_versions
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
CREATE TRIGGER fault_record_finalize AFTER UPDATE ON transcode_private.room_versions
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

    def release(self) -> None:
        """Stops every worker, closes every connection and runs the cleanups, last in first out;
        the cluster keeps running (what each scenario leaves behind)."""
        for w in list(self.workers):
            try:
                w.stop(grace=5)
            except Exception:  # noqa: BLE001 - cleanup goes on
                pass
            self.workers.remove(w)
        for s in list(self.connections):
            self.close(s)
        while self.cleanups:
            fn = self.cleanups.pop()
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                log(f"cleanup step failed: {e}")

    def shutdown(self) -> None:
        self.release()
        self.pg.stop()
