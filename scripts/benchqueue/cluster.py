"""The throwaway PostgreSQL cluster: scripts/pg-temp.sh, or initdb + pg_ctl on a free port."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys

from .pgclient import PG
from .settings import PG_BIN, PG_TEMP, BenchError, log


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
