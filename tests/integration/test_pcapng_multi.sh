#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_pcapng_multi.sh - pcapng files whose interfaces differ in link type or
# snapshot length are read in full (issues 25, 32), checked against tshark.
#
# Made here from the golden captures with Debian's wireshark tools (nothing
# fetched): mergecap joins raw IP (gen-raw-stall), Ethernet with IPv6 cut at a
# 200-byte snapshot length (gen-ipv6-stall, editcap -s 200) and Linux cooked
# v2 an hour later (gen-sll2-stall, editcap -t 3600) into one file of three
# interfaces; `cat` of two pcapng files is one file of two sections. libpcap
# read none of the first past frame 0 ("an interface has a type 113
# different from the type of the first interface").
#
# For each: exit 0 and no warning; as many frames as tshark reads; the stalls
# of the parts, read alone, add up to the file's; and every stall's held, ACK
# and release frames are, in tshark, the frames with those numbers: the same
# time to the nanosecond and the flow's addresses (so the frames are numbered
# and timed across interfaces as Wireshark does).
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
need_tool tshark
need_tool mergecap
need_tool editcap
G=$NT_SOURCE_DIR/tests/golden/captures
cd "$NT_TMP"

editcap -F pcapng -s 200 "$G/gen-ipv6-stall.pcap" ip6.pcapng
editcap -F pcapng -t 3600 "$G/gen-sll2-stall.pcap" sll2.pcapng
mergecap -F pcapng -w multi.pcapng "$G/gen-raw-stall.pcap" ip6.pcapng sll2.pcapng
editcap -F pcapng "$G/gen-eth-stall.pcap" eth.pcapng
cat eth.pcapng ip6.pcapng >sections.pcapng

# stalls FILE...: the stalls analyze finds in each FILE read alone, summed.
stalls() {
	local n=0 f s
	for f in "$@"; do
		s=$("$NAGLE_TRACE" analyze "$f" --format json |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["stalls"])')
		n=$((n + s))
	done
	echo "$n"
}

check() {
	local f=$1
	shift
	set +e
	"$NAGLE_TRACE" analyze "$f" --format json -o "$f.json" 2>err.txt
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "$f: exit $rc: $(cat err.txt)"
	[ ! -s err.txt ] || fail "$f: $(cat err.txt)"
	tshark -n -r "$f" -T fields -e frame.number -e frame.time_epoch -e ip.src -e ipv6.src \
		-e ip.dst -e ipv6.dst >"$f.tshark" 2>/dev/null
	python3 - "$f" "$(stalls "$@")" <<'PY' || fail "$f: analyze and tshark disagree"
import json, sys
from decimal import Decimal

path, want_stalls = sys.argv[1], int(sys.argv[2])
doc = json.load(open(path + ".json"))
frames = {}
for line in open(path + ".tshark"):
    num, t, *addrs = line.rstrip("\n").split("\t")
    frames[int(num)] = (int(Decimal(t) * 10**9), {a for a in addrs if a})
assert doc["files"][0]["packets"] == len(frames), (doc["files"][0]["packets"], len(frames))
assert doc["summary"]["stalls"] == want_stalls, (doc["summary"]["stalls"], want_stalls)
assert want_stalls > 0
checked = 0
for fl in doc["flows"]:
    hosts = {fl["client"]["addr"], fl["target"]["addr"]}
    for st in (fl["first_stall"], fl["last_stall"]):
        for num, t in (("held_frame_number", "t_ns"), ("ack_frame_number", "ack_t_ns"),
                       ("release_frame_number", "release_t_ns")):
            t_ns, addrs = frames[st[num]]
            assert t_ns == st[t], (path, num, st[num], t_ns, st[t])
            assert addrs == hosts, (path, num, st[num], addrs, hosts)
            checked += 1
print(f"{path}: {len(frames)} frames, {want_stalls} stalls, {checked} stall frames as tshark has them")
PY
}

check multi.pcapng "$G/gen-raw-stall.pcap" "$G/gen-ipv6-stall.pcap" "$G/gen-sll2-stall.pcap"
check sections.pcapng "$G/gen-eth-stall.pcap" "$G/gen-ipv6-stall.pcap"

# A filter is compiled for each link type: "ip6" finds the IPv6 flow's frames only.
"$NAGLE_TRACE" analyze multi.pcapng --format json ip6 |
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["summary"]["packets"] == 22, d["summary"]' ||
	fail "--filter ip6 on three link types"
echo "ok: pcapng with several link types, snapshot lengths and sections, as tshark reads them"
