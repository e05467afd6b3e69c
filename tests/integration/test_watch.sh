#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nagle-trace watch on a host it does not own: a network namespace this test
# makes (unshare -n, as real root: tcpdump cannot capture inside unshare -Urn,
# see docs/hacking.md) plays the production host. In it the Python two-write
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
export NT_TMP NAGLE_TRACE NT_SOURCE_DIR py
unshare -n bash "$NT_SOURCE_DIR/tests/integration/watch_host.sh" || fail "watch on a host namespace"
echo ok
