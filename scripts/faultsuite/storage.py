"""Scenario 4: s3:// storage through a fault-injecting proxy in front of moto."""

from __future__ import annotations

import http.client
import http.server
import os
import shlex
import signal
import socket
import subprocess
import threading
import time

from .base import Check, JSON_KEY, S3_TEMP, SAMPLE, Suite, SuiteError, USDZ_KEY, free_port, quote
from .shared import FAST, final_state, insert_versions, wait_until


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


def failed_outcome(db, proxy: S3Proxy, worker, version_id: str, what: str) -> tuple[float, list, int, int | None]:
    """Waits (at most 60 s) for a version to fail and gives 2.5 s of room for retries that must not
    happen; then the seconds it took to fail, the version's status, attempt, error code, message
    and error count, the requests the proxy saw and the worker's exit status once stopped."""
    t0 = time.time()
    wait_until(lambda: db.scalar(f"SELECT status FROM transcode_private.room_versions WHERE id = {quote(version_id)}") == "failed",
               60, what, [worker], step=0.1)
    seconds = time.time() - t0
    time.sleep(2.5)
    row = db.query(f"SELECT status, attempt, last_error_code, last_error, jsonb_array_length(errors) FROM transcode_private.room_versions "
                   f"WHERE id = {quote(version_id)}")[0]
    with proxy.lock:
        requests = len(proxy.log)
    return seconds, row, requests, worker.stop(grace=20)


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
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({idlist}) AND status = 'ready'")) >= 1,
               90, "the first version ready", [w], step=0.1)
    window.append(time.time())
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({idlist}) AND status IN ('ready', 'failed')")) == n,
               120, "every transient-fault version finished", [w], step=0.2)
    st = final_state(db, ids)
    with proxy.lock:
        plog = list(proxy.log)
    injected = sum(1 for x in plog if x[3] != "pass")
    s3_prefixes = {i: prefixes_in_s3(room, i) for i in ids}
    errors = db.query(f"""SELECT e->>'code', count(*) FROM transcode_private.room_versions, jsonb_array_elements(errors) e
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
    fail_b, rb, req_b, exit_b = failed_outcome(db, proxy, bad, ids_b[0], "the forbidden version to fail")
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
    fail_c, rc, req_c, exit_c = failed_outcome(db, proxy, w_c, ids_c[0], "the missing-source version to fail")
    ok_c = all([
        c("4c failed with SOURCE_NOT_FOUND", rc[0] == "failed" and rc[2] == "SOURCE_NOT_FOUND"),
        c(f"4c no retry (attempt {rc[1]}, {rc[4]} errors)", int(rc[1]) == 1 and int(rc[4]) == 1),
        c(f"4c no request storm ({req_c} requests)", req_c <= 4),
        c(f"4c worker exits 0 ({exit_c})", exit_c == 0),
    ])
    parts.append(f"4c {'ok' if ok_c else 'FAIL'}: missing source -> {rc[0]} {rc[2]} after {fail_c:.1f} s, "
                 f"attempt {rc[1]}, {req_c} storage requests")
    return c.ok, "; ".join(parts) + ("" if c.ok else "; FAILED: " + "; ".join(c.failed()))
