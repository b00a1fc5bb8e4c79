"""Functions the scenarios share: sources, versions, waiting, and reading the outcome back from the
database, the storage and the workers' logs."""

from __future__ import annotations

import json
import os
import shutil
import time

from .base import JSON_KEY, PG, SAMPLE, SuiteError, USDZ_KEY, Worker, quote


def open_scenario(suite, name: str) -> tuple[str, str, PG, PG]:
    """A scenario's database `name` (`s<n>_<what>`) with the sources staged in the file storage
    `<work>/s<n>-storage`: its URL, the storage directory, a connection, and a second connection
    listening to transcode_events."""
    url = suite.new_database(name)
    storage = os.path.join(suite.work, name.split("_")[0] + "-storage")
    stage_file_sources(storage)
    db = suite.connect(url)
    listener = suite.connect(url, name="fault-suite-listen")
    listener.query("LISTEN transcode_events")
    return url, storage, db, listener


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
        INSERT INTO transcode_private.room_versions (room_id, status, source_usdz_path, source_json_path, max_attempts, run_after, enqueued_at)
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
          FROM transcode_private.room_versions WHERE id IN ({idlist})""")[0]
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
