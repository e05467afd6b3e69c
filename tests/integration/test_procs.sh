#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The process side of `nagle-trace run` (src/live/procs*.c) end to end, through
# tests/tools/run_probe: the user's target and client in the lab under an init
# of ours, with a capture analysed by `nagle-trace analyze`.
#
# Real clients stall (Python, Node), the nodelay preload removes the stall,
# a failing client is reported with its stderr tail, a target that never
# listens is reported within the listen timeout and one that exits at once is
# reported at once, SIGINT ends the run promptly, SIGKILL of the tool leaves no
# process behind, and `client`/`target` resolve inside the commands while the
# host's /etc files stay untouched. One third-party pair that stalls (Python's
# http.server on HTTP/1.1, a small file) and one that does not (redis).
set -eu
. "$(dirname "$0")/lib.sh"
: "${RUN_PROBE:?RUN_PROBE must point at the run_probe binary}"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
need_unshare
need_tool python3
need_tool node
need_tool getent
need_tool curl
need_tool redis-server
need_tool redis-benchmark
PROGS="$NT_SOURCE_DIR/tests/programs"
# A run left in the background by a failing check is ended with the test.
bg=""
trap '[ -n "$bg" ] && kill -KILL "$bg" 2>/dev/null; rm -rf "$NT_TMP"' EXIT
SERVER="python3 $PROGS/server.py"

# probe ARGS...: run_probe in a fresh user+network namespace; sets $rc, $ms;
# stdout in $NT_TMP/out, stderr in $NT_TMP/err.
probe() {
	local start
	start=$(date +%s%N)
	set +e
	unshare -Urn "$RUN_PROBE" "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	rc=$?
	set -e
	ms=$((($(date +%s%N) - start) / 1000000))
}

# said TEXT: the probe's stderr has the line (fixed string).
said() {
	grep -qF -- "$1" "$NT_TMP/err" || {
		cat "$NT_TMP/err" >&2
		fail "stderr lacks \"$1\""
	}
}

# stalls PCAP: the number of stalls `nagle-trace analyze` finds.
stalls() {
	"$NAGLE_TRACE" analyze --format json "$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["stalls"])'
}

# with_mark MARK: the processes whose environment has NT_MARK=MARK (the commands
# export it; the environment, not the command line, so grep does not find itself).
with_mark() {
	grep -lsF -- "NT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null || true
}

# no_process_with MARK: none is left, within a second.
no_process_with() {
	for _ in $(seq 10); do
		[ -z "$(with_mark "$1")" ] && return 0
		sleep 0.1
	done
	fail "processes of the run are left: $(with_mark "$1")"
}

# 1. The Python client (two sendall() per request) stalls on nearly every request.
probe --target "$SERVER 7000" --client "python3 $PROGS/client.py target 7000 20" -w "$NT_TMP/py.pcap"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "python client: exit $rc"; }
grep -q "client.py: 20 requests" "$NT_TMP/out" || fail "the client's stdout did not pass through"
said "target: server.py: listening on port 7000"
said "run_probe: listening: :: port 7000"
n=$(stalls "$NT_TMP/py.pcap")
[ "$n" -ge 15 ] || fail "python client: $n stalls in 20 requests, want at least 15"

# 2. The Node client: net.Socket leaves Nagle on.
probe --target "$SERVER 7000" --client "node $PROGS/client.js target 7000 20" -w "$NT_TMP/node.pcap"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "node client: exit $rc"; }
n=$(stalls "$NT_TMP/node.pcap")
[ "$n" -ge 15 ] || fail "node client: $n stalls in 20 requests, want at least 15"

# 3. --fix nodelay: the preload gives the client's socket TCP_NODELAY; it says so once.
probe --fix nodelay --target "$SERVER 7000" --client "python3 $PROGS/client.py target 7000 20" \
	-w "$NT_TMP/fix.pcap"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "nodelay: exit $rc"; }
n=$(stalls "$NT_TMP/fix.pcap")
[ "$n" = 0 ] || fail "nodelay preload: $n stalls, want 0"
[ "$(grep -c -- "--fix nodelay: TCP_NODELAY on every TCP socket of python3" "$NT_TMP/err")" = 1 ] ||
	fail "the preload did not announce itself exactly once"
# An LD_PRELOAD of the user's is kept, after ours. (The tool inherits it too: an
# ASan build would refuse a library loaded before its runtime, unless told not to check.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=libc.so.6 probe --fix nodelay --target "$SERVER 7000" --client 'echo "$LD_PRELOAD"'
grep -qE '^/.*/nt_nodelay\.so libc\.so\.6$' "$NT_TMP/out" || fail "LD_PRELOAD: $(cat "$NT_TMP/out")"

# 4. A client that fails: its status and the tail of its stderr are reported.
probe --target "$SERVER 7000" \
	--client 'for i in 1 2 3 4 5 6 7; do echo "err line $i" >&2; done; exit 3'
[ "$rc" = 3 ] || fail "failing client: exit $rc, want its status 3"
said "run_probe: client: exit status 3"
said "err line 7"
tail_text=$(sed -n '/client stderr tail:/,$p' "$NT_TMP/err")
echo "$tail_text" | grep -q "err line 2" && fail "the tail kept more than 5 lines"
echo "$tail_text" | grep -q "err line 3" || fail "the tail lost line 3 (of the last 5)"

# 5. A target that never listens: reported within the listen timeout, not the run's.
probe --listen-timeout 1 --timeout 30 --target 'sleep 30' --client 'true'
[ "$rc" = 3 ] || fail "never listening: exit $rc, want 3"
said "run_probe: end: target did not listen in time"
said "run_probe: client: not started"
[ "$ms" -ge 900 ] && [ "$ms" -lt 5000 ] || fail "never listening: reported after $ms ms, want ~1 s"
# ... one that listens only on loopback is named (the client could not reach it).
probe --listen-timeout 1 --target "$SERVER 7000 --host 127.0.0.1" --client 'true'
said "run_probe: unreachable listener: 127.0.0.1 port 7000"
# ... and one that exits at once is reported at once, with its status.
probe --listen-timeout 10 --target 'echo "no config"; exit 5' --client 'true'
[ "$rc" = 3 ] || fail "exiting target: exit $rc, want 3"
said "run_probe: end: target exited before it listened"
said "run_probe: target: exit status 5"
said "target: no config"
[ "$ms" -lt 3000 ] || fail "exiting target: reported after $ms ms, want at once"

# 6. The target's partial last line is flushed; --target-log writes its bytes as they are.
# (The client waits a little: the server prints its line just after listen(), when
# the client may already have started and ended the run.)
probe --target "printf 'no newline'; exec $SERVER 7000" --client 'sleep 0.3'
said "target: no newline"
probe --target-log "$NT_TMP/target.log" --target "$SERVER 7000" --client 'sleep 0.3'
grep -qx "server.py: listening on port 7000" "$NT_TMP/target.log" || fail "--target-log"
grep -q "^target: " "$NT_TMP/err" && fail "--target-log: the target's lines still went to stderr"

# 7. Names: `client` and `target` resolve inside both commands; the host's files are untouched.
before=$(sha256sum /etc/hosts /etc/resolv.conf /etc/nsswitch.conf 2>/dev/null)
probe --target "getent hosts client target >&2; exec $SERVER 7000" \
	--client 'getent hosts target client; echo "addr=$NT_TARGET_ADDR port=$NT_TARGET_PORT"'
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "names: exit $rc"; }
grep -qE '^192\.0\.2\.2\s+target$' "$NT_TMP/out" || fail "the client cannot resolve target"
grep -qE '^192\.0\.2\.1\s+client$' "$NT_TMP/out" || fail "the client cannot resolve client"
grep -qx "addr=192.0.2.2 port=7000" "$NT_TMP/out" || fail "NT_TARGET_ADDR/NT_TARGET_PORT"
said "target: 192.0.2.1       client"
after=$(sha256sum /etc/hosts /etc/resolv.conf /etc/nsswitch.conf 2>/dev/null)
[ "$before" = "$after" ] || fail "a host /etc file changed"
# ... and in an IPv6 lab.
probe --ipv6 --target "$SERVER 7000" --client "getent ahosts target | head -1; python3 $PROGS/client.py target 7000 3"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "ipv6: exit $rc"; }
grep -q "^2001:db8::2 " "$NT_TMP/out" || fail "ipv6: target is not 2001:db8::2"

# 8. SIGINT mid-run: the run ends promptly (130), every process of it gone.
mark="nt-procs-int-$$"
set +e
unshare -Urn "$RUN_PROBE" --target "export NT_MARK=$mark; $SERVER 7000" \
	--client "export NT_MARK=$mark; python3 $PROGS/client.py target 7000 100000" \
	>"$NT_TMP/out" 2>"$NT_TMP/err" &
pid=$!
bg=$pid
sleep 1.5
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
bg=""
set -e
ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 130 ] || { cat "$NT_TMP/err" >&2; fail "SIGINT: exit $rc, want 130"; }
[ "$ms" -lt 3000 ] || fail "SIGINT: the run took $ms ms to end"
said "run_probe: end: stopped"
said "terminated by us"
no_process_with "$mark"

# 9. SIGKILL of the tool: its init dies with it (PR_SET_PDEATHSIG; the init
# would also end everything on its socket's EOF), and with the init the kernel
# kills the rest of the PID namespace, orphans included.
mark="nt-procs-kill-$$"
set +e
unshare -Urn "$RUN_PROBE" --target "export NT_MARK=$mark; $SERVER 7000 & wait" \
	--client "export NT_MARK=$mark; sleep 1000 & (trap '' TERM; sleep 1000) & sleep 1000" \
	>"$NT_TMP/out" 2>"$NT_TMP/err" &
pid=$!
bg=$pid
# The server and the client's three sleeps (one ignoring SIGTERM); the shells
# exported the mark after they started, so their own environ lacks it. (Up to
# 20 s: on a loaded machine pyenv's python3 shim alone took seconds to start.)
for _ in $(seq 200); do
	[ "$(with_mark "$mark" | wc -l)" -ge 4 ] && break
	sleep 0.1
done
[ "$(with_mark "$mark" | wc -l)" -ge 4 ] || {
	cat "$NT_TMP/err" >&2
	with_mark "$mark" >&2
	fail "the run's processes did not start"
}
# Stop the init first: it cannot act on its socket's EOF, so only the kernel's
# PR_SET_PDEATHSIG (a SIGKILL, which ends a stopped process too) can end it.
init=$(pgrep -P "$pid")
[ -n "$init" ] || fail "no init under run_probe"
kill -STOP "$init"
kill -KILL "$pid"
wait "$pid"
bg=""
set -e
no_process_with "$mark"

# 10. Third-party pairs. Python's http.server speaking HTTP/1.1 writes a
# response's headers and body in two send() calls without TCP_NODELAY: small
# files stall on every request after the first; the preload on the target
# fixes it. redis sets TCP_NODELAY on both ends and writes each command whole.
urls=""
for _ in $(seq 10); do urls="$urls -o /dev/null http://target:8000/LICENSE"; done
http_target="cd $NT_SOURCE_DIR && exec python3 -m http.server 8000 --protocol HTTP/1.1"
probe --target "$http_target" --client "curl -sf $urls" -w "$NT_TMP/http.pcap"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "http.server + curl: exit $rc"; }
n=$(stalls "$NT_TMP/http.pcap")
[ "$n" -ge 7 ] || fail "http.server HTTP/1.1 + curl: $n stalls in 10 requests, want at least 7"
probe --fix nodelay-target --target "$http_target" --client "curl -sf $urls" -w "$NT_TMP/http-fix.pcap"
n=$(stalls "$NT_TMP/http-fix.pcap")
[ "$n" = 0 ] || fail "http.server with the preload: $n stalls, want 0"
probe --target 'redis-server --port 6379 --save "" --appendonly no --protected-mode no' \
	--client 'redis-benchmark -h target -c 1 -n 500 -q -t set,get' -w "$NT_TMP/redis.pcap"
[ "$rc" = 0 ] || { cat "$NT_TMP/err" >&2; fail "redis: exit $rc"; }
said "run_probe: target: exit status 0, terminated by us"
n=$(stalls "$NT_TMP/redis.pcap")
[ "$n" = 0 ] || fail "redis: $n stalls, want 0"

echo "test_procs: ok"
