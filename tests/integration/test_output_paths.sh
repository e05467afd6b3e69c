#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test_output_paths.sh - -o and -w onto every kind of path, with the real
# binary, one check per finding of the hostile-user campaign (issue 16):
# devices (/dev/null stays a device, /dev/full fails with exit 4 and ENOSPC)
# and /dev/stdout-style links, inside a private mount namespace whose /dev
# is a tmpfs made here with mknod (the machine's /dev is never used as a
# destination); FIFOs; symbolic and hard links; an existing 0600 file; -o
# onto an input; -o and -w onto one file; SIGKILL mid-run leaves no
# temporary file; a closed standard output exits 4; a full disk under -w
# says "No space left on device"; a directory, a missing directory and an
# over-long path (-o, and -w past PATH_MAX for trace and run) are refused
# before the run with the reason kept; a file
# system without O_TMPFILE (bindfs, FUSE) leaves nothing after SIGHUP.
#
# Needs real root (mknod in a user namespace is refused), unshare, tshark,
# bindfs. Exit 77 (skip) only outside CI.
set -eu
. "$(dirname "$0")/lib.sh"

need_root
need_unshare
need_tool tshark
need_tool bindfs

NT=$NAGLE_TRACE
cap=${NT_SOURCE_DIR:?}/tests/golden/captures/gen-eth-stall.pcap
cd "$NT_TMP"

# run CMD...: sets $rc and $err (stderr), never fails the script.
run() {
	set +e
	"$@" 2> err.txt
	rc=$?
	set -e
	err=$(cat err.txt)
}

# --- devices and /dev/stdout, in a private mount namespace with its own /dev ------------
cat > devs.sh <<'EOF'
set -u
NT=$1 cap=$2
mount -t tmpfs -o mode=755 nt-dev /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/full c 1 7
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
check_dev() { [ -c "$1" ] || { echo "FAIL: $1 is no longer a character device"; exit 1; }; }

"$NT" analyze "$cap" -o /dev/null || { echo "FAIL: analyze -o /dev/null exited $?"; exit 1; }
check_dev /dev/null
"$NT" analyze "$cap" -o /dev/full 2> full.txt
rc=$?
[ $rc = 4 ] || { echo "FAIL: analyze -o /dev/full exited $rc, not 4"; exit 1; }
grep -q '^nagle-trace: write "/dev/full": No space left on device$' full.txt ||
	{ echo "FAIL: /dev/full message: $(cat full.txt)"; exit 1; }
check_dev /dev/full
unshare -Urn "$NT" --rounds 2 -o /dev/null -w /dev/null > /dev/null ||
	{ echo "FAIL: a run to /dev/null exited $?"; exit 1; }
check_dev /dev/null
unshare -Urn "$NT" --rounds 2 -w /dev/full -o /dev/null 2> wfull.txt
rc=$?
[ $rc = 4 ] || { echo "FAIL: -w /dev/full exited $rc, not 4"; exit 1; }
grep -q 'write "/dev/full": No space left on device' wfull.txt ||
	{ echo "FAIL: -w /dev/full message: $(cat wfull.txt)"; exit 1; }
unshare -Urn "$NT" --rounds 2 -o /dev/full 2> ofull.txt
rc=$?
[ $rc = 4 ] || { echo "FAIL: -o /dev/full exited $rc, not 4"; exit 1; }

# /dev/stdout is our standard output, written whole; the link stays a link.
"$NT" analyze "$cap" -o /dev/stdout > via-stdout.txt || { echo "FAIL: -o /dev/stdout"; exit 1; }
"$NT" analyze "$cap" > plain.txt
cmp -s via-stdout.txt plain.txt || { echo "FAIL: -o /dev/stdout wrote something else"; exit 1; }
[ -L /dev/stdout ] || { echo "FAIL: /dev/stdout was replaced"; exit 1; }
"$NT" analyze "$cap" -o /dev/fd/1 | cmp -s - plain.txt || { echo "FAIL: -o /dev/fd/1 | ..."; exit 1; }
# /dev/stderr onto a file opened for appending: added to, not clobbered.
echo before > log.txt
"$NT" analyze "$cap" -o /dev/stderr 2>> log.txt
[ "$(head -1 log.txt)" = before ] && [ "$(wc -l < log.txt)" -gt 2 ] ||
	{ echo "FAIL: -o /dev/stderr onto an appended file"; exit 1; }
[ -L /dev/stderr ] || { echo "FAIL: /dev/stderr was replaced"; exit 1; }
echo ok
EOF
out=$(unshare -m --propagation private bash devs.sh "$NT" "$cap" 2>&1) || fail "devices: $out"
[ "$(echo "$out" | tail -1)" = ok ] || fail "devices: $out"
[ -c /dev/null ] || fail "the machine's /dev/null is not a device (it must never be touched)"

# --- FIFOs: the reader gets the whole report, the FIFO stays -----------------------------
mkfifo rep.fifo cap.fifo
cat rep.fifo > got.txt &
"$NT" analyze "$cap" -o rep.fifo || fail "analyze -o FIFO exited $?"
wait
[ -p rep.fifo ] || fail "the FIFO was replaced"
"$NT" analyze "$cap" | cmp -s - got.txt || fail "the FIFO's reader did not get the report"
cat cap.fifo > got.pcap &
nt --rounds 3 -w cap.fifo -o run.txt
ran=$rc
wait
[ "$ran" = 0 ] || [ "$ran" = 1 ] || fail "-w FIFO exited $ran"
[ -p cap.fifo ] || fail "the -w FIFO was replaced"
[ "$(tshark -r got.pcap 2>/dev/null | wc -l)" -ge 10 ] || fail "the -w FIFO's reader got no frames"

# -w - streams to standard output, for | tshark -r -; with no -o the report
# goes to standard error (tcpdump -w - keeps its messages there too).
n=$(unshare -Urn "$NT" --rounds 3 -w - -o run2.txt | tshark -r - 2>/dev/null | wc -l)
[ "$n" -ge 10 ] || fail "-w - | tshark -r - read $n frames"
n=$(unshare -Urn "$NT" --rounds 3 -w - 2>report.txt | tshark -r - 2>/dev/null | wc -l)
[ "$n" -ge 10 ] || fail "-w - (report to stderr) | tshark -r - read $n frames"
grep -q '^summary' report.txt || fail "-w - without -o: no report on standard error"

# --- links and modes --------------------------------------------------------------------
echo old > target.txt
ln -s target.txt link.txt
run "$NT" analyze "$cap" -o link.txt
[ $rc = 0 ] && [ -L link.txt ] || fail "the symbolic link was replaced (rc $rc)"
grep -q stalls target.txt || fail "the link's target was not written"

echo old > a.txt
ln a.txt b.txt
run "$NT" analyze "$cap" -o a.txt
[ "$(stat -c %h a.txt)" = 2 ] && [ "$(stat -c %i a.txt)" = "$(stat -c %i b.txt)" ] ||
	fail "the hard link was broken"
grep -q stalls b.txt || fail "the other link does not see the report"

echo secret > six.txt
chmod 600 six.txt
run "$NT" analyze "$cap" -o six.txt
[ "$(stat -c %a six.txt)" = 600 ] || fail "an existing 0600 file became $(stat -c %a six.txt)"
nt --rounds 2 -w six.txt -o /dev/null
[ "$(stat -c %a six.txt)" = 600 ] || fail "-w made an existing 0600 file $(stat -c %a six.txt)"

# --- refusals before any work -------------------------------------------------------------
cp "$cap" in.pcap
run "$NT" analyze in.pcap -o in.pcap
[ $rc = 2 ] || fail "-o onto the input exited $rc, not 2"
cmp -s in.pcap "$cap" || fail "-o onto the input changed it"
ln in.pcap in2.pcap
run "$NT" analyze in2.pcap -o ./in.pcap
[ $rc = 2 ] || fail "-o onto a hard link of the input exited $rc, not 2"
nt --rounds 2 -o x.out -w ./x.out 2> err.txt
[ $rc = 2 ] || fail "-o x.out -w ./x.out exited $rc, not 2"
[ ! -e x.out ] || fail "-o x.out -w ./x.out left x.out"
nt --rounds 2 -w - -o - 2> err.txt >/dev/null
[ $rc = 2 ] || fail "-w - -o - (both on standard output) exited $rc, not 2"
mkdir adir
run "$NT" analyze "$cap" -o adir/
[ $rc = 4 ] && [ "$err" = 'nagle-trace: write "adir/": Is a directory' ] ||
	fail "-o existing-dir/: rc $rc, $err"
nt --rounds 2 -o nodir/r.json 2> err.txt
[ $rc = 4 ] && grep -q 'No such file or directory$' err.txt || fail "-o nodir/r.json: rc $rc"
long=$(printf 'd%.0s' $(seq 600))/r.json
run "$NT" analyze "$cap" -o "$long"
[ $rc = 4 ] && [[ "$err" == *'r.json": File name too long' ]] ||
	fail "a long path lost the reason: $err"
# -w past PATH_MAX, of short directories that exist: refused, nothing
# written. (The path was copied into 4 KiB and the cut one, another file in
# those directories, written, exit 0.)
deep=$PWD/w
while [ ${#deep} -lt 4000 ]; do deep=$deep/$(printf 'a%.0s' $(seq 100)); done
mkdir -p "$deep"
deep=$deep/$(printf 'b%.0s' $(seq 150)).pcap
nt --rounds 1 -w "$deep" -o /dev/null 2> err.txt
[ $rc = 4 ] && grep -q '\.pcap": File name too long$' err.txt || fail "-w past PATH_MAX: rc $rc, $(cat err.txt)"
run unshare -Urn "$NT" run --target "sleep 1" --client true -w "$deep" -o /dev/null
[ $rc = 4 ] && [[ "$err" == *'.pcap": File name too long' ]] || fail "run -w past PATH_MAX: rc $rc, $err"
[ -z "$(find w -type f)" ] || fail "a file was written for a path past PATH_MAX: $(find w -type f)"

# --- standard output closed ---------------------------------------------------------------
set +e
"$NT" analyze "$cap" >&- 2> err.txt
rc=$?
set -e
[ $rc = 4 ] || fail "analyze >&- exited $rc, not 4"
set +e
unshare -Urn "$NT" --rounds 2 >&- 2> err.txt
rc=$?
set -e
[ $rc = 4 ] || fail "nagle-trace >&- exited $rc, not 4"
set +e
"$NT" --help >&- 2> err.txt
rc=$?
set -e
[ $rc = 4 ] || fail "--help >&- exited $rc, not 4"

# --- SIGKILL mid-run leaves no temporary file --------------------------------------------
mkdir kill && cd kill
echo old-report > old.json
# temps_open PID: wait until PID holds its two temporary files here (-o's and -w's, nameless
# with O_TMPFILE: "/path/#N (deleted)"), the -w one with frames in it; fail if it never does.
temps_open() {
	local n big
	for _ in $(seq 3000); do
		n=0 big=0
		for fd in /proc/$1/fd/*; do
			case "$(readlink "$fd" 2> /dev/null)" in
			"$PWD"/*) n=$((n + 1))
				[ "$(stat -L -c %s "$fd" 2> /dev/null || echo 0)" -gt 1000 ] && big=1 ;;
			esac
		done
		[ "$n" -ge 2 ] && [ "$big" = 1 ] && return 0
		sleep 0.01
	done
	fail "SIGKILL check: pid $1 never had its temporary files open here ($n open)"
}
unshare -Urn "$NT" --rounds 20000 --format json -o new.json -w new.pcap 2> /dev/null &
pid=$!
temps_open $pid
kill -9 $pid
wait $pid 2> /dev/null || true
unshare -Urn "$NT" --rounds 20000 --format json -o old.json -w new.pcap 2> /dev/null &
pid=$!
temps_open $pid
kill -9 $pid
wait $pid 2> /dev/null || true
[ "$(ls -A)" = old.json ] || fail "SIGKILL left: $(ls -A | tr '\n' ' ')"
[ "$(cat old.json)" = old-report ] || fail "SIGKILL changed the existing report"
cd ..

# --- a full disk under -w names ENOSPC ----------------------------------------------------
set +e
unshare -Urnm sh -c 'mount -t tmpfs -o size=16k none "$1" && "$2" --variant nodelay --rounds 500 -o /dev/null \
	-w "$1/r.pcap"; echo $? > "$3/rc"; ls -A "$1" > "$3/left"' sh "$(mktemp -d)" "$NT" "$PWD" \
	2> full.txt
set -e
[ "$(cat rc)" = 4 ] || fail "a full disk under -w exited $(cat rc), not 4"
grep -q 'r.pcap": No space left on device$' full.txt || fail "full disk under -w: $(cat full.txt)"
[ ! -s left ] || fail "a full disk under -w left: $(cat left)"

# --- no O_TMPFILE (FUSE): named temporary files, removed on SIGHUP ----------------------
mkdir -p fuse/src fuse/mnt
cat > fuse.sh <<'EOF'
set -u
NT=$1 cap=$2 here=$3
bindfs "$here/fuse/src" "$here/fuse/mnt" || { echo "FAIL: bindfs"; exit 1; }
trap 'cd /; umount "$here/fuse/mnt"' EXIT
cd "$here/fuse/mnt"
echo old > keep.txt
chmod 600 keep.txt
"$NT" analyze "$cap" -o keep.txt || { echo "FAIL: analyze onto FUSE exited $?"; exit 1; }
[ "$(stat -c %a keep.txt)" = 600 ] && grep -q stalls keep.txt || { echo "FAIL: FUSE replace"; exit 1; }
unshare -Urn "$NT" --rounds 20000 -o hup.json -w hup.pcap 2> /dev/null &
pid=$!
# Both temporaries exist once the run is under way: wait for them, up to 30 s, not 1 s.
for _ in $(seq 3000); do
	n=$(ls -A | grep -c '\.nt-' || true)
	[ "$n" -ge 2 ] && break
	sleep 0.01
done
kill -HUP $pid
wait $pid
[ "$n" = 2 ] || { echo "FAIL: expected 2 named temporary files while running, saw $n"; exit 1; }
[ "$(ls -A)" = keep.txt ] || { echo "FAIL: SIGHUP left $(ls -A | tr '\n' ' ')"; exit 1; }
echo ok
EOF
out=$(unshare -m --propagation private bash fuse.sh "$NT" "$cap" "$PWD" 2>&1) || fail "FUSE: $out"
[ "$(echo "$out" | tail -1)" = ok ] || fail "FUSE: $out"

echo "ok: devices, /dev/stdout, FIFOs, links, modes, refusals, closed stdout, SIGKILL, full disk, FUSE"
