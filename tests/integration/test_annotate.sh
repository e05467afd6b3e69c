#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyze --annotate: Wireshark's own tools read the pcapng. tshark finds a
# comment at exactly the frames the JSON report names (held, late ACK,
# released), in the output's numbering across two inputs; the packets and
# their nanosecond timestamps are those of the inputs; capinfos shows the
# summary as the file's comment; standard input gives the same file; a bad
# destination or an input as destination leaves nothing behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_tool tshark
need_tool capinfos

caps="$NT_SOURCE_DIR/tests/golden/captures"
in1="$caps/gen-eth-stall.pcap"
in2="$caps/real-netns-write-write.pcap"
out="$NT_TMP/a.pcapng"

"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/r.json" --annotate "$out" "$in1" "$in2" ||
	fail "analyze --annotate exited $?"
[ -s "$out" ] || fail "no annotated file"
ls "$NT_TMP" | grep -q '\.pcapng\.' && fail "a temporary file was left: $(ls "$NT_TMP")"

# Every frame the report names carries the comment of its role, at base(file) + frame.
tshark -r "$out" -T fields -e frame.number -e frame.comment >"$NT_TMP/comments.tsv" 2>/dev/null
python3 - "$NT_TMP/r.json" "$NT_TMP/comments.tsv" <<'PY' || fail "comments are not at the report's frames"
import json, sys
doc = json.load(open(sys.argv[1]))
comments = {}
for line in open(sys.argv[2]):
    num, _, text = line.rstrip('\n').partition('\t')
    if text:
        comments[int(num)] = text
base = [0]
for f in doc['files']:
    base.append(base[-1] + f['packets'])
want = {'held_frame_number': 'held segment H', 'ack_frame_number': 'late ACK of frame',
        'release_frame_number': 'held by Nagle'}
checked = 0
for fl in doc['flows']:
    for which in ('first_stall', 'last_stall'):
        ep = fl[which]
        for key, words in want.items():
            n = base[fl['file']] + ep[key]
            assert n in comments, f'no comment at frame {n} ({which} {key})'
            assert words in comments[n], f'frame {n}: {comments[n]!r} lacks {words!r}'
            checked += 1
        # The released segment names the ACK that released it, in the output's numbering.
        ack = base[fl['file']] + ep['ack_frame_number']
        assert f'delayed ACK of frame {ack} ' in comments[base[fl['file']] + ep['release_frame_number']]
stalls = doc['summary']['stalls']
# Three comments a stall (tshark joins a frame's comments with commas).
total = sum(len(t.split('stall ')) - 1 for t in comments.values())
assert total == 3 * stalls, f'{total} comments for {stalls} stalls'
assert checked >= 12, checked
PY

# The same packets, byte for byte, with the same nanosecond timestamps.
{ tshark -r "$in1" -x; tshark -r "$in2" -x; } >"$NT_TMP/in.hex" 2>/dev/null
tshark -r "$out" -x >"$NT_TMP/out.hex" 2>/dev/null
cmp -s "$NT_TMP/in.hex" "$NT_TMP/out.hex" || fail "packet bytes differ from the inputs"
fields=(-T fields -e frame.time_epoch -e frame.len -e frame.cap_len)
{ tshark -r "$in1" "${fields[@]}"; tshark -r "$in2" "${fields[@]}"; } >"$NT_TMP/in.t" 2>/dev/null
tshark -r "$out" "${fields[@]}" >"$NT_TMP/out.t" 2>/dev/null
cmp -s "$NT_TMP/in.t" "$NT_TMP/out.t" || fail "timestamps or lengths differ from the inputs"

# The summary is the file's comment; nanosecond resolution; the writer is named.
capinfos "$out" >"$NT_TMP/capinfos.txt" 2>/dev/null || fail "capinfos cannot read it"
grep -q 'Capture comment: *nagle-trace analyze: [0-9]* stalls' "$NT_TMP/capinfos.txt" ||
	fail "no summary comment: $(cat "$NT_TMP/capinfos.txt")"
grep -q 'nanoseconds (9)' "$NT_TMP/capinfos.txt" || fail "not nanosecond resolution"
grep -q 'Capture application: *nagle-trace' "$NT_TMP/capinfos.txt" || fail "no shb_userappl"
[ "$(tshark -r "$out" -Y frame.comment 2>/dev/null | wc -l)" -gt 0 ] || fail "-Y frame.comment finds nothing"

# Standard input: spooled, read twice, the same comments.
"$NAGLE_TRACE" analyze --annotate "$NT_TMP/s.pcapng" - <"$in2" >/dev/null || fail "stdin: exit $?"
"$NAGLE_TRACE" analyze --annotate "$NT_TMP/f.pcapng" "$in2" >/dev/null
cmp -s <(tshark -r "$NT_TMP/s.pcapng" -T fields -e frame.comment 2>/dev/null) \
	<(tshark -r "$NT_TMP/f.pcapng" -T fields -e frame.comment 2>/dev/null) ||
	fail "standard input's comments differ from the file's"

# A filter: the file holds the frames the analysis read, and the comments follow them.
"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/flt.json" --annotate "$NT_TMP/flt.pcapng" \
	"$in2" tcp and not tcp[tcpflags] '&' tcp-syn != 0 >/dev/null || fail "filter: exit $?"
n=$(tshark -r "$NT_TMP/flt.pcapng" 2>/dev/null | wc -l)
json_check "$NT_TMP/flt.json" "assert doc['files'][0]['packets'] == $n, ($n, doc['files'][0])"

# -c N: the analysis reads N packets over all inputs; the file holds those N.
"$NAGLE_TRACE" analyze -c 20 --annotate "$NT_TMP/c20.pcapng" "$in2" >/dev/null || fail "-c 20: exit $?"
n=$(tshark -r "$NT_TMP/c20.pcapng" 2>/dev/null | wc -l)
[ "$n" = 20 ] || fail "-c 20 --annotate wrote $n frames"

# Refusals: nothing written, the usage and file exit codes.
set +e
"$NAGLE_TRACE" analyze --annotate "$in2" "$in2" >/dev/null 2>"$NT_TMP/err"
[ $? -eq 2 ] || fail "an input as --annotate was not a usage error"
(cd "$(dirname "$in2")" && "$NAGLE_TRACE" analyze --annotate "./$(basename "$in2")" "$in2") \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "an input spelled another way as --annotate was not a usage error"
"$NAGLE_TRACE" analyze -o "$NT_TMP/same.pcapng" --annotate "$NT_TMP/./same.pcapng" "$in2" >/dev/null 2>"$NT_TMP/err"
[ $? -eq 2 ] || fail "-o and --annotate naming one file (spelled apart) was not a usage error"
"$NAGLE_TRACE" analyze --annotate "$NT_TMP/no/such/dir/x.pcapng" "$in2" >/dev/null 2>"$NT_TMP/err"
[ $? -eq 4 ] || fail "an unwritable --annotate did not exit 4"
set -e
grep -q 'no/such/dir/x.pcapng' "$NT_TMP/err" || fail "the error does not name the file: $(cat "$NT_TMP/err")"
echo "annotate: ok"
