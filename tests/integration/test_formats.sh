#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_formats.sh - every output format and -w from the real binary in real
# namespaces: the SVG is well-formed XML and renders to a non-blank PNG, the
# pcap read back by tshark matches the JSON timeline of the same run segment
# for segment (to the nanosecond), HTML references nothing external, Markdown
# carries a Mermaid sequenceDiagram, refused or failed runs leave no file, an
# interrupted run still writes both files, --color and --summary behave.
#
# Needs: unshare, xmllint (libxml2-utils), rsvg-convert (librsvg2-bin), tshark,
# python3, script (util-linux, bsdutils). Exit 77 (skip) only when namespaces
# or a tool are missing and CI is not "true".
set -u

NT=${NAGLE_TRACE:?set NAGLE_TRACE to the nagle-trace binary}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (CI=true: integration tests may not skip)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}

# wait_delivered PID N
. "$(dirname "$0")/wait.sh"

unshare -Urn true 2>/dev/null || skip "unshare -Urn is not possible here"
for tool in xmllint rsvg-convert tshark python3 script; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# nagle-trace in its own namespaces; 0 (expectation met) or 1 (not met) are both runs that completed.
nt() {
	unshare -Urn "$NT" "$@"
}
ran() {
	[ "$1" -eq 0 ] || [ "$1" -eq 1 ]
}

# --- 1. one run, JSON and pcap: the same frames, segment for segment -----------------------
nt --format json -o run.json -w run.pcap
rc=$?
ran $rc || fail "--format json -o run.json -w run.pcap exited $rc"
[ -s run.json ] && [ -s run.pcap ] || fail "run.json or run.pcap missing"

python3 - run.json > want.tsv <<'PY' || fail "cannot read run.json"
import json, sys
d = json.load(open(sys.argv[1]))
evs = list(d["handshake"]) + [e for r in d["rounds"] for e in r["events"]] + list(d["teardown"])
segs = sorted((e for e in evs if e["kind"] == "segment"), key=lambda e: e["frame"])
bits = {"F": 1, "S": 2, "R": 4, "P": 8, ".": 16, "U": 32, "E": 64, "W": 128}
for e in segs:
    flags = sum(bits[c] for c in e["flags"])
    ack = e["ack"] if flags & 16 else 0
    print("%d\t%d\t%d\t%d\t0x%04x" % (e["t_ns"], e["seq"], ack, e["len"], flags))
PY
tshark -r run.pcap -o tcp.relative_sequence_numbers:TRUE -T fields -e frame.time_epoch \
	-e tcp.seq -e tcp.ack -e tcp.len -e tcp.flags 2>/dev/null |
	python3 -c '
import sys
for line in sys.stdin:
    t, seq, ack, ln, flags = line.rstrip("\n").split("\t")
    sec, _, frac = t.partition(".")
    ns = int(sec) * 10**9 + int((frac + "000000000")[:9])
    f = int(flags, 16)
    print("%d\t%s\t%s\t%s\t0x%04x" % (ns, seq, ack if (f & 16) else 0, ln, f))
' > got.tsv || fail "tshark could not read run.pcap"
[ "$(wc -l < want.tsv)" -ge 10 ] || fail "the JSON has only $(wc -l < want.tsv) segments"
diff want.tsv got.tsv > diff.txt || {
	cat diff.txt
	fail "run.pcap does not hold the segments of run.json (time seq ack len flags)"
}
python3 - run.pcap <<'PY' || fail "run.pcap is not a nanosecond pcap"
import struct, sys
magic = struct.unpack("<I", open(sys.argv[1], "rb").read(4))[0]
sys.exit(0 if magic == 0xa1b23c4d else 1)
PY

# --- 2. SVG + pcap in one run: well-formed, renders, not blank --------------------------------
nt --format svg -o x.svg -w x.pcap
rc=$?
ran $rc || fail "--format svg -o x.svg -w x.pcap exited $rc"
xmllint --noout x.svg || fail "x.svg is not well-formed XML"
grep -q 'stall' x.svg || fail "x.svg shows no stall"
[ "$(tshark -r x.pcap -T fields -e frame.number 2>/dev/null | wc -l)" -ge 10 ] ||
	fail "x.pcap holds fewer than 10 frames"
rsvg-convert x.svg -o x.png || fail "rsvg-convert could not render x.svg"
python3 - x.png <<'PY' || fail "x.png is blank"
# A PNG decoder small enough to trust: IHDR, IDAT, filters 0-4, 8-bit RGB(A) or grey.
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert w > 0 and h > 0 and depth == 8, (w, h, depth)
bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
raw, stride, prev, colours = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set()
for y in range(h):
    ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if ft == 1: line[i] = (line[i] + a) & 255
        elif ft == 2: line[i] = (line[i] + b) & 255
        elif ft == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif ft == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        colours.add(bytes(line[x:x + bpp]))
    prev = line
print("x.png: %dx%d, %d colours" % (w, h, len(colours)))
sys.exit(0 if len(colours) > 2 else 1)
PY

# --- 3. HTML: self-contained; Markdown: a Mermaid sequence diagram ----------------------------
nt --format html -o x.html
ran $? || fail "--format html failed"
grep -q '<svg' x.html || fail "x.html has no inline SVG"
if grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*["'\'']?[[:space:]]*(https?:|//)|<link|<script[^>]*src|@import|url\([[:space:]]*["'\'']?(https?:|//)' x.html; then
	fail "x.html references something external"
fi
nt --format markdown -o x.md
ran $? || fail "--format markdown failed"
python3 - x.md <<'PY' || fail "x.md has no mermaid sequenceDiagram block"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"```mermaid\nsequenceDiagram\n(.*?)\n```", t, re.S)
sys.exit(0 if m and "participant C as Client 192.0.2.1:40000" in m.group(1) and
         "Note over C,T" in m.group(1) and ";" not in m.group(1) else 1)
PY

# --- 4. refused and failed runs leave nothing ----------------------------------------------
mkdir out
"$NT" --rounds abc -o out/r.txt -w out/r.pcap 2>/dev/null
[ $? -eq 2 ] || fail "a bad option did not exit 2"
"$NT" -w "" 2>/dev/null
[ $? -eq 2 ] || fail "-w with an empty name did not exit 2"
"$NT" -o out/same -w out/same 2>/dev/null
[ $? -eq 2 ] || fail "-o and -w naming one file did not exit 2"
[ -z "$(ls -A out)" ] || fail "a refused run left files: $(ls -A out)"
nt -o /nonexistent-nt-dir/x 2> err.txt
rc=$?
[ $rc -eq 4 ] || fail "-o /nonexistent-nt-dir/x exited $rc, not 4"
[ "$(wc -l < err.txt)" -eq 1 ] && grep -q '"/nonexistent-nt-dir/x"' err.txt ||
	fail "the -o error is not one line quoting the path: $(cat err.txt)"
nt -o out/ok.txt -w /nonexistent-nt-dir/x.pcap 2> err.txt
rc=$?
[ $rc -eq 4 ] || fail "-w /nonexistent-nt-dir/x.pcap exited $rc, not 4"
grep -q '"/nonexistent-nt-dir/x.pcap"' err.txt || fail "the -w error does not quote the path"
[ -z "$(ls -A out)" ] || fail "a failed run left files: $(ls -A out)"

# --- 5. SIGINT: what was captured is still written, both files ------------------------------
unshare -Urn "$NT" --rounds 100000 --pause 2 --format json -o out/int.json -w out/int.pcap &
pid=$!
# Ten frames or more must be in the pcap: wait until that many segments were delivered.
wait_delivered "$pid" 12
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "an interrupted run exited $rc, not 130"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["interrupted"] is True and d["rounds"] else 1)' out/int.json ||
	fail "out/int.json does not say interrupted"
[ "$(tshark -r out/int.pcap -T fields -e frame.number 2>/dev/null | wc -l)" -ge 10 ] ||
	fail "out/int.pcap holds fewer than 10 frames"
[ "$(ls -A out | sort | tr '\n' ' ')" = "int.json int.pcap " ] ||
	fail "an interrupted run left: $(ls -A out)"

# --- 6. several variants: one pcap per variant -----------------------------------------------
nt --variant default,nodelay --format markdown -o multi.md -w multi.pcap
ran $? || fail "--variant default,nodelay failed"
[ -s multi-default.pcap ] && [ -s multi-nodelay.pcap ] && [ ! -e multi.pcap ] ||
	fail "several variants did not give multi-default.pcap and multi-nodelay.pcap"
grep -q '| `nodelay` |' multi.md || fail "multi.md has no comparison row for nodelay"

# --- 7. text: --color and NO_COLOR, --summary --------------------------------------------------
nt --color=always > color.txt
ran $? || fail "--color=always failed"
grep -q $'\033\[' color.txt || fail "--color=always printed no colour"
nt --color=never > plain.txt
grep -q $'\033\[' plain.txt && fail "--color=never printed colour"
# On a terminal (script gives one), auto colours unless NO_COLOR is set.
script -qec "unshare -Urn $NT --summary" /dev/null > tty.txt
grep -q $'\033\[' tty.txt || fail "--color=auto on a terminal printed no colour"
NO_COLOR=1 script -qec "unshare -Urn $NT --summary" /dev/null > tty-nc.txt
grep -q $'\033\[' tty-nc.txt && fail "NO_COLOR=1 on a terminal still printed colour"
nt --summary > summary.txt
ran $? || fail "--summary failed"
[ "$(grep -c '^round ' summary.txt)" -eq 4 ] || fail "--summary did not print one line per round"
grep -q 'c->t' summary.txt && fail "--summary printed the timeline"

# --- 8. a report that stops fitting mid-run: rounds are written as they complete, so the
# write fails while the run goes; it stops there, exit 4, one line naming the file, no file left
unshare -Urnm sh -c 'mount -t tmpfs -o size=16k none "$1" && "$2" --variant nodelay \
	--rounds 2000 --format json -o "$1/r.json" -w "$1/r.pcap"; echo $? > "$3/rc"
	ls -A "$1" > "$3/left"' sh "$(mktemp -d)" "$NT" "$PWD" 2> full.txt
[ "$(cat rc)" = 4 ] || fail "a full file system mid-run exited $(cat rc), not 4"
[ "$(wc -l < full.txt)" -eq 1 ] && grep -q '^nagle-trace: write ".*/r.json": No space left on device$' full.txt ||
	fail "the full-disk error is not one line quoting the path: $(cat full.txt)"
[ ! -s left ] || fail "a failed run left files: $(cat left)"

# A run that fails after some rounds were handed over (rounds 1-3 fast with a ping-pong
# threshold of 3, round 4 stalls past --timeout): exit 3, and nothing on standard output
# either, although rounds 1 and 2 had been written (to the spool) before round 4 failed.
for fmt in text json markdown; do
	unshare -Urn "$NT" --rounds 6 --pingpong-thresh 3 --timeout 20 --format $fmt \
		> half.out 2> half.err
	rc=$?
	[ $rc -eq 3 ] || fail "--format $fmt: a round past --timeout exited $rc, not 3"
	grep -q '^nagle-trace: round 4 did not complete within 20 ms' half.err ||
		fail "--format $fmt: the timeout did not fail round 4: $(cat half.err)"
	[ ! -s half.out ] || fail "--format $fmt: a failed run wrote $(wc -c < half.out) bytes to stdout"
done

# --- 9. a long run streams: every round once, in order, in every format ----------------------
nt --variant nodelay --rounds 3000 --format json -o long.json
ran $? || fail "a 3000-round run failed"
python3 - long.json <<'PY' || fail "long.json does not hold rounds 1..3000 in order"
import json, sys
d = json.load(open(sys.argv[1]))
idx = [r["index"] for r in d["rounds"]]
assert idx == list(range(1, 3001)), idx[:5]
assert d["summary"]["rounds"] == 3000 and d["summary"]["dropped"] == 0
assert all(r["events"] for r in d["rounds"])
assert d["handshake"] and d["teardown"]
PY
nt --variant nodelay --rounds 3000 --format markdown -o long.md
ran $? || fail "a 3000-round markdown run failed"
[ "$(grep -c '^| [0-9]* | ' long.md)" -eq 3000 ] || fail "long.md does not have 3000 round rows"
nt --variant nodelay --rounds 3000 --format html -o long.html
ran $? || fail "a 3000-round html run failed"
[ "$(grep -c '^round [0-9]*  ' long.html)" -eq 3000 ] || fail "long.html does not show 3000 rounds"

echo "ok: formats, -w, refused/failed/interrupted runs, colour and summary, full disk, long runs"
exit 0
