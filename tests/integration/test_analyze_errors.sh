#!/bin/bash
# SPDX-License-Identifier: MIT
# nagle-trace analyze on damaged and bad input: exit status 4, one warning
# line naming the file, and still the report for what was read. Also the
# usage errors (exit 2) and --fail-on-stall (exit 1). Needs no privileges.
set -u
: "${NAGLE_TRACE:?}" "${NT_SOURCE_DIR:?}"
good=$NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME WANT_RC GOT_RC
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: exit status $3, want $2" >&2
		fail=1
	fi
}
expect_grep() { # expect_grep NAME PATTERN FILE
	if ! grep -q -- "$2" "$3"; then
		echo "FAIL $1: no \"$2\" in:" >&2
		cat "$3" >&2
		fail=1
	fi
}
lines() { wc -l <"$1" | tr -d ' '; }

# Truncated mid-record: the first frames are still analysed.
size=$(stat -c %s "$good")
head -c $((size - 30)) "$good" >"$tmp/cut.pcap"
"$NAGLE_TRACE" analyze "$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err"
check truncated 4 $?
expect_grep truncated "cut.pcap.*damaged after frame 21" "$tmp/err"
expect_grep truncated "21 packets" "$tmp/out"
expect_grep truncated "4 stalls" "$tmp/out"
[ "$(lines "$tmp/err")" = 1 ] || { echo "FAIL truncated: warning is not one line" >&2; fail=1; }

# JSON keeps the partial report too, and marks the file incomplete.
"$NAGLE_TRACE" analyze --format json "$tmp/cut.pcap" >"$tmp/out.json" 2>/dev/null
check truncated-json 4 $?
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["files"][0]["complete"] is False; assert d["summary"]["stalls"]==4' "$tmp/out.json" || { echo "FAIL truncated-json" >&2; fail=1; }

# Zero-length file.
: >"$tmp/empty.pcap"
"$NAGLE_TRACE" analyze "$tmp/empty.pcap" >"$tmp/out" 2>"$tmp/err"
check empty 4 $?
expect_grep empty "empty.pcap" "$tmp/err"
expect_grep empty "^summary: 0 packets" "$tmp/out"

# A text file.
echo "this is not a capture" >"$tmp/notes.pcap"
"$NAGLE_TRACE" analyze "$tmp/notes.pcap" >"$tmp/out" 2>"$tmp/err"
check text 4 $?
expect_grep text "notes.pcap" "$tmp/err"
expect_grep text "^summary:" "$tmp/out"

# A record header claiming a huge caplen (the 5th record's, after 4 good frames).
python3 - "$good" "$tmp/huge.pcap" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 24
for _ in range(4):
    caplen = struct.unpack_from("<I", d, off + 8)[0]
    off += 16 + caplen
struct.pack_into("<I", d, off + 8, 0x7ffffff0)
open(sys.argv[2], "wb").write(d)
PY
"$NAGLE_TRACE" analyze "$tmp/huge.pcap" >"$tmp/out" 2>"$tmp/err"
check huge-caplen 4 $?
expect_grep huge-caplen "huge.pcap.*damaged after frame 4" "$tmp/err"
expect_grep huge-caplen "4 packets" "$tmp/out"

# A missing file that looks like a file: cannot open, exit 4, report still printed.
"$NAGLE_TRACE" analyze "$tmp/missing.pcap" >"$tmp/out" 2>"$tmp/err"
check missing 4 $?
expect_grep missing "cannot open" "$tmp/err"
# A good file after a bad one is still read.
"$NAGLE_TRACE" analyze "$tmp/missing.pcap" "$good" >"$tmp/out" 2>"$tmp/err"
check missing-then-good 4 $?
expect_grep missing-then-good "4 stalls" "$tmp/out"

# Standard input.
"$NAGLE_TRACE" analyze - <"$good" >"$tmp/out" 2>"$tmp/err"
check stdin 0 $?
expect_grep stdin "4 stalls" "$tmp/out"
"$NAGLE_TRACE" analyze - <"$tmp/cut.pcap" >"$tmp/out" 2>"$tmp/err"
check stdin-truncated 4 $?
expect_grep stdin-truncated "standard input" "$tmp/err"

# Usage errors: exit 2, one line plus the hint.
"$NAGLE_TRACE" analyze >"$tmp/out" 2>"$tmp/err"
check no-file 2 $?
expect_grep no-file "try 'nagle-trace analyze --help'" "$tmp/err"
"$NAGLE_TRACE" analyze --threshold abc "$good" >"$tmp/out" 2>"$tmp/err"
check bad-number 2 $?
expect_grep bad-number '--threshold: "abc" is not a number' "$tmp/err"
"$NAGLE_TRACE" analyze --bogus "$good" >"$tmp/out" 2>"$tmp/err"
check unknown-option 2 $?
"$NAGLE_TRACE" analyze "$good" tcp port >"$tmp/out" 2>"$tmp/err"
check bad-filter 2 $?
expect_grep bad-filter "bad filter expression" "$tmp/err"
"$NAGLE_TRACE" analyze --format xml "$good" >"$tmp/out" 2>"$tmp/err"
check bad-format 2 $?
"$NAGLE_TRACE" analyze --help >"$tmp/out" 2>"$tmp/err"
check help 0 $?
expect_grep help "usage: nagle-trace analyze" "$tmp/out"

# --fail-on-stall, and -o writes a complete file.
"$NAGLE_TRACE" analyze --fail-on-stall -o "$tmp/report.json" --format json "$good" 2>"$tmp/err"
check fail-on-stall 1 $?
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["summary"]["stalls"]==4' "$tmp/report.json" || { echo "FAIL -o" >&2; fail=1; }
"$NAGLE_TRACE" analyze --fail-on-stall "$NT_SOURCE_DIR/tests/golden/captures/gen-writev.pcap" >/dev/null
check no-stall 0 $?

exit $fail
