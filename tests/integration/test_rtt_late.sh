#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The -w pcapng's notes (issue 24): every round's H and A carry an
# opt_comment "nagle-trace: delay line late NNN ns" with what the forwarder
# measured, and every B "nagle-trace: its write returned NNN ns before|after
# this frame" with when write(body) returned (tshark reads both as
# frame.comment). analyze of the file takes the lateness off the ACK delay
# and judges B's release by its write, as the live rule does, so it counts
# the live run's own stalled rounds exactly and says which rule released
# each. A frame's lateness is whatever the machine made it; the notes and
# the equal count hold at any load.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool tshark
need_tool python3

nt --rtt 10 --rounds 8 --format json -o "$NT_TMP/live.json" -w "$NT_TMP/t.pcapng"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "--rtt 10 -w t.pcapng exited $rc"
tshark -r "$NT_TMP/t.pcapng" -T fields -e frame.number -e frame.comment \
	>"$NT_TMP/comments.tsv" 2>/dev/null || fail "tshark could not read the -w file"
"$NAGLE_TRACE" analyze --format json -o "$NT_TMP/an.json" "$NT_TMP/t.pcapng" ||
	fail "analyze of the -w file exited $?"
"$NAGLE_TRACE" analyze -o "$NT_TMP/an.txt" "$NT_TMP/t.pcapng" || fail "analyze (text) exited $?"
python3 - "$NT_TMP/live.json" "$NT_TMP/comments.tsv" "$NT_TMP/an.json" "$NT_TMP/an.txt" <<'PY' ||
import json, re, sys
live = json.load(open(sys.argv[1]))
# Frame number -> the delay line's lateness, and -> B's write lead (after: < 0).
notes, wrote = {}, {}
for line in open(sys.argv[2]):
    num, _, text = line.rstrip("\n").partition("\t")
    for c in text.split(","):
        m = re.fullmatch(r"nagle-trace: delay line late (\d+) ns", c)
        if m:
            notes[int(num)] = int(m.group(1))
        m = re.fullmatch(r"nagle-trace: its write returned (\d+) ns (before|after) this frame", c)
        if m:
            wrote[int(num)] = int(m.group(1)) * (1 if m.group(2) == "before" else -1)
noted = 0
for r in live["rounds"]:
    body = next((e for e in r["events"] if e["kind"] == "segment" and e["role"] == "body"), None)
    w = next((e for e in r["events"] if e["kind"] == "syscall" and e["call"] == "write-body"), None)
    if body is None or w is None or not body.get("frame"):
        continue
    # B's note is B's time less write(body)'s return, to the nanosecond.
    assert wrote.get(body["frame"]) == body["t_ns"] - w["t_ns"], (r["index"], wrote.get(body["frame"]))
    noted += 1
assert noted == len(wrote) and noted >= len(live["rounds"]) - 1, (noted, len(wrote))
late = 0
for r in live["rounds"]:
    segs = [e for e in r["events"] if e["kind"] == "segment" and e.get("frame")]
    h = next((i for i, e in enumerate(segs) if e["role"] == "header"), None)
    # H, and A: the first pure ACK after it.
    seen = [] if h is None else [segs[h]["frame"]] + [
        e["frame"] for e in segs[h + 1:] if e["role"] == "pure-ack"][:1]
    want = r.get("header_ack_wire_late_ns", 0)
    got = sum(notes.get(f, 0) for f in seen)
    # header_ack_wire_late_ns is the sum of H's and A's notes, to the nanosecond.
    assert got == want, (r["index"], got, want, seen)
    late += want
assert late > 0, "no round of a --rtt run had its lateness noted"
an = json.load(open(sys.argv[3]))
stalled = sum(1 for r in live["rounds"] if r["verdict"] == "stalled")
assert an["summary"]["stalls"] == stalled, (an["summary"]["stalls"], stalled)
for f in an["flows"]:
    for k in ("first_stall", "last_stall"):
        if f.get(k):
            assert f[k]["release_rule"] == "write", (k, f[k])
text = open(sys.argv[4]).read()
assert re.search(r"^  delay line late on %d frames? by [0-9.]+ ms in all" % len(notes), text, re.M), text
PY
	fail "the -w file's notes or analyze's count (traceback above)"
echo ok
