"""Scenarios 5 and 6: a full disk under file:// storage and the job workspace, and 4 workers
under load."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from .base import Check, Suite, free_port, http_status, quote, stats_ms
from .shared import FAST, epoch, file_prefixes, final_state, insert_versions, open_scenario, ready_events, stage_file_sources, wait_until


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
    wait_until(lambda: db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(vid)}") == "failed",
               60, "the version on the full disk to fail", [w], step=0.1)
    t_failed = time.time() - t0
    row = db.query(f"SELECT attempt, last_error_code, last_error, lease_id FROM transcode_private.room_versions WHERE id = {quote(vid)}")[0]
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
    wait_until(lambda: db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(ids2[0])}") in ("ready", "failed"),
               60, "the next version after freeing space", [w], step=0.1)
    t_next = time.time() - t1
    row2 = db.query(f"SELECT status, output_revision, glb_path FROM transcode_private.room_versions WHERE id = {quote(ids2[0])}")[0]
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
    wait_until(lambda: db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(ids_b[0])}") in ("failed", "ready"),
               60, "the version with a full workspace to finish", [wb], step=0.1)
    t_b = time.time() - t0
    rowb = db.query(f"SELECT status, attempt, last_error_code, last_error, errors::text FROM transcode_private.room_versions "
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
    wait_until(lambda: db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(ids_b2[0])}") in ("ready", "failed"),
               60, "the next version after growing the workspace", [wb], step=0.1)
    t_b2 = time.time() - t1
    st_b2 = db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(ids_b2[0])}")
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
    url, storage, db, listener = open_scenario(suite, "s6_load")
    args = ["--concurrency", "1", "--lease-seconds", "30", "--heartbeat-seconds", "5", "--rescue-seconds", "5",
            "--poll-seconds", "2", "--retry-base-seconds", "1", "--shutdown-grace-seconds", "20"]
    ws = [suite.worker(f"s6-w{i}", url, "file://" + storage, args) for i in (1, 2, 3, 4)]
    # Every worker is listening before the versions arrive.
    wait_until(lambda: int(db.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                     "AND query ILIKE 'LISTEN%transcode_queued%'")) >= 4, 30, "4 listening workers", ws)
    t0 = time.time()
    room, ids = insert_versions(db, n, "s6 load")
    idlist = ",".join(quote(i) for i in ids)
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({idlist}) "
                                     "AND status IN ('ready', 'failed')")) == n,
               max(300, n * 2.0), f"{n} versions finished", ws, listener, step=0.5)
    wall = time.time() - t0
    listener.wait(0.5)
    st = final_state(db, ids)
    ev_ready, ev_other = ready_events(listener, ids)
    claim_ms = [float(r[0]) for r in db.query(
        f"SELECT extract(epoch FROM locked_at - enqueued_at) * 1000 FROM fault_claims WHERE version_id IN ({idlist})")]
    ready_ms = [float(r[0]) for r in db.query(
        f"SELECT extract(epoch FROM transcoded_at - enqueued_at) * 1000 FROM transcode_private.room_versions WHERE id IN ({idlist})")]
    job_ms = [float(r[0]) for r in db.query(
        f"""SELECT extract(epoch FROM f.at - c.locked_at) * 1000 FROM fault_claims c
              JOIN fault_finalized f ON f.version_id = c.version_id WHERE c.version_id IN ({idlist})""")]
    per_worker = dict((k, int(v)) for k, v in db.query(
        f"SELECT locked_by, count(*) FROM fault_finalized WHERE version_id IN ({idlist}) GROUP BY 1 ORDER BY 1"))
    span = epoch(db, f"SELECT max(transcoded_at) - min(enqueued_at) FROM transcode_private.room_versions WHERE id IN ({idlist})")
    prefix_counts = [len(file_prefixes(storage, room, i)) for i in ids]
    glb_ok = sum(1 for (gp,) in db.query(f"SELECT glb_path FROM transcode_private.room_versions WHERE id IN ({idlist})")
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
