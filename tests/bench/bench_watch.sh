#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmark `nagle-trace watch` against `tcpdump -w /dev/null` on the same
# link, in the same run: a many-flow capture (mkcap bench) replayed onto a
# veth with tcpreplay at rising rates, both capturing on the veth's peer at
# once. Replayed at a fixed rate, the capture's 40 ms ACK delays shrink to
# microseconds, so watch runs with --threshold 0: every replayed round is
# still a stall (H, pure ACK of exactly H, R right behind it) and goes the
# whole stall path, two sock_diag lookups included (a worst case: a real
# host has far fewer stalls than frames). A rate is loss-free for a capture when it received every frame sent
# and its kernel counters show no drop. Prints, per rate, each one's frames
# and drops, watch's CPU per frame and the stalls it found; then the highest
# loss-free rate of each (the goal: watch's is at least tcpdump's); then
# watch's peak RSS (VmHWM) with 1k, 10k and 100k concurrent flows, and its RSS
# over 200,000 connections, 10,000 at a time (flat, or memory grows with time).
#   tests/bench/bench_watch.sh [BUILD_DIR] [FLOWS] [ROUNDS] [RATES]
# Needs root (a network namespace of its own, unshare -n, and a PID namespace,
# so that watch sees no process, and so no network namespace, but the
# benchmark's: nothing outside is touched or looked into), tcpreplay and tcpdump. Not a ctest: figures depend on the
# machine. Defaults: 2000 flows x 40 rounds (326,000 frames), rates
# 25000 50000 100000 200000 400000 frames/s and tcpreplay's top speed (0).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-$root/build}")
flows=${2:-2000}
rounds=${3:-40}
rates=${4:-25000 50000 100000 200000 400000 0}
# BENCH_THRESHOLD=10 runs the rate steps with analyze's default rule instead:
# the replay's compressed ACK delays are then no stalls, and the figure is
# the capture and the analysis alone.
threshold=${BENCH_THRESHOLD:-0}
# BENCH_FORMAT=jsonl measures the records instead of the lines (text, the default).
format=${BENCH_FORMAT:-text}
if [ "${NT_BENCH_INSIDE:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "bench_watch: needs root (unshare -n)" >&2; exit 1; }
	for t in tcpreplay tcpdump; do
		command -v "$t" >/dev/null || { echo "bench_watch: $t is not installed" >&2; exit 1; }
	done
	NT_BENCH_INSIDE=1 BENCH_THRESHOLD=$threshold BENCH_FORMAT=$format exec unshare -n --pid --fork --mount-proc "$0" "$build" "$flows" "$rounds" "$rates"
fi
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
nt=$build/nagle-trace
ip link set lo up
ip link add nt-b0 type veth peer name nt-b1
ip link set nt-b0 up
ip link set nt-b1 up

cap=$tmp/bench.pcap
"$build/tests/golden/mkcap" bench "$cap" "$flows" "$rounds"
sent=$(tcpdump -r "$cap" 2>/dev/null | wc -l)
echo "capture: $sent frames, $flows flows x $rounds stalled rounds ($((flows * rounds)) stalls), $(nproc) cores, watch --format $format --threshold $threshold, load $(cut -d' ' -f1-3 /proc/loadavg)"

wait_for() { # FILE PATTERN: until a capture says it listens, at most 10 s
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench_watch: no \"$2\" in $1" >&2
	exit 1
}

# cpu_ticks PID: user + system time of a live process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# One rate: both captures on nt-b1, tcpreplay out of nt-b0. Prints one line
# and sets watch_ok / tcpdump_ok.
one_rate() {
	local rate=$1 w t0 t1 tcpd
	# The last step's "watching" and "listening on" must not count for this one:
	# the shell truncates a redirected file only once the child runs.
	rm -f "$tmp/w.err" "$tmp/t.err"
	"$nt" watch -i nt-b1 --format "$format" --threshold "$threshold" --max-flows $((flows * 2)) \
		>"$tmp/w.out" 2>"$tmp/w.err" &
	w=$!
	tcpdump -i nt-b1 -n -w /dev/null tcp 2>"$tmp/t.err" &
	tcpd=$!
	wait_for "$tmp/w.err" watching
	wait_for "$tmp/t.err" "listening on"
	t0=$(cpu_ticks "$w")
	if [ "$rate" = 0 ]; then
		tcpreplay -q -i nt-b0 --topspeed "$cap" >"$tmp/r.out" 2>&1
	else
		tcpreplay -q -i nt-b0 --pps="$rate" "$cap" >"$tmp/r.out" 2>&1
	fi
	sleep 1
	t1=$(cpu_ticks "$w")
	kill -INT "$w" "$tcpd"
	wait "$w" || true
	wait "$tcpd" || true
	python3 - "$tmp" "$sent" "$rate" "$((t1 - t0))" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
tmp, sent, rate, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
out = open(f"{tmp}/w.out").read().strip().split("\n")
if out[-1].startswith("{"):
    s = json.loads(out[-1])
    c = s["capture"]
else:
    summ = next(l for l in out if l.startswith("summary: "))
    cap = next(l for l in out if l.startswith("capture: "))
    s = {"stalls": int(re.match(r"summary: (\d+) stalls", summ).group(1))}
    m = re.match(r"capture: (\d+) received, (\d+) dropped by the kernel, (\d+) by the interface", cap)
    c = {"frames": int(re.search(r"; (\d+) frames", summ).group(1)),
         "received": int(m.group(1)), "dropped": int(m.group(2)), "if_dropped": int(m.group(3))}
t = open(f"{tmp}/t.err").read()
t_recv = int(re.search(r"(\d+) packets? received by filter", t).group(1))
t_drop = int(re.search(r"(\d+) packets? dropped by kernel", t).group(1))
r = open(f"{tmp}/r.out").read()
m = re.search(r"Rated: [\d.]+ Bps, [\d.]+ Mbps, ([\d.]+) pps", r)
pps = float(m.group(1)) if m else 0.0
w_ok = c["frames"] == sent and c["dropped"] == 0 and c["if_dropped"] == 0
t_ok = t_recv == sent and t_drop == 0
cpu_us = ticks / hz * 1e6 / max(c["frames"], 1)
print(f"rate {'top' if rate == 0 else rate:>7} (tcpreplay: {pps:9.0f} pps): "
      f"watch {c['frames']:>7} frames ({c['received']:>7} received), {c['dropped']:>6} dropped, {s['stalls']:>6} stalls, "
      f"{cpu_us:6.2f} us CPU/frame {'loss-free' if w_ok else 'LOSS'}; "
      f"tcpdump {t_recv:>7} frames, {t_drop:>6} dropped {'loss-free' if t_ok else 'LOSS'}")
open(f"{tmp}/ok", "w").write(f"{int(w_ok)} {int(t_ok)} {pps:.0f}\n")
PY
	read -r watch_ok tcpdump_ok achieved <"$tmp/ok"
}

best_w=0 best_t=0
for rate in $rates; do
	one_rate "$rate"
	[ "$watch_ok" = 1 ] && [ "$achieved" -gt "$best_w" ] && best_w=$achieved
	[ "$tcpdump_ok" = 1 ] && [ "$achieved" -gt "$best_t" ] && best_t=$achieved
done
echo "highest loss-free rate: watch $best_w pps, tcpdump $best_t pps" \
	"($([ "$best_w" -ge "$best_t" ] && echo "watch >= tcpdump" || echo "watch < tcpdump"))"

# Peak RSS with N concurrent flows: N connections of 2 rounds each, interleaved,
# replayed at 200,000 frames/s; VmHWM read before watch ends.
for n in 1000 10000 100000; do
	"$build/tests/golden/mkcap" bench "$tmp/rss.pcap" "$n" 2
	rm -f "$tmp/w.err"
	"$nt" watch -i nt-b1 --format jsonl --threshold 0 --max-flows $((n * 2)) \
		>"$tmp/w.jsonl" 2>"$tmp/w.err" &
	w=$!
	wait_for "$tmp/w.err" watching
	tcpreplay -q -i nt-b0 --pps=200000 "$tmp/rss.pcap" >/dev/null 2>&1
	sleep 1
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$w/status")
	kill -INT "$w"
	wait "$w" || true
	python3 - "$tmp/w.jsonl" "$n" "$hwm" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().split("\n")[-1])
print(f"{int(sys.argv[2]):>6} concurrent flows: peak RSS {int(sys.argv[3]) / 1024:6.1f} MiB "
      f"({s['capture']['flows']} flows, {s['capture']['frames']} frames, {s['capture']['dropped']} dropped, "
      f"{s['stalls']} stalls)")
PY
done

# Flat memory over time: the 10,000-connection capture replayed 20 times by
# one tcpreplay --unique-ip (other addresses each time: 200,000 connections,
# one batch after another, three times the flow table's 65,536 default), and
# watch's VmRSS sampled every 2 s: it levels off once the table is full.
"$build/tests/golden/mkcap" bench "$tmp/rss.pcap" 10000 2
rm -f "$tmp/w.err"
"$nt" watch -i nt-b1 --format jsonl --threshold 0 >"$tmp/w.jsonl" 2>"$tmp/w.err" &
w=$!
wait_for "$tmp/w.err" watching
tcpreplay -q -i nt-b0 --pps=200000 --loop=20 --unique-ip "$tmp/rss.pcap" >/dev/null 2>&1 &
r=$!
rss=""
while kill -0 "$r" 2>/dev/null; do
	sleep 2
	rss="$rss $(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$w/status")"
done
wait "$r" || true
sleep 0.5
kill -INT "$w"
wait "$w" || true
python3 - "$tmp/w.jsonl" "$rss" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().split("\n")[-1])
print(f"20 x 10000 connections (tcpreplay --unique-ip), VmRSS every 2 s (MiB):{sys.argv[2]} "
      f"({s['capture']['flows']} flows, {s['capture']['frames']} frames, {s['capture']['dropped']} dropped, {s['stalls']} stalls)")
PY
