#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pkt_check.py must accept a well-formed export and refuse each broken line,
naming its line. Run by ctest (tools/pkt_check); exits non-zero on failure."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pkt_check  # noqa: E402

GOOD = """\
// nagle-trace --export-packetdrill: round 2 of variant "cork", verdict coalesced
/* a C comment
   over two lines */
0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0 setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0
+0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)
+0 > S 0:0(0) <...>
+0.000015 < S. 0:0(0) ack 1 win 65160 <mss 1460,nop,wscale 7>
+0.000013 > . 1:1(0) ack 1

+0.100000 setsockopt(3, SOL_TCP, TCP_CORK, [1], 4) = 0
+0 send(3, ..., 4, MSG_MORE) = 4
+0.000003 write(3, ..., 8) = 8
+0.000001 writev(3, [{..., 4}, {..., 8}], 2) = 12
+0 setsockopt(3, SOL_TCP, TCP_CORK, [0], 4) = 0
+0.000002 > P. 1:13(12) ack 1
+0.046596 < . 1:1(0) ack 13 win 502
+.000047 < P. 1:3(2) ack 13 win 502
+0.000005 read(3, ..., 2) = 2
"""

# (what, line number in GOOD (1-based), replacement line, line the error must name)
BROKEN = [
    ('no result', 12, '+0 send(3, ..., 4, MSG_MORE)', 12),
    ('sequence arithmetic', 16, '+0.000002 > P. 1:14(12) ack 1', 16),
    ('<...> inbound', 9, '+0.000015 < S. 0:0(0) ack 1 win 65160 <...>', 9),
    ('unknown call', 13, '+0.000003 frobnicate(3, ..., 8) = 8', 13),
    ('argument count', 13, '+0.000003 write(3, 8) = 8', 13),
    ('bad flags', 16, '+0.000002 > X. 1:13(12) ack 1', 16),
    ('repeated flag', 16, '+0.000002 > PP. 1:13(12) ack 1', 16),
    ('absolute time later', 13, '0.5 write(3, ..., 8) = 8', 13),
    ('negative time', 13, '+-1 write(3, ..., 8) = 8', 13),
    ('window range', 17, '+0.046596 < . 1:1(0) ack 13 win 70000', 17),
    ('payload range', 16, '+0 > P. 1:70001(70000) ack 1', 16),
    ('options unterminated', 9, '+0.000015 < S. 0:0(0) ack 1 win 65160 <mss 1460,nop', 9),
    ('unknown option', 9, '+0.000015 < S. 0:0(0) ack 1 win 65160 <mss 1460,foo 3>', 9),
    ('ack flag without ack', 10, '+0.000013 > . 1:1(0)', 10),
    ('two events on a line', 13, '+0 write(3, ..., 8) = 8 +0 read(3, ..., 2) = 2', 13),
    ('not an event', 13, 'hello', 13),
    ('no time', 13, 'write(3, ..., 8) = 8', 13),
    ('unclosed array', 5, '+0 fcntl(3, F_SETFL, [O_RDWR) = 0', 5),
    ('iovec without ...', 14, '+0.000001 writev(3, [{4}, {..., 8}], 2) = 12', 14),
    ('split over lines', 17, '+0.046596 < . 1:1(0) ack 13\nwin 502', 17),
]


def lines_with(n, text):
    lines = GOOD.split('\n')
    lines[n - 1] = text
    return '\n'.join(lines)


def main():
    failures = []
    err = pkt_check.check_text(GOOD)
    if err:
        failures.append(f'the good script was refused: line {err[0]}: {err[1]}')
    for what, n, text, want_line in BROKEN:
        err = pkt_check.check_text(lines_with(n, text))
        if err is None:
            failures.append(f'{what}: accepted')
        elif err[0] != want_line:
            failures.append(f'{what}: error at line {err[0]}, not {want_line}: {err[1]}')
    if pkt_check.check_text('// only a comment\n') is None:
        failures.append('an empty script was accepted')
    # The command line: exit 1 and FILE:LINE on a broken file, 0 on a good one.
    with tempfile.TemporaryDirectory() as d:
        good, bad = os.path.join(d, 'good.pkt'), os.path.join(d, 'bad.pkt')
        open(good, 'w').write(GOOD)
        open(bad, 'w').write(lines_with(16, '+0 > P. 1:14(12) ack 1'))
        tool = os.path.join(HERE, 'pkt_check.py')
        r = subprocess.run([sys.executable, tool, good], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f'pkt_check.py good.pkt exited {r.returncode}: {r.stderr}')
        r = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
        if r.returncode != 1 or f'{bad}:16:' not in r.stderr:
            failures.append(f'pkt_check.py bad.pkt: exit {r.returncode}, {r.stderr!r}')
    for f in failures:
        print('FAIL:', f, file=sys.stderr)
    print(f'{len(BROKEN) + 4 - len(failures)} passed, {len(failures)} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
