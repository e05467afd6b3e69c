#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A beanstalkd client in plain bash, for `nagle-trace run` tests: each `put`
# writes its command line and its job body with two printf builtins (two
# write(2) calls on a socket with Nagle on), then reads the reply: the
# write-write-read pattern of a naive client.
#
# usage: beanstalk_put.sh HOST PORT COUNT
set -eu
host=$1 port=$2 count=$3
exec 3<>"/dev/tcp/$host/$port"
for i in $(seq "$count"); do
	printf 'put 0 0 60 5\r\n' >&3
	printf 'job%02d\r\n' "$((i % 100))" >&3
	read -r reply <&3
	case $reply in
	INSERTED*) ;;
	*)
		echo "beanstalk_put.sh: put $i: $reply" >&2
		exit 1
		;;
	esac
done
echo "beanstalk_put.sh: $count jobs put"
