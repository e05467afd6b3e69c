#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every variant's verdicts on rounds 2..N, the ping-pong sawtooth, the MSS
# boundary, IPv6 and an application gap between the writes.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

nt --variant all --rounds 5 --format json -o "$NT_TMP/all.json"
[ "$rc" = 0 ] || fail "--variant all exited $rc"
json_check "$NT_TMP/all.json" '
want = {
    "default": "stalled", "nodelay": "unheld", "one-write": "coalesced", "writev": "coalesced",
    "cork": "coalesced", "msg-more": "coalesced", "quickack-once": "stalled",
    "quickack-rearm": "held", "route-quickack": "held", "nodelay-server": "stalled",
    "autocork-off": "stalled",
}
runs = {r["variant"]: r for r in doc["runs"]}
assert sorted(runs) == sorted(want), sorted(runs)
for name, verdict in want.items():
    got = [r["verdict"] for r in runs[name]["rounds"][1:]]
    assert got == [verdict] * 4, (name, got)
    assert runs[name]["summary"]["expectation"]["met"], name
    segs = runs[name]["summary"]["client_data_segments"]
    assert segs == (5 if verdict == "coalesced" else 10), (name, segs)
    # Causality, on one clock: no data is seen on the wire after the read that
    # consumed it returned, and no request data before the write that made it.
    for r in runs[name]["rounds"]:
        ev = r["events"]
        calls = {e["call"]: e for e in ev if e["kind"] == "syscall"}
        first_write = min(e["enter_ns"] for e in ev if e["kind"] == "syscall" and e["call"].startswith("write-") and e["side"] == "client")
        for e in ev:
            if e["kind"] != "segment" or not e["len"]:
                continue
            if e["dir"] == "c2t":
                assert first_write <= e["t_ns"] <= calls["read-request"]["t_ns"], (name, r["index"], "request data", e)
            else:
                assert e["t_ns"] <= calls["read-reply"]["t_ns"], (name, r["index"], "reply", e)
    # TcpExtDelayedACKs of the target: one timer expiry per stalled round.
    s = runs[name]["summary"]
    assert abs(s["delayed_acks"] - s["stalled_rounds"]) <= 1, (name, s["delayed_acks"], s["stalled_rounds"])
'

nt --variant all --rounds 3 >"$NT_TMP/table.txt"
[ "$rc" = 0 ] || fail "text table run exited $rc"
[ "$(grep -cE ' met$' "$NT_TMP/table.txt")" = 11 ] || fail "table: $(cat "$NT_TMP/table.txt")"

# tcp_pingpong_thresh 2: about every other round stalls.
nt --pingpong-thresh 2 --rounds 9 --expect any --format json -o "$NT_TMP/pp.json"
[ "$rc" = 0 ] || fail "pingpong run exited $rc"
json_check "$NT_TMP/pp.json" '
v = [r["verdict"] for r in doc["rounds"][1:]]
# "About every other round": counts, not strict alternation, which a busy
# CPU can shift by a round (a reply sent later than ato does not count).
stalled = v.count("stalled")
assert 2 <= stalled <= 6 and v.count("held") >= 2, v
'

# One byte under a full segment stalls; a full segment is never held (tcp_nagle_check).
nt --body 1447 --rounds 3 --summary >/dev/null
[ "$rc" = 0 ] || fail "--body 1447 did not stall"
nt --body 1448 --rounds 3 --expect unheld --summary >/dev/null
[ "$rc" = 0 ] || fail "--body 1448 (one MSS with timestamps) was held"

nt --ipv6 --format json -o "$NT_TMP/v6.json"
[ "$rc" = 0 ] || fail "--ipv6 exited $rc"
json_check "$NT_TMP/v6.json" '
assert doc["config"]["family"] == "ipv6" and doc["config"]["client"]["addr"] == "2001:db8::1"
assert [r["verdict"] for r in doc["rounds"]] == ["held", "stalled", "stalled", "stalled"]
'

# A client that waits 60 ms between its writes: the slow ACK is not what held the body.
nt --write-gap-ms 60 --rounds 3 --expect unheld --summary >/dev/null
[ "$rc" = 0 ] || fail "an application gap was called a Nagle stall"

# Server think time longer than ato keeps the target out of ping-pong mode for a while.
nt --handler-ms 60 --rounds 3 --expect any --format json -o "$NT_TMP/h.json"
[ "$rc" = 0 ] || fail "--handler-ms exited $rc"
json_check "$NT_TMP/h.json" '
for r in doc["rounds"]:
    assert r["rtt_ns"] >= 60e6, r["rtt_ns"]
'
echo "ok"
