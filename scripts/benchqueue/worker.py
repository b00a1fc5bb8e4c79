"""One `transcode-worker run` process in a process group of its own, its output in a log file."""

from __future__ import annotations

import os
import signal
import subprocess
import time


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
