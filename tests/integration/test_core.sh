#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The core promise: with no options, round 1 is fast and rounds 2-4 stall for
# ~40 ms with the causal order header -> pure ACK -> body, exit 0.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

nt --format json -o "$NT_TMP/run.json"
[ "$rc" = 0 ] || fail "default run exited $rc"

json_check "$NT_TMP/run.json" '
assert doc["schema_version"] == 3
assert doc["variant"] == "default"
c = doc["config"]
assert (c["header_bytes"], c["body_bytes"], c["reply_bytes"], c["rounds"]) == (4, 8, 2, 4), c
assert c["client"]["addr"] == "192.0.2.1" and c["target"]["addr"] == "192.0.2.2"
rounds = doc["rounds"]
assert [r["index"] for r in rounds] == [1, 2, 3, 4]
assert rounds[0]["verdict"] == "held", rounds[0]["verdict"]
for r in rounds[1:]:
    assert r["verdict"] == "stalled", (r["index"], r["verdict"])
    # Windows, never exact milliseconds: a stall lasts from DELACK_LO_NS to 250 ms.
    assert DELACK_LO_NS <= r["header_ack_gap_ns"] <= 250e6, r["header_ack_gap_ns"]
    assert DELACK_LO_NS <= r["rtt_ns"] <= 260e6, r["rtt_ns"]
    ev = r["events"]
    segs = [e for e in ev if e["kind"] == "segment"]
    for e in ev:
        assert isinstance(e["t_ns"], int) and e["t_ns"] > 1.6e18
    hdr = next(i for i, e in enumerate(ev) if e["kind"] == "segment" and e["role"] == "header")
    ack = next(i for i, e in enumerate(ev) if e["kind"] == "segment" and e["role"] == "pure-ack" and e["dir"] == "t2c")
    body = next(i for i, e in enumerate(ev) if e["kind"] == "segment" and e["role"] == "body")
    assert hdr < ack < body, (hdr, ack, body)
    assert ev[ack]["ack"] == ev[hdr]["seq"] + ev[hdr]["len"], "the pure ACK covers exactly the header"
    wb = next(e for e in ev if e["kind"] == "syscall" and e["call"] == "write-body")
    # write(body) returned long before the body left: the kernel held it.
    assert ev[body]["t_ns"] - wb["t_ns"] > 30e6, ev[body]["t_ns"] - wb["t_ns"]
    # and the ACK released it: the body is the next segment after the ACK
    # (how soon is up to the scheduler: no bound a shared machine keeps).
    assert segs.index(ev[body]) == segs.index(ev[ack]) + 1, (ev[ack], ev[body])
    assert ev[hdr]["dir"] == "c2t" and ev[body]["dir"] == "c2t"
s = doc["summary"]
assert s["stalled_rounds"] == 3 and s["verdicts"]["held"] == 1, s
assert s["dropped"] == 0 and s["uncertain"] is False and s["teardown_seen"] is True
assert s["expectation"]["met"] is True
roles = [e["role"] for e in doc["handshake"]]
assert roles == ["syn", "syn-ack", "handshake-ack"], roles
assert any(e["role"] == "fin" for e in doc["teardown"])
'

# The text report names the stall and the fix, and says round 1 was fast.
nt >"$NT_TMP/run.txt"
[ "$rc" = 0 ] || fail "text run exited $rc"
# From the first round named disturbed (the programs were not scheduled in
# time, docs/model.md) the kernel may do otherwise, as its rules allow.
first_disturbed=$(awk '/^round [0-9]+ /{n=$2} /^  disturbed: /{print n; exit}' "$NT_TMP/run.txt")
first_disturbed=${first_disturbed:-5}
[ "$first_disturbed" -le 1 ] || grep -q '^round 1  held' "$NT_TMP/run.txt" ||
	fail "round 1 not reported held"
for i in 2 3 4; do
	[ "$i" -lt "$first_disturbed" ] || break
	grep -q "^round $i  stalled  round trip [0-9.]* ms  header->ACK [0-9.]* ms" "$NT_TMP/run.txt" ||
		fail "round $i not reported stalled"
done
grep -q 'stall: body held by Nagle' "$NT_TMP/run.txt" || fail "no stall marker"
grep -q '^  fix: send header and body in one write' "$NT_TMP/run.txt" || fail "no fix line"
grep -q '^  expectation (auto): met' "$NT_TMP/run.txt" || fail "no expectation line"

# An expectation that does not hold: exit 1, with the reason on stderr.
nt --expect coalesced --summary >/dev/null 2>"$NT_TMP/err"
[ "$rc" = 1 ] || fail "--expect coalesced exited $rc, want 1"
grep -q 'round 2 was stalled, expected coalesced' "$NT_TMP/err" || fail "no reason: $(cat "$NT_TMP/err")"
# The documented maximum body (16 MiB): no frame dropped (the default picks
# libpcap's ring, sized from the round's bytes), the model's verdicts met. An
# explicit packet back end cannot hold such a round in a user namespace: it
# says so and exits 1, never a verdict presented as certain.
for backend in auto pcap; do
	nt --body 16777216 --rounds 2 --capture "$backend" --format json -o "$NT_TMP/big.json"
	[ "$rc" = 0 ] || fail "--body 16777216 --capture $backend exited $rc"
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]; assert s["dropped"] == 0 and not s["uncertain"], s' \
		"$NT_TMP/big.json" || fail "--body 16777216 --capture $backend dropped frames"
done
grep -q '"capture": "pcap"' "$NT_TMP/big.json" || fail "a 16 MiB round was not captured with pcap"
nt --body 16777216 --rounds 2 --capture packet --brief >/dev/null 2>"$NT_TMP/err"
if [ "$rc" = 0 ]; then
	grep -q 'dropped' "$NT_TMP/err" && fail "exit 0 with dropped frames"
else
	[ "$rc" = 1 ] || fail "--capture packet --body 16777216: exit $rc"
	grep -q 'the capture dropped [0-9]* frames: verdicts are uncertain' "$NT_TMP/err" ||
		fail "--capture packet --body 16777216: $(cat "$NT_TMP/err")"
fi
echo "ok"
