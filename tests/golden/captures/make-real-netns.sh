#!/bin/bash
# SPDX-License-Identifier: MIT
# How real-netns-write-write.pcap was made (as real root, Debian 12, once):
# a veth pair between two named namespaces, tcpdump on the client's end, a
# python3 server answering 2 bytes per 12-byte request, and a client doing
# write(4) write(8) read(2) four times. The namespaces are deleted afterwards.
set -eu
out=${1:-real-netns-write-write.pcap}
tmp=$(mktemp -d)
cleanup() { ip netns del ntcap-c 2>/dev/null || true; ip netns del ntcap-t 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
cat >"$tmp/srv.py" <<'PY'
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.77.0.2", 7000)); s.listen(1)
c, _ = s.accept()
while True:
    buf = b""
    while len(buf) < 12:
        d = c.recv(12 - len(buf))
        if not d: raise SystemExit
        buf += d
    c.sendall(b"ok")
PY
cat >"$tmp/cli.py" <<'PY'
import socket, time
c = socket.create_connection(("10.77.0.2", 7000))
for i in range(4):
    c.sendall(b"HDR:"); c.sendall(b"BODY1234")
    r = b""
    while len(r) < 2: r += c.recv(2)
    time.sleep(0.01)
c.close()
PY
ip netns add ntcap-c
ip netns add ntcap-t
ip link add ntc0 netns ntcap-c type veth peer name ntt0 netns ntcap-t
ip -n ntcap-c addr add 10.77.0.1/24 dev ntc0
ip -n ntcap-t addr add 10.77.0.2/24 dev ntt0
ip -n ntcap-c link set ntc0 up
ip -n ntcap-t link set ntt0 up
ip netns exec ntcap-c ethtool -K ntc0 tso off gso off gro off >/dev/null 2>&1 || true
ip netns exec ntcap-t ethtool -K ntt0 tso off gso off gro off >/dev/null 2>&1 || true
ip netns exec ntcap-t python3 "$tmp/srv.py" &
srv=$!
ip netns exec ntcap-c tcpdump -Z root --immediate-mode -U -i ntc0 -s 200 \
	--time-stamp-precision=nano -w "$out" tcp port 7000 &
td=$!
sleep 1
ip netns exec ntcap-c python3 "$tmp/cli.py"
sleep 1.5
kill -INT "$td"
wait "$td" || true
kill "$srv" 2>/dev/null || true
wait "$srv" 2>/dev/null || true
