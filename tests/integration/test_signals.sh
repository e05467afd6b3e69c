#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Signals and faults: SIGINT/SIGTERM render what was captured and exit
# 130/143; SIGPIPE ends quietly; a round that cannot complete in --timeout
# ends in bounded time naming the round and the step.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

# stop_with SIG FILE: start a long run writing JSON to FILE, send SIG mid-run; sets $rc.
stop_with() {
	local sig=$1 out=$2
	set +e
	unshare -Urn "$NAGLE_TRACE" --rounds 200 --pause 20 --format json -o "$out" &
	local pid=$!
	# Mid-run: a few rounds delivered (two segments each at least), not a guess at the time.
	wait_delivered "$pid" 8
	# unshare execs nagle-trace in place: the pid is the program's.
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
	set -e
}

stop_with INT "$NT_TMP/int.json"
[ "$rc" = 130 ] || fail "SIGINT: exit $rc, want 130"
json_check "$NT_TMP/int.json" '
assert doc["interrupted"] is True and doc["summary"]["interrupted"] is True
n = doc["summary"]["rounds"]
assert 2 <= n < 200, n
assert len(doc["rounds"]) == n
assert doc["summary"]["expectation"]["met"] is False
assert doc["summary"]["expectation"]["reason"] == "the run was interrupted"
assert doc["rounds"][1]["verdict"] == "stalled"
'
ls "$NT_TMP" | grep -q 'int.json.' && fail "a temporary file was left behind"

stop_with TERM "$NT_TMP/term.json"
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, want 143"
json_check "$NT_TMP/term.json" 'assert doc["interrupted"] is True'

# Several variants: each capture is closed by a background thread while the next variant
# runs (src/capture/closer.c). SIGINT must still reach the exchange at once (the closer
# blocks every signal), the runs made so far are written, and the closes are waited for.
set +e
unshare -Urn "$NAGLE_TRACE" --variant nodelay,writev,default,cork --rounds 20 --pause 5 \
	--format json -o "$NT_TMP/multi.json" &
pid=$!
# Into the second variant: each variant has a lab of its own, so the counter of the
# process's namespace falls back to 0 when the second begins; then 4 segments into it.
prev=0 falls=0
for _ in $(seq 3000); do
	kill -0 "$pid" 2>/dev/null || fail "the run ended before its second variant was under way"
	# Empty until the program is in a namespace of its own: the host's counter is no fall.
	got=$(delivered "$pid")
	[ -n "$got" ] || { sleep 0.01; continue; }
	[ "$got" -lt "$prev" ] && falls=$((falls + 1))
	prev=$got
	[ "$falls" -ge 1 ] && [ "$got" -ge 4 ] && break
	sleep 0.01
done
[ "$falls" -ge 1 ] && [ "${got:-0}" -ge 4 ] || fail "the second variant never got under way"
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
end=$(date +%s%N)
set -e
[ "$rc" = 130 ] || fail "SIGINT during several variants: exit $rc, want 130"
[ $(((end - start) / 1000000)) -lt 1000 ] ||
	fail "SIGINT during several variants took $(((end - start) / 1000000)) ms to end the run"
json_check "$NT_TMP/multi.json" '
runs = doc["runs"]
names = [r["variant"] for r in runs]
assert 2 <= len(runs) <= 4 and names == ["nodelay", "writev", "default", "cork"][:len(runs)], names
assert all(r["summary"]["rounds"] == 20 and not r["interrupted"] for r in runs[:-1])
assert runs[-1]["interrupted"] is True
assert all(r["summary"]["timings"]["close_ns"] > 0 for r in runs)
'

# | head: the reader goes away; no error message, no crash.
set +e
unshare -Urn "$NAGLE_TRACE" --rounds 30 2>"$NT_TMP/pipe.err" | head -1 >/dev/null
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || fail "| head: exit $status, want 0"
[ ! -s "$NT_TMP/pipe.err" ] || fail "| head printed: $(cat "$NT_TMP/pipe.err")"

# A round that cannot finish in time: bounded, exit 3, names the round and the step.
start=$(date +%s%N)
nt --timeout 10 2>"$NT_TMP/to.err" >/dev/null
end=$(date +%s%N)
[ "$rc" = 3 ] || fail "--timeout 10: exit $rc, want 3"
grep -q '^nagle-trace: round 2 did not complete within 10 ms: still waiting for ' "$NT_TMP/to.err" ||
	fail "timeout message: $(cat "$NT_TMP/to.err")"
[ $(((end - start) / 1000000)) -lt 3000 ] || fail "the timeout took $(((end - start) / 1000000)) ms"
echo "ok"
