#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/ stay runnable: each script runs to completion against the binary
# under test, and says what it promises to say.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
ex="${NT_SOURCE_DIR:?}/examples"

unshare -Urn "$ex/classroom.sh" "$NAGLE_TRACE" >"$NT_TMP/classroom.txt" 2>&1 ||
	fail "classroom.sh failed: $(tail -5 "$NT_TMP/classroom.txt")"
grep -q '^round 2    stalled' "$NT_TMP/classroom.txt" || fail "classroom.sh: no stalled round 2"
grep -q '^writev .* met coalesced' "$NT_TMP/classroom.txt" || fail "classroom.sh: no variant table"

(cd "$NT_TMP" && OUT="$NT_TMP/incident.json" unshare -Urn "$ex/incident-check.sh" 64 256 128 \
	"$NAGLE_TRACE") >"$NT_TMP/incident.txt" 2>&1 ||
	fail "incident-check.sh failed: $(tail -5 "$NT_TMP/incident.txt")"
[ -s "$NT_TMP/incident.json" ] || fail "incident-check.sh wrote no report"
grep -q '^default .* met stalled' "$NT_TMP/incident.txt" || fail "incident-check.sh: no table"
echo "ok"
