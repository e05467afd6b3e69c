#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Long runs: zero drops and flat memory through the delay line and for
`nagle-trace run` (issue 17). Not a test: it prints figures. The plain trace's
check is tests/bench/bench_lab.py's last part.

  tests/bench/bench_long.py [--binary build/nagle-trace] [--repeat 3]
      [--rtt-rounds 200,2500,20000] [--requests 2000,20000,200000]
      [--connections 500,2000,8000]

1. `--variant nodelay --rtt 1 --rounds N --format json`: a round takes at
   least the 1 ms RTT, so the defaults cost ~25 s a repeat. Drops: the
   capture's (summary.dropped) and the delay line's (summary.wire_dropped).
2. `run --fix nodelay`, tests/programs/client.py doing N requests on one
   connection against server.py (TCP_NODELAY through the preload, so no
   stall paces the client): ~10 s a repeat. Drops: run.capture.dropped and
   if_dropped; frames: run.capture.received.
3. The same with a client making N connections of one request each.

Peak RSS from tests/bench/peak_rss.c --self: "own" is nagle-trace's process
alone (VmHWM at its exit); "tree" is the largest single process it reaped,
which in `run` is the user's Python client or server. Growth is between the
last two sizes. Defaults: about two and a half minutes on the shared 2-core
machine.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "../..")

CONNECT_CLIENT = """
import socket, struct, sys
for _ in range(int(sys.argv[1])):
    with socket.create_connection(("target", 7000)) as s:
        s.sendall(struct.pack("!I", 1) + b"x")
        got = b""
        while len(got) < 4 + 16:
            chunk = s.recv(64)
            if not chunk:
                sys.exit("connect_client: closed early")
            got += chunk
"""


def measured(peak_rss, cmd):
    """Run cmd under peak_rss --self: (exit status, own KiB, tree KiB)."""
    p = subprocess.run([peak_rss, "--self"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, cwd=ROOT)
    kib = {}
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("self_hwm_kib", "peak_rss_kib"):
            kib[parts[0]] = int(parts[1])
    return p.returncode, kib["self_hwm_kib"], kib["peak_rss_kib"]


def med(xs):
    return statistics.median(xs)


def report(title, unit, sizes, rows, fields):
    print(f"\n{title}")
    own = {}
    for n in sizes:
        rs = rows[n]
        own[n] = med([r["own"] for r in rs])
        extra = ", ".join(f"{f} {'/'.join(str(r[f]) for r in rs)}" for f in fields)
        print(f"  {n:>7} {unit}: exit {'/'.join(str(r['exit']) for r in rs)}, {extra}; peak RSS own "
              f"{own[n] / 1024:.1f} MiB [{min(r['own'] for r in rs) / 1024:.1f}.."
              f"{max(r['own'] for r in rs) / 1024:.1f}], tree {med([r['tree'] for r in rs]) / 1024:.1f} MiB")
    if len(sizes) < 2:
        return
    small, big = sizes[-2], sizes[-1]
    print(f"  => own peak RSS at {big} / at {small}: {own[big] / own[small]:.2f}x; growth "
          f"{(own[big] - own[small]) * 1024 / (big - small):.1f} bytes a {unit.rstrip('s')} (medians)")


def trace_rtt(a, nt, peak_rss, tmp):
    rows = {n: [] for n in a.rtt_rounds}
    for _ in range(a.repeat):
        for n in a.rtt_rounds:
            out = os.path.join(tmp, "rtt.json")
            code, own, tree = measured(peak_rss, ["unshare", "-Urn", nt, "--variant", "nodelay",
                                                  "--rtt", "1", "--rounds", str(n), "--format",
                                                  "json", "-o", out])
            s = json.load(open(out))["summary"]
            rows[n].append({"exit": code, "own": own, "tree": tree, "dropped": s["dropped"],
                            "wire_dropped": s["wire_dropped"], "frames": s["frames"],
                            "assembled": s["rounds"] - s["verdicts"]["incomplete"]})
    report("--variant nodelay --rtt 1 --rounds N --format json (each repeat's figure, /)",
           "rounds", a.rtt_rounds, rows, ("dropped", "wire_dropped", "assembled", "frames"))


def user_run(a, nt, peak_rss, tmp, title, unit, sizes, client):
    rows = {n: [] for n in sizes}
    for _ in range(a.repeat):
        for n in sizes:
            out = os.path.join(tmp, "run.json")
            code, own, tree = measured(peak_rss, [
                "unshare", "-Urn", nt, "run", "--fix", "nodelay", "--format", "json", "-o", out,
                "--target", f"{a.python} tests/programs/server.py 7000",
                "--client", client(n)])
            doc = json.load(open(out))
            c = doc["run"]["capture"]
            rows[n].append({"exit": code, "own": own, "tree": tree, "dropped": c["dropped"],
                            "if_dropped": c["if_dropped"], "received": c["received"],
                            "exchanges": doc["run"]["exchanges"]["count"],
                            "flows": doc["summary"]["flows"],
                            "complete": int(doc["run"]["complete"])})
    report(title, unit, sizes, rows,
           ("dropped", "if_dropped", "complete", "received", "exchanges", "flows"))


def sizes(text):
    return [int(x) for x in text.split(",") if x]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/nagle-trace"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rtt-rounds", type=sizes, default=[200, 2500, 20000])
    ap.add_argument("--requests", type=sizes, default=[2000, 20000, 200000])
    ap.add_argument("--connections", type=sizes, default=[500, 2000, 8000])
    ap.add_argument("--python", default="/usr/bin/python3")
    a = ap.parse_args()
    t0 = time.monotonic()
    nt = os.path.abspath(a.binary)
    tmp = tempfile.mkdtemp()
    peak_rss = os.path.join(tmp, "peak_rss")
    subprocess.run(["cc", "-O2", "-o", peak_rss, os.path.join(HERE, "peak_rss.c")], check=True)
    script = os.path.join(tmp, "connect_client.py")
    with open(script, "w") as f:
        f.write(CONNECT_CLIENT)
    print(f"bench_long: {a.repeat} repeats, load average at start "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if a.rtt_rounds:
        trace_rtt(a, nt, peak_rss, tmp)
    if a.requests:
        user_run(a, nt, peak_rss, tmp,
                 "run --fix nodelay, client.py: N requests on one connection", "requests",
                 a.requests, lambda n: f"{a.python} tests/programs/client.py target 7000 {n}")
    if a.connections:
        user_run(a, nt, peak_rss, tmp,
                 "run --fix nodelay, N connections of one request each", "connections",
                 a.connections, lambda n: f"{a.python} {script} {n}")
    print(f"{time.monotonic() - t0:.0f} s; load average at the end "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    sys.exit(main())
