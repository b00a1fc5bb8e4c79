"""Scenarios 1 and 2: a worker SIGKILLed mid-job, and PostgreSQL restarted mid-run."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from .base import Check, Suite, free_port, http_status, log, quote
from .shared import FAST, epoch, file_prefixes, final_state, insert_versions, log_records, open_scenario, ready_events, stage_file_sources, wait_until


def scenario_kill(suite: Suite) -> tuple[bool, str]:
    url, storage, db, listener = open_scenario(suite, "s1_kill")
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
            return db.query("""SELECT id, lease_id, transcode_phase FROM transcode_private.room_versions
                                WHERE locked_by = 's1-victim' AND locked_at < now() - interval '150 milliseconds'""")
        held: list = []
        wait_until(lambda: bool(held.extend(holding()) or held), 60, "the victim to hold a lease",
                   [victim, survivor], listener, step=0.02)
        vid, lease, _ = held[0]
        t_kill = time.time()
        victim.signal_group(signal.SIGKILL)
        victim.wait(10)
        still = db.scalar(f"SELECT lease_id FROM transcode_private.room_versions WHERE id = {quote(vid)}")
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

    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({','.join(quote(i) for i in ids)}) "
                                     "AND status = 'ready'")) == n,
               120, "every version ready", [survivor], listener)
    listener.wait(0.5)
    st = final_state(db, ids)
    rescued_at = epoch(db, f"""SELECT (e->>'at')::timestamptz FROM transcode_private.room_versions, jsonb_array_elements(errors) e
                                WHERE id = {quote(vid)} AND e->>'code' = 'LEASE_EXPIRED' LIMIT 1""")
    reclaim = db.query(f"""SELECT locked_by, extract(epoch FROM locked_at), attempt FROM fault_claims
                            WHERE version_id = {quote(vid)} AND lease_id <> {quote(lease)} ORDER BY at LIMIT 1""")
    ready_at = epoch(db, f"SELECT transcoded_at FROM transcode_private.room_versions WHERE id = {quote(vid)}")
    row = db.query(f"SELECT attempt, output_revision, locked_by FROM transcode_private.room_versions WHERE id = {quote(vid)}")[0]
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
                         f"FROM transcode_private.room_versions WHERE id IN ({idlist})")[0]
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
        retried = int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({idlist}) AND attempt > 1"))
        error_codes = db.query(f"""SELECT e->>'code', count(*) FROM transcode_private.room_versions, jsonb_array_elements(errors) e
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
