#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Without the privileges to make namespaces: exit 3, one line with the hint.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_tool setpriv

# The build tree may not be readable by nobody: run a copy.
cp "$NAGLE_TRACE" "$NT_TMP/nagle-trace"
chmod 755 "$NT_TMP" "$NT_TMP/nagle-trace"
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$NT_TMP/nagle-trace" >"$NT_TMP/out" 2>"$NT_TMP/err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "unprivileged run exited $rc, want 3: $(cat "$NT_TMP/err")"
[ "$(wc -l <"$NT_TMP/err")" = 1 ] || fail "want one line on stderr: $(cat "$NT_TMP/err")"
grep -q "unshare -Urn nagle-trace" "$NT_TMP/err" || fail "no hint: $(cat "$NT_TMP/err")"
[ ! -s "$NT_TMP/out" ] || fail "stdout not empty"
echo "ok"
