#!/usr/bin/env python3
"""Batch re-transcodes, incremental against full, in one run.

    swift build -c release --static-swift-stdlib   # as the container image: transcode-worker and transcode-job
    python3 scripts/bench-reprocess.py --binary "$(swift build -c release --static-swift-stdlib --show-bin-path)/transcode-worker" \
                                       [--count 24]
                                       [--concurrency 4] [--fresh 8] [--keep DIR]
                                       [--by-scan SCAN.usdz ... [--scan-count 8]]

On a throwaway PostgreSQL 15 (scripts/pg-temp.sh) and a file store in one work directory:

 1. `migrate`; --count versions of the RoomPlan sample (samples/roomplan/parametric_two_sections)
    are submitted and transcoded (`run --exit-when-idle`): the "fresh" row.
 2. "full re-transcode (--force)": every version marked with `reprocess --below-schema 999 --force`
    and re-transcoded, reusing nothing: what a batch cost before outputs were keyed.
 3. "manifest-only change": the rows are set back to manifest schema 4 (as if made by the previous
    schema), `reprocess --below-schema 5` marks them and the worker re-transcodes them; every output
    group keeps its key, so the model, thumbnails and plan are copied and only the manifest and the
    report are written.
 4. "renderer change": each published manifest's `artifacts.thumbnails.key` and `artifacts.plan.key`
    are replaced (as if the renderer's stage version had been bumped since: a room's plan
    thumbnail is in the plan group, drawn with the plan), then the same as 3: the thumbnails are
    rendered again and the plan written again, the model is copied.
 4b. "plan language change": every version's `plan_locale` set to zh-Hans, then the same as 3:
    the plan group (its files and the plan thumbnail) is made again, the model and the ten 3D
    views are copied.
 5. "fresh uploads during a batch": --fresh new scans are submitted one every 0.5 s while a
    manifest-only batch of --count versions runs, and again with no batch; for each, the median and
    maximum enqueue-to-ready time (`transcoded_at - enqueued_at`, both stamped by the database).
 6. With --by-scan: for each given USDZ (with the CapturedRoom JSON of the same name beside it, when
    there is one), --scan-count versions are submitted and transcoded as in 1: the cost of a fresh
    job by kind of scan (parametric or mesh, with or without its JSON, re-exported, textured).

Each row gives the wall time of the worker's run, jobs/s, CPU-seconds per job (user + system of the
worker and its job children, from the benchmark's RUSAGE_CHILDREN around the run), the database's
CPU-seconds per job (user + system of the PostgreSQL server: the postmaster, its live processes and
the ones it has reaped, from /proc) and the ratio of jobs/s to the full re-transcode's. The header
says whether the binary carries the Swift runtime (`--static-swift-stdlib`, as the container image
is built) or loads it; the second starts every job's child about 6 ms of CPU slower. Every version must end `ready` with its files in storage, else
the script exits 1. Only the Python standard library and the `psql` client.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "samples", "roomplan", "parametric_two_sections")


class Bench:
    def __init__(self, binary, work, concurrency):
        self.binary = binary
        self.work = work
        self.concurrency = concurrency
        self.storage = os.path.join(work, "storage")
        os.makedirs(self.storage, exist_ok=True)
        out = subprocess.run(
            ["bash", "-c", f'source "{ROOT}/scripts/pg-temp.sh" && pg_temp_start "{work}/pg" >&2 && '
                           'echo "$DATABASE_URL $PG_TEMP_DATA $PG_TEMP_DIR"'],
            check=True, capture_output=True, text=True)
        self.url, self.pg_data, self.pg_dir = out.stdout.split()
        self.env = dict(os.environ, DATABASE_URL=self.url, TRANSCODE_STORAGE_URL="file://" + self.storage,
                        TRANSCODE_HTTP_ADDR="off", TRANSCODE_LOG_LEVEL="info")

    def stop(self):
        subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/pg-temp.sh" && PG_TEMP_DATA="{self.pg_data}" '
                                      f'PG_TEMP_DIR="{self.pg_dir}" pg_temp_stop'], check=False)

    def postgres_cpu(self):
        """CPU seconds (user + system) of the PostgreSQL server so far: the postmaster, its reaped
        processes (the postmaster's children times) and the ones still running."""
        tick = os.sysconf("SC_CLK_TCK")
        postmaster = self.postmaster_pid()

        def fields(pid):
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()
        own = fields(postmaster)
        total = sum(int(v) for v in own[11:15])
        for pid in self.postgres_children():
            try:
                f = fields(pid)
            except OSError:   # ended meanwhile: its time is in the postmaster's children times
                continue
            total += int(f[11]) + int(f[12])
        return total / tick

    def postmaster_pid(self):
        with open(os.path.join(self.pg_data, "postmaster.pid")) as f:
            return int(f.readline())

    def postgres_children(self):
        return subprocess.run(["pgrep", "-P", str(self.postmaster_pid())], capture_output=True, text=True).stdout.split()

    def wait_for_backends(self, count, timeout=5.0):
        """Waits until the server is back to `count` processes: the worker's sessions end after it
        exits, and a backend counts only while it runs or once the postmaster has reaped it."""
        deadline = time.monotonic() + timeout
        while len(self.postgres_children()) > count and time.monotonic() < deadline:
            time.sleep(0.05)

    def tw(self, *args):
        return subprocess.run([self.binary, *args], env=self.env, check=True, capture_output=True, text=True).stdout

    def sql(self, query):
        return subprocess.run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", self.url, "-c", query],
                              check=True, capture_output=True, text=True).stdout.strip()

    def submit(self, usdz=SAMPLE + ".usdz", roomplan=SAMPLE + ".json"):
        out = self.tw("submit", "--usdz", usdz, *(["--roomplan", roomplan] if roomplan else []))
        return out.splitlines()[0].strip()

    def run_until_idle(self, label):
        """Runs the worker until the queue is empty: (wall seconds, CPU seconds of it and its children,
        CPU seconds of the database server)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        database_before = self.postgres_cpu()
        backends_before = len(self.postgres_children())
        t0 = time.monotonic()
        with open(os.path.join(self.work, f"{label}.log"), "w") as log:
            subprocess.run([self.binary, "run", "--exit-when-idle", "--concurrency", str(self.concurrency),
                            "--poll-seconds", "0.2"], env=self.env, check=True, stderr=log)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.wait_for_backends(backends_before)
        return wall, cpu, self.postgres_cpu() - database_before

    def check_ready(self, ids):
        rows = self.sql("SELECT count(*) FROM transcode_private.room_versions WHERE status = 'ready' AND reprocess_requested_at IS NULL "
                        f"AND id IN ({','.join(repr(i) for i in ids)})")
        if int(rows) != len(ids):
            raise SystemExit(f"bench-reprocess: only {rows} of {len(ids)} versions ready")
        for line in self.sql("SELECT glb_path || ' ' || manifest_path FROM transcode_private.room_versions "
                             f"WHERE id IN ({','.join(repr(i) for i in ids)})").splitlines():
            for key in line.split():
                if not os.path.isfile(os.path.join(self.storage, key)):
                    raise SystemExit(f"bench-reprocess: {key} is not in storage")

    def copied_outputs(self, label):
        """Outputs copied instead of uploaded, from the worker's `job finished` lines."""
        total = 0
        with open(os.path.join(self.work, f"{label}.log")) as log:
            for line in log:
                try:
                    total += json.loads(line).get("copied_outputs", 0)
                except ValueError:
                    pass
        return total

    def tamper_render_keys(self, ids):
        for line in self.sql("SELECT manifest_path FROM transcode_private.room_versions "
                             f"WHERE id IN ({','.join(repr(i) for i in ids)})").splitlines():
            path = os.path.join(self.storage, line.strip())
            with open(path) as f:
                manifest = json.load(f)
            manifest["artifacts"]["thumbnails"]["key"] = "0" * 64
            manifest["artifacts"]["plan"]["key"] = "0" * 64
            with open(path, "w") as f:
                json.dump(manifest, f)

    def fresh_latencies(self, count, with_batch, batch_ids):
        """Submits `count` scans 0.5 s apart while a worker runs (and, with_batch, a manifest-only batch)."""
        if with_batch:
            self.sql("UPDATE transcode_private.room_versions SET manifest_schema_version = 4 "
                     f"WHERE id IN ({','.join(repr(i) for i in batch_ids)})")
            self.tw("reprocess", "--below-schema", "5", "--limit", str(len(batch_ids)))
        fresh = []

        def feed():
            time.sleep(0.3)
            for _ in range(count):
                fresh.append(self.submit())
                time.sleep(0.5)
        feeder = threading.Thread(target=feed)
        feeder.start()
        worker = subprocess.Popen([self.binary, "run", "--concurrency", str(self.concurrency), "--poll-seconds", "0.2"],
                                  env=self.env, stderr=subprocess.DEVNULL)
        feeder.join()
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            left = self.sql("SELECT count(*) FROM transcode_private.room_versions WHERE status <> 'ready' OR reprocess_requested_at IS NOT NULL")
            if left == "0":
                break
            time.sleep(0.2)
        worker.terminate()
        worker.wait(timeout=60)
        self.check_ready(fresh)
        values = [float(v) for v in self.sql(
            "SELECT extract(epoch FROM transcoded_at - enqueued_at) FROM transcode_private.room_versions "
            f"WHERE id IN ({','.join(repr(i) for i in fresh)})").splitlines()]
        return statistics.median(values), max(values)


def runtime_linkage(binary):
    """Whether `binary` carries the Swift runtime or loads it (from ldd's list of libraries)."""
    libraries = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    if "libswiftCore.so" in libraries:
        return "Swift runtime loaded (default build)"
    return "Swift runtime linked in (--static-swift-stdlib, as the container image)"


def main():
    ap = argparse.ArgumentParser(description="Batch re-transcodes, incremental against full, in one run.")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "transcode-worker"))
    ap.add_argument("--count", type=int, default=24, help="versions in each batch (default 24)")
    ap.add_argument("--concurrency", type=int, default=4, help="the worker's job slots (default 4, the worker's own default on 2 cores)")
    ap.add_argument("--fresh", type=int, default=8, help="fresh uploads in the priority phase (default 8)")
    ap.add_argument("--keep", help="keep the work directory here")
    ap.add_argument("--by-scan", nargs="+", metavar="SCAN.usdz", default=[],
                    help="also measure fresh jobs of each of these scans (with SCAN.json when it exists)")
    ap.add_argument("--scan-count", type=int, default=8, help="versions of each --by-scan scan (default 8)")
    args = ap.parse_args()
    scans = []
    for path in args.by_scan:
        if not path.endswith(".usdz") or not os.path.isfile(path):
            print(f"bench-reprocess: --by-scan {path}: not a .usdz file", file=sys.stderr)
            return 2
        json_path = path[:-len(".usdz")] + ".json"
        scans.append((os.path.abspath(path), os.path.abspath(json_path) if os.path.isfile(json_path) else None))
    if not os.path.isfile(args.binary):
        print(f"bench-reprocess: {args.binary} not found (swift build -c release)", file=sys.stderr)
        return 2
    if shutil.which("psql") is None:
        print("bench-reprocess: psql is needed (apt-get install postgresql-client-15)", file=sys.stderr)
        return 2
    work = args.keep or tempfile.mkdtemp(prefix="bench-reprocess.")
    os.makedirs(work, exist_ok=True)
    bench = Bench(os.path.abspath(args.binary), work, args.concurrency)
    rows = []
    try:
        bench.tw("migrate")
        ids = [bench.submit() for _ in range(args.count)]
        wall, cpu, db = bench.run_until_idle("fresh")
        bench.check_ready(ids)
        rows.append(("fresh transcode", wall, cpu, db, bench.copied_outputs("fresh")))

        bench.tw("reprocess", "--below-schema", "999", "--force", "--limit", str(args.count))
        wall, cpu, db = bench.run_until_idle("full")
        bench.check_ready(ids)
        rows.append(("full re-transcode (--force)", wall, cpu, db, bench.copied_outputs("full")))

        bench.sql(f"UPDATE transcode_private.room_versions SET manifest_schema_version = 4 WHERE id IN ({','.join(repr(i) for i in ids)})")
        bench.tw("reprocess", "--below-schema", "5", "--limit", str(args.count))
        wall, cpu, db = bench.run_until_idle("manifest")
        bench.check_ready(ids)
        rows.append(("manifest-only change", wall, cpu, db, bench.copied_outputs("manifest")))

        bench.tamper_render_keys(ids)
        bench.sql(f"UPDATE transcode_private.room_versions SET manifest_schema_version = 4 WHERE id IN ({','.join(repr(i) for i in ids)})")
        bench.tw("reprocess", "--below-schema", "5", "--limit", str(args.count))
        wall, cpu, db = bench.run_until_idle("renderer")
        bench.check_ready(ids)
        rows.append(("renderer change", wall, cpu, db, bench.copied_outputs("renderer")))

        bench.sql(f"UPDATE transcode_private.room_versions SET plan_locale = 'zh-Hans', manifest_schema_version = 4 "
                  f"WHERE id IN ({','.join(repr(i) for i in ids)})")
        bench.tw("reprocess", "--below-schema", "5", "--limit", str(args.count))
        wall, cpu, db = bench.run_until_idle("plan-locale")
        bench.check_ready(ids)
        rows.append(("plan language change", wall, cpu, db, bench.copied_outputs("plan-locale")))

        alone = bench.fresh_latencies(args.fresh, False, ids)
        during = bench.fresh_latencies(args.fresh, True, ids)

        by_scan = []
        for usdz, roomplan in scans:
            scan_ids = [bench.submit(usdz, roomplan) for _ in range(args.scan_count)]
            wall, cpu, db = bench.run_until_idle("scan-" + os.path.basename(usdz))
            bench.check_ready(scan_ids)
            by_scan.append((usdz, roomplan, wall, cpu, db))
    finally:
        bench.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    n = args.count
    full_rate = n / rows[1][1]
    print(f"bench-reprocess: {n} versions of {os.path.basename(SAMPLE)}, {args.concurrency} slots, {os.cpu_count()} cores, "
          f"{runtime_linkage(args.binary)}")
    print()
    print("| batch | wall s | jobs/s | CPU s per job | database CPU s per job | outputs copied | jobs/s vs full |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, wall, cpu, db, copied in rows:
        print(f"| {label} | {wall:.2f} | {n / wall:.2f} | {cpu / n:.3f} | {db / n:.3f} | {copied} | {n / wall / full_rate:.2f} |")
    print()
    print("| fresh uploads (enqueue to ready) | median s | max s |")
    print("|---|---:|---:|")
    print(f"| {args.fresh} alone | {alone[0]:.2f} | {alone[1]:.2f} |")
    print(f"| {args.fresh} during a manifest-only batch of {n} | {during[0]:.2f} | {during[1]:.2f} |")
    if by_scan:
        m = args.scan_count
        print()
        print(f"| fresh transcode, {m} versions of | with its JSON | wall s | jobs/s | CPU s per job | "
              "database CPU s per job | jobs/s per core |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for usdz, roomplan, wall, cpu, db in by_scan:
            print(f"| `{os.path.basename(usdz)}` | {'yes' if roomplan else 'no'} | {wall:.2f} | {m / wall:.2f} | "
                  f"{cpu / m:.3f} | {db / m:.3f} | {m / cpu:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
