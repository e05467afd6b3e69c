#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --rtt and --capture-at (issue 18): the trace through the delay line. At the
# client a stalled round's header->ACK gap is the target's delayed ACK (about
# 40 ms here, HZ 250) plus the RTT; at the target it is the delay alone.
# Windows are wide for a loaded two-core machine; the precise figures belong
# in tests/bench/.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

# One run: the default variant, 4 rounds, RTT 20 ms, seen at the client.
nt --rtt 20 --rounds 4 --format json -o "$NT_TMP/client.json"
[ "$rc" = 0 ] || fail "--rtt 20 exited $rc (expectation auto not met?)"
json_check "$NT_TMP/client.json" '
c = doc["config"]
assert c["rtt_ns"] == 20000000 and c["delay_line"] == "wire", c
assert c["capture_at"] == "client" and c["interface"] == "nt-c", c
r = doc["rounds"]
# From the first round the programs or the delay line were not scheduled for
# (named "disturbed", docs/model.md), the windows below do not apply; the
# prediction on the observed schedule must still accept every round.
n = next((i for i, x in enumerate(r) if "disturbed" in x), len(r))
assert all(x["as_predicted"] for x in r[n:]), r[n:]
r = r[:n]
assert not r or r[0]["verdict"] == "held", r[:1]            # a quick ACK, an RTT late
assert not r or r[0]["rtt_ns"] >= 20e6, r[:1]               # header out, ACK back: one RTT at least
assert not r or 20e6 <= r[0]["header_ack_gap_ns"] < 30e6, r[:1]
for x in r[1:]:
    assert x["verdict"] == "stalled", x
    assert 55e6 <= x["header_ack_gap_ns"] <= 120e6, x  # delayed-ACK timer + RTT
    assert x["rtt_ns"] >= 60e6, x                      # and the body still has its RTT to go
s = doc["summary"]
assert s["wire_dropped"] == 0 and not s["uncertain"], s
assert s["expectation"]["met"], s["expectation"]
'

# The same from the target's side: the gap is the delayed ACK alone.
nt --rtt 20 --rounds 4 --capture-at target --format json -o "$NT_TMP/target.json"
[ "$rc" = 0 ] || fail "--rtt 20 --capture-at target exited $rc"
json_check "$NT_TMP/target.json" '
c = doc["config"]
assert c["capture_at"] == "target" and c["interface"] == "nt-t", c
r = doc["rounds"]
# From the first round the programs or the delay line were not scheduled for
# (named "disturbed", docs/model.md), the windows below do not apply; the
# prediction on the observed schedule must still accept every round.
n = next((i for i, x in enumerate(r) if "disturbed" in x), len(r))
assert all(x["as_predicted"] for x in r[n:]), r[n:]
r = r[:n]
assert not r or (r[0]["verdict"] == "held" and r[0]["header_ack_gap_ns"] < 10e6), r[:1]
for x in r[1:]:
    assert x["verdict"] == "stalled", x
    assert DELACK_LO_NS <= x["header_ack_gap_ns"] <= 100e6, x
'

# TCP_NODELAY: no stall, the round trip is the path's RTT.
nt --rtt 20 --rounds 4 --variant nodelay --format json -o "$NT_TMP/nodelay.json"
[ "$rc" = 0 ] || fail "--rtt 20 --variant nodelay exited $rc"
json_check "$NT_TMP/nodelay.json" '
r = doc["rounds"]
# From the first round the programs or the delay line were not scheduled for
# (named "disturbed", docs/model.md), the windows below do not apply; the
# prediction on the observed schedule must still accept every round.
n = next((i for i, x in enumerate(r) if "disturbed" in x), len(r))
assert all(x["as_predicted"] for x in r[n:]), r[n:]
r = r[:n]
assert all(x["verdict"] != "stalled" for x in r), r
p50 = doc["summary"]["rtt_p50_ns"]
assert 20e6 <= p50 <= 30e6, p50
'

# The text report names the path and prices the stall.
nt --rtt 20 --rounds 3 --brief -o "$NT_TMP/text.txt"
[ "$rc" = 0 ] || fail "--rtt 20 --brief exited $rc"
grep -q '^  path: RTT 20 ms, half each way (user-space delay line); captured at the client$' \
	"$NT_TMP/text.txt" || fail "no path line: $(cat "$NT_TMP/text.txt")"
grep -q '^  stall cost: header->ACK .* = the target.s ACK delay .* + RTT 20 ms$' "$NT_TMP/text.txt" ||
	fail "no stall-cost line: $(cat "$NT_TMP/text.txt")"
grep -q '^  delay line: 0 frames dropped$' "$NT_TMP/text.txt" || fail "no delay-line line"

# Every variant through the delay line: each as the model predicts (--expect auto).
nt --variant all --rtt 10 --rounds 4 --brief -o "$NT_TMP/all.txt"
[ "$rc" = 0 ] || fail "--variant all --rtt 10 exited $rc: $(tail -20 "$NT_TMP/all.txt")"

# IPv6 through the delay line: the same stall, the same path line.
nt --ipv6 --rtt 10 --rounds 3 --format json -o "$NT_TMP/v6.json"
[ "$rc" = 0 ] || fail "--ipv6 --rtt 10 exited $rc"
json_check "$NT_TMP/v6.json" '
c = doc["config"]
assert c["rtt_ns"] == 10000000 and c["client"]["addr"].startswith("2001:db8:"), c
r = doc["rounds"]
# From the first round the programs or the delay line were not scheduled for
# (named "disturbed", docs/model.md), the windows below do not apply; the
# prediction on the observed schedule must still accept every round.
n = next((i for i, x in enumerate(r) if "disturbed" in x), len(r))
assert all(x["as_predicted"] for x in r[n:]), r[n:]
r = r[:n]
assert not r or r[0]["rtt_ns"] >= 10e6, r[:1]
assert all(x["verdict"] == "stalled" and x["header_ack_gap_ns"] >= 45e6 for x in r[1:]), r
assert doc["summary"]["wire_dropped"] == 0, doc["summary"]
'

# The -w file through analyze, captured at either end: exactly the stalled
# rounds 2..N (at the client, round 1's ACK is an RTT late but not delayed),
# each named after the delayed-ACK timer once the path's RTT is taken off.
# The release window is widened to 10 ms (still a quarter of the delayed
# ACK): the delay line is a thread, and on a loaded two-core machine it hands
# a frame over up to a scheduler tick late (4 ms at HZ 250). With the default
# 1 ms, a body 4 ms late is think time: 10 of 12 target captures made beside
# two CPU hogs had one round so (and this test failed twice under ctest -j2).
for at in client target; do
	nt --rtt 20 --rounds 4 --capture-at "$at" -w "$NT_TMP/$at.pcap" --format json \
		-o "$NT_TMP/$at-w.json"
	[ "$rc" = 0 ] || fail "--capture-at $at -w exited $rc"
	"$NAGLE_TRACE" analyze --release-us 10000 "$NT_TMP/$at.pcap" --format json \
		>"$NT_TMP/$at-an.json" ||
		fail "analyze of the $at capture exited $?"
	json_check "$NT_TMP/$at-an.json" '
f = doc["flows"]
assert len(f) == 1, f
f = f[0]
assert f["stalls"] == 3 and f["think_time"] == 0, (f["stalls"], f["think_time"])
assert f["by_delack"]["delack_min"] == 3, f["by_delack"]
# the first stall is round 2, not round 1 (about 30 ms after the SYN at either end)
assert f["first_stall"]["t_ns"] - f["first_t_ns"] > 50e6, f["first_stall"]
rtt = f["rtt_from_capture"]
far = rtt["target_ns"] if "'"$at"'" == "client" else rtt["client_ns"]
assert 20e6 <= far < 30e6, rtt
'
done

# TCP_NODELAY at RTT 1 ms over 2000 rounds: nothing dropped anywhere, no
# round faster than the path, the median below the stall threshold. How
# close to 1 ms the delay line keeps it is a speed figure, whatever else
# runs on the machine: tests/bench/bench_wire.c and docs/wire.md measure it
# (CI's machine once made the median 1.56 ms beside the other tests).
nt --variant nodelay --rtt 1 --rounds 2000 --format json -o "$NT_TMP/n1.json"
[ "$rc" = 0 ] || fail "--variant nodelay --rtt 1 --rounds 2000 exited $rc"
json_check "$NT_TMP/n1.json" '
s = doc["summary"]
assert s["dropped"] == 0 and s["wire_dropped"] == 0 and not s["uncertain"], s
fast = [r["index"] for r in doc["rounds"] if r["rtt_ns"] is not None and r["rtt_ns"] < 1.0e6]
assert not fast, ("rounds faster than the 1 ms path", fast[:10])
assert 1.0e6 <= s["rtt_p50_ns"] < doc["config"]["threshold_ns"], s["rtt_p50_ns"]
'

# The drawings: the path in the footer, the stall's cost, arrows sloped by
# their 10 ms flight (far more than the fixed 18 px), no label collisions.
src="${NT_SOURCE_DIR:?}"
mkdir -p "$NT_TMP/draw"
for at in client target; do
	for fmt in svg html; do
		nt --rtt 20 --rounds 3 --capture-at "$at" --format "$fmt" -o "$NT_TMP/draw/$at.$fmt"
		[ "$rc" = 0 ] || fail "--rtt 20 --capture-at $at --format $fmt exited $rc"
		grep -q "RTT 20 ms (user-space delay line), captured at the $at" "$NT_TMP/draw/$at.$fmt" ||
			fail "$at.$fmt: no path line"
	done
	grep -q "stall cost: " "$NT_TMP/draw/$at.svg" || fail "$at.svg: no stall cost"
	grep -q "Stall cost:" "$NT_TMP/draw/$at.html" || fail "$at.html: no stall cost"
	python3 - "$NT_TMP/draw/$at.svg" <<'PY' || fail "$at.svg: no arrow slopes by its flight"
import re, sys
ys = [(int(a), int(b)) for a, b in re.findall(r'<line x1="(?:240|520)" y1="(\d+)" x2="(?:242|518)" y2="(\d+)"', open(sys.argv[1]).read())]
assert ys and max(b - a for a, b in ys) > 60, ys
PY
done
python3 "$src/tests/svg/check_svg.py" "$NT_TMP"/draw/*.svg "$NT_TMP"/draw/*.html ||
	fail "labels collide (check_svg.py above)"
nt --rtt 20 --rounds 3 --format markdown -o "$NT_TMP/draw/r.md"
grep -q '^Linux .*; RTT 20 ms (user-space delay line), captured at the client$' "$NT_TMP/draw/r.md" ||
	fail "markdown: no path in the header line"
grep -q '^\*\*Stall cost:\*\* header->ACK .* + RTT 20 ms\.$' "$NT_TMP/draw/r.md" ||
	fail "markdown: no stall cost"
# The round's times are the capture point's, and the text says which.
nt --rtt 20 --rounds 2 --capture-at target --format markdown -o "$NT_TMP/draw/t.md"
grep -q "seq/ack relative, captured at the target\.$" "$NT_TMP/draw/t.md" ||
	fail "markdown --capture-at target: the round's times claim another capture point"

# --rtt 0 is today's lab: one veth pair, no path line.
nt --rtt 0 --rounds 2 --format json -o "$NT_TMP/zero.json"
[ "$rc" = 0 ] || fail "--rtt 0 exited $rc"
json_check "$NT_TMP/zero.json" '
c = doc["config"]
assert c["rtt_ns"] == 0 and c["delay_line"] == "none", c
assert doc["rounds"][1]["header_ack_gap_ns"] < 55e6, doc["rounds"][1]
'

# Bad values: exit 2, one line and the --help hint, nothing on standard output.
for bad in -1 abc 1e9 10001 0.0001; do
	set +e
	unshare -Urn "$NAGLE_TRACE" --rtt "$bad" >"$NT_TMP/out" 2>"$NT_TMP/err"
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "--rtt $bad exited $rc, not 2"
	[ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "--rtt $bad: not one line: $(cat "$NT_TMP/err")"
	head -1 "$NT_TMP/err" | grep -q -- "--rtt: \"$bad\" is" || fail "--rtt $bad: $(cat "$NT_TMP/err")"
	[ ! -s "$NT_TMP/out" ] || fail "--rtt $bad wrote to standard output"
done
set +e
unshare -Urn "$NAGLE_TRACE" --capture-at middle 2>"$NT_TMP/err" >/dev/null
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "--capture-at middle: rc $rc, $(cat "$NT_TMP/err")"
echo "ok"
