#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""write_errors.py - random write failures, every one told (issue 25).

Each turn picks one at random and checks the documented outcome:
  fifo     trace, predict or analyze with -o onto a FIFO whose reader shrinks
           the pipe to a page, reads 0..4000 bytes and leaves: exit 4 and
           'Broken pipe' (the report is always larger than what was read)
  ulimit   analyze or predict under `ulimit -f N` (N 1..32 blocks of 512 B):
           exit 4 'File too large', or 0 when the report fits; nothing left
  log      run --target-log onto /dev/full or a tmpfs of 4..64 KiB (in a
           user and mount namespace) while the target prints 100 kB: exit 4
           'No space left on device'

    tests/campaign/write_errors.py --nagle-trace build/nagle-trace --turns 40 --seed 1

The capture timestamp files are tests/campaign/capture_suite.py's (a directory
of captures, tcpdump's test suite among them). Exit 0 when every turn was right.
"""
import argparse
import fcntl
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
CAP = os.path.join(SRC, "tests/golden/captures/gen-eth-stall.pcap")
SERVER = "python3 " + os.path.join(SRC, "tests/programs/server.py")


def fifo_turn(nt, tmp, rnd):
    fifo = os.path.join(tmp, "out.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    cmd = rnd.choice([
        ["unshare", "-Urn", nt, "--variant", "nodelay", "--rounds", "1000", "--format", "json"],
        [nt, "predict", "--rounds", str(rnd.randint(300, 3000))],
        [nt, "analyze"] + [CAP] * 100 + ["--format", rnd.choice(["json", "text", "svg"])],
    ])
    want = rnd.randint(0, 4000)
    p = subprocess.Popen(cmd + ["-o", fifo], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    fd = os.open(fifo, os.O_RDONLY)
    fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
    got = 0
    while got < want:
        b = os.read(fd, want - got)
        if not b:
            break
        got += len(b)
    os.close(fd)
    err = p.communicate(timeout=120)[1].decode()
    ok = p.returncode == 4 and err.rstrip().endswith('": Broken pipe')
    return ok, f"fifo {cmd[1] if cmd[0] != 'unshare' else 'trace'} read {got}: exit {p.returncode} {err.strip()}"


def ulimit_turn(nt, tmp, rnd):
    blocks = rnd.randint(1, 32)
    out = os.path.join(tmp, "big.out")
    cmd = rnd.choice([[nt, "predict", "--rounds", str(rnd.randint(1, 500))],
                      [nt, "analyze"] + [CAP] * rnd.randint(1, 100) + ["--format", "json"]])
    r = subprocess.run(["sh", "-c", f'ulimit -f {blocks} && exec "$@"', "sh"] + cmd + ["-o", out],
                       capture_output=True, timeout=120)
    err = r.stderr.decode()
    left = [f for f in os.listdir(tmp) if f.startswith(".nt-")]
    if r.returncode == 0:
        ok = os.path.getsize(out) <= blocks * 512 and not left
    else:
        ok = r.returncode == 4 and err.rstrip().endswith("File too large") and not \
            os.path.exists(out) and not left
    if os.path.exists(out):
        os.unlink(out)
    return ok, f"ulimit -f {blocks} {cmd[1]}: exit {r.returncode} {err.strip()}"


def log_turn(nt, tmp, rnd):
    target = f"yes nagle-trace | head -c 100000; exec {SERVER} 7000"
    if rnd.random() < 0.3:
        cmd = ["unshare", "-Urn", nt, "run", "--target", target, "--client", "sleep 0.1",
               "--target-log", "/dev/full", "-o", "/dev/null"]
        what = "/dev/full"
    else:
        size = rnd.randint(4, 64)
        d = tempfile.mkdtemp(dir=tmp)
        cmd = ["unshare", "-Urnm", "sh", "-c",
               f'mount -t tmpfs -o size={size}k none "$1" && exec "$2" run --target "$3" '
               '--client "sleep 0.1" --target-log "$1/t.log" -o /dev/null', "sh", d, nt, target]
        what = f"a {size} KiB tmpfs"
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    err = r.stderr.decode()
    ok = r.returncode == 4 and "No space left on device" in err
    return ok, f"--target-log onto {what}: exit {r.returncode} {err.strip()[-200:]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nagle-trace", default="build/nagle-trace")
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    nt = os.path.abspath(a.nagle_trace)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.turns):
            turn = rnd.choice([fifo_turn, ulimit_turn, log_turn])
            ok, what = turn(nt, tmp, rnd)
            if not ok:
                bad += 1
            print(f"{'ok  ' if ok else 'FAIL'} turn {i}: {what[:160]}")
    print(f"{a.turns} turns, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
