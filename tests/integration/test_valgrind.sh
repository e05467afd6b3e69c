#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# valgrind memcheck on a real run in real namespaces (two variants, JSON and a
# pcap file): no invalid access, no uninitialised use, no leak.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool valgrind

set +e
unshare -Urn valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all \
	--show-leak-kinds=definite,indirect,possible \
	"$NAGLE_TRACE" --variant default,nodelay --rounds 3 --format json -o "$NT_TMP/v.json" \
	-w "$NT_TMP/v.pcap" 2>"$NT_TMP/vg.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "valgrind run exited $rc: $(tail -30 "$NT_TMP/vg.err")"
[ -s "$NT_TMP/v.json" ] || fail "no report written under valgrind"
echo "ok"
