#!/bin/bash
# SPDX-License-Identifier: MIT
# nagle-trace analyze --format markdown|svg|html, beyond the goldens' byte
# comparison: the SVG is well-formed XML and renders to a non-empty PNG, the
# HTML references nothing outside itself, the Mermaid text holds no ';' or
# '#', for a capture with stalls and one without. Needs no privileges.
set -u
: "${NT_SOURCE_DIR:?}"
. "$(dirname "$0")/lib.sh"
need_tool xmllint
need_tool rsvg-convert

caps=$NT_SOURCE_DIR/tests/golden/captures
for cap in tcpdump-tests-bgp-4byte-asn.pcap gen-writev.pcap; do
	in=$caps/$cap
	base=$NT_TMP/${cap%.pcap}

	"$NAGLE_TRACE" analyze --format svg -o "$base.svg" "$in" || fail "$cap: svg: exit status $?"
	xmllint --noout "$base.svg" || fail "$cap: the SVG is not well-formed XML"
	rsvg-convert -o "$base.png" "$base.svg" || fail "$cap: rsvg-convert failed"
	[ -s "$base.png" ] || fail "$cap: rsvg-convert wrote an empty PNG"
	[ "$(head -c 8 "$base.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$cap: rsvg-convert did not write a PNG"

	"$NAGLE_TRACE" analyze --format html -o "$base.html" "$in" || fail "$cap: html: exit status $?"
	if grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?(https?:|//)" "$base.html"; then
		fail "$cap: the HTML references something outside itself"
	fi
	grep -Eiq '<link|<script[^>]*src|@import|url\((["'\'']?)(https?:|//)' "$base.html" &&
		fail "$cap: the HTML loads a stylesheet, script or font"
	grep -q '</html>' "$base.html" || fail "$cap: the HTML is cut short"
	# The inline diagrams, when there are some, are well-formed on their own.
	if grep -q '<svg' "$base.html"; then
		{ echo '<svgs>'; sed -n '/<svg/,/<\/svg>/p' "$base.html"; echo '</svgs>'; } |
			xmllint --noout - ||
			fail "$cap: the inline SVG is not well-formed"
	fi

	"$NAGLE_TRACE" analyze --format markdown -o "$base.md" "$in" ||
		fail "$cap: markdown: exit status $?"
	[ -s "$base.md" ] || fail "$cap: empty markdown"
	# Message and note text: ';' separates statements and '#' starts an entity code.
	if sed -n '/^```mermaid$/,/^```$/p' "$base.md" | grep -E '^    .*:.*[;#]'; then
		fail "$cap: ';' or '#' in Mermaid text"
	fi
done

# With stalls: the diagram and the report name the worst flow's first stall.
# The worst flow lost the most wall-clock time: 1.0.3.1's single 43.967 ms
# stall, not 1.0.0.1's two overlapping ones (83.8 ms summed, 41.9 ms of time).
bgp=$NT_TMP/tcpdump-tests-bgp-4byte-asn
grep -q '43.967 ms stall' "$bgp.svg" || fail "bgp: no stall band in the SVG"
grep -q '1.0.3.1:35169' "$bgp.svg" || fail "bgp: the SVG does not show the worst flow"
grep -q '^```mermaid$' "$bgp.md" || fail "bgp: no Mermaid diagram"
grep -q '<pre>file 1: ' "$bgp.html" || fail "bgp: no text report in the HTML"

# Without: a document that says so, in each format.
none=$NT_TMP/gen-writev
grep -q 'no stalls found' "$none.svg" || fail "writev: the SVG does not say no stalls were found"
grep -q 'no stalls found' "$none.md" || fail "writev: the markdown does not say so"
grep -q 'No stalls found' "$none.html" || fail "writev: the HTML does not say so"

# An unknown format names the known ones.
"$NAGLE_TRACE" analyze --format pdf "$caps/gen-writev.pcap" 2>"$NT_TMP/err" >/dev/null
[ $? = 2 ] || fail "--format pdf: want exit status 2"
grep -q 'text|json|jsonl|markdown|svg|html' "$NT_TMP/err" || fail "--format pdf: names not listed"
echo "ok"
