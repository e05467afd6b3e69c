#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every sentence of a live trace holds against the events it describes
# (tests/tools/check_sentences.py), and every pure ACK and data segment of a
# round, the handshake and the teardown carries a why, on the knob sets whose
# sentences were once wrong: a 60 ms write gap, a two-segment header,
# TCP_QUICKACK once with ping-pong threshold 2, six rounds, a body of several
# segments, a delay line, every variant.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

check="$NT_SOURCE_DIR/tests/tools/check_sentences.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

i=0
while read -r args; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # the knob set is split on purpose
	nt $args --format json -o "$work/$i.json"
	[ "$rc" -eq 0 ] || fail "nagle-trace $args: exit $rc"
	python3 "$check" "$work/$i.json" >"$work/$i.out" ||
		fail "nagle-trace $args: $(head -3 "$work/$i.out")"
	json_check "$work/$i.json" '
runs = doc["runs"] if "runs" in doc else [doc]
for run in runs:
    for e in run["handshake"] + run["teardown"]:
        if e["kind"] == "segment" and e["role"] in ("pure-ack", "handshake-ack"):
            assert e.get("why"), ("no why", run["variant"], e["role"], e["frame"])
'
done <<'KNOBS'
--write-gap-ms 60
--header 1460 --body 8
--variant quickack-once --pingpong-thresh 2 --rounds 8
--rounds 6
--body 4000
--rtt 10
--variant all
KNOBS
echo "ok: $i knob sets, every sentence holds"
