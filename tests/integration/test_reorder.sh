#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_reorder.sh - segments out of order are counted as Wireshark counts
# them and reported as drops are (issue 25, defect 6), on a capture made here:
# a handshake with a 2 ms round trip, then two data segments swapped 50 us
# apart (one out of order), a spurious retransmission 200 ms later, a loss
# answered by three duplicate ACKs and a fast retransmit (neither out of
# order), the target's first answer segment arriving after its next two
# (one), a keep-alive, and a hole filled 30 ms late, past the round trip (a
# retransmission). tshark must find the same count
# (tcp.analysis.out_of_order), and analyze must report it in the file, the
# flow and the summary of its JSON, once on standard error and in the text.
set -eu
. "$(dirname "$0")/lib.sh"
need_tool tshark
cd "$NT_TMP"

python3 - ooo.pcap <<'PY'
import struct, sys
C, S = bytes([192,0,2,1]), bytes([192,0,2,2])
def csum(b):
    if len(b) % 2: b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b)//2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def seg(src, dst, sp, dp, seq, ack, flags, data=b''):
    tcp = struct.pack('!HHIIBBHHH', sp, dp, seq, ack, 0x50, flags, 65535, 0, 0) + data
    ph = src + dst + struct.pack('!BBH', 0, 6, len(tcp))
    c = csum(ph + tcp)
    tcp = tcp[:16] + struct.pack('!H', c) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00' + ip + tcp
SYN, ACK, PSH, FIN = 2, 16, 8, 1
t0 = 1700000000.0
pk = []
def c2t(t, seq, ack, fl, d=b''): pk.append((t, seg(C, S, 40000, 80, seq, ack, fl, d)))
def t2c(t, seq, ack, fl, d=b''): pk.append((t, seg(S, C, 80, 40000, seq, ack, fl, d)))
ci, si = 1000, 5000
c2t(0.000, ci, 0, SYN); t2c(0.001, si, ci+1, SYN|ACK); c2t(0.002, ci+1, si+1, ACK)   # RTT 2 ms
d = b'x' * 100
# 5 segments, the 3rd and 4th swapped 50 us apart: one out of order (the 3rd)
base = ci + 1
order = [0, 1, 3, 2, 4]
for k, i in enumerate(order):
    c2t(0.010 + k * 0.00005, base + 100 * i, si + 1, ACK | PSH, d)
t2c(0.012, si + 1, base + 500, ACK)
# an RTO retransmission 200 ms later of segment 5: spurious (acked) - not out of order
c2t(0.212, base + 400, si + 1, ACK | PSH, d)
# a loss: segment 7 missing, 8, 9 arrive; 3 dup ACKs; the fast retransmit of 7 within 1 ms
c2t(0.300, base + 500, si + 1, ACK | PSH, d)             # 6
c2t(0.30005, base + 700, si + 1, ACK | PSH, d)           # 8
c2t(0.30010, base + 800, si + 1, ACK | PSH, d)           # 9
t2c(0.3005, si + 1, base + 600, ACK); t2c(0.3006, si + 1, base + 600, ACK); t2c(0.3007, si + 1, base + 600, ACK)
c2t(0.3009, base + 600, si + 1, ACK | PSH, d)            # 7: fast retransmission
t2c(0.302, si + 1, base + 900, ACK)
# the server answers with 3 segments, the 1st last, 0.5 ms apart: two... no: the 1st is out of order once
r = si + 1
t2c(0.400, r + 100, base + 900, ACK | PSH, d); t2c(0.4005, r + 200, base + 900, ACK | PSH, d); t2c(0.401, r, base + 900, ACK | PSH, d)
c2t(0.402, base + 900, r + 300, ACK)
# a keep-alive (1 byte below the highest), much later
c2t(1.0, base + 899, r + 300, ACK, b'\0')
t2c(1.001, r + 300, base + 900, ACK)
# a hole filled 30 ms late (past the 2 ms handshake RTT): a retransmission, not out of order
c2t(1.5, base + 900, r + 300, ACK | PSH, d); c2t(1.5001, base + 1100, r + 300, ACK | PSH, d)
c2t(1.530, base + 1000, r + 300, ACK | PSH, d); t2c(1.531, r + 300, base + 1200, ACK)
e = base + 1200
c2t(2.0, e, r + 300, FIN | ACK); t2c(2.001, r + 300, e + 1, FIN | ACK); c2t(2.002, e + 1, r + 301, ACK)
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    for t, b in pk:
        ns = round((t0 + t) * 1e9)
        f.write(struct.pack('<IIII', ns // 10**9, ns % 10**9, len(b), len(b)) + b)
PY

want=$(tshark -n -r ooo.pcap -Y tcp.analysis.out_of_order 2>/dev/null | wc -l)
[ "$want" = 2 ] || fail "tshark finds $want segments out of order in the crafted capture, want 2"
set +e
"$NAGLE_TRACE" analyze ooo.pcap --format json -o ooo.json 2>err.txt
rc=$?
set -e
[ "$rc" = 0 ] || fail "analyze exit $rc: $(cat err.txt)"
[ "$(grep -c 'TCP segments arrived out of order' err.txt)" = 1 ] &&
	grep -q '^nagle-trace: warning: "ooo.pcap": 2 TCP segments arrived out of order' err.txt ||
	fail "the warning: $(cat err.txt)"
python3 - "$want" <<'PY' || fail "the JSON's out_of_order counts"
import json, sys
want = int(sys.argv[1])
d = json.load(open("ooo.json"))
assert d["files"][0]["out_of_order"] == want, d["files"][0]
assert d["summary"]["out_of_order"] == want, d["summary"]
assert d["summary"]["flows_out_of_order"] == 1, d["summary"]
PY
"$NAGLE_TRACE" analyze ooo.pcap 2>/dev/null | grep -q '^  warning: 2 segments out of order in 1 flow' ||
	fail "the text report's warning line"
# A capture in order says nothing of it.
"$NAGLE_TRACE" analyze "$NT_SOURCE_DIR/tests/golden/captures/gen-eth-stall.pcap" 2>err.txt >out.txt
! grep -q 'out of order' err.txt out.txt || fail "a capture in order: $(cat err.txt out.txt)"
echo "ok: $want segments out of order, as tshark counts them, in the JSON, the text and a warning"
