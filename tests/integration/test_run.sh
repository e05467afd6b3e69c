#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `nagle-trace run` end to end: real clients and servers in real namespaces.
#
# Write-write-read clients (Python, Node, a bash memcached client) stall on
# nearly every request and --fix nodelay / quickack bring them to 0, in one
# table with --fix none,nodelay; third-party pairs from Debian (redis-server +
# redis-benchmark, memcached + memcslap, Python's http.server + curl) give
# the stall counts asserted below; a failing client, a target that never
# listens, a timeout and SIGINT exit as documented with the report written;
# SIGKILL of nagle-trace leaves no process; `client`/`target` resolve inside
# the commands while the host's /etc stays untouched; the JSON validates
# against docs/nagle-trace-run.schema.json.
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
need_unshare
for t in python3 node getent curl redis-server redis-benchmark memcached memcslap; do
	need_tool "$t"
done
PROGS="$NT_SOURCE_DIR/tests/programs"
# A run left in the background by a failing check is ended with the test.
bg=""
trap '[ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null; rm -rf "$NT_TMP"' EXIT
SERVER="python3 $PROGS/server.py"
PYCLIENT="python3 $PROGS/client.py"

# The run's JSON is validated below: no skip without jsonschema, here or in CI.
jsonschema_python || fail "python3-jsonschema is not installed (README's setup command installs it)"

# run ARGS...: nagle-trace run in a fresh user+network namespace; sets $rc,
# $ms; stdout in $NT_TMP/out, stderr in $NT_TMP/err.
run() {
	local start
	start=$(date +%s%N)
	set +e
	unshare -Urn "$NAGLE_TRACE" run "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	rc=$?
	set -e
	ms=$((($(date +%s%N) - start) / 1000000))
}

# said FILE TEXT: FILE has the line (fixed string).
said() {
	grep -qF -- "$2" "$1" || {
		cat "$1" >&2
		fail "$(basename "$1") lacks \"$2\""
	}
}

# ok WHAT: the last run exited 0.
ok() {
	[ "$rc" = 0 ] || {
		cat "$NT_TMP/err" >&2
		fail "$1: exit $rc, want 0"
	}
}

# validate FILE...: the documents match docs/nagle-trace-run.schema.json.
validate() {
	"$py" - "$NT_SOURCE_DIR/docs" "$@" <<'PY'
import json, os, sys, warnings
import jsonschema
warnings.simplefilter("ignore", DeprecationWarning)
run = json.load(open(os.path.join(sys.argv[1], "nagle-trace-run.schema.json")))
analyze = json.load(open(os.path.join(sys.argv[1], "nagle-trace-analyze.schema.json")))
jsonschema.Draft202012Validator.check_schema(run)
# The run schema takes params, files, flows and summary from analyze's by $ref.
resolver = jsonschema.RefResolver.from_schema(run, store={analyze["$id"]: analyze})
v = jsonschema.Draft202012Validator(run, resolver=resolver)
bad = 0
for path in sys.argv[2:]:
    errors = sorted(v.iter_errors(json.load(open(path))), key=str)
    for e in errors[:5]:
        print(path, "schema:", "/".join(map(str, e.absolute_path)), e.message[:200], file=sys.stderr)
    bad += bool(errors)
sys.exit(1 if bad else 0)
PY
}

# with_mark MARK: the processes whose environment has NT_MARK=MARK (the commands
# export it; the environment, not the command line, so grep does not find itself).
with_mark() {
	grep -lsF -- "NT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null || true
}

# sleeps_marked MARK: how many of them are sleep(1)s.
sleeps_marked() {
	local e p n=0
	for e in $(with_mark "$1"); do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && n=$((n + 1))
	done
	echo "$n"
}

# process_tree PID: PID and its descendants, for a failure's message.
process_tree() {
	ps -e -o pid=,ppid=,stat=,etimes=,args= | awk -v root="$1" '
		{ line[$1] = $0; parent[$1] = $2 }
		END {
			for (p in line) {
				for (q = p; q != "" && q != root && q in parent; q = parent[q]) ;
				if (q == root) print line[p]
			}
		}' | sort -n
}

# no_process_with MARK: none is left, within a second.
no_process_with() {
	for _ in $(seq 10); do
		[ -z "$(with_mark "$1")" ] && return 0
		sleep 0.1
	done
	fail "processes of the run are left: $(with_mark "$1")"
}

# 1. The Python client (two sendall() per request) stalls on nearly every
# request; the report says so in text, with the run's own facts, and -w keeps
# the frames (analyze finds the same stalls in them).
run --target "$SERVER 7000" --client "$PYCLIENT target 7000 20" -w "$NT_TMP/py.pcap" \
	-o "$NT_TMP/py.txt"
ok "python client"
said "$NT_TMP/out" "client.py: 20 requests"
said "$NT_TMP/err" "target: server.py: listening on port 7000"
said "$NT_TMP/py.txt" "nagle-trace run: fix none (the programs as they are)"
said "$NT_TMP/py.txt" "listened on :: port 7000 after"
said "$NT_TMP/py.txt" "exit status 0 after"
grep -qE "target DelayedACKs (1[5-9]|2[0-9])" "$NT_TMP/py.txt" ||
	fail "the target's DelayedACKs delta is not 15..29: $(grep counters "$NT_TMP/py.txt")"
grep -qE "^    192\.0\.2\.1:[0-9]+ -> port 7000: ping-pong in [1-9]" "$NT_TMP/py.txt" ||
	fail "no ping-pong sample of the target's socket"
n=$(sed -nE 's/^  ([0-9]+) stalls? \(delack_min.*/\1/p' "$NT_TMP/py.txt")
[ "$n" -ge 15 ] || fail "python client: $n stalls in 20 requests, want at least 15"
a=$("$NAGLE_TRACE" analyze --format json "$NT_TMP/py.pcap" | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["summary"]["stalls"])')
[ "$a" = "$n" ] || fail "analyze of -w's file found $a stalls, the run $n"

# Markdown and HTML are the incident report: summary first, no "analyze".
run --target "$SERVER 7000" --client "$PYCLIENT target 7000 5" --format markdown -o "$NT_TMP/py.md"
ok "python client, markdown"
grep -qE "^# Incident: [0-9]+ Nagle/delayed-ACK stalls? in 5 requests" "$NT_TMP/py.md" ||
	fail "markdown heading: $(grep '^# ' "$NT_TMP/py.md")"
grep -q '^\*\*Summary:\*\* ' "$NT_TMP/py.md" || fail "the incident has no summary"
grep -q "nagle-trace analyze" "$NT_TMP/py.md" && fail "the run's markdown says analyze"
run --target "$SERVER 7000" --client "$PYCLIENT target 7000 5" --format html -o "$NT_TMP/py.html"
ok "python client, html"
grep -qE "<title>Incident: [0-9]+ Nagle/delayed-ACK stalls?</title>" "$NT_TMP/py.html" ||
	fail "html title: $(grep -o '<title>[^<]*' "$NT_TMP/py.html")"

# 2. The Node client: net.Socket leaves Nagle on. JSON, validated.
run --target "$SERVER 7000" --client "node $PROGS/client.js target 7000 20" --format json \
	-o "$NT_TMP/node.json"
ok "node client"
json_check "$NT_TMP/node.json" '
s = doc["summary"]["stalls"]; r = doc["run"]
assert s >= 15, f"node: {s} stalls in 20 requests"
assert r["client"]["exit_status"] == 0 and r["complete"], r
assert r["exchanges"]["count"] == 20, r["exchanges"]
assert 30e6 <= r["exchanges"]["p50_ns"] <= 250e6, r["exchanges"]
assert r["counters"]["target"]["delayed_acks"] >= 15, r["counters"]
assert r["capture"]["dropped"] == 0, r["capture"]'
validate "$NT_TMP/node.json" || fail "run JSON (one fix) does not match the schema"

# 3. --fix none,nodelay: both runs in one document, with the comparison. The
# preload says once that it is active; nodelay removes every stall.
run --fix none,nodelay --target "$SERVER 7000" --client "$PYCLIENT target 7000 20" \
	--format json -o "$NT_TMP/cmp.json" -w "$NT_TMP/cmp.pcap"
ok "--fix none,nodelay"
json_check "$NT_TMP/cmp.json" '
rows = {r["fix"]: r for r in doc["comparison"]}
assert list(rows) == ["none", "nodelay"], rows
assert rows["none"]["stalls"] >= 15, rows["none"]
assert rows["nodelay"]["stalls"] == 0, rows["nodelay"]
assert rows["none"]["exchange_p50_ns"] > 20 * rows["nodelay"]["exchange_p50_ns"], rows
assert [r["run"]["fix"] for r in doc["runs"]] == ["none", "nodelay"]
assert doc["runs"][1]["run"]["counters"]["target"]["delayed_acks"] == 0
# Every stall tied to its request: one each, the client holding, the request
# as slow as the stall, and the requests the stalls and the turns count agree.
sr = doc["runs"][0]["run"]["stalled_requests"]
assert len(sr) == rows["none"]["stalls"], (len(sr), rows["none"])
nums = [x["request"] for x in sr]
assert len(set(nums)) == len(nums) and all(2 <= n <= 20 for n in nums), nums
for x in sr:
    assert x["held"] == "client" and x["request_at_ns"] <= x["held_at_ns"], x
    assert x["answer_ns"] >= x["stall_ns"] > DELACK_LO_NS, x
assert doc["runs"][1]["run"]["stalled_requests"] == []'
validate "$NT_TMP/cmp.json" || fail "run JSON (two fixes) does not match the schema"
[ "$(grep -c -- "--fix nodelay: TCP_NODELAY on every TCP socket of python3" "$NT_TMP/err")" = 1 ] ||
	fail "the preload did not announce itself exactly once"
[ -s "$NT_TMP/cmp-none.pcap" ] && [ -s "$NT_TMP/cmp-nodelay.pcap" ] ||
	fail "-w with two fixes: want cmp-none.pcap and cmp-nodelay.pcap"
[ ! -e "$NT_TMP/cmp.pcap" ] || fail "-w with two fixes also wrote cmp.pcap"

# The text report lists the stalled requests, aligned: request 2 starts the list.
run --target "$SERVER 7000" --client "$PYCLIENT target 7000 20" --brief
ok "text, stalled requests"
for re in '^  stalled requests \([0-9]+ stalls; the first ones, --format json lists them all\):$' \
	'^    request   started ms  -> answer ms  held            ACK after ms    lost ms$' \
	'^          2 +[0-9.]+ +[0-9.]+  client 4 B +[0-9.]+ +[0-9.]+$'; do
	grep -qE -- "$re" "$NT_TMP/out" || fail "the text lacks /$re/: $(grep -A3 'stalled requests' "$NT_TMP/out")"
done
awk '/^  stalled requests/ { on = 1; next } on && /^    / { print length($0) } on && !/^    / { exit }' \
	"$NT_TMP/out" | sort -u | wc -l | grep -qx 1 || fail "the stalled requests' lines are not aligned"

# 4. --fix quickack (the target's route) removes them too, in the text table.
run --fix quickack --target "$SERVER 7000" --client "$PYCLIENT target 7000 20" --brief
ok "--fix quickack"
said "$NT_TMP/out" "nagle-trace run: fix quickack"
grep -qE "^  0 stalls" "$NT_TMP/out" || fail "quickack: stalls remain: $(grep stalls "$NT_TMP/out")"

# ... and rto-min=5 (a locked rto_min on the target's route) caps the
# delayed-ACK timer (tcp_delack_max(), Linux >= 6.7): every stall shortens to
# a few jiffies, but the target still delays its ACKs.
run --fix rto-min=5 --threshold 1 --target "$SERVER 7000" --client "$PYCLIENT target 7000 20" \
	--format json -o "$NT_TMP/rto.json"
ok "--fix rto-min=5"
json_check "$NT_TMP/rto.json" '
r = doc["run"]; p50 = r["exchanges"]["p50_ns"]
assert 1e6 <= p50 <= 25e6, f"rto-min=5: request -> answer p50 {p50} ns, want 1..25 ms"
assert r["counters"]["target"]["delayed_acks"] >= 15, r["counters"]
assert doc["summary"]["stalls"] >= 15, doc["summary"]'

# 5. An LD_PRELOAD of the user's is kept, after ours. (The tool inherits it
# too: an ASan build would refuse a library loaded before its runtime, unless
# told not to check.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=libc.so.6 \
	run --fix nodelay --target "$SERVER 7000" --client 'echo "$LD_PRELOAD"' -o /dev/null
grep -qE '^/.*/nt_nodelay\.so libc\.so\.6$' "$NT_TMP/out" || fail "LD_PRELOAD: $(cat "$NT_TMP/out")"

# 6. A client that fails: exit 3, its status and the last lines of its stderr
# quoted, the report still written (and the JSON says so).
run --target "$SERVER 7000" --format json -o "$NT_TMP/fail.json" \
	--client 'for i in 1 2 3 4 5 6 7; do echo "err line $i" >&2; done; exit 7'
[ "$rc" = 3 ] || fail "failing client: exit $rc, want 3"
said "$NT_TMP/err" "nagle-trace: the client failed: exit status 7"
tail_text=$(sed -n '/its stderr ended with:/,$p' "$NT_TMP/err")
echo "$tail_text" | grep -q "| err line 7" || fail "the tail lost the last line"
echo "$tail_text" | grep -q "err line 2" && fail "the tail kept more than 5 lines"
json_check "$NT_TMP/fail.json" '
c = doc["run"]["client"]
assert c["exit_status"] == 7 and "err line 7" in c["stderr_tail"], c'
validate "$NT_TMP/fail.json" || fail "the failing run's JSON does not match the schema"

# 7. A target that never listens: exit 3 within the listen timeout, no client,
# the report written; one that listens only on loopback is named; one that
# exits at once is reported at once with its status.
run --listen-timeout 1 --timeout 30 --target 'sleep 30' --client 'true' -o "$NT_TMP/nl.txt"
[ "$rc" = 3 ] || fail "never listening: exit $rc, want 3"
said "$NT_TMP/err" "the target never listened: not within --listen-timeout 1.000 s"
said "$NT_TMP/nl.txt" "never listened"
said "$NT_TMP/nl.txt" "not started; the run ended: target did not listen in time"
[ "$ms" -ge 900 ] && [ "$ms" -lt 6000 ] || fail "never listening: reported after $ms ms, want ~1 s"
run --listen-timeout 3 --target "$SERVER 7000 --host 127.0.0.1" --client 'true' -o /dev/null
[ "$rc" = 3 ] || fail "loopback listener: exit $rc, want 3"
said "$NT_TMP/err" "(it listened on 127.0.0.1 port 7000, which the client cannot reach)"
run --target 'echo "no config"; exit 5' --client 'true' -o /dev/null
[ "$rc" = 3 ] || fail "exiting target: exit $rc, want 3"
said "$NT_TMP/err" "the target never listened: it exited first, exit status 5"
said "$NT_TMP/err" "target: no config"
[ "$ms" -lt 8000 ] || fail "exiting target: reported after $ms ms, want at once (not --listen-timeout's 10 s)"

# 8. --timeout: exit 3, the report of what was captured written and marked incomplete.
run --timeout 4 --target "$SERVER 7000" --client "$PYCLIENT target 7000 100000" \
	--format json -o "$NT_TMP/to.json"
[ "$rc" = 3 ] || fail "timeout: exit $rc, want 3"
said "$NT_TMP/err" "the run timed out after 4.000 s (--timeout)"
json_check "$NT_TMP/to.json" '
r = doc["run"]
assert r["end"] == "run timed out" and not r["complete"] and r["client"]["terminated"], r
assert doc["summary"]["stalls"] >= 1, doc["summary"]'

# 9. --target-log writes the target's bytes as they come, and not to stderr.
run --target-log "$NT_TMP/target.log" --target "$SERVER 7000" --client 'sleep 0.3' -o /dev/null
grep -qx "server.py: listening on port 7000" "$NT_TMP/target.log" || fail "--target-log"
grep -q "^target: " "$NT_TMP/err" && fail "--target-log: the target's lines still went to stderr"

# 10. Names: `client` and `target` resolve inside both commands; the host's
# files are untouched; and in an IPv6 lab.
before=$(sha256sum /etc/hosts /etc/resolv.conf /etc/nsswitch.conf 2>/dev/null)
run --target "getent hosts client target >&2; exec $SERVER 7000" -o /dev/null \
	--client 'getent hosts target client; echo "addr=$NT_TARGET_ADDR port=$NT_TARGET_PORT"'
ok "names"
grep -qE '^192\.0\.2\.2\s+target$' "$NT_TMP/out" || fail "the client cannot resolve target"
grep -qE '^192\.0\.2\.1\s+client$' "$NT_TMP/out" || fail "the client cannot resolve client"
grep -qx "addr=192.0.2.2 port=7000" "$NT_TMP/out" || fail "NT_TARGET_ADDR/NT_TARGET_PORT"
said "$NT_TMP/err" "target: 192.0.2.1       client"
after=$(sha256sum /etc/hosts /etc/resolv.conf /etc/nsswitch.conf 2>/dev/null)
[ "$before" = "$after" ] || fail "a host /etc file changed"
run --ipv6 --target "$SERVER 7000" --client "$PYCLIENT target 7000 10" --format json \
	-o "$NT_TMP/v6.json"
ok "ipv6"
json_check "$NT_TMP/v6.json" '
r = doc["run"]; f = doc["flows"]
assert r["family"] == "ipv6" and r["target_addr"] == "2001:db8::2", r
assert f and f[0]["family"] == "ipv6" and f[0]["stalls"] >= 7, f
assert r["target_sockets"]["sockets"][0]["client_addr"] == "2001:db8::1", r["target_sockets"]'
# A path with a round-trip time (--rtt): the same stalls, each an RTT dearer,
# found by the RTT-aware detector at the client's end; nothing lost on the wire.
run --rtt 10 --target "$SERVER 7000" --client "$PYCLIENT target 7000 10" --format json \
	-o "$NT_TMP/rtt.json"
ok "rtt"
validate "$NT_TMP/rtt.json"
json_check "$NT_TMP/rtt.json" '
c = doc["run"]["capture"]; s = doc["summary"]
assert (c["rtt_ns"], c["delay_line"], c["wire_dropped"]) == (10000000, "wire", 0), c
assert s["stalls"] >= 7, s
assert doc["run"]["exchanges"]["p50_ns"] >= 50e6, doc["run"]["exchanges"]'
run --rtt -1 --target true --client true
[ "$rc" = 2 ] || fail "run --rtt -1: exit $rc, want 2"

# 11. SIGINT mid-run: exit 130 promptly, the report of what was captured
# written, every process of the run gone.
mark="nt-run-int-$$"
set +e
unshare -Urn "$NAGLE_TRACE" run --target "export NT_MARK=$mark; $SERVER 7000" \
	--client "export NT_MARK=$mark; $PYCLIENT target 7000 100000" --format json \
	-o "$NT_TMP/int.json" >"$NT_TMP/out" 2>"$NT_TMP/err" &
pid=$!
bg=$pid
for _ in $(seq 100); do
	grep -q "server.py: listening" "$NT_TMP/err" && break
	sleep 0.1
done
# Mid-run, known rather than slept for: the client (the marked python3 with "client.py" in
# its command line) has had 20 segments delivered in its namespace, so stalls were seen.
client=""
for _ in $(seq 1000); do
	for e in $(with_mark "$mark"); do
		p=${e#/proc/}
		p=${p%/environ}
		grep -qF client.py "/proc/$p/cmdline" 2>/dev/null && client=$p
	done
	[ -n "$client" ] && break
	sleep 0.01
done
[ -n "$client" ] || fail "SIGINT mid-run: the client never started"
wait_delivered "$client" 20
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
bg=""
set -e
ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 130 ] || { cat "$NT_TMP/err" >&2; fail "SIGINT: exit $rc, want 130"; }
[ "$ms" -lt 4000 ] || fail "SIGINT: the run took $ms ms to end"
said "$NT_TMP/err" "nagle-trace: stopped by a signal: the report covers what was captured"
json_check "$NT_TMP/int.json" '
r = doc["run"]
assert r["interrupted"] and r["end"] == "stopped" and not r["complete"], r
assert doc["summary"]["stalls"] >= 1, doc["summary"]'
no_process_with "$mark"

# 12. SIGKILL of nagle-trace: its init dies with it (PR_SET_PDEATHSIG), and
# with the init the kernel kills the rest of the PID namespace, orphans and a
# process that ignores SIGTERM included.
mark="nt-run-kill-$$"
set +e
unshare -Urn "$NAGLE_TRACE" run --target "export NT_MARK=$mark; $SERVER 7000 & wait" \
	--client "export NT_MARK=$mark; sleep 1000 & (trap '' TERM; sleep 1000) & sleep 1000" \
	-o "$NT_TMP/kill.txt" >"$NT_TMP/out" 2>"$NT_TMP/err" &
pid=$!
bg=$pid
# The run is up when the client's three sleeps are (the client starts once
# the target listens), not when four processes carry the mark: python3 may
# be a wrapper (pyenv's shim runs a chain of short-lived processes, each with
# the mark), and a count of marked processes passed while only the server
# was up. A wait of up to a minute, for a loaded machine.
for _ in $(seq 600); do
	[ "$(sleeps_marked "$mark")" -ge 3 ] && break
	sleep 0.1
done
[ "$(sleeps_marked "$mark")" -ge 3 ] || {
	cat "$NT_TMP/err" >&2
	echo "marked: $(with_mark "$mark" | tr '\n' ' ')" >&2
	process_tree "$pid" >&2
	fail "the run's processes did not start"
}
# Stop the init first: then only the kernel's PR_SET_PDEATHSIG can end it.
init=$(pgrep -P "$pid")
[ -n "$init" ] || fail "no init under nagle-trace"
kill -STOP "$init"
kill -KILL "$pid"
wait "$pid"
bg=""
set -e
no_process_with "$mark"
[ ! -e "$NT_TMP/kill.txt" ] || fail "SIGKILL left a report behind (complete or absent)"

# 13. Third-party pairs from Debian's packages.
# memcached + a bash text-protocol client (command line and data block in two
# writes): nearly every set stalls; --fix nodelay (the preload reaches bash)
# removes them. memcslap writes each request whole (full-sized segments and a
# tail that Minshall's rule lets go, tcp_minshall_check()): no stall.
MC='memcached -u root -p 11211 -l 0.0.0.0'
run --fix none,nodelay --target "$MC" --client "bash $PROGS/memcache_set.sh target 11211 20" \
	--format json -o "$NT_TMP/mc.json"
ok "memcached + bash client"
json_check "$NT_TMP/mc.json" '
rows = {r["fix"]: r for r in doc["comparison"]}
assert rows["none"]["stalls"] >= 15 and rows["nodelay"]["stalls"] == 0, rows'
run --target "$MC" --client 'memcslap --servers=target:11211 --concurrency=1 --execute-number=500 --binary' \
	--format json -o "$NT_TMP/mcslap.json"
ok "memcached + memcslap"
json_check "$NT_TMP/mcslap.json" '
assert doc["summary"]["stalls"] == 0, doc["summary"]
assert doc["run"]["exchanges"]["count"] >= 500, doc["run"]["exchanges"]'
# redis-server + redis-benchmark: both ends set TCP_NODELAY (redis on every
# client socket, hiredis on its own) and every command and reply is one
# write: no stall, and the target's delayed-ACK timer never fires.
run --target 'redis-server --port 6379 --save "" --appendonly no --protected-mode no' \
	--client 'redis-benchmark -h target -c 1 -n 1000 -q -t set,get' --format json \
	-o "$NT_TMP/redis.json"
ok "redis"
json_check "$NT_TMP/redis.json" '
r = doc["run"]
assert doc["summary"]["stalls"] == 0, doc["summary"]
assert r["exchanges"]["count"] >= 2000, r["exchanges"]
assert r["counters"]["target"]["delayed_acks"] == 0, r["counters"]
assert r["target"]["exit_status"] == 0 and r["target"]["terminated"], r["target"]'
# Python's http.server on HTTP/1.1 writes headers and body in two send()
# calls: small files stall on every request after the first; the preload on
# the target (nodelay-target) fixes it, the client's (nodelay) does not.
urls=""
for _ in $(seq 10); do urls="$urls -o /dev/null http://target:8000/LICENSE"; done
run --fix none,nodelay,nodelay-target --target "cd $NT_SOURCE_DIR && exec python3 -m http.server 8000 --protocol HTTP/1.1" \
	--client "curl -sf $urls" --format json -o "$NT_TMP/http.json"
ok "http.server + curl"
json_check "$NT_TMP/http.json" '
rows = {r["fix"]: r for r in doc["comparison"]}
assert rows["none"]["stalls"] >= 7, rows["none"]
assert rows["nodelay"]["stalls"] >= 7, rows["nodelay"]
assert rows["nodelay-target"]["stalls"] == 0, rows["nodelay-target"]'

# 14. Usage errors: exit 2, the reason on the first line.
for args in "--target x" "--client y" "--target x --client y --fix bogus" \
	"--target x --client y --fix none,none" "--target x --client y --fix rto-min=0" \
	"--target x --client y --wait-port 70000" "--target x --client y --timeout abc" \
	"--target x --client y --fix none,nodelay --format svg" "--target x --client y extra" \
	"--target x --client y --capture none -w x.pcap" "--target x --client y --format yaml"; do
	# shellcheck disable=SC2086
	run $args
	[ "$rc" = 2 ] || fail "run $args: exit $rc, want 2"
	grep -q "^nagle-trace: " "$NT_TMP/err" || fail "run $args: no message"
	[ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "run $args: want one line and the hint"
done
run --help
ok "--help"
said "$NT_TMP/out" "usage: unshare -Urn nagle-trace run --target CMD --client CMD"

# 15. The schema can fail: a document with an unknown fix is rejected.
python3 - "$NT_TMP/node.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["fix"] = "faster"
json.dump(d, open(sys.argv[1], "w"))
PY
if validate "$NT_TMP/node.json" 2>/dev/null; then fail "the schema accepted an unknown fix"; fi

echo "test_run: ok"
