#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""capture_suite.py - `nagle-trace analyze` over every capture in a directory,
each exit classified (issue 25).

Every file is read alone (`analyze FILE --format json -o OUT`) under a time
limit. The classes:

  ok         exit 0, a complete report
  damaged    exit 4, the file really is damaged: the warning names it and the
             report still holds every frame before the damage (frames_read > 0
             when the file has readable frames, summary.incomplete true)
  refused    exit 4 with no report or 0 frames although tshark reads frames in it
  crash      killed by a signal, a sanitizer report, or any exit but 0 and 4
  hang       over the time limit

With --tshark, each file's frame count from `tshark -r FILE` (which reads every
frame of pcapng files with several interfaces) is compared with analyze's:
a file analyze reads fewer frames of than tshark, without calling it damaged,
is a failure ("short").

    tests/campaign/capture_suite.py --nagle-trace build/nagle-trace DIR [--tshark]

Exit 0 when no file is a crash, a hang, refused or short; the table of damaged
files (name, frames read, why) is printed so each can be checked by hand.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

EXTS = (".pcap", ".pcapng", ".cap", ".pcap.gz")


def tshark_frames(path, timeout):
    try:
        r = subprocess.run(["tshark", "-n", "-r", path, "-T", "fields", "-e", "frame.number"],
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return len(r.stdout.split())


def analyze(nt, path, out, timeout):
    try:
        r = subprocess.run([nt, "analyze", path, "--format", "json", "-o", out],
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", None, ""
    err = r.stderr.decode(errors="replace")
    doc = None
    if os.path.exists(out):
        try:
            with open(out) as f:
                doc = json.load(f)
        except ValueError:
            return "crash", None, "a report that is not JSON: " + err
        os.unlink(out)
    if r.returncode < 0 or "Sanitizer" in err or "runtime error" in err:
        return "crash", doc, err
    if r.returncode not in (0, 4):
        return "crash", doc, err
    return r.returncode, doc, err


def frames_of(doc):
    if not doc:
        return 0
    return sum(i.get("packets", 0) for i in doc.get("files", []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--nagle-trace", default="build/nagle-trace")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--tshark", action="store_true", help="compare frame counts with tshark")
    a = ap.parse_args()
    files = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir) if f.endswith(EXTS))
    classes = {}
    damaged = []
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for path in files:
            name = os.path.basename(path)
            rc, doc, err = analyze(a.nagle_trace, path, out, a.timeout)
            got = frames_of(doc)
            lines = [ln for ln in err.splitlines() if ln]
            if rc == 0:
                cls = "ok"
            elif rc == 4 and doc is not None:
                cls = "damaged"
                if doc.get("summary", {}).get("incomplete") is not True:
                    failures.append((name, "exit 4 but summary.incomplete is not true"))
                if len([ln for ln in lines if ln.startswith("nagle-trace: warning:")]) > 1:
                    failures.append((name, "more than one warning line: " + " | ".join(lines)))
            elif rc == 4:
                cls = "refused"
            else:
                cls = rc
            if a.tshark and cls in ("ok", "damaged", "refused"):
                want = tshark_frames(path, a.timeout)
                if want is not None and got < want and cls != "damaged":
                    failures.append((name, f"short: {got} of tshark's {want} frames"))
                if cls == "refused" and want:
                    failures.append((name, f"refused, tshark reads {want} frames: {err.strip()}"))
            classes[cls] = classes.get(cls, 0) + 1
            if cls in ("crash", "hang"):
                failures.append((name, f"{cls}: {err.strip()[-300:]}"))
            if cls == "damaged":
                why = next((ln for ln in lines if "warning:" in ln), err.strip())
                damaged.append((name, got, why.replace("nagle-trace: warning: ", "")))
    print(f"{len(files)} captures: " + ", ".join(f"{v} {k}" for k, v in sorted(classes.items(),
                                                                          key=str)))
    for name, got, why in damaged:
        print(f"  damaged  {name}: {got} frames read; {why}")
    for name, why in failures:
        print(f"  FAIL     {name}: {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
