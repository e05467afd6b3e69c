#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real JSON output, one variant and several, validates against docs/nagle-trace.schema.json.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3
python3 -c 'import jsonschema' 2>/dev/null || {
	[ "${CI:-}" = "true" ] && fail "python3-jsonschema is not installed"
	echo "SKIP: python3-jsonschema missing" >&2
	exit 77
}
schema="${NT_SOURCE_DIR:?}/docs/nagle-trace.schema.json"

validate() {
	python3 - "$schema" "$1" <<'PY'
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

# The schema can fail: a document with a bad verdict is rejected.
python3 - "$NT_TMP/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["rounds"][0]["verdict"] = "slow"
json.dump(d, open(sys.argv[1], "w"))
PY
if validate "$NT_TMP/one.json" 2>/dev/null; then fail "the schema accepted a bad verdict"; fi
echo "ok"
