#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_capture_times.sh - valid captures read, damaged frames skipped
# (issue 25), on small captures made here (the layout of tcpdump's
# time_2038_overflow, time_2039, time_2106, time_2106_max; nothing fetched):
#
# - pcap seconds are unsigned 32-bit: 2^31 (2038-01-19), 2039, 2106 and
#   2^32 - 1 s + 999999 us (2106-02-07) read with exit 0 and their times
#   exact in the JSON (tshark reads them too and must agree);
# - a frame whose time is out of range (a negative fraction) in the middle
#   of a file is counted and skipped, every other frame is read, the exit is
#   4, one warning line, summary.incomplete true;
# - a pcapng frame with timestamp 0 is read and warned about, once;
# - an unknown link type is named once ("link type 4194305", not twice);
# - analyze of a FIFO says on a terminal that it waits for a writer (script
#   gives it a terminal), and reads the capture once one comes.
set -eu
. "$(dirname "$0")/lib.sh"
need_tool tshark
need_tool script
cd "$NT_TMP"

python3 - <<'PY'
import struct

def frame(i):
    # Ethernet, IPv4, TCP 192.0.2.1:40000 -> 192.0.2.2:80, 4 bytes of data.
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1000 + 4 * i, 1, 0x50, 0x18, 65535, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 20 + 4, i, 0x4000, 64, 6, 0,
                     bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    return eth + ip + tcp + b"data"

def pcap(path, stamps, link=1):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link))
        for i, (sec, usec) in enumerate(stamps):
            d = frame(i)
            f.write(struct.pack("<IiII", sec, usec, len(d), len(d)) + d)

pcap("time_2038_overflow.pcap", [(0x7FFFFFFF, 999999), (0x80000000, 0), (0x80000000, 1)])
pcap("time_2039.pcap", [(2177452800, 0), (2177452800, 500000)])          # 2039-01-01
pcap("time_2106.pcap", [(4291747200, 0), (4291747200, 250000)])          # 2106-01-01
pcap("time_2106_max.pcap", [(0xFFFFFFFE, 0), (0xFFFFFFFF, 999999)])
# Frame 3 of 6 has a negative fraction: damaged; the other five are readable.
pcap("bad_middle.pcap", [(1700000000, 0), (1700000000, 1000), (0, -500000),
                         (1700000000, 3000), (1700000000, 4000), (1700000000, 5000)])
pcap("unknown_link.pcap", [(1700000000, 0)], link=4194305)

def block(kind, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)

with open("zero_time.pcapng", "wb") as f:
    f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
    f.write(block(1, struct.pack("<HHI", 1, 0, 65535)))
    for i, ts in enumerate([1700000000000000, 0, 1700000000002000]):
        d = frame(i)
        f.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(d), len(d)) + d))
PY

# check FILE EXIT FRAMES FIRST_NS LAST_NS WARNINGS: analyze's exit, frames, times, warning lines.
check() {
	local file=$1 want_rc=$2 frames=$3 first=$4 last=$5 warnings=$6
	set +e
	"$NAGLE_TRACE" analyze "$file" --format json -o r.json 2>err.txt
	rc=$?
	set -e
	[ "$rc" = "$want_rc" ] || fail "$file: exit $rc, want $want_rc: $(cat err.txt)"
	[ "$(grep -c '^nagle-trace: warning: ' err.txt || true)" = "$warnings" ] ||
		fail "$file: want $warnings warning line(s): $(cat err.txt)"
	python3 - "$file" "$frames" "$first" "$last" "$want_rc" <<'PY' || fail "$file: the report"
import json, sys
name, frames, first, last, rc = sys.argv[1:]
d = json.load(open("r.json"))
f = d["files"][0]
assert f["packets"] == int(frames), (f["packets"], frames)
if first != "-":
    assert (f["first_t_ns"], f["last_t_ns"]) == (int(first), int(last)), (f["first_t_ns"], f["last_t_ns"])
assert d["summary"]["incomplete"] is (rc == "4"), d["summary"]
assert d["summary"]["files_damaged"] == (1 if rc == "4" else 0), d["summary"]
PY
}

ns() { echo $(($1 * 1000000000 + $2 * 1000)); }
check time_2038_overflow.pcap 0 3 "$(ns 2147483647 999999)" "$(ns 2147483648 1)" 0
check time_2039.pcap 0 2 "$(ns 2177452800 0)" "$(ns 2177452800 500000)" 0
check time_2106.pcap 0 2 "$(ns 4291747200 0)" "$(ns 4291747200 250000)" 0
check time_2106_max.pcap 0 2 "$(ns 4294967294 0)" "$(ns 4294967295 999999)" 0
check bad_middle.pcap 4 5 "$(ns 1700000000 0)" "$(ns 1700000000 5000)" 1
grep -q 'bad_middle.pcap" is damaged at frame 3 .*; it was skipped$' err.txt ||
	fail "the damaged frame's message: $(cat err.txt)"
check zero_time.pcapng 0 3 - - 1
grep -q 'zero_time.pcapng": 1 frames have timestamp 0' err.txt || fail "timestamp 0: $(cat err.txt)"
check unknown_link.pcap 0 1 - - 1
grep -q ': link type 4194305 is not supported$' err.txt || fail "unknown link type: $(cat err.txt)"

# tshark reads the 2038-2106 files with the same times (its epoch seconds).
for f in time_2038_overflow time_2039 time_2106 time_2106_max; do
	"$NAGLE_TRACE" analyze "$f.pcap" --format json -o r.json
	want=$(tshark -n -r "$f.pcap" -T fields -e frame.time_epoch 2>/dev/null | head -1)
	python3 - "$want" <<'PY' || fail "$f: tshark says $want"
import json, sys
got = json.load(open("r.json"))["files"][0]["first_t_ns"]
assert abs(got / 1e9 - float(sys.argv[1])) < 1e-3, (got, sys.argv[1])
PY
done
# A FIFO without a writer: the wait is said on a terminal. The writer opens the FIFO
# only once the message is there (a wait for the event, not for a time).
mkfifo in.fifo
script -qfc "$NAGLE_TRACE analyze $PWD/in.fifo --format json -o $PWD/fifo.json" tty.txt >/dev/null &
spid=$!
for _ in $(seq 1000); do
	grep -q 'in.fifo" is a FIFO: waiting for a writer to open it' tty.txt 2>/dev/null && break
	sleep 0.01
done
grep -q 'in.fifo" is a FIFO: waiting for a writer to open it' tty.txt ||
	{ kill $spid; fail "no word on the terminal about the FIFO's wait: $(cat tty.txt)"; }
cat time_2039.pcap >in.fifo
wait $spid
python3 -c 'import json; assert json.load(open("fifo.json"))["files"][0]["packets"] == 2'

echo "ok: 2038-2106 pcap times, a damaged frame skipped, pcapng timestamp 0, unknown link type"
