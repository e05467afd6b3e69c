#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `nagle-trace predict`: the model alone, without namespaces or privileges.
# Its JSON against docs/nagle-trace-predict.schema.json; its text with a rule
# on every step; the same prediction a live run checks (--expect auto): each
# measured round of a real run is one the prediction accepts; --kernel and
# --hz change what it predicts; usage errors are one line, exit 2.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
: "${NT_SOURCE_DIR:?}"
SCHEMA="$NT_SOURCE_DIR/docs/nagle-trace-predict.schema.json"

# No namespaces: it runs as an ordinary process (setpriv drops every capability).
"$NAGLE_TRACE" predict >"$NT_TMP/p.txt" || fail "predict: exit $?"
grep -q '^round 2  stalled' "$NT_TMP/p.txt" || fail "predict: round 2 not predicted stalled"
grep -q 'held: Nagle, small segment 13:17 unacknowledged (Minshall) \[nagle_hold\]' "$NT_TMP/p.txt" ||
	fail "predict: no nagle_hold step"
grep -q '\[delayed_pingpong\]' "$NT_TMP/p.txt" || fail "predict: no delayed-ACK decision"
grep -q '^  this variant: .*\[fix_none\]' "$NT_TMP/p.txt" || fail "predict: no variant why"
if command -v setpriv >/dev/null; then
	setpriv --inh-caps=-all --bounding-set=-all "$NAGLE_TRACE" predict --rounds 2 >/dev/null ||
		fail "predict needs a capability"
fi

# JSON, one variant and several, valid against the schema.
"$NAGLE_TRACE" predict --format json -o "$NT_TMP/one.json"
"$NAGLE_TRACE" predict --format json --variant all --rounds 3 >"$NT_TMP/all.json"
python3 - "$SCHEMA" "$NT_TMP/one.json" "$NT_TMP/all.json" <<'PY' || fail "predict JSON"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
one, every = (json.load(open(p)) for p in sys.argv[2:4])
for doc in (one, every):
    jsonschema.validate(doc, schema)
assert [r["verdict"] for r in one["rounds"]] == ["held", "stalled", "stalled", "stalled"], one["rounds"]
by = {r["variant"]: r for r in every["runs"]}
assert len(by) == 11, sorted(by)
assert by["nodelay"]["rounds"][1]["verdict"] == "unheld"
assert by["writev"]["rounds"][1]["verdict"] == "coalesced"
assert by["quickack-rearm"]["rounds"][1]["verdict"] == "held"
assert by["quickack-once"]["summary"]["fix"]["rule"] == "fix_quickack_once"
assert by["nodelay-server"]["summary"]["fix"]["rule"] == "fix_wrong_side"
PY

# The same knobs as a live run: every measured round is one the prediction accepts.
for args in "--rounds 5" "--variant quickack-rearm --rounds 4" "--body 1448 --rounds 3" \
	"--pingpong-thresh 2 --rounds 6" "--rtt 10 --rounds 3"; do
	# shellcheck disable=SC2086
	"$NAGLE_TRACE" predict --format json $args >"$NT_TMP/pred.json"
	# shellcheck disable=SC2086
	unshare -Urn "$NAGLE_TRACE" --format json --expect any $args >"$NT_TMP/live.json" ||
		fail "live run $args: exit $?"
	python3 - "$NT_TMP/pred.json" "$NT_TMP/live.json" "$args" <<'PY' || fail "predict vs live: $args"
import json, sys
pred, live = (json.load(open(p)) for p in sys.argv[1:3])
# A round the programs were not scheduled for is predicted live on the schedule
# they kept (docs/model.md): from the first such round on, the knob-only
# prediction no longer applies, and the live one must accept what happened.
disturbed = False
for p, m in zip(pred["rounds"], live["rounds"]):
    disturbed = disturbed or "disturbed" in m
    if disturbed:
        assert m["as_predicted"], (sys.argv[3], m["index"], m["verdict"], m["predicted_verdicts"])
        continue
    assert m["verdict"] in p["verdicts"], (sys.argv[3], m["index"], m["verdict"], p["verdicts"])
    assert m["predicted_verdicts"] == p["verdicts"], (m["predicted_verdicts"], p["verdicts"])
PY
done

# Another kernel's rules. HZ 1000: the delayed-ACK timer is 40 ms of 1 ms jiffies.
# Linux 5.15: ping-pong mode needs 3 quick replies (TCP_PINGPONG_THRESH before
# 6.7 had a sysctl), so round 2 is still ACKed at once.
"$NAGLE_TRACE" predict --format json --hz 1000 >"$NT_TMP/hz.json"
"$NAGLE_TRACE" predict --format json --kernel 5.15 >"$NT_TMP/k.json"
python3 - "$NT_TMP/hz.json" "$NT_TMP/k.json" <<'PY' || fail "--kernel/--hz"
import json, sys
hz, old = (json.load(open(p)) for p in sys.argv[1:3])
assert (hz["knobs"]["hz"], hz["knobs"]["hz_source"]) == (1000, "--hz"), hz["knobs"]
r2 = hz["rounds"][1]
assert r2["verdict"] == "stalled" and 40e6 <= r2["header_ack_gap_min_ns"] <= 42e6, r2
k = old["knobs"]
assert (k["kernel"], k["kernel_source"], k["pingpong_thresh"]) == ("5.15", "--kernel", 3), k
assert old["rounds"][1]["verdict"] == "held", old["rounds"][1]
PY

# --format html: the what-if panel without a lab: one self-contained page carrying the
# model and each variant's knobs (the module itself: test_wasm_model.sh, the page:
# tests/js/lesson.test.mjs).
"$NAGLE_TRACE" predict --format html --variant default,nodelay --body 1447 -o "$NT_TMP/p.html"
python3 - "$NT_TMP/p.html" <<'PY' || fail "predict --format html"
import json, re, sys
page = open(sys.argv[1]).read()
assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
assert not re.search(r'<script[^>]+src=|<link[\s>]', page)
runs = json.loads(re.search(r'id="nt-model-data">(.*?)</script>', page, re.S).group(1))["runs"]
assert [r["variant"] for r in runs] == ["default", "nodelay"], runs
assert runs[0]["knobs"]["body_bytes"] == 1447 and runs[1]["knobs"]["client_nodelay"] == 1, runs
assert re.search(r'id="nt-wasm">[A-Za-z0-9+/=]{1000,}</script>', page) or \
    "built without the model" in page
PY

# Usage errors: one line and the hint, exit 2.
for bad in "--hz 7" "--kernel linux" "--format svg" "--capture packet" "-w x.pcap" "--rounds 0"; do
	set +e
	# shellcheck disable=SC2086
	"$NAGLE_TRACE" predict $bad >"$NT_TMP/out" 2>"$NT_TMP/err"
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "predict $bad: exit $rc, want 2"
	[ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "predict $bad: $(cat "$NT_TMP/err")"
	[ ! -s "$NT_TMP/out" ] || fail "predict $bad wrote a report"
done
echo "PASS: predict"
