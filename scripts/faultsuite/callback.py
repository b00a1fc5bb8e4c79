"""Scenario 3: the transcode-done endpoint refuses, fails and loses its first answer."""

from __future__ import annotations

import http.client
import http.server
import json
import os
import threading
import time

from .base import Check, PG, Suite, free_port, quote
from .shared import FAST, conversions, file_prefixes, final_state, insert_versions, log_records, stage_file_sources, wait_until


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
    wait_until(lambda: int(db.scalar(f"SELECT count(*) FROM transcode_private.room_versions WHERE id IN ({idlist}) AND status = 'ready'")) == n,
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
