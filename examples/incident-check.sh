#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# For an incident writeup: does this kernel stall a write-write-read client with
# your message sizes, and which fix removes it? Writes a JSON report and exits
# non-zero if the default pattern does NOT stall (so the cause is elsewhere).
#   unshare -Urn examples/incident-check.sh HEADER_BYTES BODY_BYTES REPLY_BYTES [nagle-trace]
set -eu
header=${1:-64} body=${2:-256} reply=${3:-128}
nt=${4:-$(dirname "$0")/../build/nagle-trace}
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }
out=${OUT:-incident-$(date +%Y%m%d-%H%M%S).json}

"$nt" --header "$header" --body "$body" --reply "$reply" --rounds 10 \
	--variant default,nodelay,writev,quickack-rearm --format json -o "$out" || status=$?
"$nt" --header "$header" --body "$body" --reply "$reply" --rounds 10 \
	--variant default,nodelay,writev,quickack-rearm || true
echo
echo "report: $out"
exit "${status:-0}"
