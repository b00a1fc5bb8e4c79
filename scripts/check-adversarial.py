#!/usr/bin/env python3
"""Runs `transcode-worker convert` on every case of Tests/Fixtures/adversarial/cases.json (written by
scripts/gen-adversarial-fixtures.py) and checks that each one ends the way cases.json says: exit
status 3 (invalid input) with the expected code on standard error, in less than --max-seconds of
wall time and less than --max-rss-mib of peak resident memory. Time and memory are the child's own,
taken from the kernel when it is reaped (os.wait4: ru_maxrss in KiB).

A case whose `expected_exit` is 0 must succeed and list the expected code among the warnings of its
summary (a texture that is skipped rather than rejected).

    python3 scripts/check-adversarial.py --binary .build/release-check/release/transcode-worker
    python3 scripts/check-adversarial.py --binary .build/debug/transcode-worker --case crate-path-cycle

Prints one row per case (case, code, seconds, peak RSS MiB, verdict) and `N passed, M failed`;
exits 1 when any case fails.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Tests", "Fixtures", "adversarial")


def run_case(binary, case, out_dir, timeout):
    """Runs one conversion; returns (exit status or -signal, stdout, stderr, seconds, peak RSS KiB)."""
    args = [binary, "convert"]
    if "input" in case:
        args.append(os.path.join(FIXTURES, case["input"]))
        if "roomplan" in case:
            args += ["--roomplan", os.path.join(FIXTURES, case["roomplan"])]
    else:
        args.append(os.path.join(FIXTURES, case["roomplan"]))
    args += ["--out", out_dir]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.monotonic() > deadline:
                os.kill(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"), \
            seconds, usage.ru_maxrss


def check(case, status, stdout, stderr, seconds, rss_kib, limits):
    """Returns the list of problems (empty when the case passed) and the code seen."""
    problems = []
    expected = case["expected_code"]
    want_exit = case.get("expected_exit", 3)
    seen = None
    if want_exit == 3:
        # `error: INPUT: CODE: message (context)`
        match = re.search(r"^error: .*?: ([A-Z][A-Z0-9_]+): ", stderr, re.M)
        seen = match.group(1) if match else None
        if status != 3:
            problems.append("exit status %d, expected 3" % status)
        if seen != expected:
            problems.append("code %s, expected %s" % (seen, expected))
    else:
        # The text summary lists warnings as indented `CODE: message` lines.
        codes = re.findall(r"^  ([A-Z][A-Z0-9_]+): ", stdout, re.M)
        seen = expected if expected in codes else ",".join(codes) or None
        if status != want_exit:
            problems.append("exit status %d, expected %d" % (status, want_exit))
        if expected not in codes:
            problems.append("warning %s missing (warnings: %s)" % (expected, codes))
    if seconds >= limits.max_seconds:
        problems.append("%.2f s, limit %.1f s" % (seconds, limits.max_seconds))
    if rss_kib / 1024 >= limits.max_rss_mib:
        problems.append("peak RSS %.0f MiB, limit %d MiB" % (rss_kib / 1024, limits.max_rss_mib))
    return problems, seen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the transcode-worker executable")
    ap.add_argument("--cases", default=os.path.join(FIXTURES, "cases.json"))
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    ap.add_argument("--max-seconds", type=float, default=2.0, help="wall-time limit per case (default 2)")
    ap.add_argument("--max-rss-mib", type=int, default=256, help="peak RSS limit per case in MiB (default 256)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()

    with open(args.cases) as f:
        cases = json.load(f)["cases"]
    if args.case:
        unknown = set(args.case) - {c["name"] for c in cases}
        if unknown:
            sys.exit("unknown case(s): %s" % ", ".join(sorted(unknown)))
        cases = [c for c in cases if c["name"] in args.case]
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("not an executable: %s" % binary)

    work = tempfile.mkdtemp(prefix="adversarial.")
    passed = failed = 0
    if args.markdown:
        print("| case | attacks | code | seconds | peak RSS (MiB) |")
        print("|---|---|---|---:|---:|")
    else:
        print("%-30s %-28s %8s %10s  %s" % ("case", "code", "seconds", "RSS MiB", "result"))
    try:
        for case in cases:
            out_dir = os.path.join(work, case["name"])
            # A generous kill timeout so a slow case is measured, not only flagged.
            status, stdout, stderr, seconds, rss = run_case(binary, case, out_dir, max(10 * args.max_seconds, 30))
            problems, seen = check(case, status, stdout, stderr, seconds, rss, args)
            if problems:
                failed += 1
            else:
                passed += 1
            if args.markdown:
                print("| `%s` | %s | `%s` | %.2f | %.0f |" % (case["name"], case["attack"], seen, seconds, rss / 1024))
            else:
                print("%-30s %-28s %8.2f %10.0f  %s" % (case["name"], seen, seconds, rss / 1024,
                                                       "ok" if not problems else "FAIL: " + "; ".join(problems)))
            if problems and stderr.strip():
                for line in stderr.strip().splitlines()[-3:]:
                    print("    stderr: " + line[:300])
            shutil.rmtree(out_dir, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
