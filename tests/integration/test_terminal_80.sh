#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The terminal of a class: on a real 80-column terminal (script(1)'s pty,
# stty cols 80) the --variant all table fits, every line of the report fits,
# long notes break at words and not inside one (their words are the same as
# in the unwrapped report to a file), and a row with a stalled round is red
# when colour is on. A report to a file is not wrapped.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool script
need_tool python3

args="--variant all --rounds 3"
script -qec "stty cols 80; unshare -Urn '$NAGLE_TRACE' $args --color always" /dev/null \
	>"$NT_TMP/tty.txt" </dev/null || fail "nagle-trace on a terminal exited $?"
unshare -Urn "$NAGLE_TRACE" $args -o "$NT_TMP/file.txt" || fail "nagle-trace to a file failed"

python3 - "$NT_TMP/tty.txt" "$NT_TMP/file.txt" <<'PY' || fail "the 80-column report is wrong (above)"
import re, sys
esc = re.compile(r'\x1b\[[0-9;]*m')
tty = open(sys.argv[1], encoding='utf-8').read().replace('\r', '')
plain = esc.sub('', tty)
lines = plain.split('\n')
long = [l for l in lines if len(l) > 80]
assert not long, f"{len(long)} lines over 80 columns: {long[:3]}"
# The table: header and one row per variant, each one line.
head = [l for l in lines if l.startswith('variant ')]
assert head and 'p50' in head[0] and 'segs' in head[0], head
rows = [l for l in tty.split('\n') if re.match(r'(\x1b\[31m)?(default|nodelay|writev) +\d', l)]
assert len(rows) == 3, rows
for r in rows:
    stalled = 'stalled' in esc.sub('', r)
    assert r.startswith('\x1b[31m') == stalled, f"stalled rows red, others not: {r!r}"
# The notes: the same words as the report to a file, none cut in two.
def notes(text):
    part = text.split("why each works or fails", 1)[1].split('\n\n', 1)[0]
    return part.split()
f = open(sys.argv[2], encoding='utf-8').read()
assert any(len(l) > 80 for l in f.split('\n')), "the file report was wrapped too"
assert notes(plain) == notes(f), "a note's words differ: a word was cut"
wrapped = [l for l in plain.split("why each works or fails", 1)[1].split('\n') if l.startswith(' ' * 16)]
assert wrapped, "no note was long enough to wrap: the test would not see a cut word"
PY
