#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A memcached text-protocol client in plain bash, for `nagle-trace run`
# tests: each `set` writes its command line and its data block with two
# printf builtins (two write(2) calls on a socket with Nagle on), then reads
# the reply: the write-write-read pattern of a naive client.
#
# usage: memcache_set.sh HOST PORT COUNT
set -eu
host=$1 port=$2 count=$3
exec 3<>"/dev/tcp/$host/$port"
for i in $(seq "$count"); do
	printf 'set key%d 0 0 5\r\n' "$i" >&3
	printf 'hello\r\n' >&3
	read -r reply <&3
	[ "$reply" = $'STORED\r' ] || {
		echo "memcache_set.sh: set key$i: $reply" >&2
		exit 1
	}
done
echo "memcache_set.sh: $count sets stored"
