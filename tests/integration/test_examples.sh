#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/ stay runnable: each script runs to completion against the binary
# under test, and says what it promises to say.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
ex="${NT_SOURCE_DIR:?}/examples"

LESSON_DIR="$NT_TMP" TERM=xterm unshare -Urn "$ex/classroom.sh" "$NAGLE_TRACE" \
	>"$NT_TMP/classroom.txt" 2>&1 || fail "classroom.sh failed: $(tail -5 "$NT_TMP/classroom.txt")"
grep -q '^round 2    stalled' "$NT_TMP/classroom.txt" || fail "classroom.sh: no stalled round 2"
grep -q '^writev  *[0-9]* coalesced .* met$' "$NT_TMP/classroom.txt" || fail "classroom.sh: no variant table"
grep -q '<figure class="nt-round"' "$NT_TMP/lesson.html" || fail "classroom.sh: no lesson page"
grep -q 'data-variant="default"' "$NT_TMP/lesson-sawtooth.html" || fail "classroom.sh: no sawtooth page"
# Into a pipe (here: a file) no escape codes, from the script or the program, whatever TERM says.
if grep -q $'\033' "$NT_TMP/classroom.txt"; then
	fail "classroom.sh wrote escape codes into a pipe"
fi
# A terminal gets colour, but not with NO_COLOR or TERM=dumb (script(1) gives it a terminal).
if command -v script >/dev/null; then
	for env in "TERM=xterm" "TERM=xterm NO_COLOR=1" "TERM=dumb"; do
		# script(1) -e passes on the command's exit status; on failure the
		# status and the end of what the terminal showed say which step.
		rc=0
		env $env LESSON_DIR="$NT_TMP" script -qec \
			"unshare -Urn '$ex/classroom.sh' '$NAGLE_TRACE'" /dev/null \
			</dev/null >"$NT_TMP/tty.txt" 2>&1 || rc=$?
		[ "$rc" = 0 ] || fail "classroom.sh on a terminal ($env) exited $rc: $(tail -8 "$NT_TMP/tty.txt")"
		case $env in
		"TERM=xterm") grep -q $'\033\\[1m' "$NT_TMP/tty.txt" || fail "no colour on a terminal" ;;
		*) ! grep -q $'\033\\[' "$NT_TMP/tty.txt" || fail "escape codes with $env" ;;
		esac
	done
fi

(cd "$NT_TMP" && OUT="$NT_TMP/incident.json" unshare -Urn "$ex/incident-check.sh" 64 256 128 \
	"$NAGLE_TRACE") >"$NT_TMP/incident.txt" 2>&1 ||
	fail "incident-check.sh failed: $(tail -5 "$NT_TMP/incident.txt")"
[ -s "$NT_TMP/incident.json" ] || fail "incident-check.sh wrote no report"
grep -q '^default .* stalled' "$NT_TMP/incident.txt" || fail "incident-check.sh: no table"
grep -q 'the default pattern stalled' "$NT_TMP/incident.txt" || fail "incident-check.sh: no verdict"
# A header over the MSS leaves as two segments, more than one full frame: the
# receiver ACKs at once (__tcp_ack_snd_check()), nothing stalls: exit 1, said so.
set +e
(cd "$NT_TMP" && OUT="$NT_TMP/big.json" unshare -Urn "$ex/incident-check.sh" 1500 20 2 \
	"$NAGLE_TRACE") >"$NT_TMP/big.txt" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "incident-check.sh 1500 20 2 exited $rc, want 1: $(tail -3 "$NT_TMP/big.txt")"
grep -q 'never stalled' "$NT_TMP/big.txt" || fail "incident-check.sh 1500 20 2: no verdict"
# A server people run, before and after each fix: Debian's nginx with its
# stock configuration (real root: its workers switch to www-data), a client
# that writes each request's headers and their blank line separately.
need_root
(cd "$NT_TMP" && "$ex/incident-own-programs.sh" "$NAGLE_TRACE") \
	>"$NT_TMP/own.txt" 2>&1 || fail "incident-own-programs.sh failed: $(tail -5 "$NT_TMP/own.txt")"
grep -qE '^  none +stalls +(1[5-9]|20) +held client' "$NT_TMP/own.txt" ||
	fail "incident-own-programs.sh: no stalls before: $(grep stalls "$NT_TMP/own.txt")"
grep -qE '^  nodelay +stalls +0 ' "$NT_TMP/own.txt" || fail "incident-own-programs.sh: stalls after"
grep -qE '^  (nodelay|quickack) removed the stalls at the least cost' "$NT_TMP/own.txt" ||
	fail "incident-own-programs.sh: no verdict"
grep -q '^\*\*Conclusion:\*\* ' "$NT_TMP/incident.md" || fail "incident-own-programs.sh: no incident.md"
grep -q '<svg.*class="latency"' "$NT_TMP/incident.html" || fail "incident-own-programs.sh: no incident.html"
# A fleet of captures on Dask, as docs/fleet.md runs it: a LocalCluster of two
# workers over the golden captures (python3-distributed, installed by README's set-up).
if /usr/bin/python3 -c 'import distributed' 2>/dev/null || [ "${CI:-}" = "true" ]; then
	(cd "$NT_TMP" && "$ex/fleet-dask.py" --nagle-trace "$NAGLE_TRACE" --out "$NT_TMP/fleet" \
		"$NT_SOURCE_DIR"/tests/golden/captures/*.pcap) >"$NT_TMP/fleet.txt" 2>&1 ||
		fail "fleet-dask.py failed: $(tail -5 "$NT_TMP/fleet.txt")"
	grep -q '^service (port) ' "$NT_TMP/fleet.txt" || fail "fleet-dask.py: no service table"
	grep -qE '^7000 +[0-9]+ +[0-9]+ ' "$NT_TMP/fleet.txt" || fail "fleet-dask.py: no stalls on port 7000"
	n=$(find "$NT_SOURCE_DIR/tests/golden/captures" -maxdepth 1 -name '*.pcap' | wc -l)
	grep -q "^$n captures ($n read in full" "$NT_TMP/fleet.txt" ||
		fail "fleet-dask.py: not every golden capture read: $(head -1 "$NT_TMP/fleet.txt")"
	for f in fleet.svg service.csv; do
		[ -s "$NT_TMP/fleet/$f" ] || fail "fleet-dask.py: no $f"
	done
else
	echo "fleet-dask.py not run: python3-distributed is not installed" >&2
fi
echo "ok"
