#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Write-write-read client for `nagle-trace run` tests, in Node: a plain
// net.Socket, which leaves Nagle on (setNoDelay() is never called).
//
// usage: node client.js HOST PORT COUNT [BODY_BYTES]
//
// Each request: socket.write(header) then socket.write(body) - two writes,
// libuv tries each at once, so two write(2) calls - then read the whole
// reply. Prints one line like client.py.
'use strict';
const net = require('net');

const [host, portArg, countArg, bodyArg] = process.argv.slice(2);
if (!host || !portArg || !countArg) {
  console.error('usage: node client.js HOST PORT COUNT [BODY_BYTES]');
  process.exit(2);
}
const count = Number(countArg);
const body = Buffer.alloc(Number(bodyArg || 100), 'B');
const header = Buffer.alloc(4);
header.writeUInt32BE(body.length);

const lat = [];
let pending = Buffer.alloc(0);
let started = 0n;
const t0 = process.hrtime.bigint();
const sock = net.connect({ host, port: Number(portArg) });

function send() {
  started = process.hrtime.bigint();
  sock.write(header);
  sock.write(body);
}

sock.on('connect', send);
sock.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
    pending = pending.subarray(4 + pending.readUInt32BE(0));
    lat.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (lat.length === count) {
      sock.end();
      return;
    }
    send();
  }
});
sock.on('close', () => {
  if (lat.length < count) {
    console.error(`client.js: connection closed after ${lat.length} of ${count} replies`);
    process.exit(1);
  }
  const total = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const pct = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))].toFixed(2);
  console.log(`client.js: ${count} requests in ${total.toFixed(3)} s, latency ms ` +
              `p50 ${pct(0.5)} p90 ${pct(0.9)} max ${lat[lat.length - 1].toFixed(2)}`);
});
sock.on('error', (e) => {
  console.error(`client.js: ${e.message}`);
  process.exit(1);
});
