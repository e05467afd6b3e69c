#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Length-prefixed request/response server for `nagle-trace run` tests.

usage: server.py PORT [--reply-bytes N] [--host ADDR] [--split-reply]

A request is a 4-byte big-endian length and that many body bytes; the reply
is a 4-byte length and --reply-bytes bytes, written with one sendall(). One
thread per connection. Listens on [::] (dual stack) when the kernel has IPv6,
else 0.0.0.0. TCP_NODELAY is left off, as most servers leave it: a reply is
one write, so Nagle never holds it; the stall is the client's. With
--split-reply the length and the body go in two sendall() calls: the body
waits for the client's delayed ACK, a hold at the target.
"""
import argparse
import socket
import struct
import sys
import threading


def recv_exact(conn, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def serve(conn, reply_bytes, split):
    reply_head = struct.pack("!I", reply_bytes)
    body = b"R" * reply_bytes
    with conn:
        while True:
            head = recv_exact(conn, 4)
            if head is None:
                return
            (length,) = struct.unpack("!I", head)
            if recv_exact(conn, length) is None:
                return
            if split:
                conn.sendall(reply_head)
                conn.sendall(body)
            else:
                conn.sendall(reply_head + body)


def listener(host, port):
    if host is None:
        try:
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            host = "::"
        except OSError:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            host = "0.0.0.0"
    else:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(family, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(64)
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--reply-bytes", type=int, default=16)
    ap.add_argument("--host", default=None)
    ap.add_argument("--split-reply", action="store_true")
    args = ap.parse_args()
    s = listener(args.host, args.port)
    print(f"server.py: listening on port {args.port}", flush=True)
    try:
        while True:
            conn, _ = s.accept()
            threading.Thread(target=serve, args=(conn, args.reply_bytes, args.split_reply), daemon=True).start()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
