#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutated-capture campaign: `nagle-trace analyze` on damaged captures.

Takes the captures in tests/golden/captures/ (and a pcapng rewrite of each
classic pcap, with a random if_tsresol and if_tsoffset that keep the same
instants), mutates them (bit flips, 32-bit fields set to edge values,
truncation, record and block lengths, timestamps, resolutions and offsets,
block types) and runs `analyze --format json` on each. Every run must:

  - exit 0, 1 or 4, never by a signal, never with a sanitizer report
    (run it with the ASan + UBSan build's binary to look for those);
  - when it exits 0: report every file complete with no error, and no
    negative time anywhere in the JSON;
  - when an independent reader (below, in Python) finds a frame whose
    timestamp lies outside int64 nanoseconds since the epoch before any
    structural damage: not exit 0 (the file is damaged at that frame).

usage: mutate_captures.py [--binary PATH] [--seconds N] [--seed N] [--keep DIR]
  --seconds 10 is the CI mode (the ctest), 600 or more for developers.
Prints the counts by exit status and each failure; failing inputs are kept
in --keep (default: a temporary directory, printed). Exit 1 on any failure.
"""
import argparse
import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INT64_MAX = (1 << 63) - 1
EDGE32 = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000, 999999, 1000000,
          999999999, 1000000000, 0x40000]
SHB, IDB, PB, SPB, EPB = 0x0A0D0D0A, 1, 2, 3, 6


def pcap_records(data):
    """Classic pcap: (endian, nano, [(offset of record header, caplen)])."""
    magic = data[:4]
    if len(data) < 24:
        return None
    for endian in "<>":
        m = struct.unpack(endian + "I", magic)[0]
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            break
    else:
        return None
    nano = m == 0xA1B23C4D
    recs, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from(endian + "I", data, off + 8)[0]
        recs.append((off, caplen))
        off += 16 + caplen
    return endian, nano, recs


def to_pcapng(data, rng):
    """A pcapng with the same frames and instants, through a random clock."""
    parsed = pcap_records(data)
    if not parsed:
        return None
    endian, nano, recs = parsed
    linktype = struct.unpack_from(endian + "I", data, 20)[0] & 0xFFFF
    snaplen = struct.unpack_from(endian + "I", data, 16)[0]
    res = rng.choice([(6, 10**6), (9, 10**9), (3, 10**3), (0, 1), (0x80 | 20, 1 << 20),
                      (0x80 | 30, 1 << 30)])
    offset = rng.choice([0, 0, 1000, -1000, 1 << 20])

    def blk(t, body):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack("<II", t, n) + body + struct.pack("<I", n)

    opts = struct.pack("<HHB3x", 9, 1, res[0])
    opts += struct.pack("<HHq", 14, 8, offset) + struct.pack("<HH", 0, 0)
    out = blk(SHB, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += blk(IDB, struct.pack("<HHI", linktype, 0, snaplen) + opts)
    for off, caplen in recs:
        sec, frac, cap, wire = struct.unpack_from(endian + "IIII", data, off)
        ns = sec * 10**9 + (frac if nano else frac * 1000) - offset * 10**9
        raw = max(ns, 0) * res[1] // 10**9
        frame = data[off + 16:off + 16 + cap]
        out += blk(EPB, struct.pack("<IIIII", 0, raw >> 32, raw & 0xFFFFFFFF, len(frame),
                                    wire) + frame)
    return out


def pcapng_blocks(data):
    """[(offset, type, length)] while the structure holds (little-endian files only)."""
    out, off = [], 0
    while off + 12 <= len(data):
        t, n = struct.unpack_from("<II", data, off)
        if n < 12 or n % 4 or off + n > len(data):
            break
        out.append((off, t, n))
        off += n
    return out


def out_of_range_before_damage(data):
    """The independent reader: True when a frame's time is outside int64 ns before any damage."""
    if data[:4] == struct.pack("<I", SHB):
        if data[8:12] != struct.pack("<I", 0x1A2B3C4D):
            return False
        ifs = []
        for off, t, n in pcapng_blocks(data):
            body = data[off + 8:off + n - 4]
            if t == SHB:
                ifs = []
            elif t == IDB:
                units, offset, at = 10**6, 0, 8
                while at + 4 <= len(body):
                    code, ln = struct.unpack_from("<HH", body, at)
                    if code == 0 or at + 4 + ln > len(body):
                        break
                    if code == 9 and ln == 1:
                        v = body[at + 4]
                        if (v & 0x80 and v & 0x7F > 63) or (not v & 0x80 and v > 19):
                            return False  # libpcap refuses the file: damaged anyway
                        units = 1 << (v & 0x7F) if v & 0x80 else 10**v
                    if code == 14 and ln == 8:
                        offset = struct.unpack_from("<q", body, at + 4)[0]
                    at += 4 + ((ln + 3) & ~3)
                ifs.append((units, offset))
            elif t in (EPB, PB) and len(body) >= 20:
                ifn = struct.unpack_from("<I" if t == EPB else "<H", body, 0)[0]
                if ifn >= len(ifs):
                    return False
                hi, lo = struct.unpack_from("<II", body, 4)
                units, offset = ifs[ifn]
                ns = ((hi << 32 | lo) * 10**9) // units + offset * 10**9
                if not 0 <= ns <= INT64_MAX:
                    return True
        return False
    parsed = pcap_records(data)
    if not parsed:
        return False
    endian, nano, recs = parsed
    for off, caplen in recs:
        if off + 16 + caplen > len(data):
            return False
        sec, frac = struct.unpack_from(endian + "II", data, off)
        ns = sec * 10**9 + (frac if nano else frac * 1000)
        if not 0 <= ns <= INT64_MAX:
            return True
    return False


def mutate(data, rng):
    """One to three mutations, chosen by kind; returns (bytes, description)."""
    data = bytearray(data)
    what = []
    is_png = data[:4] == struct.pack("<I", SHB)
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["flip", "edge32", "truncate", "length", "timestamp", "clock", "type"])
        if kind == "flip" and data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif kind == "edge32" and len(data) >= 4:
            i = rng.randrange(len(data) - 3)
            struct.pack_into("<I", data, i, rng.choice(EDGE32))
        elif kind == "truncate" and data:
            del data[rng.randrange(len(data)):]
        elif is_png:
            blocks = pcapng_blocks(bytes(data))
            if not blocks:
                continue
            off, t, n = rng.choice(blocks)
            if kind == "length":
                at = off + 4 if rng.random() < 0.5 else off + n - 4
                struct.pack_into("<I", data, at, rng.choice(EDGE32 + [n + 4, n - 4, n * 2]))
            elif kind == "timestamp" and t == EPB:
                struct.pack_into("<Q", data, off + 12,
                                 rng.choice([(1 << 64) - 1, 1 << 63, 18446744073709 * 10**6,
                                             rng.getrandbits(64)]))
            elif kind == "clock" and t == IDB:
                # Rewrites the IDB's options (the block keeps its length: pad the rest).
                opts = struct.pack("<HHB3x", 9, 1, rng.choice([0, 6, 9, 19, 20, 0x80 | 34,
                                                              0x80 | 40, 0x80 | 63, 0x80 | 64]))
                opts += struct.pack("<HHq", 14, 8, rng.choice([0, -(1 << 62), 1 << 62,
                                                              -(1 << 63), 1700000001]))
                room = n - 12 - 8
                if len(opts) <= room:
                    opts += b"\0" * (room - len(opts))
                    data[off + 16:off + 16 + room] = opts
            elif kind == "type":
                struct.pack_into("<I", data, off, rng.choice([SHB, IDB, PB, SPB, EPB, 5, 0xBAD]))
        else:
            parsed = pcap_records(bytes(data))
            if not parsed or not parsed[2]:
                continue
            endian, _, recs = parsed
            off, _ = rng.choice(recs)
            if kind == "length":
                struct.pack_into(endian + "I", data, off + rng.choice([8, 12]), rng.choice(EDGE32))
            elif kind in ("timestamp", "clock"):
                struct.pack_into(endian + "II", data, off, rng.choice(EDGE32), rng.choice(EDGE32))
            elif kind == "type":
                struct.pack_into(endian + "I", data, 20, rng.choice([0, 1, 101, 113, 276, 0xFFFF]))
        what.append(kind)
    return bytes(data), "+".join(what) or "none"


def negative_time(doc):
    """An instant (a key "t_ns" or "..._t_ns") before the epoch anywhere in the document.

    Offsets and relative times ("file_offset_ns", "rel_ns") may be negative:
    captures are not always in time order."""
    if isinstance(doc, dict):
        return any(((k == "t_ns" or k.endswith("_t_ns")) and isinstance(v, int) and v < 0)
                   or negative_time(v)
                   for k, v in doc.items())
    if isinstance(doc, list):
        return any(negative_time(v) for v in doc)
    return False


def check(binary, path, data):
    """Runs analyze on @path; None when every rule held, else the reason."""
    env = dict(os.environ, ASAN_OPTIONS="exitcode=86:detect_leaks=1",
               UBSAN_OPTIONS="exitcode=87:print_stacktrace=1:halt_on_error=1")
    p = subprocess.run([binary, "analyze", path, "--format", "json"], capture_output=True,
                       env=env, timeout=60)
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0:
        return "killed by signal %d" % -p.returncode, p.returncode
    if "Sanitizer" in err or "runtime error" in err:
        return "sanitizer: " + err.strip().splitlines()[0], p.returncode
    if p.returncode not in (0, 1, 4):
        return "exit status %d" % p.returncode, p.returncode
    if p.returncode == 0:
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            return "exit 0 with a report that is not JSON: %s" % e, 0
        if any(not f["complete"] or f["error"] for f in doc["files"]):
            return "exit 0 with an incomplete file", 0
        if negative_time(doc):
            return "exit 0 with a negative time", 0
        if out_of_range_before_damage(data):
            return "exit 0 on a frame whose time is outside int64 ns", 0
    return None, p.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("NAGLE_TRACE",
                                                       os.path.join(ROOT, "build", "nagle-trace")))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seeds = []
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/golden/captures/*.pcap*"))):
        data = open(f, "rb").read()
        seeds.append((os.path.basename(f), data))
        png = to_pcapng(data, rng)
        if png:
            seeds.append((os.path.basename(f) + ".ng", png))
    keep = args.keep or tempfile.mkdtemp(prefix="nt-mutate-")
    os.makedirs(keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="nt-mutate-run-")
    counts, failures, runs = {}, [], 0
    deadline = time.monotonic() + args.seconds
    # Every seed once unmutated: the baseline must hold the rules too.
    plan = [(name, data, "none") for name, data in seeds]
    while plan or time.monotonic() < deadline:
        if plan:
            name, data, what = plan.pop(0)
        else:
            name, data = rng.choice(seeds)
            data, what = mutate(data, rng)
        path = os.path.join(work, "in.pcap")
        with open(path, "wb") as fh:
            fh.write(data)
        reason, rc = check(args.binary, path, data)
        runs += 1
        counts[rc] = counts.get(rc, 0) + 1
        if reason:
            kept = os.path.join(keep, "fail-%d-%s" % (runs, name))
            with open(kept, "wb") as fh:
                fh.write(data)
            failures.append("%s (%s): %s -> %s" % (name, what, reason, kept))
    os.remove(os.path.join(work, "in.pcap"))
    os.rmdir(work)
    print("mutate_captures: seed %d, %d runs in %.0f s over %d captures; exit statuses: %s"
          % (args.seed, runs, args.seconds, len(seeds),
             ", ".join("%s: %d" % (k, v) for k, v in sorted(counts.items()))))
    for f in failures[:50]:
        print("FAIL:", f)
    print("%d passed, %d failed" % (runs - len(failures), len(failures)))
    if not failures and not args.keep:
        os.rmdir(keep)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
