# SPDX-License-Identifier: MIT
# Waiting for an event, not for a time. Sourced (lib.sh, test_formats.sh), not run;
# the caller defines fail().
# wait_delivered PID N: wait until the process PID's network namespace has
# delivered N segments (TcpExt TCPDelivered in /proc/PID/net/netstat: its
# client's namespace), i.e. its exchange is under way, instead of sleeping
# and hoping it is. Fails after 30 s, or when PID ends first.
wait_delivered() {
	local pid=$1 want=$2 got
	for _ in $(seq 3000); do
		kill -0 "$pid" 2>/dev/null || fail "pid $pid ended before delivering $want segments"
		got=$(awk '/^TcpExt:/ { if (!h) { n = split($0, k); h = 1 } else { split($0, v)
			for (i = 1; i <= n; i++) if (k[i] == "TCPDelivered") print v[i] } }' \
			"/proc/$pid/net/netstat" 2>/dev/null || true)
		[ -n "$got" ] && [ "$got" -ge "$want" ] && return 0
		sleep 0.01
	done
	fail "pid $pid delivered ${got:-no} segments in 30 s, not $want"
}
