#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every Mermaid diagram nagle-trace writes renders with the Mermaid CLI
# (tests/js/node_modules/.bin/mmdc, its puppeteer pointed at Debian's
# chromium by tests/js/puppeteer.json): the live round (IPv4 and IPv6, with
# named participants and the stall in a rect block), every variant, and
# analyze's reports. mmdc exits non-zero on a diagram Mermaid cannot parse.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool chromium
js="${NT_SOURCE_DIR:?}/tests/js"
mmdc="$js/node_modules/.bin/mmdc"
if [ ! -x "$mmdc" ]; then
	[ "${CI:-}" = "true" ] && fail "tests/js/node_modules is missing: run 'npm ci' in tests/js"
	echo "SKIP: run 'npm ci' in tests/js first" >&2
	exit 77
fi
caps="$NT_SOURCE_DIR/tests/golden/captures"

nt --format markdown -o "$NT_TMP/v4.md"
[ "$rc" = 0 ] || fail "markdown: exit $rc"
nt --ipv6 --format markdown -o "$NT_TMP/v6.md"
[ "$rc" = 0 ] || fail "markdown --ipv6: exit $rc"
nt --variant all --rounds 2 --format markdown -o "$NT_TMP/all.md"
"$NAGLE_TRACE" analyze "$caps/gen-ipv6-stall.pcap" --format markdown >"$NT_TMP/an6.md" || [ $? -le 1 ]
"$NAGLE_TRACE" analyze "$caps/tcpdump-tests-bgp-4byte-asn.pcap" --format markdown >"$NT_TMP/bgp.md" || [ $? -le 1 ]

grep -q '^    participant C as Client 192\.0\.2\.1:40000$' "$NT_TMP/v4.md" || fail "no named client"
grep -q '^    participant T as Target \[2001:db8::2\]:5001$' "$NT_TMP/v6.md" || fail "no IPv6 target"
grep -q '^    rect rgb(' "$NT_TMP/v4.md" || fail "the stall is not highlighted"
grep -q '^    participant A as A (held data) \[' "$NT_TMP/an6.md" || fail "analyze: no named A"
for f in "$NT_TMP"/*.md; do
	n=$(grep -c '^```mermaid' "$f")
	[ "$n" -ge 1 ] || fail "$(basename "$f") has no Mermaid diagram"
	"$mmdc" -q -p "$js/puppeteer.json" -i "$f" -o "$NT_TMP/out-$(basename "$f")" \
		>"$NT_TMP/mmdc.log" 2>&1 || fail "mmdc rejects $(basename "$f"): $(tail -5 "$NT_TMP/mmdc.log")"
	[ "$(ls "$NT_TMP/out-$(basename "${f%.md}")"-*.svg | wc -l)" = "$n" ] ||
		fail "mmdc rendered fewer than $n diagrams of $(basename "$f")"
done
echo "ok"
