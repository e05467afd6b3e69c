#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write-write-read client for `nagle-trace run` tests (Nagle left on).

usage: client.py HOST PORT COUNT [--body-bytes N] [--nodelay] [--one-write]
                 [--split-every N]

Each request: write(4-byte length header), write(body) as two separate
sendall() calls, then read the whole reply. With Nagle on, the body waits for
the header's ACK, which the server's delayed-ACK timer holds back: each
request but the first stalls for the delayed-ACK time (40 ms or more).
With --nodelay the socket sets TCP_NODELAY first: the body leaves at once and
nothing stalls (the fix, from the program's side). --one-write sends each
request in one write; --split-every N only every Nth (the others in one):
some requests stall and the median looks healthy.
Prints one line: requests, total time, p50/p90/max latency in milliseconds.
"""
import argparse
import socket
import struct
import sys
import time


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("server closed the connection")
        buf += chunk
    return bytes(buf)


def pct(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--body-bytes", type=int, default=100)
    ap.add_argument("--nodelay", action="store_true")
    ap.add_argument("--one-write", action="store_true",
                    help="send header and body in one sendall(): no hold at the client")
    ap.add_argument("--split-every", type=int, default=1, metavar="N",
                    help="two writes for every Nth request only, one for the others")
    args = ap.parse_args()
    body = b"B" * args.body_bytes
    header = struct.pack("!I", len(body))
    lat = []
    t0 = time.monotonic()
    with socket.create_connection((args.host, args.port)) as s:
        if args.nodelay:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(args.count):
            t = time.monotonic()
            if args.one_write or (i + 1) % max(args.split_every, 1):
                s.sendall(header + body)
            else:
                s.sendall(header)
                s.sendall(body)
            (n,) = struct.unpack("!I", recv_exact(s, 4))
            recv_exact(s, n)
            lat.append((time.monotonic() - t) * 1000)
    total = time.monotonic() - t0
    lat.sort()
    print(f"client.py: {args.count} requests in {total:.3f} s, latency ms "
          f"p50 {pct(lat, 0.5):.2f} p90 {pct(lat, 0.9):.2f} max {lat[-1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
