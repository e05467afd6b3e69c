#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark `nagle-trace analyze` against a plain libpcap read loop over the
# same file (the floor), tshark and tcpdump; print packets/s and ratios.
#   tests/bench/bench_analyze.sh [BUILD_DIR] [FLOWS] [ROUNDS]
# The capture (mkcap bench: FLOWS connections x ROUNDS stalled rounds, 4
# packets a round plus 3 for each handshake) has exactly FLOWS*ROUNDS stalls;
# the script checks analyze found all of them. Not a ctest: figures depend on
# the machine. Default: 2000 flows x 500 rounds = 4,006,000 packets.
# The floor is the pcap_next_ex() loop (what issues #6/#8 measure against);
# the pcap_dispatch() loop is libpcap's cheapest path, reported beside it.
# BENCH_RUNS=N takes the best of N runs (default 3); BENCH_QUICK=1 skips
# tcpdump and tshark (minutes at this size).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-analyze}
flows=${2:-2000}
rounds=${3:-500}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cap=$tmp/bench.pcap

cc -O2 -o "$tmp/pcap_read_loop" "$root/tests/bench/pcap_read_loop.c" -lpcap
"$build/tests/golden/mkcap" bench "$cap" "$flows" "$rounds"
packets=$("$tmp/pcap_read_loop" "$cap" | cut -d' ' -f1)
echo "capture: $packets packets, $flows flows, $((flows * rounds)) stalls, $(du -h "$cap" | cut -f1)"

runs=${BENCH_RUNS:-3}
best() { # best-of-$runs wall time in seconds of a command
	local b=
	for _ in $(seq "$runs"); do
		local s e
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s.%N)
		b=$(echo "$e - $s" | bc -l | awk -v b="$b" '{ if (b == "" || $1 < b) print $1; else print b }')
	done
	echo "$b"
}
cat "$cap" >/dev/null # page cache
floor=$(best "$tmp/pcap_read_loop" "$cap")
report() {
	awk -v n="$packets" -v t="$2" -v f="$floor" -v name="$1" \
		'BEGIN { printf "%-28s %8.3f s %12.0f packets/s %6.2fx the read loop\n", name, t, n / t, t / f }'
}
dispatch=$(best "$tmp/pcap_read_loop" --dispatch "$cap")
text=$(best "$build/nagle-trace" analyze "$cap")
report "pcap_read_loop (floor)" "$floor"
report "pcap_read_loop --dispatch" "$dispatch"
report "nagle-trace analyze" "$text"
report "nagle-trace analyze json" "$(best "$build/nagle-trace" analyze --format json "$cap")"
awk -v t="$text" -v d="$dispatch" \
	'BEGIN { printf "analyze is %.2fx the pcap_dispatch loop\n", t / d }'
if [ "${BENCH_QUICK:-0}" != 1 ] && command -v tcpdump >/dev/null; then
	report "tcpdump -r -w /dev/null" "$(best tcpdump -r "$cap" -w /dev/null)"
	report "tcpdump -qn -r" "$(best tcpdump -qn -r "$cap")"
fi
if [ "${BENCH_QUICK:-0}" != 1 ] && command -v tshark >/dev/null; then
	report "tshark -q -z io,stat,0" "$(best tshark -r "$cap" -q -z io,stat,0)"
fi

found=$("$build/nagle-trace" analyze --format json "$cap" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["stalls"])')
if [ "$found" != $((flows * rounds)) ]; then
	echo "FAIL: analyze found $found stalls, want $((flows * rounds))" >&2
	exit 1
fi
echo "analyze found all $found stalls"
