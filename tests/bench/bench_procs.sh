#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `nagle-trace run`'s machinery adds to a client's own time: the same
# client and server (tests/programs, TCP_NODELAY through the preload so no
# stall hides the cost) on plain loopback in a bare network namespace, then
# through run_probe in the lab without a capture, then with the AF_PACKET
# capture writing a pcap. Also redis-benchmark (its own requests per second)
# in the same three places, and where run_probe's wall time goes.
#
# usage: tests/bench/bench_procs.sh [BUILD_DIR] [RUNS] [REQUESTS]
# Prints p50/p90/max over RUNS runs of each figure. The machine may be shared:
# read the spread, not one number.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-9}
requests=${3:-2000}
probe=$build/run_probe
lib=$(realpath "$build/nt_nodelay.so")
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$probe" ] || { echo "bench_procs: build run_probe first ($probe)" >&2; exit 2; }

server="$py tests/programs/server.py 7000"
client="$py tests/programs/client.py"

# loopback RUN: the pair on 127.0.0.1 in a bare namespace, no lab, no capture, no init.
loopback() {
	unshare -Urn sh -c "
		ip link set lo up
		$server --host 127.0.0.1 >/dev/null &
		srv=\$!
		until grep -q ' 0100007F:1B58 00000000:0000 0A' /proc/net/tcp; do sleep 0.005; done
		LD_PRELOAD=$lib $client 127.0.0.1 7000 $requests 2>/dev/null
		kill \$srv"
}

# lab CAPTURE: through run_probe; prints the client's line and run_probe's timings line.
lab() {
	local w=()
	[ "$1" = packet ] && w=(-w "$tmp/x.pcap")
	unshare -Urn "$probe" --capture "$1" "${w[@]}" --fix nodelay --target "$server" \
		--client "$client target 7000 $requests" 2>"$tmp/err"
	grep "timings ms" "$tmp/err"
}

redis_loopback() {
	unshare -Urn sh -c '
		ip link set lo up
		redis-server --port 6379 --save "" --appendonly no --bind 127.0.0.1 >/dev/null &
		srv=$!
		until grep -q " 0100007F:18EB 00000000:0000 0A" /proc/net/tcp; do sleep 0.005; done
		redis-benchmark -h 127.0.0.1 -c 1 -n 20000 -q -t get 2>/dev/null
		kill $srv'
}

redis_lab() {
	local w=()
	[ "$1" = packet ] && w=(-w "$tmp/r.pcap")
	unshare -Urn "$probe" --capture "$1" "${w[@]}" --target \
		'redis-server --port 6379 --save "" --appendonly no --protected-mode no' \
		--client 'redis-benchmark -h target -c 1 -n 20000 -q -t get' 2>/dev/null
}

for i in $(seq "$runs"); do
	loopback >>"$tmp/loopback.txt"
	lab none >>"$tmp/lab-none.txt"
	lab packet >>"$tmp/lab-packet.txt"
	command -v redis-server >/dev/null || continue
	redis_loopback | tr '\r' '\n' | grep "requests per second" | tail -1 >>"$tmp/redis-loopback.txt"
	redis_lab none | tr '\r' '\n' | grep "requests per second" | tail -1 >>"$tmp/redis-none.txt"
	redis_lab packet | tr '\r' '\n' | grep "requests per second" | tail -1 >>"$tmp/redis-packet.txt"
done

python3 - "$tmp" "$runs" "$requests" <<'PY'
import re, sys, statistics as st
tmp, runs, requests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def dist(xs):
    xs = sorted(xs)
    if not xs:
        return "n/a"
    p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return f"p50 {p(0.5):9.3f}  p90 {p(0.9):9.3f}  max {xs[-1]:9.3f}  (n={len(xs)})"

def client_lines(name):
    total, p50 = [], []
    for line in open(f"{tmp}/{name}.txt"):
        m = re.search(r"in ([\d.]+) s, latency ms p50 ([\d.]+)", line)
        if m:
            total.append(float(m.group(1)) * 1000)
            p50.append(float(m.group(2)))
    return total, p50

print(f"bench_procs: {runs} runs, client.py {requests} requests (TCP_NODELAY via the preload)")
for name, label in (("loopback", "loopback, bare netns"), ("lab-none", "lab, no capture"),
                    ("lab-packet", "lab + AF_PACKET capture -> pcap")):
    total, p50 = client_lines(name)
    print(f"  {label:34s} client's own total ms  {dist(total)}")
    print(f"  {'':34s} client's p50 latency ms {dist(p50)}")

phases = {"lab up": [], "procs start -> target exec": [], "target start -> listen seen": [],
          "listen seen -> client start": [], "client exit -> all reaped": []}
for line in open(f"{tmp}/lab-packet.txt"):
    m = re.search(r"lab ([\d.]+), target start ([\d.-]+), listen seen ([\d.-]+), "
                  r"client start ([\d.-]+), client end ([\d.-]+), done ([\d.-]+)", line)
    if not m:
        continue
    lab, target, listen, cstart, cend, done = map(float, m.groups())
    phases["lab up"].append(lab)
    phases["procs start -> target exec"].append(target)
    phases["target start -> listen seen"].append(listen - target)
    phases["listen seen -> client start"].append(cstart - listen)
    phases["client exit -> all reaped"].append(done - cend)
print("  where run_probe's wall time goes (lab + capture), ms:")
for k, v in phases.items():
    print(f"    {k:32s} {dist(v)}")

def rps(name):
    try:
        return [float(re.search(r"([\d.]+) requests per second", l).group(1))
                for l in open(f"{tmp}/{name}.txt")]
    except (FileNotFoundError, AttributeError):
        return []
for name, label in (("redis-loopback", "loopback, bare netns"), ("redis-none", "lab, no capture"),
                    ("redis-packet", "lab + AF_PACKET capture -> pcap")):
    print(f"  redis-benchmark GET -c 1, {label:32s} rps {dist(rps(name))}")
PY
