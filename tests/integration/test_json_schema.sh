#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real JSON output, one variant and several, validates against docs/nagle-trace.schema.json.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3
need_jsonschema
schema="${NT_SOURCE_DIR:?}/docs/nagle-trace.schema.json"

validate() {
	"$py" - "$schema" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=str)
for e in errors[:5]:
    print("schema:", "/".join(map(str, e.absolute_path)), e.message, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

nt --format json -o "$NT_TMP/one.json"
[ "$rc" = 0 ] || fail "single run exited $rc"
validate "$NT_TMP/one.json" || fail "single-variant document does not match the schema"

nt --variant nodelay,writev,quickack-rearm --rounds 2 --format json -o "$NT_TMP/multi.json"
[ "$rc" = 0 ] || fail "multi run exited $rc"
validate "$NT_TMP/multi.json" || fail "multi-variant document does not match the schema"

# Through the delay line, captured at the target: rtt_ns, capture_at, delay_line, wire_dropped.
nt --rtt 5 --capture-at target --rounds 2 --format json -o "$NT_TMP/rtt.json"
[ "$rc" = 0 ] || fail "--rtt 5 --capture-at target exited $rc"
validate "$NT_TMP/rtt.json" || fail "the --rtt document does not match the schema"

# The timings are complete: the summary is written after the close it reports.
python3 - "$NT_TMP/one.json" <<'PY' || fail "summary.timings is incomplete in one.json"
import json, sys
t = json.load(open(sys.argv[1]))["summary"]["timings"]
parts = sum(v for k, v in t.items() if k != "total_ns")
assert t["close_ns"] > 0 and t["exchange_ns"] > 0, t
assert parts <= t["total_ns"] <= parts + 1000000, t
PY

# The schema can fail: a document with a bad verdict is rejected.
python3 - "$NT_TMP/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rounds"][0]["verdict"] = "slow"
json.dump(d, open(sys.argv[1], "w"))
PY
if validate "$NT_TMP/one.json" 2>/dev/null; then fail "the schema accepted a bad verdict"; fi

# analyze: every golden capture, and the partial report of a damaged file.
schema="$NT_SOURCE_DIR/docs/nagle-trace-analyze.schema.json"
for cap in "$NT_SOURCE_DIR"/tests/golden/captures/*.pcap "$NT_SOURCE_DIR"/tests/golden/captures/*.pcapng; do
	"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/a.json" "$cap" ||
		fail "analyze $(basename "$cap") exited $?"
	validate "$NT_TMP/a.json" || fail "analyze JSON of $(basename "$cap") does not match the schema"
done
cap="$NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap"
head -c $(($(stat -c %s "$cap") - 30)) "$cap" >"$NT_TMP/cut.pcap"
set +e
"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/cut.json" "$NT_TMP/cut.pcap" 2>/dev/null
rc=$?
set -e
[ "$rc" = 4 ] || fail "a cut capture exited $rc, want 4"
validate "$NT_TMP/cut.json" || fail "the damaged file's partial report does not match the schema"

# A flow's median: exact up to 1,024 stalls, a sample's beyond, and said so
# in every format (the flow's memory stays bounded; docs/analyze.md).
mkcap="$NT_BUILD_DIR/tests/golden/mkcap"
for n in 1024 1500; do
	"$mkcap" bench "$NT_TMP/long$n.pcap" 1 "$n" || fail "mkcap bench 1 $n"
	"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/long$n.json" "$NT_TMP/long$n.pcap" ||
		fail "analyze long$n.pcap"
	validate "$NT_TMP/long$n.json" || fail "long$n.json does not match the schema"
	"$NAGLE_TRACE" analyze -o "$NT_TMP/long$n.txt" "$NT_TMP/long$n.pcap"
	"$NAGLE_TRACE" analyze --format markdown -o "$NT_TMP/long$n.md" "$NT_TMP/long$n.pcap"
done
python3 - "$NT_TMP/long1024.json" "$NT_TMP/long1500.json" <<'PY' || fail "stalled_p50_sampled"
import json, sys
exact, sampled = (json.load(open(p))["flows"][0] for p in sys.argv[1:])
assert exact["stalls"] == 1024 and exact["stalled_p50_sampled"] is False, exact["stalls"]
assert sampled["stalls"] == 1500 and sampled["stalled_p50_sampled"] is True, sampled["stalls"]
assert sampled["stalled_p50_ns"] <= sampled["stalled_max_ns"]
PY
grep -q "of a uniform sample of 1024 stalls" "$NT_TMP/long1500.txt" || fail "text: no sample said"
grep -q "of a uniform sample" "$NT_TMP/long1024.txt" && fail "text: 1,024 stalls are no sample"
grep -qE '\| ~[0-9.]+ ms \|' "$NT_TMP/long1500.md" || fail "markdown: no ~ on the sampled p50"
echo "ok"
