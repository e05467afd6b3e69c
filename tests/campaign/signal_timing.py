#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Signal-timing campaign: SIGINT / SIGTERM at random moments of real runs.

Each run is one of
  unshare -Urn nagle-trace --variant all --format json -o out.json   (in a fresh directory)
  unshare -Urn nagle-trace --format json                            (report on standard output)
and gets SIGINT or SIGTERM after a uniformly random 0-300 ms. Rules:

  - the exit status is 0, 1, 130 or 143 (a death by the signal counts as
    128 + signal, as a shell sees it), and the run ends within 30 s;
  - the report (out.json, or standard output) is complete JSON or absent,
    never a part; when present, "interrupted" (any run's, for several
    variants) is true exactly when the status is 130 or 143;
  - the directory holds nothing but out.json afterwards (no temporary file).

usage: signal_timing.py [--binary PATH] [--seconds N] [--seed N]
  --seconds 30 for a short run; 600 or more for developers.
Prints the counts by mode, signal and status, each failure, then
"N passed, N failed"; exit 1 on any failure.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def interrupted(doc):
    if "runs" in doc:
        return any(r.get("interrupted") for r in doc["runs"])
    return bool(doc.get("interrupted"))


def one(binary, mode, sig, delay_s, work):
    """Runs once; returns (status, failure reason or None)."""
    cmd = ["unshare", "-Urn", binary, "--format", "json"]
    if mode == "file":
        cmd += ["--variant", "all", "-o", "out.json"]
    p = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(delay_s)
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "hang", "still running 30 s after the signal"
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    if rc not in (0, 1, 130, 143):
        return rc, "exit status %d: %s" % (rc, err.decode(errors="replace").strip()[:200])
    if mode == "file":
        left = sorted(os.listdir(work))
        if left not in ([], ["out.json"]):
            return rc, "left in the directory: %s" % " ".join(left)
        text = open(os.path.join(work, "out.json"), "rb").read() if left else None
    else:
        text = out or None
    if text is None:
        return rc, None
    try:
        doc = json.loads(text)
    except ValueError as e:
        return rc, "a partial report (%d bytes): %s" % (len(text), e)
    if interrupted(doc) != (rc in (130, 143)):
        return rc, "\"interrupted\" is %s with exit status %d" % (interrupted(doc), rc)
    return rc, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("NAGLE_TRACE",
                                                       os.path.join(ROOT, "build", "nagle-trace")))
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)

    rng = random.Random(args.seed)
    counts, failures, runs = {}, [], 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        mode = rng.choice(["file", "stdout"])
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0, 0.3)
        work = tempfile.mkdtemp(prefix="nt-signal-")
        try:
            rc, reason = one(args.binary, mode, sig, delay, work)
        finally:
            shutil.rmtree(work)
        runs += 1
        key = "%s %s -> %s" % (mode, sig.name, rc)
        counts[key] = counts.get(key, 0) + 1
        if reason:
            failures.append("%s %s at %.0f ms: %s" % (mode, sig.name, delay * 1000, reason))
    print("signal_timing: seed %d, %d runs in %.0f s" % (args.seed, runs, args.seconds))
    for k in sorted(counts):
        print("  %-28s %d" % (k, counts[k]))
    for f in failures[:50]:
        print("FAIL:", f)
    print("%d passed, %d failed" % (runs - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
