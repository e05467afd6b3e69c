#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An MQTT 3.1.1 publisher for `nagle-trace run` tests (Nagle left on).

usage: mqtt_publish.py HOST PORT COUNT [--topic T]

CONNECT, then COUNT PUBLISH packets at QoS 1, each written as two
sendall() calls, its fixed header (type and remaining length) and then the
rest (topic, packet identifier, payload), each followed by a read of its
PUBACK: the write-write-read pattern of a client that frames a packet's
header apart from its body. Then DISCONNECT. mosquitto_pub writes each
packet in one write and does not stall; this one does, as the clients of
this kind that an incident is about.
Prints one line: messages, total time, p50/max PUBLISH -> PUBACK in ms.
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
            raise ConnectionError("the broker closed the connection")
        buf += chunk
    return bytes(buf)


def utf8(s):
    b = s.encode()
    return struct.pack("!H", len(b)) + b


def remaining_length(n):
    """MQTT's variable-length integer (MQTT 3.1.1, 2.2.3)."""
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def connect(sock):
    # Protocol "MQTT" level 4, clean session, keep-alive 60 s, a client id.
    body = utf8("MQTT") + bytes([4, 0x02]) + struct.pack("!H", 60) + utf8("nagle-trace")
    sock.sendall(bytes([0x10]) + remaining_length(len(body)) + body)
    ack = recv_exact(sock, 4)
    if ack[0] != 0x20 or ack[3] != 0:
        raise ConnectionError(f"CONNACK refused: {ack.hex()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("--topic", default="lab/readings")
    args = ap.parse_args()
    lat = []
    t0 = time.monotonic()
    with socket.create_connection((args.host, args.port)) as s:
        connect(s)
        for i in range(1, args.count + 1):
            rest = utf8(args.topic) + struct.pack("!H", i) + f"reading {i}".encode()
            t = time.monotonic()
            s.sendall(bytes([0x32]) + remaining_length(len(rest)))  # PUBLISH, QoS 1
            s.sendall(rest)
            ack = recv_exact(s, 4)
            if ack[0] != 0x40 or struct.unpack("!H", ack[2:])[0] != i:
                raise ConnectionError(f"PUBLISH {i}: no PUBACK but {ack.hex()}")
            lat.append((time.monotonic() - t) * 1000)
        s.sendall(bytes([0xE0, 0]))  # DISCONNECT
    lat.sort()
    print(f"mqtt_publish.py: {args.count} messages in {time.monotonic() - t0:.3f} s, "
          f"PUBLISH -> PUBACK ms p50 {lat[len(lat) // 2]:.2f} max {lat[-1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
