# SPDX-License-Identifier: MIT
# Waiting for an event, not for a time. Sourced (lib.sh, test_formats.sh), not run;
# the caller defines fail().

# delivered PID: the segments delivered in PID's network namespace (TcpExt TCPDelivered
# in /proc/PID/net/netstat), printed only once that namespace is not ours. Until
# `unshare -Urn` has unshared (or the forked shell has exec'd it), /proc/PID/net is
# the caller's namespace, whose counter counts the host's own traffic: read then, it
# would say "under way" before the program had even installed its signal handlers.
delivered() {
	local ns
	ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) || return 0
	[ "$ns" != "$(readlink /proc/self/ns/net)" ] || return 0
	awk '/^TcpExt:/ { if (!h) { n = split($0, k); h = 1 } else { split($0, v)
		for (i = 1; i <= n; i++) if (k[i] == "TCPDelivered") print v[i] } }' \
		"/proc/$1/net/netstat" 2>/dev/null || true
}

# wait_delivered PID N: wait until the process PID's network namespace (its client's,
# made by the program) has delivered N segments, i.e. its exchange is under way,
# instead of sleeping and hoping it is. Fails after 30 s, or when PID ends first.
wait_delivered() {
	local pid=$1 want=$2 got
	for _ in $(seq 3000); do
		kill -0 "$pid" 2>/dev/null || fail "pid $pid ended before delivering $want segments"
		got=$(delivered "$pid")
		[ -n "$got" ] && [ "$got" -ge "$want" ] && return 0
		sleep 0.01
	done
	fail "pid $pid delivered ${got:-no} segments in 30 s, not $want"
}
