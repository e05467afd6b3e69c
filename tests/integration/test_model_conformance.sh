#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The model against the real kernel: every variant, bodies and headers at the
# MSS, IPv6, the ping-pong threshold, the handler and the write gap either
# side of ato, a threshold above the stall - each round's measured verdict must
# be one the model predicted (tests/integration/model_conformance.py). The CI
# set runs a few rounds of each; `--set full` is the sweep docs/model.md reports.
# The measured runs are kept, and compared again against a deliberately wrong
# model, which must fail.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool python3

PREDICT_TOOL=${PREDICT_TOOL:-$(dirname "$NAGLE_TRACE")/predict_tool}
[ -x "$PREDICT_TOOL" ] || fail "predict_tool not found next to $NAGLE_TRACE (build it: cmake --build)"

# --keep makes its directory, as docs/model.md's `--keep runs/` expects (issue 25):
# neither kept/ nor kept/runs/ exists yet, and --reuse reads the runs from there.
runs=$NT_TMP/kept/runs
python3 "$(dirname "$0")/model_conformance.py" --nagle-trace "$NAGLE_TRACE" \
	--predict-tool "$PREDICT_TOOL" --set ci --json "$NT_TMP/conformance.json" \
	--keep "$runs" ||
	fail "a measured verdict fell outside the model's prediction (listed above)"
json_check "$NT_TMP/conformance.json" '
assert sum(r["rounds"] for r in doc) >= 100, sum(r["rounds"] for r in doc)
assert all(not r["mismatches"] for r in doc)
'

# The comparison must be able to fail: the same measurements against a model
# told the wrong kernel (5.4: ping-pong threshold 3) are mismatches.
cat >"$NT_TMP/wrong-kernel" <<SH
#!/bin/sh
exec "$PREDICT_TOOL" "\$@" --kernel 5.4.0
SH
chmod +x "$NT_TMP/wrong-kernel"
set +e
python3 "$(dirname "$0")/model_conformance.py" --nagle-trace "$NAGLE_TRACE" \
	--predict-tool "$NT_TMP/wrong-kernel" --set ci --reuse "$runs" >"$NT_TMP/wrong.txt"
rc=$?
set -e
[ "$rc" = 1 ] || fail "a model of the wrong kernel passed the comparison (exit $rc)"
grep -q "MISMATCH *--variant default" "$NT_TMP/wrong.txt" ||
	fail "the wrong kernel's mismatch was not reported: $(cat "$NT_TMP/wrong.txt")"
