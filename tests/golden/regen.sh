#!/bin/bash
# SPDX-License-Identifier: MIT
# Regenerate the golden files; review the diff in the same commit.
#   regen.sh                    rewrite synthetic captures and every expected file
#   regen.sh --check-captures   only check mkcap still writes the checked-in captures
# Needs NAGLE_TRACE and MKCAP (default: build-analyze/ binaries).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${NAGLE_TRACE:=$root/build-analyze/nagle-trace}"
: "${MKCAP:=$root/build-analyze/tests/golden/mkcap}"
# The script changes directory: make the binaries' paths absolute first.
NAGLE_TRACE=$(realpath -m "$NAGLE_TRACE")
MKCAP=$(realpath -m "$MKCAP")
scenarios="eth-stall sll2-stall raw-stall ipv6-stall vlan-stall snap54-stall receiver-stall
delack200 nodelay writev think"

if [ "${1:-}" = --check-captures ]; then
	tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
	for s in $scenarios; do
		"$MKCAP" "$s" "$tmp/$s.pcap"
		cmp "$tmp/$s.pcap" "$here/captures/gen-$s.pcap"
	done
	exit 0
fi

for s in $scenarios; do
	"$MKCAP" "$s" "$here/captures/gen-$s.pcap"
done
cd "$here"
grep -Ev '^[[:space:]]*(#|$)' list.txt | while read -r name input expected args; do
	# shellcheck disable=SC2086
	"$NAGLE_TRACE" analyze "$input" $args >"$expected" || [ $? -le 1 ]
	echo "regenerated $expected"
done
