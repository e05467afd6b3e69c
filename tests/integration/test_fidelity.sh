#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Timestamp fidelity: the timeline's times are the kernel's. A second,
# independent capture (tcpdump, another process, joined to the run's client
# namespace with nsenter) of the same run must agree:
#  - outgoing frames (client -> target) to the nanosecond: both taps read the
#    one timestamp dev_queue_xmit_nit() put on the skb;
#  - incoming frames apart by a median under 50 us and never 1 ms, and so
#    every header -> ACK -> body gap: the target's TCP leaves its monotonic
#    delivery time on the skb (EDT), so each packet tap stamps the frame
#    itself when it runs (tpacket_rcv()'s ktime_get_real(), packet_rcv()'s
#    skb_clear_delivery_time()): two taps differ by their order on the
#    device's list, measured 0.3-5.3 us on a quiet machine, and by whatever
#    interrupt comes between them under load (10.0 us once, 55.6 us once in
#    CI). A user-space clock read after recv() would be off by the wake-up,
#    milliseconds under load; 1 ms is a tenth of the stall threshold.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_tool tcpdump
need_tool tshark
need_tool nsenter
need_tool python3

# As real root nagle-trace needs no user namespace, so nsenter can join its
# network namespace by pid. A pause between rounds leaves time to attach.
"$NAGLE_TRACE" --rounds 20 --pause 150 --format json -o "$NT_TMP/run.json" -w "$NT_TMP/ours.pcap" \
	2>"$NT_TMP/nt.err" &
pid=$!
mine=$(readlink /proc/self/ns/net)
for _ in $(seq 200); do
	ns=$(readlink "/proc/$pid/ns/net" 2>/dev/null || true)
	[ -n "$ns" ] && [ "$ns" != "$mine" ] &&
		nsenter -t "$pid" -n ip link show nt-c >/dev/null 2>&1 && break
	sleep 0.01
done
nsenter -t "$pid" -n tcpdump -Z root -i nt-c -n -U --time-stamp-precision=nano -w "$NT_TMP/indep.pcap" \
	'tcp port 5001' 2>"$NT_TMP/tcpdump.err" &
tcpdump_pid=$!
wait "$pid" || fail "nagle-trace exited $?: $(cat "$NT_TMP/nt.err")"
sleep 0.2
kill -INT "$tcpdump_pid" 2>/dev/null || true
wait "$tcpdump_pid" 2>/dev/null || true
[ -s "$NT_TMP/indep.pcap" ] || fail "the independent capture is empty: $(cat "$NT_TMP/tcpdump.err")"

# Raw sequence numbers: tcpdump joined mid-connection, so "relative" numbers would differ.
fields() {
	tshark -r "$1" -T fields -e frame.time_epoch -e tcp.srcport -e tcp.seq_raw -e tcp.ack_raw \
		-e tcp.len -e tcp.flags 2>/dev/null
}
fields "$NT_TMP/ours.pcap" >"$NT_TMP/ours.txt"
fields "$NT_TMP/indep.pcap" >"$NT_TMP/indep.txt"
python3 - "$NT_TMP/run.json" "$NT_TMP/ours.txt" "$NT_TMP/indep.txt" <<'PY' || fail "gaps disagree (see above)"
import json, sys
from decimal import Decimal

def frames(path):
    out = []
    for line in open(path):
        t, *key = line.rstrip("\n").split("\t")
        out.append((int(Decimal(t) * 10**9), tuple(key)))
    return out

doc = json.load(open(sys.argv[1]))
ours = frames(sys.argv[2])
indep = {}
for t, key in frames(sys.argv[3]):
    indep.setdefault(key, t)
out_exact = in_max = 0
in_diffs = []
for t, key in ours:
    if key not in indep:
        continue
    d = t - indep[key]
    if key[0] == "40000":
        if d != 0:
            sys.exit(f"outgoing frame {key}: nagle-trace {t}, tcpdump {indep[key]} ({d} ns apart)")
        out_exact += 1
    else:
        in_max = max(in_max, abs(d))
        in_diffs.append(abs(d))
if out_exact < 20:
    sys.exit(f"only {out_exact} outgoing frames were seen by both captures")
in_p50 = sorted(in_diffs)[len(in_diffs) // 2] if in_diffs else 0
if in_p50 >= 50000 or in_max >= 1000000:
    sys.exit(f"incoming frames are {in_p50} ns apart (median), {in_max} ns at most")
compared = 0
for r in doc["rounds"]:
    if r["verdict"] != "stalled":
        continue
    ev = [e for e in r["events"] if e["kind"] == "segment"]
    h = next(e for e in ev if e["role"] == "header")
    a = next(e for e in ev if e["role"] == "pure-ack" and e["dir"] == "t2c")
    b = next(e for e in ev if e["role"] == "body")
    pts = []
    for e in (h, a, b):
        t_pcap, key = ours[e["frame"] - 1]  # frames count from 1, as tshark's
        assert t_pcap == e["t_ns"], ("-w and JSON disagree", e)
        if key not in indep:
            break
        pts.append((e["t_ns"], indep[key]))
    if len(pts) < 3:
        continue  # the independent capture attached after this round
    for (o1, i1), (o2, i2), name in ((pts[0], pts[1], "header->ACK"), (pts[1], pts[2], "ACK->body")):
        if abs((o2 - o1) - (i2 - i1)) >= 1000000:
            sys.exit(f"round {r['index']} {name}: nagle-trace {o2 - o1} ns, tcpdump {i2 - i1} ns")
    compared += 1
print(f"{out_exact} outgoing frames identical to the ns; incoming {in_p50} ns apart "
      f"(median), {in_max} at most; gaps of {compared} stalled rounds agree within 1 ms")
if compared < 5:
    sys.exit(f"only {compared} stalled rounds were seen by both captures")
PY
echo "ok"
