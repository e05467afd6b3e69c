#!/bin/bash
# SPDX-License-Identifier: MIT
# One golden test: run.sh NAME INPUT EXPECTED [ARGS...]
# Runs `nagle-trace analyze INPUT ARGS...` in tests/golden/ (so paths in the
# report are relative and stable) and diffs stdout with EXPECTED. JSON is
# compared after sorting keys and dropping .tool (the version changes).
# Exit status 0 or 1 (--fail-on-stall) are both accepted; anything else fails.
set -u
name=$1 input=$2 expected=$3
shift 3
: "${NAGLE_TRACE:?set NAGLE_TRACE to the binary}" "${NT_SOURCE_DIR:?}"
cd "$NT_SOURCE_DIR/tests/golden" || exit 1
out=$(mktemp) && trap 'rm -f "$out" "$out".a "$out".b' EXIT
"$NAGLE_TRACE" analyze "$input" "$@" >"$out"
rc=$?
if [ "$rc" -gt 1 ]; then
	echo "golden $name: exit status $rc" >&2
	exit 1
fi
case $expected in
*.json)
	norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("tool",None); print(json.dumps(d,indent=1,sort_keys=True))' "$1"; }
	norm "$out" >"$out".a || exit 1
	norm "$expected" >"$out".b || exit 1
	diff -u "$out".b "$out".a && exit 0
	;;
*)
	diff -u "$expected" "$out" && exit 0
	;;
esac
echo "golden $name: output differs from $expected (tests/golden/regen.sh rewrites it)" >&2
exit 1
