#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The two kernels the suite boots under qemu (tests/integration/test_kernels.sh):
# Debian 12's newest 6.1 and 6.12 kernel packages (bookworm, bookworm-security),
# downloaded with apt-get, never installed. nagle-trace reads the .deb files
# as they are; 6.12 is also unpacked with dpkg-deb, for the unpacked-tree form
# and the "kernel without veth" test.
#
# usage: tests/kernels/fetch.sh [DIR]     (default /var/cache/nagle-trace/kernels)
#
# The archive keeps only the current build of each ABI, so the names are looked
# up with apt-cache at run time: the newest linux-image-6.1.0-N-amd64-unsigned
# and linux-image-6.12.N+deb12-amd64-unsigned that have a candidate.
set -eu
dir=${1:-/var/cache/nagle-trace/kernels}
mkdir -p "$dir"
cd "$dir"

newest() {
	apt-cache search --names-only "$1" | awk '{print $1}' | sort -V | while read -r p; do
		if apt-cache policy "$p" | grep -q 'Candidate: [0-9]'; then echo "$p"; fi
	done | tail -1
}

for pattern in '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' \
	'^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$'; do
	pkg=$(newest "$pattern")
	[ -n "$pkg" ] || { echo "fetch.sh: no package matches $pattern (apt-get update?)" >&2; exit 1; }
	if ! ls "${pkg}"_*.deb >/dev/null 2>&1; then
		apt-get download "$pkg"
	fi
done
chmod 644 ./*.deb
# The 6.12 package unpacked: boot/ and lib/modules/, as a tree nagle-trace also reads.
deb=$(ls linux-image-6.12.*.deb | sort -V | tail -1)
if [ ! -d tree-6.12 ]; then
	rm -rf tree-6.12.tmp
	dpkg-deb -x "$deb" tree-6.12.tmp
	mv tree-6.12.tmp tree-6.12
fi
ls -l "$dir"
