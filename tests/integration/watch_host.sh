#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The body of test_watch.sh, run inside the network namespace that plays the
# host (unshare -n). Not a test of its own: test_watch.sh runs it.
set -eu
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
progs=$NT_SOURCE_DIR/tests/programs
T=$NT_TMP

snapshot() {
	{
		ip -d -o link show
		ip -o addr show
		ip route show table all
		ip -6 route show table all
		ip rule show
		ip -6 rule show
		# Every sysctl of this namespace, but the two that count what runs:
		# conntrack's entries and the kernel's own route-cache generation.
		find /proc/sys/net -type f -readable 2>/dev/null | sort | while read -r f; do
			case "$f" in
			*/nf_conntrack_count | */route/gc_*) continue ;;
			esac
			printf '%s=%s\n' "$f" "$(tr '\n' ' ' <"$f" 2>/dev/null)"
		done
	} | sed 's/ \(RX\|TX\):.*//' >"$1"
}

# Wait until FILE has a line matching PATTERN (a capture is listening), at most 10 s.
wait_for() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no \"$2\" in $1: $(cat "$1")"
}

ip link set lo up
snapshot "$T/before"

python3 "$progs/server.py" 7000 --host 127.0.0.1 >"$T/server.log" 2>&1 &
server=$!
redis-server --port 6390 --bind 127.0.0.1 --save '' --appendonly no >"$T/redis.log" 2>&1 &
redis=$!
wait_for "$T/server.log" listening
wait_for "$T/redis.log" "Ready to accept"

tcpdump -i lo -n -U --immediate-mode --time-stamp-precision=nano -w "$T/cap.pcap" tcp 2>"$T/tcpdump.err" &
tcpd=$!
"$NAGLE_TRACE" watch -i lo --format jsonl >"$T/watch.jsonl" 2>"$T/watch.err" &
watch=$!
wait_for "$T/tcpdump.err" "listening on"
wait_for "$T/watch.err" "watching"

python3 "$progs/client.py" 127.0.0.1 7000 8 >"$T/client.log" 2>&1 &
client=$!
wait "$client" || fail "client.py: $(cat "$T/client.log")"
python3 "$progs/client.py" 127.0.0.1 7000 8 --nodelay >"$T/nodelay.log" 2>&1 ||
	fail "client.py --nodelay: $(cat "$T/nodelay.log")"
redis-benchmark -h 127.0.0.1 -p 6390 -c 1 -n 200 -q -t set,get >"$T/bench.log" 2>&1 ||
	fail "redis-benchmark: $(cat "$T/bench.log")"
# Both captures see the last FIN before they stop.
sleep 0.5
kill -INT "$watch"
set +e
wait "$watch"
rc=$?
set -e
kill -INT "$tcpd"
wait "$tcpd" || true
kill "$server" "$redis"
wait "$server" "$redis" 2>/dev/null || true
[ "$rc" = 130 ] || fail "watch stopped by SIGINT exited $rc: $(cat "$T/watch.err")"
snapshot "$T/after"
diff -u "$T/before" "$T/after" || fail "watch changed the host's network state"

"$NAGLE_TRACE" analyze --annotate "$T/ann.pcapng" --format jsonl "$T/cap.pcap" >"$T/analyze.jsonl" ||
	fail "analyze of tcpdump's capture"
tshark -r "$T/ann.pcapng" -Y frame.comment -T fields -E separator='|' \
	-e frame.time_epoch -e tcp.srcport -e tcp.seq -e tcp.len -e frame.comment >"$T/comments.txt" 2>"$T/tshark.err" ||
	fail "tshark: $(cat "$T/tshark.err")"

"$py" - "$T" "$client" "$server" "$NT_SOURCE_DIR/docs/nagle-trace-watch.schema.json" <<'PY'
import json, re, sys
from decimal import Decimal
import jsonschema

T, client_pid, server_pid, schema_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
recs = [json.loads(l) for l in open(f"{T}/watch.jsonl")]
schema = json.load(open(schema_path))
for r in recs:
    errs = list(jsonschema.Draft202012Validator(schema).iter_errors(r))
    assert not errs, (errs[0].message, r)
stalls = [r for r in recs if r["type"] == "stall"]
assert recs[-1]["type"] == "summary" and recs[-1]["end"] == "SIGINT", recs[-1]
assert stalls, "watch saw no stall"

# Only the two-write client's flow stalled; redis and the NODELAY client did not.
ports = {s["target"]["port"] for s in stalls}
assert ports == {7000}, ports
flows = {s["client"]["port"] for s in stalls}
assert len(flows) == 1, f"stalls on {len(flows)} flows: the NODELAY client's flow stalled too"
# Each end's socket is read when watch handles R: a client that closed by then
# left a time-wait socket (no inode, no tcp_info), so the last stalls may lack
# it; the first of the seven cannot.
read = 0
for s in stalls:
    c, t = s["client_socket"], s["target_socket"]
    assert s["dir"] == "c2t" and s["released_bytes"] == 100 and s["held_bytes"] == 4, s
    # From the delayed-ACK timer's earliest (DELACK_LO_NS in lib.sh) to the RTO.
    assert 32e6 <= s["ack_delay_ns"] <= 250e6, s
    assert c["local"] and t["local"], s
    # A closed socket keeps the process its flow's earlier stalls found.
    assert (c["pid"], c["command"]) == (client_pid, "python3"), c
    assert (t["pid"], t["command"]) == (server_pid, "python3"), t
    if c["closed"] or t["closed"]:
        # Time-wait (no inode), or gone from /proc/net/tcp between the
        # two reads (no ping-pong bit).
        assert any(k["closed"] and (k["inode"] is None or k["pingpong"] is None)
                   for k in (c, t)), s
        continue
    read += 1
    assert t["ato_us"] is not None and 4000 <= t["ato_us"] <= 250000, t
    assert isinstance(t["pingpong"], bool) and t["quick"] is not None, t
assert stalls[0]["client_socket"]["inode"] is not None, stalls[0]
assert read >= len(stalls) - 2, [s["client_socket"] for s in stalls]
# The delayed ACK that held each body came from a target in ping-pong mode.
assert any(s["target_socket"]["pingpong"] for s in stalls), stalls

# The same stalls as analyze of tcpdump's capture, frame for frame: H and R by
# their port, relative sequence number and length (Wireshark's relative
# numbers start at the ISN, as watch's), each of H, the ACK and R by its time.
# Each packet socket stamps a frame on lo as it queues it (no stamp is taken
# once for all on that path), so tcpdump's and watch's times of one frame are
# microseconds apart on an idle machine; on a busy one either stamp can come
# late: CI saw H's 0.8 ms apart (its ACK's and R's 1.5 us). 5 ms is still far
# below any gap here (the ACK is 40 ms after H), so no other frame can match.
roles = {"held segment H": 0, "late ACK": 1, "held by Nagle": 2}
found = {}
for line in open(f"{T}/comments.txt"):
    when, port, seq, length, comment = line.rstrip("\n").split("|", 4)
    for c in comment.split(","):
        m = re.match(r"stall (\d+): (held segment H|late ACK|held by Nagle)", c.strip())
        if m:
            role = roles[m.group(2)]
            found.setdefault(int(m.group(1)), {})[role] = (
                int(Decimal(when) * 1000000000), int(port), int(seq), int(length))
assert all(len(v) == 3 for v in found.values()), found
want = sorted((v[0][1], v[0][2], v[0][3], v[2][2], v[2][3], v[0][0], v[1][0], v[2][0])
              for v in found.values())
got = sorted((s["client"]["port"], s["held_seq"], s["held_bytes"], s["held_seq"] + s["held_bytes"],
              s["released_bytes"], s["held_t_ns"], s["ack_t_ns"], s["release_t_ns"]) for s in stalls)
assert len(got) == len(want), (got, want)
for g, w in zip(got, want):
    assert g[:5] == w[:5], (g, w)
    assert all(abs(a - b) < 5000000 for a, b in zip(g[5:], w[5:])), (g, w)

# analyze's flow record and watch's stalls carry the same Community ID.
aflows = [json.loads(l) for l in open(f"{T}/analyze.jsonl")]
aflows = [f for f in aflows if f["type"] == "flow"]
assert {f["community_id"] for f in aflows} == {s["community_id"] for s in stalls}, aflows
summ = recs[-1]
assert summ["stalls"] == len(stalls) and summ["capture"]["dropped"] == 0, summ
procs = {(p["pid"], p["command"]): p for p in summ["processes"]}
assert procs[(client_pid, "python3")]["as_sender"] == len(stalls), procs
assert procs[(server_pid, "python3")]["as_receiver"] == len(stalls), procs
print(f"watch: {len(stalls)} stalls, the same as analyze of tcpdump's capture")
PY

# A container: a network namespace inside the host's, joined to it by a veth,
# with the two-write client in it and the server on the host. watch on the
# host's end names the client's process, its namespace and its tcp_info (a
# sock_diag socket made inside the container's namespace); without
# CAP_SYS_ADMIN it cannot enter it, says so in one line and in its summary,
# and shows the client's end as not on this host.
unshare -n sleep 600 &
box=$!
for _ in $(seq 100); do
	[ "$(readlink "/proc/$box/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.1
done
box_ns=$(readlink "/proc/$box/ns/net")
[ "$box_ns" != "$(readlink /proc/self/ns/net)" ] || fail "the container has no namespace of its own"
ip link add nt-h0 type veth peer name nt-h1 netns "$box"
ip addr add 192.0.2.1/24 dev nt-h0
ip link set nt-h0 up
nsenter -t "$box" -n sh -c 'ip addr add 192.0.2.2/24 dev nt-h1 && ip link set nt-h1 up' ||
	fail "the container's link"
python3 "$progs/server.py" 7001 --host 192.0.2.1 >"$T/server3.log" 2>&1 &
server=$!
wait_for "$T/server3.log" listening
"$NAGLE_TRACE" watch -i nt-h0 --format jsonl port 7001 >"$T/box.jsonl" 2>"$T/box.err" &
w_json=$!
"$NAGLE_TRACE" watch -i nt-h0 port 7001 >"$T/box.txt" 2>"$T/box_txt.err" &
w_text=$!
setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$NAGLE_TRACE" watch -i nt-h0 \
	--format jsonl port 7001 >"$T/noadmin.jsonl" 2>"$T/noadmin.err" &
w_noadmin=$!
wait_for "$T/box.err" watching
wait_for "$T/box_txt.err" watching
wait_for "$T/noadmin.err" watching
nsenter -t "$box" -n python3 "$progs/client.py" 192.0.2.1 7001 8 >"$T/boxclient.log" 2>&1 &
client=$!
wait "$client" || fail "client.py in the container: $(cat "$T/boxclient.log")"
sleep 0.5
kill -INT "$w_json" "$w_text" "$w_noadmin"
for w in "$w_json" "$w_text" "$w_noadmin"; do
	set +e
	wait "$w"
	rc=$?
	set -e
	[ "$rc" = 130 ] || fail "watch in the container test exited $rc"
done
kill "$server" "$box"
wait "$server" "$box" 2>/dev/null || true
[ "$(wc -l <"$T/noadmin.err")" = 2 ] || fail "without CAP_SYS_ADMIN, not one line besides 'watching': $(cat "$T/noadmin.err")"
grep -q 'CAP_SYS_ADMIN' "$T/noadmin.err" || fail "without CAP_SYS_ADMIN, the line does not name it: $(cat "$T/noadmin.err")"
grep -qF "client pid $client (python3) in $box_ns rtt " "$T/box.txt" ||
	fail "the text lines do not name the container's client: $(cat "$T/box.txt")"
"$py" - "$T" "$client" "$server" "${box_ns//[^0-9]/}" "$NT_SOURCE_DIR/docs/nagle-trace-watch.schema.json" <<'PY' || fail "watch and a container"
import json, sys
import jsonschema

T, client, server, box_ns, schema_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
schema = json.load(open(schema_path))
def records(name):
    recs = [json.loads(l) for l in open(f"{T}/{name}")]
    for r in recs:
        errs = list(jsonschema.Draft202012Validator(schema).iter_errors(r))
        assert not errs, (errs[0].message, r)
    return [r for r in recs if r["type"] == "stall"], recs[-1]

stalls, summ = records("box.jsonl")
assert stalls, "no stall of the container's client"
assert summ["netns"]["others"] == 1 and summ["netns"]["not_entered"] == 0, summ["netns"]
own = summ["netns"]["own"]
read = 0
for s in stalls:
    c, t = s["client_socket"], s["target_socket"]
    assert c["local"] and c["netns"] == box_ns and (c["pid"], c["command"]) == (client, "python3"), c
    assert t["local"] and t["netns"] == own and (t["pid"], t["command"]) == (server, "python3"), t
    if not c["closed"]:
        read += 1
        assert c["rtt_us"] is not None and c["ato_us"] is not None and c["inode"], c
assert read >= len(stalls) - 2, stalls
# /proc/PID/net/tcp of the client's own namespace: read after tcp_info and by
# the client's pid, so a client that has exited (its socket may linger for
# sock_diag) leaves the stalls watch reaches late without it; a slow watch
# (ASan) reaches even the first one late. Some stall must have it.
assert any(isinstance(s["client_socket"]["pingpong"], bool) for s in stalls), stalls

stalls2, summ2 = records("noadmin.jsonl")
assert summ2["netns"] == {"own": own, "others": 1, "not_entered": 1}, summ2["netns"]
assert len(stalls2) == len(stalls), (len(stalls2), len(stalls))
for s in stalls2:
    assert not s["client_socket"]["local"] and s["client_socket"]["pid"] is None, s
    assert s["target_socket"]["pid"] == server, s
print(f"watch: {len(stalls)} stalls of a container's client, named in its namespace")
PY

# Without CAP_NET_RAW: one line that says so, exit 3 (an environment error).
set +e
setpriv --inh-caps=-net_raw --bounding-set=-net_raw "$NAGLE_TRACE" watch -i lo --duration 1 \
	>"$T/nocap.out" 2>"$T/nocap.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "watch without CAP_NET_RAW exited $rc"
[ "$(wc -l <"$T/nocap.err")" = 1 ] || fail "more than one line without CAP_NET_RAW: $(cat "$T/nocap.err")"
grep -q CAP_NET_RAW "$T/nocap.err" || fail "the message does not name CAP_NET_RAW: $(cat "$T/nocap.err")"
[ -s "$T/nocap.out" ] && fail "output without CAP_NET_RAW: $(cat "$T/nocap.out")"

# An interface that goes away mid-run: the summary, one line why, exit 3.
ip link add nt-w0 type veth peer name nt-w1
ip link set nt-w0 up
ip link set nt-w1 up
"$NAGLE_TRACE" watch -i nt-w0 >"$T/gone.out" 2>"$T/gone.err" &
watch=$!
wait_for "$T/gone.err" watching
ip link del nt-w0
set +e
timeout 10 tail --pid="$watch" -f /dev/null
wait "$watch"
rc=$?
set -e
[ "$rc" = 3 ] || fail "watch on a deleted interface exited $rc: $(cat "$T/gone.err")"
grep -q '^summary: ' "$T/gone.out" || fail "no summary when the interface went away: $(cat "$T/gone.out")"
grep -q '^nagle-trace: capture on "nt-w0" ended: ' "$T/gone.err" || fail "the error does not name the interface: $(cat "$T/gone.err")"

# -c N: N frames, then the summary and exit 0.
python3 "$progs/server.py" 7002 --host 127.0.0.1 >"$T/server2.log" 2>&1 &
server=$!
wait_for "$T/server2.log" listening
"$NAGLE_TRACE" watch -i lo -c 10 --format jsonl >"$T/count.jsonl" 2>"$T/count.err" &
watch=$!
wait_for "$T/count.err" watching
python3 "$progs/client.py" 127.0.0.1 7002 3 >/dev/null 2>&1
set +e
wait "$watch"
rc=$?
set -e
kill "$server"
[ "$rc" = 0 ] || fail "watch -c 10 exited $rc: $(cat "$T/count.err")"
"$py" - "$T/count.jsonl" <<'PY' || fail "watch -c 10: $(cat "$T/count.jsonl")"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().split("\n")[-1])
assert s["type"] == "summary" and s["end"] == "count" and s["capture"]["frames"] == 10, s
assert s["complete"], s
PY

# SIGTERM, text: the summary, exit 143.
"$NAGLE_TRACE" watch -i lo >"$T/term.out" 2>"$T/term.err" &
watch=$!
wait_for "$T/term.err" watching
kill -TERM "$watch"
set +e
wait "$watch"
rc=$?
set -e
[ "$rc" = 143 ] || fail "watch stopped by SIGTERM exited $rc"
grep -q '^summary: 0 stalls.*(SIGTERM)' "$T/term.out" || fail "no summary on SIGTERM: $(cat "$T/term.out")"
grep -q '^capture: .* 0 dropped by the kernel' "$T/term.out" || fail "no drop counts: $(cat "$T/term.out")"
echo "watch_host: ok"
