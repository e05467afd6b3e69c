#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_signal_latency.sh - SIGINT and SIGTERM end every command within 1 s at
# any moment (issue 25): during the longest model run (predict, a million
# rounds of every variant; the live trace with --rtt 2 and a 40 kB body,
# which once spun with both signals blocked) and during the longest render
# (a million rounds of HTML from the trace), and analyze blocked in open()
# on a FIFO without a writer. Each signal is sent only once the event it is meant to interrupt
# is seen (the model burning CPU, the first streamed round, the report's
# temporary file open), and the test fails when that event never comes.
# The exit status must be 130 or 143 (by the signal or by the exit code),
# and no report or temporary file is left behind.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare

cd "$NT_TMP"

python3 - "$NAGLE_TRACE" <<'PY' || fail "a signal was not obeyed within 1 s"
import os, signal, subprocess, sys, time

nt = sys.argv[1]
LIMIT_S = 1.0


def cpu_s(pid):
    """User + system CPU seconds of @pid (fields 14 and 15 of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def has_fd_to(pid, needle):
    """Whether @pid holds an open file whose link contains @needle."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if needle in os.readlink(f"/proc/{pid}/fd/{fd}"):
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def case(name, argv, sig, ready, stdout=subprocess.DEVNULL, leftovers=()):
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready(p):
        if p.poll() is not None:
            sys.exit(f"FAIL: {name}: ended ({p.returncode}) before the moment to signal it")
        if time.monotonic() > deadline:
            p.kill()
            sys.exit(f"FAIL: {name}: the moment to signal it never came")
        time.sleep(0.01)
    t0 = time.monotonic()
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        sys.exit(f"FAIL: {name}: still running 10 s after {sig.name}")
    took = time.monotonic() - t0
    want = {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]
    if rc not in (want, -sig):
        sys.exit(f"FAIL: {name}: {sig.name} gave exit {rc}: {p.stderr.read().decode()[-300:]}")
    if took > LIMIT_S:
        sys.exit(f"FAIL: {name}: {sig.name} took {took:.2f} s to end it (limit {LIMIT_S} s)")
    left = [f for f in leftovers if os.path.exists(f)]
    left += [f for f in os.listdir(".") if f.startswith(".nt-")]
    if left:
        sys.exit(f"FAIL: {name}: {sig.name} left {left}")
    print(f"ok: {name}: {sig.name} ended it in {took * 1000:.0f} ms, exit {rc}")


def after_cpu(seconds):
    return lambda p: cpu_s(p.pid) >= seconds


def first_line(p):
    return bool(p.stdout.readline())


def in_syscall(*numbers):
    """Blocked in one of these system calls (x86-64 numbers: 2 open, 257 openat)."""
    def ready(p):
        try:
            with open(f"/proc/{p.pid}/syscall") as f:
                return int(f.read().split()[0]) in numbers
        except (OSError, ValueError, IndexError):
            return False
    return ready


def output_open(p):
    return has_fd_to(p.pid, os.getcwd())


for sig in (signal.SIGINT, signal.SIGTERM):
    # The longest model run: a million rounds of each variant, signalled at two depths.
    for depth in (0.3, 1.5):
        case(f"predict, {depth} s of CPU into the model",
             [nt, "predict", "--rounds", "1000000", "--variant", "all", "--format", "json",
              "-o", "p.json"], sig, after_cpu(depth), leftovers=["p.json"])
    # The trace whose model spun with both signals blocked (--rtt 2, 40 kB bodies).
    case("trace --rtt 2 --body 40000, rounds streaming",
         ["unshare", "-Urn", nt, "--rtt", "2", "--body", "40000", "--rounds", "50000",
          "--format", "jsonl"], sig, first_line, stdout=subprocess.PIPE)
    # The longest render: a million rounds of HTML, the report's file open. A
    # stopped trace reports the rounds it ran (docs/reliability.md): whole.
    case("trace --format html, a million rounds",
         ["unshare", "-Urn", nt, "--variant", "nodelay", "--rounds", "1000000", "--format",
          "html", "-o", "t.html"], sig, output_open)
    # A report is complete or absent (src/output.c): a signal that lands
    # before the first round is whole (a slow ASan build) leaves no file.
    if os.path.exists("t.html"):
        with open("t.html", "rb") as f:
            f.seek(-64, os.SEEK_END)
            if not f.read().rstrip().endswith(b"</html>"):
                sys.exit("FAIL: the stopped trace's HTML report is not whole")
        os.unlink("t.html")
    # analyze blocked in open() on a FIFO nobody writes (tcpdump waits there too).
    if not os.path.exists("in.fifo"):
        os.mkfifo("in.fifo")
    case("analyze of a FIFO without a writer, blocked in open()",
         [nt, "analyze", "in.fifo", "--format", "json", "-o", "a.json"], sig,
         in_syscall(2, 257), leftovers=["a.json"])
PY
echo "ok: SIGINT and SIGTERM within 1 s"
