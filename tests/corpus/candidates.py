#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The corpus's independent finder: every episode that could be a Nagle +
delayed-ACK stall, found from tshark's fields alone, for judging by hand.

Usage: candidates.py [--likely] FILE...
       candidates.py --check EXPECTED CORPUS   every real stall in EXPECTED
                                                (+ and ?) is a candidate

It shares no code or rule with analyze (that is its point: it finds what
analyze misses). A candidate is a data segment H, the peer's first segment
whose ACK covers H being a pure ACK at least 10 ms after H, and the sender's
next data R starting at H's end within 300 ms after that ACK. For each it
prints what a judge needs (docs/analyze.md, "The corpus of real captures"):

    FILE H=n stream=s len=L ack_ms=A path_ms=P r_ms=G r_len=N rtt_ms=T peer_data=yes|no

path_ms is the peer's fastest ACK in the connection (tcp.analysis.ack_rtt of
its ACKs), rtt_ms the sender's fastest (the capture point's round trip to
it), peer_data whether the peer sent data between H and R, big the
sender's largest segment in the connection.

--likely keeps the candidates the method's looser test calls real: the ACK
at least 10 ms later than the peer's path, R within 2 ms + 1/16 of one of
the sender's round trips after it, no data of the peer's in between, H and
R smaller than the sender's largest segment (or 1,460 bytes). What is left
is read frame by frame before it goes into expected.txt.
"""
import os
import re
import subprocess
import sys

from run_corpus import parse  # expected.txt's one reader

FIELDS = ["frame.number", "frame.time_relative", "tcp.stream", "ip.src", "ipv6.src",
          "tcp.srcport", "tcp.seq", "tcp.ack", "tcp.len", "tcp.flags.syn", "tcp.flags.fin",
          "tcp.flags.reset", "tcp.analysis.ack_rtt"]


def segments(path):
    cmd = ["tshark", "-r", path, "-n", "-Y", "tcp", "-T", "fields", "-E", "separator=\t",
           "-o", "tcp.relative_sequence_numbers:TRUE", "-o", "tcp.analyze_sequence_numbers:TRUE"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    for line in out.splitlines():
        v = line.split("\t")
        if len(v) < len(FIELDS) or not v[2] or not v[6]:
            continue
        yield {
            "frame": int(v[0]), "t": float(v[1]), "stream": int(v[2]),
            "side": (v[3] or v[4]) + ":" + v[5], "seq": int(v[6]),
            "ack": int(v[7] or 0), "len": int(v[8] or 0),
            "ctl": v[9] == "1" or v[10] == "1" or v[11] == "1",
            "ack_rtt": float(v[12].split(",")[0]) if v[12] else None,
        }


def likely(h, r, ack_ms, path_ms, r_ms, rtt_ms, peer_data, big):
    full = min(big, 1460)
    return (ack_ms >= (path_ms or 0) + 10 and r_ms <= (rtt_ms or 0) * 17 / 16 + 2 and
            not peer_data and h["len"] < full and r["len"] < full)


def candidates(path, only_likely, out=print):
    streams = {}
    for s in segments(path):
        streams.setdefault(s["stream"], []).append(s)
    for sid, segs in streams.items():
        fastest, big = {}, {}
        for s in segs:
            big[s["side"]] = max(big.get(s["side"], 0), s["len"])
            if s["ack_rtt"] is not None:
                fastest[s["side"]] = min(fastest.get(s["side"], 1e9), s["ack_rtt"])
        for i, h in enumerate(segs):
            if h["len"] == 0 or h["ctl"]:
                continue
            end = h["seq"] + h["len"]
            ack = next((s for s in segs[i + 1:] if s["side"] != h["side"] and s["ack"] >= end), None)
            if ack is None or ack["len"] or ack["ctl"] or ack["t"] - h["t"] < 0.010:
                continue
            r = next((s for s in segs[i + 1:] if s["side"] == h["side"] and s["len"]), None)
            if r is None or r["seq"] != end or not 0 <= r["t"] - ack["t"] <= 0.300:
                continue
            peer_data = any(s["side"] != h["side"] and s["len"] and h["t"] < s["t"] <= r["t"]
                            for s in segs[i + 1:])
            path_ms = fastest.get(ack["side"])
            rtt_ms = fastest.get(h["side"])
            ack_ms, r_ms = (ack["t"] - h["t"]) * 1e3, (r["t"] - ack["t"]) * 1e3
            path_ms = None if path_ms is None else path_ms * 1e3
            rtt_ms = None if rtt_ms is None else rtt_ms * 1e3
            if only_likely and not likely(h, r, ack_ms, path_ms, r_ms, rtt_ms, peer_data,
                                          big[h["side"]]):
                continue
            out(f"{path} H={h['frame']} stream={sid} len={h['len']} "
                  f"ack_ms={ack_ms:.3f} path_ms={'-' if path_ms is None else f'{path_ms:.3f}'} "
                  f"r_ms={r_ms:.3f} r_len={r['len']} "
                  f"rtt_ms={'-' if rtt_ms is None else f'{rtt_ms:.3f}'} "
                  f"peer_data={'yes' if peer_data else 'no'} big={big[h['side']]}")


def check(expected, corpus):
    """The finder is looser than analyze: it must list every stall judged real."""
    real = {}
    for name, block in parse(expected).items():
        frames = {h for h, mark in block["held"].items() if mark == "+"} | block["missed"]
        if frames:
            real[name] = frames
    lost = 0
    for name, frames in sorted(real.items()):
        found = set()
        candidates(os.path.join(corpus, name), False,
                   lambda text: found.add(int(re.search(r" H=(\d+) ", text).group(1))))
        for h in sorted(frames - found):
            print(f"{name}: H={h} is judged real but not a candidate")
            lost += 1
    n = sum(len(f) for f in real.values())
    print(f"candidates: {n - lost} of {n} real stalls in {len(real)} captures found")
    return 1 if lost else 0


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--check":
        sys.exit(check(args[1], args[2]))
    only_likely = bool(args) and args[0] == "--likely"
    if only_likely:
        args = args[1:]
    if not args:
        sys.exit(__doc__.split("\n\n")[1])
    for path in args:
        candidates(path, only_likely)


if __name__ == "__main__":
    main()
