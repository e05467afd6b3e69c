#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A lesson on the Nagle + delayed-ACK stall, for a class and a projector.
#
# It writes the lesson page (one self-contained HTML file: step through each
# round on its ladder, switch variants, guess verdicts, projector mode) and
# walks through the same story in the terminal: the stall, why round 1 is
# fast, the ping-pong sawtooth, the MSS boundary, and every fix side by side.
# Run as root or under `unshare -Urn`:
#
#   unshare -Urn examples/classroom.sh [path/to/nagle-trace]
#
# LESSON_DIR (default: the current directory) gets lesson.html (every
# variant) and lesson-sawtooth.html (tcp_pingpong_thresh 2). STEP=1 pauses
# after each round of step 2 (a terminal only). Colour only on a terminal,
# never with NO_COLOR set or TERM=dumb.
set -eu
# The binary: as given, else the build tree's next to this script, else the installed one.
nt=${1:-$(dirname "$0")/../build/nagle-trace}
[ -x "$nt" ] || [ -n "${1:-}" ] || nt=$(command -v nagle-trace || echo "$nt")
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }
dir=${LESSON_DIR:-.}

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	bold=$(printf '\033[1m') reset=$(printf '\033[0m')
else
	bold='' reset=''
fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$reset"; }

step "0. The lesson page: open it in a browser (f: projector mode, g: predict mode)"
"$nt" --variant all --rounds 8 --format html -o "$dir/lesson.html"
"$nt" --pingpong-thresh 2 --rounds 8 --format html -o "$dir/lesson-sawtooth.html"
echo "wrote $dir/lesson.html and $dir/lesson-sawtooth.html"

step "1. Two small writes, then a read: round 1 is fast, rounds 2-4 wait ~40 ms"
"$nt" --summary

step "2. The whole timeline of one stalled round: header, nothing, pure ACK, body"
if [ -n "${STEP:-}" ] && [ -t 0 ] && [ -t 1 ]; then
	"$nt" --rounds 3 --step
else
	"$nt" --rounds 2 | sed -n '/^round 2/,/^$/p'
fi

step "3. tcp_pingpong_thresh 2: the receiver needs two fast replies to turn interactive"
"$nt" --pingpong-thresh 2 --rounds 8 --summary

step "4. A full-MSS body is never held by Nagle (1447 B stalls, 1448 B does not)"
"$nt" --body 1447 --rounds 3 --summary | grep '^round'
"$nt" --body 1448 --rounds 3 --summary | grep '^round'

step "5. Every fix and non-fix, each in its own lab"
"$nt" --variant all --rounds 6
