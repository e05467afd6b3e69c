#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A classroom walk-through: the stall, why round 1 is fast, the sawtooth, the
# MSS boundary, and every fix side by side. Run as root or under `unshare -Urn`:
#   unshare -Urn examples/classroom.sh [path/to/nagle-trace]
set -eu
# The binary: as given, else the build tree's next to this script, else the installed one.
nt=${1:-$(dirname "$0")/../build/nagle-trace}
[ -x "$nt" ] || [ -n "${1:-}" ] || nt=$(command -v nagle-trace || echo "$nt")
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. Two small writes, then a read: round 1 is fast, rounds 2-4 wait ~40 ms"
"$nt" --summary

step "2. The whole timeline of one stalled round: header, nothing, pure ACK, body"
"$nt" --rounds 2 | sed -n '/^round 2/,/^$/p'

step "3. tcp_pingpong_thresh 2: the receiver needs two fast replies to turn interactive"
"$nt" --pingpong-thresh 2 --rounds 8 --expect any --summary

step "4. A full-MSS body is never held by Nagle (1447 B stalls, 1448 B does not)"
"$nt" --body 1447 --rounds 3 --summary | grep '^round'
"$nt" --body 1448 --rounds 3 --expect unheld --summary | grep '^round'

step "5. Every fix and non-fix, each in its own lab"
"$nt" --variant all --rounds 6
