#!/bin/bash
# SPDX-License-Identifier: MIT
# The flow table's cap (--max-flows): by default a capture of many flows at
# once is read whole (every stall found, the report complete); with a cap
# below the flows active at once, active flows are evicted, their stalls may
# be missed, and the report says so: one warning line on stderr, a warning in
# the text summary, "incomplete": true in JSON and JSON Lines, exit status 0
# (every frame was read). Needs no privileges.
set -u
. "$(dirname "$0")/lib.sh"
: "${NT_BUILD_DIR:?}"
tmp=$NT_TMP
cap=$tmp/many.pcap
# 3,000 flows at once, 4 rounds each: a stall a round, every flow active to the end.
"$NT_BUILD_DIR/tests/golden/mkcap" bench "$cap" 3000 4 || fail "mkcap bench"

"$NAGLE_TRACE" analyze --format json "$cap" >"$tmp/all.json" 2>"$tmp/all.err" ||
	fail "default cap: exit $?"
[ -s "$tmp/all.err" ] && fail "default cap: stderr: $(cat "$tmp/all.err")"
python3 - "$tmp/all.json" <<'PY' || fail "default cap: report"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["flows"] == 3000 and s["flows_with_stalls"] == 3000, s
assert s["stalls"] == 12000 and s["evicted_full"] == 0, s
assert s["incomplete"] is False, s
PY

# A cap of 1,000: the table is full at once and every new flow evicts an active one.
"$NAGLE_TRACE" analyze --max-flows 1000 "$cap" >"$tmp/cut.txt" 2>"$tmp/cut.err" ||
	fail "cap 1000: exit $?"
[ "$(wc -l <"$tmp/cut.err")" = 1 ] || fail "cap 1000: want one line on stderr: $(cat "$tmp/cut.err")"
grep -q "^nagle-trace: analyze: warning: the flow table was full (--max-flows 1000): [0-9]* active flows were evicted, stalls on them may be missed; the report is incomplete$" \
	"$tmp/cut.err" || fail "cap 1000: stderr: $(cat "$tmp/cut.err")"
grep -q "^  warning: the flow table was full (--max-flows 1000): .*; results are incomplete (raise --max-flows)$" \
	"$tmp/cut.txt" || fail "cap 1000: no warning in the summary: $(tail -3 "$tmp/cut.txt")"

for fmt in json jsonl; do
	"$NAGLE_TRACE" analyze --max-flows 1000 --format $fmt "$cap" >"$tmp/cut.$fmt" 2>/dev/null ||
		fail "cap 1000 $fmt: exit $?"
	python3 - "$tmp/cut.$fmt" "$fmt" <<'PY' || fail "cap 1000 $fmt: report"
import json, sys
path, fmt = sys.argv[1:]
if fmt == "json":
    s = json.load(open(path))["summary"]
else:
    recs = [json.loads(l) for l in open(path)]
    s = [r for r in recs if r["type"] == "summary"][0]["summary"]
assert s["incomplete"] is True, s
assert s["evicted_full"] > 0, s
assert s["stalls"] < 12000, s   # the stalls of evicted flows were lost
PY
done

# --brief keeps no flow's report past its flow (the totals alone): its report
# is the full one's files and summary, byte for byte, with and without
# evictions (at a cap of 2,500 some 800 flows stall, most of them evicted
# later: their reports are dropped as they leave), on one thread and two;
# and so are its stderr and exit status.
for cap_args in "" "--max-flows 2500"; do
	for jobs in 1 2; do
		# shellcheck disable=SC2086
		"$NAGLE_TRACE" analyze --jobs $jobs $cap_args "$cap" "$NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap" \
			>"$tmp/full.txt" 2>"$tmp/full.err"
		full_rc=$?
		# shellcheck disable=SC2086
		"$NAGLE_TRACE" analyze --jobs $jobs $cap_args --brief "$cap" "$NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap" \
			>"$tmp/brief.txt" 2>"$tmp/brief.err"
		brief_rc=$?
		[ "$full_rc" = "$brief_rc" ] || fail "--brief $cap_args --jobs $jobs: exit $brief_rc, full $full_rc"
		cmp -s "$tmp/full.err" "$tmp/brief.err" || fail "--brief $cap_args --jobs $jobs: stderr differs"
		# The full report: the files, a blank line, the flows (each ending in a blank line), the summary.
		sed -n '1,/^$/p; /^summary:/,$p' "$tmp/full.txt" >"$tmp/want.txt"
		cmp -s "$tmp/want.txt" "$tmp/brief.txt" ||
			fail "--brief $cap_args --jobs $jobs: $(diff "$tmp/want.txt" "$tmp/brief.txt" | head -5)"
		grep -q "^flow " "$tmp/brief.txt" && fail "--brief lists flows"
	done
done
grep -q "^summary: " "$tmp/brief.txt" || fail "--brief: no summary"

# The SVG ladder shows the worst flow alone, so the analysis keeps that one
# report alone as flows leave: the flow it draws is the one the JSON report's
# flows name, the first of those that lost the most time (the bench's flows
# tie: the order decides), with and without evictions, one thread and two.
for cap_args in "" "--max-flows 2500"; do
	for jobs in 1 2; do
		for files in "$cap" "$cap $NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap"; do
			# shellcheck disable=SC2086
			"$NAGLE_TRACE" analyze --jobs $jobs $cap_args --format json $files \
				>"$tmp/w.json" 2>/dev/null
			# shellcheck disable=SC2086
			"$NAGLE_TRACE" analyze --jobs $jobs $cap_args --format svg $files \
				>"$tmp/w.svg" 2>/dev/null || fail "svg $cap_args --jobs $jobs: exit $?"
			python3 - "$tmp/w.json" "$tmp/w.svg" <<'PY' || fail "svg $cap_args --jobs $jobs $files: not the worst flow"
import json, re, sys
flows = json.load(open(sys.argv[1]))["flows"]
texts = re.findall(r"<text[^>]*>([^<]*)</text>", open(sys.argv[2]).read())
most = max(f["stalled_wall_ns"] for f in flows)
w = next(f for f in flows if f["stalled_wall_ns"] == most)
held = w["client"] if w["first_stall"]["dir"] == "c2t" else w["target"]
want = [f"{held['addr']}:{held['port']}",
        f"this flow: {w['stalls']} stall",
        f"times from the held segment (frame {w['first_stall']['held_frame_number']}, "]
for t in want:
    assert any(x.startswith(t) for x in texts), (t, texts)
PY
		done
	done
done

# Markdown says it too.
"$NAGLE_TRACE" analyze --max-flows 1000 --format markdown "$cap" 2>/dev/null |
	grep -q '^\*\*Incomplete:\*\* the flow table was full (--max-flows 1000)' ||
	fail "cap 1000 markdown: no incomplete line"
echo "test_analyze_flow_cap: ok"
