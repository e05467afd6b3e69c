#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyze as tcpdump users type it: -r FILE (repeatable), -n, -c N; link
# types named as tcpdump names them; counts singular when they are one; and
# the option policy every command shares (no abbreviations, no value for a
# flag). Needs no privileges.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
: "${NT_SOURCE_DIR:?}"
caps=$NT_SOURCE_DIR/tests/golden/captures
bgp=$caps/tcpdump-tests-bgp-4byte-asn.pcap

# -r and positional files are the same files, in the order named.
"$NAGLE_TRACE" analyze -r "$bgp" >"$NT_TMP/r.txt"
"$NAGLE_TRACE" analyze "$bgp" >"$NT_TMP/pos.txt"
cmp -s "$NT_TMP/r.txt" "$NT_TMP/pos.txt" || fail "-r FILE differs from FILE"
"$NAGLE_TRACE" analyze -n -r "$caps/gen-eth-stall.pcap" -r "$bgp" >"$NT_TMP/two.txt"
grep -q '^file 1: .*gen-eth-stall.pcap' "$NT_TMP/two.txt" || fail "-r order: file 1"
grep -q '^file 2: .*bgp-4byte-asn.pcap' "$NT_TMP/two.txt" || fail "-r order: file 2"

# -c N: N packets over all files, the rest unread.
"$NAGLE_TRACE" analyze -c 30 -r "$caps/gen-eth-stall.pcap" -r "$bgp" >"$NT_TMP/c.txt"
grep -q '^file 1: .* 22 packets' "$NT_TMP/c.txt" || fail "-c 30: file 1 not read whole"
grep -q '^file 2: .* 8 packets' "$NT_TMP/c.txt" || fail "-c 30: file 2 not cut at 8"
"$NAGLE_TRACE" analyze -c 22 -r "$caps/gen-eth-stall.pcap" -r "$bgp" >"$NT_TMP/c22.txt"
grep -q '^file 2:' "$NT_TMP/c22.txt" && fail "-c 22: file 2 read although the count was reached"
set +e
"$NAGLE_TRACE" analyze -c 0 "$bgp" 2>"$NT_TMP/err" >/dev/null
rc=$?
set -e
[ "$rc" = 2 ] || fail "-c 0 exited $rc, want 2"

# Times to the capture's own precision: six decimals for tcpdump's microsecond
# file, nine for nagle-trace's own nanosecond -w file.
grep -q 'first stall: 2019-04-11T17:16:41\.910018Z ' <("$NAGLE_TRACE" analyze "$bgp") ||
	fail "a microsecond capture's time not printed with six decimals"
unshare -Urn "$NAGLE_TRACE" --rounds 3 -w "$NT_TMP/ns.pcap" >/dev/null || fail "trace -w"
grep -Eq 'first stall: [0-9-]+T[0-9:]+\.[0-9]{9}Z ' <("$NAGLE_TRACE" analyze "$NT_TMP/ns.pcap") ||
	fail "a nanosecond capture's time not printed with nine decimals"

# Link types by name; singular counts.
grep -q '^file 1: .*: EN10MB (Ethernet), 91 packets' <("$NAGLE_TRACE" analyze "$bgp") ||
	fail "link type not named"
grep -q 'LINUX_SLL2 (Linux cooked v2)' <("$NAGLE_TRACE" analyze "$caps/gen-sll2-stall.pcap") ||
	fail "cooked v2 not named"
"$NAGLE_TRACE" analyze "$caps/tcpdump-tests-bgp-rt-prefix.pcap" >"$NT_TMP/one.txt"
grep -q ' 1 flow, 1 stall$' "$NT_TMP/one.txt" || fail "singular counts: $(head -1 "$NT_TMP/one.txt")"
grep -q '1 flows\|1 stalls' "$NT_TMP/one.txt" && fail "a plural for one"

# The option policy: abbreviations refused, flags take no value; exit 2, one line + hint.
for bad in "--thresh 5" "--fail-on-stall=1" "--help=yes" "-h=1" "--form json"; do
	set +e
	# shellcheck disable=SC2086
	"$NAGLE_TRACE" analyze $bad "$bgp" >/dev/null 2>"$NT_TMP/err"
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "analyze $bad exited $rc, want 2"
	[ "$(wc -l <"$NT_TMP/err")" = 2 ] || fail "analyze $bad: not one line + hint: $(cat "$NT_TMP/err")"
done
"$NAGLE_TRACE" analyze --version | grep -q '^nagle-trace ' || fail "analyze --version"
echo ok
