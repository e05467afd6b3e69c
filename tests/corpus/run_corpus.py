#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run nagle-trace analyze over the corpus of real captures (fetch.sh) and
hold every file's report against the hand-checked list (expected.txt).

expected.txt, one block per capture:

    FILE  TRUE  REPORTED  TP
      + H=n  real: why           a reported stall, checked real
      - H=n  false: why          a reported stall, checked not a stall
      ? H=n  missed: why         a real stall analyze does not report
      * N real|false: why        N reported stalls of one pattern, checked
                                 one by one (too many to list a line each)

TRUE is the real stalls in the file, REPORTED what analyze reports, TP the
reported ones that are real. A file whose block lists its stalls by H frame
(+/-) must be reported with exactly those H frames. Every file of the corpus
must be in the list: a new capture is judged before it counts.

Prints precision (sum TP / sum REPORTED) and recall (sum TP / sum TRUE) and
fails when a count or a frame differs, or either figure is below --min.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def parse(path):
    files = {}
    cur = None
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not line[0].isspace():
            f = line.split()
            if len(f) != 4:
                sys.exit(f"{path}:{n}: want FILE TRUE REPORTED TP")
            cur = {"true": int(f[1]), "reported": int(f[2]), "tp": int(f[3]), "held": {},
                   "missed": set(), "lines": 0}
            files[f[0]] = cur
            continue
        m = re.match(r"\s+([-+?])\s+H=(\d+)\s", line)
        if m and cur is not None:
            cur["lines"] += 1
            if m.group(1) != "?":
                cur["held"][int(m.group(2))] = m.group(1)
            else:
                cur["missed"].add(int(m.group(2)))
            continue
        if re.match(r"\s+\*\s+\d+\s", line) and cur is not None:
            cur["lines"] += 1
            continue
        sys.exit(f"{path}:{n}: not a block line: {line.rstrip()}")
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--corpus", required=True, help="the directory fetch.sh filled")
    ap.add_argument("--expected", default=os.path.join(os.path.dirname(__file__), "expected.txt"))
    ap.add_argument("--min", type=float, default=0.95, help="least precision and recall")
    a = ap.parse_args()
    want = parse(a.expected)
    have = sorted(
        os.path.relpath(os.path.join(d, f), a.corpus)
        for d, _, fs in os.walk(a.corpus)
        for f in fs
        if re.search(r"\.(pcap|pcapng|cap)(\.[0-9]+)?$", f) and "/.src" not in d
    )
    bad = []
    missing = [f for f in have if f not in want]
    if missing:
        bad.append(f"{len(missing)} captures not in {a.expected}, e.g. {missing[:3]}")
    gone = [f for f in want if f not in have]
    if gone:
        bad.append(f"{len(gone)} listed captures not in the corpus, e.g. {gone[:3]}")
    tp = rep = tru = 0
    files_real = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for f in have:
            w = want.get(f)
            if w is None:
                continue
            p = subprocess.run(
                [a.binary, "analyze", "--jobs", "1", "--format", "json", "-o", out,
                 os.path.join(a.corpus, f)],
                capture_output=True, text=True, timeout=120)
            if p.returncode not in (0, 4) or not os.path.exists(out):
                bad.append(f"{f}: analyze exited {p.returncode}: {p.stderr.strip()}")
                continue
            d = json.load(open(out))
            os.unlink(out)
            n = d["summary"]["stalls"]
            held = sorted(s["held_frame_number"] for s in d["stalls"])
            if n != w["reported"]:
                bad.append(f"{f}: {n} stalls reported, the list says {w['reported']}")
            if w["held"] and held != sorted(w["held"]):
                bad.append(f"{f}: stalls held at frames {held}, the list says {sorted(w['held'])}")
            if (w["reported"] or w["true"]) and not w["lines"]:
                bad.append(f"{f}: stalls without a line of why")
            tp += w["tp"]
            rep += w["reported"]
            tru += w["true"]
            files_real += w["true"] > 0
    prec = tp / rep if rep else 1.0
    rec = tp / tru if tru else 1.0
    print(f"corpus: {len(have)} captures, {files_real} with real stalls; "
          f"{rep} stalls reported, {tp} real, {tru - tp} missed, {tru} real in all")
    print(f"corpus: precision {100 * prec:.1f} % ({tp}/{rep}), recall {100 * rec:.1f} % ({tp}/{tru})")
    if prec < a.min or rec < a.min:
        bad.append(f"precision or recall below {100 * a.min:.0f} %")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
