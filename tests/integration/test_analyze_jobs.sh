#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# analyze --jobs: files read at once give byte for byte what reading them one
# after the other gives, in every format, standard error and exit status
# included, and so do --annotate, standard input among the files, and -c.
# The flows of text, json, jsonl, markdown and html rendered by several threads in chunks
# (src/render/chunks.c) give the one thread's report too, the chunks in order.
# The merge follows the order of the files, not the order workers finish in:
# the first file is much larger than the rest, so with two workers the small
# ones are done long before it (a merge in finishing order would put them
# first), and a reversed command line must give a different report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

caps="$NT_SOURCE_DIR/tests/golden/captures"
mkcap="$NT_BUILD_DIR/tests/golden/mkcap"
big="$NT_TMP/big.pcap"
"$mkcap" bench "$big" 300 200 || fail "mkcap bench"
files=("$big" "$caps"/*.pcap "$caps"/*.pcapng "$caps/README.md")

# run NAME ARGS...: the report, standard error and exit status of one run, in $NT_TMP/NAME.*
run() {
	local name=$1 rc=0
	shift
	"$NAGLE_TRACE" analyze "$@" >"$NT_TMP/$name.out" 2>"$NT_TMP/$name.err" || rc=$?
	echo "$rc" >"$NT_TMP/$name.rc"
}

same() {
	for part in out err rc; do
		cmp -s "$NT_TMP/$1.$part" "$NT_TMP/$2.$part" ||
			fail "$1 and $2 differ in $part: $(diff "$NT_TMP/$1.$part" "$NT_TMP/$2.$part" | head -5)"
	done
}

for fmt in text json jsonl markdown svg html; do
	run "serial-$fmt" --jobs 1 --format "$fmt" "${files[@]}"
	for jobs in 2 3 64; do
		run "jobs$jobs-$fmt" --jobs "$jobs" --format "$fmt" "${files[@]}"
		same "serial-$fmt" "jobs$jobs-$fmt"
	done
done
[ "$(cat "$NT_TMP/serial-text.rc")" = 4 ] || fail "README.md among the inputs should exit 4"
grep -q 'cannot read .*README.md' "$NT_TMP/serial-text.err" || fail "README.md's error is missing"

# The files in the report are the command line's, in its order.
python3 - "$NT_TMP/jobs2-json.out" "${files[@]}" <<'PY' || fail "files out of order"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [f["path"] for f in doc["files"]] == sys.argv[2:], [f["path"] for f in doc["files"]]
assert doc["flows"][0]["file"] == 0 and doc["summary"]["stalls"] >= 300 * 200
PY

# The order matters, so a merge in the wrong order cannot go unseen.
rev=()
for ((i = ${#files[@]} - 1; i >= 0; i--)); do rev+=("${files[i]}"); done
run reversed --jobs 2 --format json "${rev[@]}"
cmp -s "$NT_TMP/serial-json.out" "$NT_TMP/reversed.out" && fail "the order of the files changed nothing"

# --annotate: the same pcapng, and standard input among parallel files.
small=("$caps/gen-eth-stall.pcap" "$caps/real-netns-write-write.pcap" "$caps/gen-ipv6-stall.pcap")
run ann1 --jobs 1 --annotate "$NT_TMP/a1.pcapng" "$big" "${small[@]}"
run ann2 --jobs 2 --annotate "$NT_TMP/a2.pcapng" "$big" "${small[@]}"
same ann1 ann2
cmp -s "$NT_TMP/a1.pcapng" "$NT_TMP/a2.pcapng" || fail "--annotate differs with --jobs 2"
for jobs in 1 2; do
	"$NAGLE_TRACE" analyze --jobs $jobs --annotate "$NT_TMP/s$jobs.pcapng" "$big" - \
		"${small[@]:1}" <"${small[0]}" >"$NT_TMP/stdin$jobs.out" 2>&1 ||
		fail "standard input among the files, --jobs $jobs"
done
cmp -s "$NT_TMP/stdin1.out" "$NT_TMP/stdin2.out" || fail "standard input: parallel and serial differ"
cmp -s "$NT_TMP/s1.pcapng" "$NT_TMP/s2.pcapng" || fail "--annotate with standard input differs"

# -c counts over the files in their order, whatever --jobs says.
run c1 --jobs 1 -c 240904 --format json "$big" "${small[@]}"
run c2 --jobs 2 -c 240904 --format json "$big" "${small[@]}"
same c1 c2
python3 - "$NT_TMP/c2.out" <<'PY' || fail "-c over several files"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [f["packets"] for f in doc["files"]] == [300 * 803, 4], [f["packets"] for f in doc["files"]]
PY
# One file read alone: a reader thread decodes ahead while the main thread
# settles (src/capture/feed.c), unless --jobs 1. The big file is some 940
# hand-overs of 256 frames, so the ring of 8 wraps a hundred times; a batch
# lost, repeated or settled out of order changes the report. Also: a file
# damaged mid-way (the reader's error reaches the report and the exit
# status), -c ending inside a batch, a filter, and standard input.
head -c 9000017 "$big" >"$NT_TMP/cut.pcap"
for fmt in text json jsonl; do
	run "one1-$fmt" --jobs 1 --format "$fmt" "$big"
	run "one2-$fmt" --jobs 2 --format "$fmt" "$big"
	same "one1-$fmt" "one2-$fmt"
done
for args in "$NT_TMP/cut.pcap" "-c 100001 $big" "--format json $big tcp port 5001" \
	"--format json ${small[0]}"; do
	# shellcheck disable=SC2086
	run p1 --jobs 1 $args
	# shellcheck disable=SC2086
	run p2 --jobs 2 $args
	same p1 p2
done
[ "$(cat "$NT_TMP/p1.rc")" = 0 ] || fail "the small capture should exit 0"
run cut --jobs 2 "$NT_TMP/cut.pcap"
[ "$(cat "$NT_TMP/cut.rc")" = 4 ] || fail "a damaged file read on two threads should exit 4"
grep -q "truncated\|damaged" "$NT_TMP/cut.err" || fail "the damage is not reported: $(cat "$NT_TMP/cut.err")"
"$NAGLE_TRACE" analyze --jobs 2 --format json - <"$big" >"$NT_TMP/in2.out" || fail "standard input"
cmp -s "$NT_TMP/one1-json.out" "$NT_TMP/in2.out" &&
	fail "standard input's report should name it \"-\", not the file"
python3 - "$NT_TMP/one1-json.out" "$NT_TMP/in2.out" <<'PY' || fail "standard input read on two threads"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a["files"][0]["path"] = b["files"][0]["path"] = "x"
assert a == b
PY
# Rendering: one file of 2,000 flows is 32 chunks of 64 flows; any chunk out
# of its place changes the report (every flow has its own ports).
many="$NT_TMP/many.pcap"
"$mkcap" bench "$many" 2000 3 || fail "mkcap bench"
for fmt in text json jsonl markdown html; do
	run "many1-$fmt" --jobs 1 --format "$fmt" "$many"
	for jobs in 2 5; do
		run "many$jobs-$fmt" --jobs "$jobs" --format "$fmt" "$many"
		same "many1-$fmt" "many$jobs-$fmt"
	done
	"$NAGLE_TRACE" analyze --jobs 3 --format "$fmt" -o "$NT_TMP/many-file.$fmt" "$many" ||
		fail "-o a file, --jobs 3"
	cmp -s "$NT_TMP/many1-$fmt.out" "$NT_TMP/many-file.$fmt" ||
		fail "-o a file with --jobs 3 differs from the serial $fmt report"
done
json_check "$NT_TMP/many2-json.out" '
assert len(doc["flows"]) == 2000, len(doc["flows"])
ports = [f["client"]["port"] for f in doc["flows"]]
assert len(set(ports)) == 2000, "flows share ports: a chunk out of place could go unseen"'
echo "ok: --jobs gives the serial report in every format"
