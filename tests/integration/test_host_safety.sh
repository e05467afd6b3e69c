#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run as real root in the caller's own namespace: nothing there may change,
# not after a clean run and not after SIGKILL in the middle of one.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_tool ip

snapshot() {
	{
		ip -d -o link show | sed 's/ link-netnsid [0-9]*//'
		ip -o addr show
		ip route show table all
		ip -6 route show table all
		ip rule show
		ip -6 rule show
		ls -la /run/netns 2>&1 || true
		for k in ipv4/tcp_autocorking ipv4/tcp_pingpong_thresh ipv4/tcp_timestamps; do
			printf '%s=%s\n' "$k" "$(cat /proc/sys/net/$k)"
		done
	} | sed 's/ \(RX\|TX\):.*//' >"$1"
}

snapshot "$NT_TMP/before"
set +e
"$NAGLE_TRACE" --variant default,route-quickack,autocork-off --pingpong-thresh 3 \
	--expect any --summary >"$NT_TMP/out" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || fail "run as real root exited $rc: $(cat "$NT_TMP/out")"
snapshot "$NT_TMP/after"
diff -u "$NT_TMP/before" "$NT_TMP/after" || fail "the caller's network changed"

# SIGKILL mid-run: the namespaces were held by descriptors only.
"$NAGLE_TRACE" --rounds 50 --pause 50 --summary >/dev/null 2>&1 &
pid=$!
# Mid-exchange, not after a guessed time: the lab exists and segments flow in it.
wait_delivered "$pid" 4
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
snapshot "$NT_TMP/killed"
diff -u "$NT_TMP/before" "$NT_TMP/killed" || fail "SIGKILL left something behind"

# Two runs at once do not interfere.
"$NAGLE_TRACE" --summary >"$NT_TMP/a" 2>&1 &
a=$!
"$NAGLE_TRACE" --summary >"$NT_TMP/b" 2>&1 &
b=$!
wait "$a" || fail "concurrent run A failed: $(cat "$NT_TMP/a")"
wait "$b" || fail "concurrent run B failed: $(cat "$NT_TMP/b")"
echo "ok"
