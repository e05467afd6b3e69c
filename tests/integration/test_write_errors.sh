#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_write_errors.sh - every write error told (issue 25), with the real
# binary: `run --target-log` onto /dev/full and onto a full tmpfs (mounted in
# a private mount namespace of a user namespace, `unshare -Urm`) exits 4 with
# the errno; `-o` onto a FIFO whose reader leaves after 10 bytes exits 4
# "Broken pipe" for trace, predict, analyze and run (`| head` stays quiet);
# SIGTERM while -o, -w or --target-log waits in open() for a FIFO's reader
# exits 143; with `ulimit -f 1`, analyze and predict say "File too large"
# and exit 4 instead of dying of SIGXFSZ; so does the trace's lesson page
# (and markdown) when a limit stops one of their temporary files first;
# analyze's JSON Lines on a pipe are not spooled (the limit never stops them).
#
# Every wait is for the event it means (the process blocked in open(), the
# reader's bytes read), never a sleep, and fails when that event never comes.
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_SOURCE_DIR:?NT_SOURCE_DIR must point at the source tree}"
need_unshare
NT=$NAGLE_TRACE
SERVER="python3 $NT_SOURCE_DIR/tests/programs/server.py"
G=$NT_SOURCE_DIR/tests/golden/captures
cd "$NT_TMP"

# A target that prints 100 kB before it listens; the client only waits.
LOUD="yes nagle-trace | head -c 100000; exec $SERVER 7000"

# run CMD...: sets $rc and $err (stderr), never fails the script.
run() {
	set +e
	"$@" >out.txt 2>err.txt
	rc=$?
	set -e
	err=$(cat err.txt)
}

# blocked_in_open PID: wait until PID sleeps in open()/openat() (x86-64: 2, 257).
blocked_in_open() {
	for _ in $(seq 1000); do
		case "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" in
		2 | 257) return 0 ;;
		esac
		sleep 0.01
	done
	fail "pid $1 never blocked in open()"
}

# --- run --target-log onto /dev/full and a full file system --------------------------------
run unshare -Urn "$NT" run --target "$LOUD" --client 'sleep 0.2' --target-log /dev/full -o /dev/null
[ "$rc" = 4 ] || fail "--target-log /dev/full: exit $rc, want 4 ($err)"
[[ "$err" == *'write "/dev/full": No space left on device'* ]] || fail "--target-log /dev/full: $err"
mkdir full
run unshare -Urnm sh -c 'mount -t tmpfs -o size=16k none "$1" && exec "$2" run --target "$3" \
	--client "sleep 0.2" --target-log "$1/t.log" -o /dev/null' sh "$PWD/full" "$NT" "$LOUD"
[ "$rc" = 4 ] || fail "--target-log on a full tmpfs: exit $rc, want 4 ($err)"
[[ "$err" == *'t.log": No space left on device'* ]] || fail "--target-log on a full tmpfs: $err"

# --- -o onto a FIFO whose reader leaves after 10 bytes -------------------------------------
mkfifo out.fifo
cp "$G/gen-eth-stall.pcap" e.pcap
many=()
for _ in $(seq 100); do many+=(e.pcap); done
# early_read PIPE: shrinks the pipe to one page (F_SETPIPE_SZ), takes 10 bytes and
# leaves, printing how many it got: a report over 4 KiB cannot all fit before, and
# its next write gets EPIPE. A writer that got more than a page in first makes the
# shrink fail (EBUSY): the pipe stays 64 KiB. Only analyze and predict write that
# soon, and their reports (634 kB, 3.2 MB) outgrow it too; trace and run write after
# their runs.
early_read() {
	python3 -c 'import errno, fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
except OSError as e:
    if e.errno != errno.EBUSY:
        raise
got = b""
while len(got) < 10:
    chunk = os.read(fd, 10 - len(got))
    if not chunk:
        break
    got += chunk
print(len(got))' "$1"
}
early_reader() {
	local what=$1
	shift
	set +e
	"$@" -o out.fifo 2>err.txt &
	local pid=$!
	local got
	got=$(early_read out.fifo)
	wait $pid
	rc=$?
	set -e
	[ "$got" = 10 ] || fail "$what: the reader got $got bytes, not 10"
	[ "$rc" = 4 ] || fail "$what: -o onto a FIFO whose reader left early: exit $rc, want 4"
	grep -q 'write "out.fifo": Broken pipe$' err.txt || fail "$what: $(cat err.txt)"
}
early_reader trace unshare -Urn "$NT" --variant nodelay --rounds 3000 --format json
early_reader predict "$NT" predict --rounds 3000
early_reader analyze "$NT" analyze "${many[@]}" --format json
early_reader run unshare -Urn "$NT" run --target "$SERVER 7000" \
	--client "python3 $NT_SOURCE_DIR/tests/programs/client.py target 7000 20" --format json
# Standard output's reader leaving is no error (`| head`), as before.
set +e
"$NT" predict --rounds 3000 2>err.txt | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] && [ ! -s err.txt ] || fail "predict | head: exit $status: $(cat err.txt)"
# ... nor is it for analyze's JSON Lines, which stream: their 400 KB outgrow
# the pipe, so the reader leaves while they are being written.
for jobs in 1 2; do
	set +e
	"$NT" analyze "${many[@]}" --format jsonl --jobs $jobs 2>err.txt | head -c 10 >/dev/null
	status=${PIPESTATUS[0]}
	set -e
	[ "$status" = 0 ] && [ ! -s err.txt ] ||
		fail "analyze --format jsonl --jobs $jobs | head: exit $status: $(cat err.txt)"
done
# run's 15 KB of JSON Lines, to early_read (above) on standard output.
set +e
unshare -Urn "$NT" run --target "$SERVER 7000" --format jsonl \
	--client "python3 $NT_SOURCE_DIR/tests/programs/client.py target 7000 20" 2>err.txt |
	early_read /dev/stdin >got.txt
status=${PIPESTATUS[0]}
set -e
[ "$(cat got.txt)" = 10 ] || fail "run --format jsonl | early reader: the reader got $(cat got.txt)"
[ "$status" = 0 ] && ! grep -q '^nagle-trace:' err.txt ||
	fail "run --format jsonl | early reader: exit $status: $(cat err.txt)"

# --- SIGTERM while a FIFO destination waits for its reader ---------------------------------
term_in_open() {
	local what=$1
	shift
	set +e
	"$@" 2>err.txt &
	local pid=$!
	blocked_in_open $pid
	kill -TERM $pid
	wait $pid
	rc=$?
	set -e
	[ "$rc" = 143 ] || fail "$what: SIGTERM in open() exited $rc, want 143 ($(cat err.txt))"
}
term_in_open "trace -o" unshare -Urn "$NT" --rounds 3 -o out.fifo
term_in_open "trace -w" unshare -Urn "$NT" --rounds 3 -w out.fifo -o /dev/null
term_in_open "predict -o" "$NT" predict -o out.fifo
term_in_open "analyze -o" "$NT" analyze e.pcap -o out.fifo
for o in -o -w --target-log; do
	term_in_open "run $o" unshare -Urn "$NT" run --target "$SERVER 7000" --client 'sleep 0.1' \
		"$o" out.fifo
done

# --- ulimit -f: EFBIG told, not death by SIGXFSZ -------------------------------------------
for cmd in "predict --rounds 2000" "predict --rounds 2000 --format json" \
	"analyze ${many[*]} --format json" "analyze ${many[*]} --format svg" \
	"analyze ${many[*]} --format jsonl"; do
	rm -f big.out
	set +e
	# shellcheck disable=SC2086 # the words of $cmd are its arguments
	(ulimit -f 1 && exec "$NT" $cmd -o big.out) 2>err.txt
	rc=$?
	set -e
	[ "$rc" = 4 ] || fail "ulimit -f 1, $cmd: exit $rc, want 4"
	grep -q 'write "big.out": File too large$' err.txt || fail "ulimit -f 1, $cmd: $(cat err.txt)"
	[ ! -e big.out ] || fail "ulimit -f 1, $cmd: left a partial big.out"
	[ -z "$(ls -A | grep '^\.nt-' || true)" ] || fail "ulimit -f 1, $cmd: left a temporary file"
done

# --- JSON Lines on standard output are not spooled; a document is -------------------------
# `ulimit -f 1` stops any regular file at 1 KiB and no pipe: analyze's jsonl
# (a record stream, its summary record last) goes through the pipe whole, as
# the live run's does; json, complete or absent, fails on its spool.
set +e
(ulimit -f 1 && exec "$NT" analyze "${many[@]}" --format jsonl) 2>err.txt | wc -c >bytes.txt
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] || fail "ulimit -f 1, analyze --format jsonl | wc: exit $rc, want 0 ($(cat err.txt))"
[ "$(cat bytes.txt)" -gt 10240 ] || fail "analyze --format jsonl | wc: $(cat bytes.txt) bytes"
"$NT" analyze "${many[@]}" --format jsonl | tail -n 1 | grep -q '^{"type":"summary",' ||
	fail "analyze --format jsonl: the last record is not the summary"
set +e
(ulimit -f 1 && exec "$NT" analyze "${many[@]}" --format json) 2>err.txt | wc -c >bytes.txt
rc=${PIPESTATUS[0]}
set -e
[ "$rc" = 4 ] || fail "ulimit -f 1, analyze --format json | wc: exit $rc, want 4"
grep -q '^nagle-trace: write standard output: File too large$' err.txt ||
	fail "ulimit -f 1, analyze --format json | wc: $(cat err.txt)"
[ "$(cat bytes.txt)" = 0 ] || fail "analyze --format json: a part reached the pipe"

# --- ulimit -f on the documents' spools: their EFBIG, not "Input/output error" -------------
# The lesson page (html) and markdown keep parts in unnamed temporary files; a
# limit that one of them reaches first used to be told as EIO (stdio keeps no
# errno). Limits of 10-100 KiB catch the figures' spool, the text's and the output.
for case in "html 30 1" "html 30 10" "html 30 50" "html 30 100" "markdown 300 1" "markdown 300 5"; do
	read -r fmt rounds lim <<<"$case"
	rm -f big.out
	set +e
	(ulimit -f "$lim" && exec unshare -Urn "$NT" --rounds "$rounds" --format "$fmt" -o big.out) \
		2>err.txt
	rc=$?
	set -e
	[ "$rc" = 4 ] || fail "ulimit -f $lim, trace --format $fmt: exit $rc, want 4"
	[ "$(wc -l <err.txt)" = 1 ] && grep -q '^nagle-trace: write "big.out": File too large$' \
		err.txt || fail "ulimit -f $lim, trace --format $fmt: $(cat err.txt)"
	[ ! -e big.out ] || fail "ulimit -f $lim, trace --format $fmt: left a partial big.out"
done
echo "ok: --target-log full, FIFO readers leaving early, SIGTERM in open(), ulimit -f"
