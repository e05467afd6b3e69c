#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nagle-trace watch on a host it does not own: a network namespace this test
# makes (unshare -n, as real root: tcpdump cannot capture inside unshare -Urn,
# see docs/hacking.md) plays the production host, with a PID namespace of
# its own (so watch sees no process of the real host, and none of its
# network namespaces). In it the Python two-write
# client and server stall, redis-server + redis-benchmark and the same
# client with TCP_NODELAY do not. watch must:
#   - name every stalled flow, with the right pid and command on both ends,
#     the target's ping-pong bit and ato, and no flow of redis or of the
#     NODELAY client;
#   - give, stall for stall, the held segment, late ACK and release that
#     analyze finds in a tcpdump capture of the same link taken at the same
#     time (read back from analyze --annotate's comments by tshark);
#   - leave links, addresses, routes, rules and every /proc/sys/net value as
#     they were;
#   - name the process, namespace and tcp_info of a client in a container (a
#     network namespace inside the host's); without CAP_SYS_ADMIN say in one
#     line that it cannot enter it;
#   - refuse without CAP_NET_RAW in one line, exit 3 (environment);
#   - end on an interface that goes away, with its summary, exit 3;
#   - print its summary on SIGINT (130) and SIGTERM (143).
set -eu
. "$(dirname "$0")/lib.sh"
need_root
for t in tcpdump tshark redis-server redis-benchmark setpriv ip python3; do
	need_tool "$t"
done
need_jsonschema
# The bash completion knows the command, its options and its formats.
"$NAGLE_TRACE" completion bash >"$NT_TMP/completion.bash"
out=$(bash -c '. "$1"; COMP_WORDS=(nagle-trace wat); COMP_CWORD=1; _nagle_trace
	printf "%s\n" "${COMPREPLY[@]}"' _ "$NT_TMP/completion.bash")
[ "$out" = watch ] || fail "completion of 'wat': $out"
out=$(bash -c '. "$1"; COMP_WORDS=(nagle-trace watch --dur); COMP_CWORD=2; _nagle_trace
	printf "%s\n" "${COMPREPLY[@]}"' _ "$NT_TMP/completion.bash")
[ "$out" = --duration ] || fail "completion of watch --dur: $out"
out=$(bash -c '. "$1"; COMP_WORDS=(nagle-trace watch --format j); COMP_CWORD=3; _nagle_trace
	printf "%s\n" "${COMPREPLY[@]}"' _ "$NT_TMP/completion.bash")
[ "$out" = jsonl ] || fail "completion of watch --format j: $out"

export NT_TMP NAGLE_TRACE NT_SOURCE_DIR py
unshare -n --pid --fork --mount-proc bash "$NT_SOURCE_DIR/tests/integration/watch_host.sh" || fail "watch on a host namespace"
echo ok
