#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad input: one line, the user's value quoted, a hint, exit 2; no lab is made.
set -eu
. "$(dirname "$0")/lib.sh"

check() {
	local want="$1" msg="$2"
	shift 2
	set +e
	"$NAGLE_TRACE" "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	local got=$?
	set -e
	[ "$got" = "$want" ] || fail "$*: exit $got, want $want ($(cat "$NT_TMP/err"))"
	grep -qF -- "$msg" "$NT_TMP/err" || fail "$*: stderr lacks '$msg': $(cat "$NT_TMP/err")"
}

check 2 '--rounds: "abc" is not a number' --rounds abc
check 2 '--rounds: "0" is out of range (1..1000000)' --rounds 0
check 2 '--rounds: "-1" is negative, out of range (1..1000000)' --rounds -1
check 2 'is out of range' --rounds 99999999999999999999999
check 2 '--header: "104857600" is out of range (1..16777216)' --header 104857600
check 2 '--body: an empty value is not a number' --body ''
check 2 '--pause: "1.5" is not a number' --pause 1.5
check 2 '--threshold: "0" is out of range' --threshold 0
check 2 '--variant: empty variant name in "default,,nodelay"' --variant default,,nodelay
check 2 '--variant: unknown variant "nope"' --variant nope
check 2 '--variant: "default" named twice' --variant default,default
check 2 '--format: unknown format "xml"' --format xml
check 2 '--capture: unknown back end "bpf"' --capture bpf
check 2 '--expect: unknown verdict "slow"' --expect slow
check 2 "unknown option '--nope'" --nope
check 2 "option '--rounds' needs a value" --rounds
check 2 'unexpected argument "extra"' extra
check 2 "try 'nagle-trace --help'" --color maybe
check 2 'over 2 GiB per direction' --rounds 1000000 --header 16777216
check 2 '--step: standard input is not a terminal' --step </dev/null
check 2 '--compare: "default" is not two variants (A,B)' --compare default
check 2 '--compare: "default,nodelay,writev" is not two variants' --compare default,nodelay,writev
check 2 '--variant and --compare both name variants' --variant all --compare default,writev
check 2 '--variant and --compare both name variants' --compare default,writev --variant all

# Usage errors are one line plus the hint.
set +e
"$NAGLE_TRACE" --rounds abc 2>"$NT_TMP/err"
set -e
[ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "usage error is not two lines: $(cat "$NT_TMP/err")"

"$NAGLE_TRACE" --help >"$NT_TMP/help" || fail "--help failed"
grep -q '^exit status:' "$NT_TMP/help" || fail "--help has no exit statuses"
"$NAGLE_TRACE" --version >"$NT_TMP/ver" || fail "--version failed"
grep -q '^libpcap version' "$NT_TMP/ver" && grep -q '^libmnl ' "$NT_TMP/ver" || fail "--version: $(cat "$NT_TMP/ver")"

# A refused run writes no report file; an unwritable path is exit 4 with the path quoted.
set +e
"$NAGLE_TRACE" --rounds 0 -o "$NT_TMP/never.txt" 2>/dev/null
set -e
[ ! -e "$NT_TMP/never.txt" ] || fail "a refused run left a file"
if unshare -Urn true 2>/dev/null; then
	nt --rounds 1 --expect any -o /nonexistent-dir/report.txt 2>"$NT_TMP/err"
	[ "$rc" = 4 ] || fail "unwritable -o exited $rc, want 4"
	grep -q '"/nonexistent-dir/report.txt"' "$NT_TMP/err" || fail "path not quoted: $(cat "$NT_TMP/err")"
	ls "$NT_TMP" | grep -q 'report' && fail "temporary file left behind"
fi
echo "ok"
