#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --format jsonl: one record per line, each a JSON object whose fields match
# the JSON schema's definitions (docs/json-schema.md, "JSON Lines"); records
# reach standard output as the run goes, not at its end; --brief prints the
# summary alone. analyze --format jsonl likewise, per flow.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_jsonschema
: "${NT_SOURCE_DIR:?}"

# Two variants, 3 rounds each: run, 3 rounds, summary per variant, then end.
nt --variant default,nodelay --rounds 3 --format jsonl -o "$NT_TMP/two.jsonl"
[ "$rc" = 0 ] || fail "jsonl run exited $rc"
"$py" - "$NT_SOURCE_DIR/docs/nagle-trace.schema.json" "$NT_TMP/two.jsonl" <<'PY' || fail "jsonl records"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
defs = schema["$defs"]
def check(obj, name):
    sub = dict(defs[name]); sub["$defs"] = defs
    errs = list(jsonschema.Draft202012Validator(sub).iter_errors(obj))
    assert not errs, (name, errs[0].message)
types = []
for line in open(sys.argv[2]):
    rec = json.loads(line)
    types.append((rec["type"], rec.get("variant")))
    if rec["type"] == "round":
        check({k: v for k, v in rec.items() if k not in ("type", "variant")}, "round")
    elif rec["type"] == "run":
        assert rec["schema_version"] == 3
        check(rec["config"], "config")
    elif rec["type"] == "summary":
        check(rec["summary"], "summary")
want = []
for v in ("default", "nodelay"):
    want += [("run", v)] + [("round", v)] * 3 + [("summary", v)]
want.append(("end", None))
assert types == want, types
PY

# Standard output gets each record as it is made: the first round's record
# arrives well before the last round (20 rounds, 40 ms apart).
"$py" - "$NAGLE_TRACE" <<'PY' || fail "jsonl is not streamed"
import json, subprocess, sys, time
p = subprocess.Popen(["unshare", "-Urn", sys.argv[1], "--variant", "nodelay", "--rounds", "20",
                      "--pause", "40", "--format", "jsonl"], stdout=subprocess.PIPE, text=True)
seen = {}
t0 = time.monotonic()
for line in p.stdout:
    rec = json.loads(line)
    if rec["type"] == "round":
        seen.setdefault(rec["index"], time.monotonic() - t0)
p.wait()
assert p.returncode == 0, p.returncode
assert seen[20] - seen[1] > 0.4, seen
PY

# --brief: the summary, no line per round.
nt --rounds 5 --brief -o "$NT_TMP/brief.txt"
[ "$rc" = 0 ] || fail "--brief exited $rc"
grep -q '^summary' "$NT_TMP/brief.txt" || fail "--brief has no summary"
grep -q '^round' "$NT_TMP/brief.txt" && fail "--brief prints rounds"

# analyze: a flow record per flow with stalls, then the summary.
"$NAGLE_TRACE" analyze --format jsonl "$NT_SOURCE_DIR/tests/golden/captures/tcpdump-tests-bgp-4byte-asn.pcap" \
	>"$NT_TMP/a.jsonl"
"$py" - "$NT_SOURCE_DIR/docs/nagle-trace-analyze.schema.json" "$NT_TMP/a.jsonl" <<'PY' || fail "analyze jsonl"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open(sys.argv[2])]
assert [r["type"] for r in recs] == ["flow", "flow", "stall", "stall", "stall", "summary"], recs
for r in recs[:-1]:
    item = dict(schema["properties"][r["type"] + "s"]["items"])
    body = {k: v for k, v in r.items() if k != "type"}
    errs = list(jsonschema.Draft202012Validator(item).iter_errors(body))
    assert not errs, errs[0].message
    # A flow's Community ID v1, computed here apart from the tool (hashlib,
    # base64); a stall record names its flow by index instead.
    if r["type"] != "flow":
        assert 0 <= r["flow"] < 2, r
        continue
    import base64, hashlib, ipaddress, struct
    ends = sorted((ipaddress.ip_address(r[k]["addr"]).packed, r[k]["port"]) for k in ("client", "target"))
    raw = struct.pack("!H", 0) + ends[0][0] + ends[1][0] + bytes([6, 0]) + struct.pack("!HH", ends[0][1], ends[1][1])
    want = "1:" + base64.b64encode(hashlib.sha1(raw).digest()).decode()
    assert r["community_id"] == want, (r["community_id"], want)
s = recs[-1]
assert s["schema_version"] == 5 and s["summary"]["stalls"] == 3
PY
echo ok
