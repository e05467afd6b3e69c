#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test data that comes from Debian's archive, not from this repository,
# fetched once by README's set-up command (as root):
#
#  - the corpus of real captures (tests/corpus/README.md): upstream tarballs
#    of Debian source packages (tcpdump, nDPI, Wireshark, tcpflow, dpkt,
#    dnscap, gopacket, termshark),
#    fetched with `apt-get source --download-only`, checked against their
#    .dsc, only the captures kept, in .cache/corpus (tests/CMakeLists.txt's
#    default NT_CORPUS_DIR);
#  - two kernel packages the suite boots under qemu (tests/kernels/fetch.sh),
#    downloaded, never installed, in /var/cache/nagle-trace/kernels.
#
# `apt-get source` needs a deb-src entry: when the machine has none for
# bookworm, one is written beside its own first Debian entry
# (/etc/apt/sources.list.d/nt-src.sources), with that entry's URIs and key,
# so nothing here names a host. Idempotent: what is already there is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

src_list=/etc/apt/sources.list.d/nt-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
	! grep -qs '^deb-src ' /etc/apt/sources.list; then
	awk 'BEGIN { RS = "" } NR == 1 {
		sub(/Types: deb/, "Types: deb-src")
		sub(/Suites: [^\n]*/, "Suites: bookworm")
		gsub(/\n#[^\n]*/, "")
		print
		exit
	}' /etc/apt/sources.list.d/debian.sources >"$src_list.tmp"
	mv "$src_list.tmp" "$src_list"
	echo "fetch-data: wrote $src_list (deb-src for bookworm)"
	apt-get update
fi

tests/corpus/fetch.sh .cache/corpus
tests/kernels/fetch.sh /var/cache/nagle-trace/kernels
