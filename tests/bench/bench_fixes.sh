#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What each `nagle-trace run --fix` does to a write-write-read client on this
# kernel: the Python client of tests/programs against its server, every fix
# in one command, RUNS times. Per fix: the request -> answer p50 (from the
# capture), the stalls' median duration (stall rule at --threshold 1, so the
# short stalls rto-min leaves count too) and the stalls at the default 10 ms
# threshold (the -w files analysed again).
#
# usage: tests/bench/bench_fixes.sh [BUILD_DIR] [RUNS] [REQUESTS] [FIXES]
# The machine may be shared: read the spread, not one number.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-5}
requests=${3:-50}
fixes=${4:-none,rto-min=5,rto-min=10,rto-min=20,rto-min=40,rto-min=100,nodelay,quickack}
nt=$build/nagle-trace
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for i in $(seq "$runs"); do
	unshare -Urn "$nt" run --fix "$fixes" --threshold 1 --format json -o "$tmp/run-$i.json" \
		-w "$tmp/run-$i.pcap" --target "$py tests/programs/server.py 7000" \
		--client "$py tests/programs/client.py target 7000 $requests" >/dev/null 2>&1
	for f in ${fixes//,/ }; do
		slug=${f//=/-}
		"$nt" analyze --format json "$tmp/run-$i-$slug.pcap" |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["stalls"])' \
				>>"$tmp/stalls10-$slug.txt"
	done
done

python3 - "$tmp" "$runs" "$requests" "$fixes" "$(uname -r)" <<'PY'
import glob, json, sys
tmp, runs, requests, fixes, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]

def dist(xs, unit=""):
    xs = sorted(xs)
    if not xs:
        return "n/a"
    p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return f"{p(0.5):7.2f}{unit} [{xs[0]:.2f}..{xs[-1]:.2f}]"

ex, stall, n1 = {}, {}, {}
for path in glob.glob(f"{tmp}/run-*.json"):
    doc = json.load(open(path))
    for run in doc["runs"]:
        fix = run["run"]["fix"]
        p50 = run["run"]["exchanges"]["p50_ns"]
        ex.setdefault(fix, []).append(p50 / 1e6 if p50 is not None else float("nan"))
        n1.setdefault(fix, []).append(run["summary"]["stalls"])
        if run["flows"]:
            stall.setdefault(fix, []).append(run["flows"][0]["stalled_p50_ns"] / 1e6)
print(f"bench_fixes: {runs} runs of {requests} requests, Linux {kernel}; p50 [min..max] over runs")
print(f"{'fix':12s} {'request->answer p50 ms':>28s} {'stall p50 ms':>26s} {'stalls >=1ms':>14s} {'stalls >=10ms':>14s}")
for fix in fixes.split(","):
    s10 = [int(x) for x in open(f"{tmp}/stalls10-{fix.replace('=', '-')}.txt")]
    print(f"{fix:12s} {dist(ex.get(fix, [])):>28s} {dist(stall.get(fix, [])):>26s} "
          f"{dist(n1.get(fix, [])):>14s} {dist(s10):>14s}")
PY
