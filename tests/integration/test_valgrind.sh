#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# valgrind memcheck: no invalid access, no uninitialised use, no leak.
#
# 1. A real run in real namespaces (two variants, JSON and a pcap file;
#    --expect any: under valgrind the exchange is too slow for the timing).
# 2. The model (issue 25: an uninitialised anchor that ASan's zeroed stack
#    hid): the model's unit tests, then `predict` over the conformance
#    test's CI knobs (tests/integration/model_conformance.py, those marked
#    '*') and over --rtt 0, 0.05, 2, 40, 200 ms x bodies of 1 B, 20,000,
#    40,000, 1 MiB and 16 MiB, two at a time (the CI machine has two cores;
#    about a minute and a half there).
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
: "${NT_BUILD_DIR:?NT_BUILD_DIR must point at the build tree}"
need_unshare
need_tool valgrind

VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all
	--show-leak-kinds=definite,indirect,possible)

set +e
unshare -Urn "${VG[@]}" \
	"$NAGLE_TRACE" --variant default,nodelay --rounds 3 --expect any --format json -o "$NT_TMP/v.json" \
	-w "$NT_TMP/v.pcap" 2>"$NT_TMP/vg.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "valgrind run exited $rc: $(tail -30 "$NT_TMP/vg.err")"
[ -s "$NT_TMP/v.json" ] || fail "no report written under valgrind"

# The model's unit tests.
"${VG[@]}" "$NT_BUILD_DIR/tests/test_predict" >/dev/null 2>"$NT_TMP/unit.err" ||
	fail "valgrind test_predict: $(tail -30 "$NT_TMP/unit.err")"

# predict over the knobs, one line of arguments each.
python3 - "$NT_SOURCE_DIR/tests/integration" >"$NT_TMP/knobs" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from model_conformance import COMBOS
for knobs, rounds in COMBOS:
    if knobs.startswith("*"):
        print(f"{knobs[1:]} --rounds {min(rounds, 6)}")
for rtt in ("0", "0.05", "2", "40", "200"):
    for body in ("1", "20000", "40000", "1048576", "16777216"):
        print(f"--rtt {rtt} --body {body} --rounds 3")
PY
n=$(wc -l <"$NT_TMP/knobs")
[ "$n" -ge 40 ] || fail "only $n knob lines"
export NAGLE_TRACE NT_TMP
# shellcheck disable=SC2016 # expanded by the inner shell
xargs -P 2 -L 1 sh -c 'out=$(mktemp "$NT_TMP/p.XXXXXX")
	valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all \
		--show-leak-kinds=definite,indirect,possible "$NAGLE_TRACE" predict "$@" \
		--format json -o "$out" 2>"$out.err" || { echo "FAIL: predict $*: $(tail -20 "$out.err")"; exit 255; }
	[ -s "$out" ] || { echo "FAIL: predict $*: no report"; exit 255; }' sh <"$NT_TMP/knobs" ||
	fail "valgrind found errors in predict (above)"
echo "ok: valgrind: a run, test_predict, predict over $n knob sets"
