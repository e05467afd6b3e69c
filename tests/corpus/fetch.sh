#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fetch.sh DIR - the corpus of real captures (tests/corpus/README.md), fetched
# from Debian's archive at set-up time: nothing of it is committed.
#
# For each source package below: `apt-get source --download-only` of the
# pinned version (apt checks every file against the signed Sources index),
# then the upstream tarball's SHA-256 is checked against the .dsc's
# Checksums-Sha256 line, and only the capture files (*.pcap, *.pcapng, *.cap,
# the parts of a split one, *.pcapng.1, and their .gz or .bz2, decompressed)
# are extracted, under DIR/PACKAGE/ with their path in the tarball. The
# Debian part of a package is not needed (the .debian.tar.xz of ndpi 4.2-2
# and nfstrace are missing from the archive: apt-get's failure is ignored
# when the upstream tarball came and verifies against the .dsc). Two binary
# packages (DEBS, below) likewise, with their path in the package.
#
# Needs a deb-src line for bookworm (CI: /etc/apt/sources.list.d/nt-src.sources,
# see tests/fetch-data.sh). Idempotent: a package whose stamp file
# DIR/.PACKAGE.done names the verified checksum is not fetched again.
# Exit status: 0 done, 2 usage, 3 no network / no deb-src / checksum mismatch.
set -eu

PKGS="tcpdump=4.99.3-1:tcpdump_4.99.3.orig.tar.gz
ndpi=4.2-2:ndpi_4.2.orig.tar.gz
wireshark=4.0.17-0+deb12u3:wireshark_4.0.17.orig.tar.bz2
tcpflow=1.6.1-2:tcpflow_1.6.1.orig.tar.gz
python-dpkt=1.9.8-1:python-dpkt_1.9.8.orig.tar.gz
dnscap=2.1.1-1:dnscap_2.1.1.orig.tar.xz
gopacket=1.1.19-3:gopacket_1.1.19.orig.tar.gz
termshark=2.4.0-1:termshark_2.4.0.orig.tar.gz
nfstrace=0.4.3.2+git20200805+b220d04-2.2:nfstrace_0.4.3.2+git20200805+b220d04.orig.tar.xz"

# Binary packages that ship captures their source tarball lacks here (the
# source 404s, or the captures are installed as test data): fetched with
# `apt-get download` (apt checks it against the signed Packages index), then
# held to the SHA-256 pinned here, and only the captures unpacked.
DEBS="pathspider=2.0.1-3:1e4e9c0aae8b297c6539fdf6cb8abaea0990341558567b111152bfc73bbca5c9
ruby-pcaprub=0.12.4-1+b9:49232b675ef82e708c9945cb9bd04d3720e6210c61c48230ebd9074a46b41e59"

die() {
	echo "fetch.sh: $*" >&2
	exit 3
}

# The capture files among a listing's names, one name a line. Wireshark's
# many_interfaces.pcapng.1-3 end in a digit (a file split in three).
captures() {
	grep -E '\.(pcap|pcapng|cap)(\.[0-9]+)?(\.gz|\.bz2)?$'
}

# Whether PACKAGE is extracted already (its stamp names what it came from).
extracted() {
	[ -f "$dest/.$1.done" ] && [ -d "$dest/$1" ] || return 1
	echo "fetch.sh: $1: already extracted ($(cat "$dest/.$1.done"))"
}

# The .gz and .bz2 captures under DIR, decompressed in place.
decompress() {
	find "$1" -name '*.gz' -type f -exec gunzip -f {} +
	find "$1" -name '*.bz2' -type f -exec bunzip2 -f {} +
}

[ $# -eq 1 ] || {
	echo "usage: tests/corpus/fetch.sh DIR" >&2
	exit 2
}
dest=$1
mkdir -p "$dest/.src"
dest=$(cd "$dest" && pwd)
command -v apt-get >/dev/null || die "apt-get not found: the corpus comes from Debian's source archive"

echo "$PKGS" | while IFS=: read -r spec orig; do
	pkg=${spec%%=*}
	dsc="${pkg}_${spec#*=}.dsc"
	dsc=$(echo "$dsc" | sed 's/_[0-9]*:/_/')
	extracted "$pkg" && continue
	cd "$dest/.src"
	if [ ! -f "$orig" ] || [ ! -f "$dsc" ]; then
		# ndpi's and nfstrace's Debian tarballs 404: judge by what arrived, below.
		apt-get source --download-only "$spec" >"$pkg.log" 2>&1 || true
	fi
	[ -f "$dsc" ] || die "$pkg: could not download '$dsc' (no network, or no deb-src line for bookworm; see $dest/.src/$pkg.log)"
	[ -f "$orig" ] || die "$pkg: could not download '$orig' (see $dest/.src/$pkg.log)"
	want=$(sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc" | awk -v f="$orig" '$3 == f { print $1 }')
	[ -n "$want" ] || die "$pkg: '$dsc' lists no SHA-256 for '$orig'"
	have=$(sha256sum "$orig" | cut -d' ' -f1)
	[ "$want" = "$have" ] || die "$pkg: '$orig' has SHA-256 $have, '$dsc' says $want"
	rm -rf "$dest/$pkg.tmp"
	mkdir -p "$dest/$pkg.tmp"
	tar -tf "$orig" | captures >"$dest/$pkg.list" ||
		die "$pkg: no captures in '$orig'"
	tar -xf "$orig" -C "$dest/$pkg.tmp" -T "$dest/$pkg.list"
	rm -f "$dest/$pkg.list"
	decompress "$dest/$pkg.tmp"
	# The tarball's top directory carries the version: drop it.
	top=$(find "$dest/$pkg.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	rm -rf "$dest/$pkg"
	mv "$top" "$dest/$pkg"
	rm -rf "$dest/$pkg.tmp"
	n=$(find "$dest/$pkg" -type f | wc -l)
	echo "$orig sha256 $have, $n captures" >"$dest/.$pkg.done"
	echo "fetch.sh: $pkg: $n captures from $orig (SHA-256 verified against $dsc)"
done

echo "$DEBS" | while IFS=: read -r spec want; do
	pkg=${spec%%=*}
	extracted "$pkg" && continue
	cd "$dest/.src"
	deb=$(ls "${pkg}"_*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		apt-get download "$spec" >"$pkg.log" 2>&1 ||
			die "$pkg: could not download '$spec' (no network; see $dest/.src/$pkg.log)"
		deb=$(ls "${pkg}"_*.deb | head -n 1)
	fi
	have=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$want" = "$have" ] || die "$pkg: '$deb' has SHA-256 $have, fetch.sh pins $want"
	rm -rf "$dest/$pkg"
	mkdir -p "$dest/$pkg"
	dpkg-deb --fsys-tarfile "$deb" | tar -t | captures >"$dest/$pkg.list" ||
		die "$pkg: no captures in '$deb'"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest/$pkg" -T "$dest/$pkg.list"
	rm -f "$dest/$pkg.list"
	decompress "$dest/$pkg"
	n=$(find "$dest/$pkg" -type f | wc -l)
	echo "$deb sha256 $have, $n captures" >"$dest/.$pkg.done"
	echo "fetch.sh: $pkg: $n captures from $deb (SHA-256 as pinned)"
done
