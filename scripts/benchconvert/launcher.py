"""Running one tool as a child process: wall time, peak RSS and exit status through a minimal launcher."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .settings import ScriptError

# Peak RSS comes from wait4's rusage of the measured process. Linux carries the high-water RSS of the
# process that exec()s into the new program (signal->maxrss is raised to the old mm's peak at exec), so a
# child forked straight from this script would report at least this script's own peak, which grows once
# it has read a large .glb. Each run therefore goes through a minimal launcher (python -I -S, about 5 MB)
# that forks, execs the tool and reports wall time and rusage; its own peak is the floor of the numbers.
LAUNCHER = r"""
import json, os, signal, sys, time
req = json.loads(sys.argv[1])
argv, cwd, log, timeout = req["argv"], req["cwd"], req["log"], req["timeout"]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        os.chdir(cwd)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(argv[0], argv)
    except BaseException as exc:
        os.write(2, f"cannot run {argv[0]}: {exc}\n".encode())
    os._exit(127)
timed_out = []
def expire(signum, frame):
    timed_out.append(True)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
signal.signal(signal.SIGALRM, expire)
signal.setitimer(signal.ITIMER_REAL, timeout)
_, status, usage = os.wait4(pid, 0)
signal.setitimer(signal.ITIMER_REAL, 0)
wall = time.perf_counter() - start
try:
    os.killpg(pid, signal.SIGKILL)  # anything the tool left running in its group
except (ProcessLookupError, PermissionError):
    pass
print(json.dumps({"wall_s": wall, "rss_kib": usage.ru_maxrss, "exit": os.waitstatus_to_exitcode(status),
                  "timed_out": bool(timed_out)}))
"""


def run_child(cmd: list[str], cwd: str, timeout: float) -> dict:
    """Run one process to completion (or kill its process group at the timeout) through LAUNCHER.

    Returns wall seconds (fork to reaped), ru_maxrss in KiB, the exit code, whether it timed out and
    the tail of its output (stdout and stderr go to one file so a chatty tool never blocks on a pipe).
    """
    log = os.path.join(cwd, ".bench-convert.log")
    request = json.dumps({"argv": cmd, "cwd": cwd, "log": log, "timeout": timeout})
    stderr = ""
    try:
        r = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, request], capture_output=True,
                           text=True, timeout=timeout + 120)
        stderr = r.stderr
        result = json.loads(r.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise ScriptError(f"the launcher failed for {' '.join(cmd)}: {exc} {stderr.strip()[-1000:]}") from exc
    try:
        with open(log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4000))
            result["output_tail"] = f.read().decode("utf-8", "replace")
        os.remove(log)
    except OSError:
        result["output_tail"] = ""
    return result
