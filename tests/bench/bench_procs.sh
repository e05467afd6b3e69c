#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `nagle-trace run` adds to a client's own time: the same client and
# server (tests/programs, TCP_NODELAY through the preload so no stall hides
# the cost) on plain loopback in a bare network namespace; then through
# `nagle-trace run --capture none` (lab, PID namespace, init, no capture, no
# detector); then with the AF_PACKET capture streaming into the stall
# detector and the socket sampler (the default); then also writing every
# frame to a pcap (-w). Also redis-benchmark (its own requests per second)
# in the same places, and where a run's wall time goes.
#
# usage: tests/bench/bench_procs.sh [BUILD_DIR] [RUNS] [REQUESTS]
# Prints p50/p90/max over RUNS runs of each figure. The machine may be shared:
# read the spread, not one number.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-9}
requests=${3:-2000}
nt=$build/nagle-trace
lib=$(realpath "$build/nt_nodelay.so")
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$nt" ] || { echo "bench_procs: build nagle-trace first ($nt)" >&2; exit 2; }

server="$py tests/programs/server.py 7000"
client="$py tests/programs/client.py"
redis_server='redis-server --port 6379 --save "" --appendonly no --protected-mode no'

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

# lab NAME ARGS...: through nagle-trace run; the client's line to stdout, the
# run's JSON (its timings) to $tmp/NAME-N.json, the wall time to $tmp/NAME.wall.
lab() {
	local name=$1 start
	shift
	start=$(date +%s%N)
	unshare -Urn "$nt" run "$@" --format json -o "$tmp/$name-$i.json" 2>/dev/null
	echo $((($(date +%s%N) - start) / 1000)) >>"$tmp/$name.wall"
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
	unshare -Urn "$nt" run "$@" --target "$redis_server" \
		--client 'redis-benchmark -h target -c 1 -n 20000 -q -t get' -o /dev/null 2>/dev/null
}

for i in $(seq "$runs"); do
	loopback >>"$tmp/loopback.txt"
	for mode in none packet write; do
		args=(--capture packet)
		[ "$mode" = none ] && args=(--capture none)
		[ "$mode" = write ] && args+=(-w "$tmp/x.pcap")
		lab "lab-$mode" "${args[@]}" --fix nodelay --target "$server" \
			--client "$client target 7000 $requests" >>"$tmp/lab-$mode.txt"
	done
	command -v redis-server >/dev/null || continue
	redis_loopback | tr '\r' '\n' | grep "requests per second" | tail -1 >>"$tmp/redis-loopback.txt"
	redis_lab --capture none | tr '\r' '\n' | grep "requests per second" | tail -1 \
		>>"$tmp/redis-none.txt"
	redis_lab --capture packet | tr '\r' '\n' | grep "requests per second" | tail -1 \
		>>"$tmp/redis-packet.txt"
done

python3 - "$tmp" "$runs" "$requests" <<'PY'
import glob, json, re, sys
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
modes = (("loopback", "loopback, bare netns"), ("lab-none", "run --capture none"),
         ("lab-packet", "run (capture + detector)"), ("lab-write", "run -w (+ pcap file)"))
for name, label in modes:
    total, p50 = client_lines(name)
    print(f"  {label:28s} client's own total ms  {dist(total)}")
    print(f"  {'':28s} client's p50 latency ms {dist(p50)}")

print("  where a run's wall time goes, ms (run, capture + detector):")
phases = {"whole nagle-trace run": [], "target start -> listening": [], "client, start -> exit": [],
          "frames captured": []}
for path in glob.glob(f"{tmp}/lab-packet-*.json"):
    r = json.load(open(path))["run"]
    phases["target start -> listening"].append(r["listener"]["wait_ns"] / 1e6)
    phases["client, start -> exit"].append(r["client"]["run_ns"] / 1e6)
    phases["frames captured"].append(r["capture"]["received"])
phases["whole nagle-trace run"] = [int(x) / 1000 for x in open(f"{tmp}/lab-packet.wall")]
for k, v in phases.items():
    print(f"    {k:30s} {dist(v)}")

def rps(name):
    try:
        return [float(re.search(r"([\d.]+) requests per second", l).group(1))
                for l in open(f"{tmp}/{name}.txt")]
    except (FileNotFoundError, AttributeError):
        return []
for name, label in (("redis-loopback", "loopback, bare netns"), ("redis-none", "run --capture none"),
                    ("redis-packet", "run (capture + detector)")):
    print(f"  redis-benchmark GET -c 1, {label:26s} rps {dist(rps(name))}")
PY
