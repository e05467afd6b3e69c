#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An HTTP/1.1 keep-alive client in plain bash, for `nagle-trace run` tests:
# each GET writes its request line and headers, then the blank line that
# ends them, with two printf builtins (two write(2) calls, Nagle on), then
# reads the response by its Content-Length. A server answers only once the
# blank line is in, so the second write waits for its delayed ACK.
#
# usage: http_split.sh HOST PORT COUNT [PATH]
set -eu
export LC_ALL=C
host=$1 port=$2 count=$3 path=${4:-/}
exec 3<>"/dev/tcp/$host/$port"
for i in $(seq "$count"); do
	printf 'GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: http_split.sh\r\n' "$path" "$host" >&3
	printf '\r\n' >&3
	read -r status <&3
	len=0
	while read -r line <&3; do
		line=${line%$'\r'}
		[ -z "$line" ] && break
		case ${line,,} in
		content-length:*) len=${line#*: } ;;
		esac
	done
	case $status in
	"HTTP/1.1 200"*) ;;
	*)
		echo "http_split.sh: request $i: $status" >&2
		exit 1
		;;
	esac
	[ "$len" -gt 0 ] && read -r -N "$len" _ <&3
done
echo "http_split.sh: $count responses"
