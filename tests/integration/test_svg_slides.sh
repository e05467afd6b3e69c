#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Slide-sized ladder diagrams: every SVG renders with librsvg (rsvg-convert)
# at most 1920 px wide, --variant all is a grid, --compare two panels, and
# tests/svg/check_svg.py finds no label over another or under a line, in the
# standalone SVGs and in the diagrams inline in the HTML pages.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool rsvg-convert
need_tool python3
src="${NT_SOURCE_DIR:?}"
caps="$src/tests/golden/captures"

"$NAGLE_TRACE" analyze "$caps/tcpdump-tests-bgp-4byte-asn.pcap" --format svg >"$NT_TMP/bgp.svg" || [ $? -le 1 ]
"$NAGLE_TRACE" analyze "$caps/tcpdump-tests-bgp-4byte-asn.pcap" --format html >"$NT_TMP/bgp.html" || [ $? -le 1 ]
"$NAGLE_TRACE" analyze "$caps/gen-writev.pcap" --format svg >"$NT_TMP/writev.svg" || [ $? -le 1 ]
nt --format svg -o "$NT_TMP/default.svg"
[ "$rc" = 0 ] || fail "default svg: exit $rc"
nt --variant all --rounds 3 --format svg -o "$NT_TMP/all.svg"
[ "$rc" = 0 ] || fail "--variant all svg: exit $rc"
nt --compare default,nodelay --format svg -o "$NT_TMP/compare.svg"
[ "$rc" = 0 ] || fail "--compare svg: exit $rc"
nt --variant all --rounds 3 --format html -o "$NT_TMP/all.html"
[ "$rc" = 0 ] || fail "--variant all html: exit $rc"
nt --compare default,one-write --format html -o "$NT_TMP/compare.html"
[ "$rc" = 0 ] || fail "--compare html: exit $rc"

# librsvg renders each; the PNG's own header says how wide it came out.
png_width() {
	python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print(struct.unpack(">I", d[16:20])[0])' "$1"
}
for f in "$NT_TMP"/*.svg; do
	rsvg-convert "$f" -o "${f%.svg}.png" || fail "rsvg-convert could not render $f"
	w=$(png_width "${f%.svg}.png")
	[ "$w" -le 1920 ] || fail "$(basename "$f") renders $w px wide"
done
# Eleven variants: a grid two panels wide, six rows; --compare: one row of two.
[ "$(png_width "$NT_TMP/all.png")" = 1520 ] || fail "--variant all is not two panels wide"
grep -c '<g transform="translate(760 ' "$NT_TMP/all.svg" | grep -qx 5 ||
	fail "--variant all: not 5 rows with a second panel"
[ "$(png_width "$NT_TMP/compare.png")" = 1520 ] || fail "--compare is not two panels wide"
grep -q 'nodelay: round' "$NT_TMP/compare.svg" || fail "--compare lacks its second variant"

# A long run: the page keeps the ladders of rounds 1-16 only, the strip has every round.
nt --rounds 20 --format html -o "$NT_TMP/long.html"
[ "$rc" = 0 ] || fail "--rounds 20 html: exit $rc"
[ "$(grep -o '<figure class="nt-round"' "$NT_TMP/long.html" | wc -l)" = 16 ] ||
	fail "--rounds 20: not 16 ladders on the page"
[ "$(grep -o 'data-nt="cell"' "$NT_TMP/long.html" | wc -l)" = 20 ] ||
	fail "--rounds 20: the strip lacks rounds"
grep -q 'the page keeps rounds 1-16' "$NT_TMP/long.html" || fail "--rounds 20: the cap is not stated"

python3 "$src/tests/svg/check_svg.py" "$NT_TMP"/*.svg "$NT_TMP"/*.html ||
	fail "labels collide (check_svg.py above)"
echo "ok"
