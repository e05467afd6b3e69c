#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/fleet-dask.py on a real dask.distributed LocalCluster (two worker
# processes on 127.0.0.1) over 8 captures the repository makes: stalled,
# clean and damaged. Its per-capture records must be exactly what analyze
# writes for each capture on its own, its totals exactly one serial analyze
# of all 8, its --serial run byte for byte the same files; a damaged capture
# is a row with its error, not lost; a worker killed (SIGKILL) while its
# analyze runs is replaced, the task runs again elsewhere, the totals stay
# exact, and the killed worker's analyze does not outlive it.
set -eu
. "$(dirname "$0")/lib.sh"
ex="${NT_SOURCE_DIR:?}/examples/fleet-dask.py"
mkcap="${NT_BUILD_DIR:?}/tests/golden/mkcap"
golden="$NT_SOURCE_DIR/tests/golden/captures"

# The script is #!/usr/bin/python3: Debian's python3-distributed serves that one.
if ! /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
	[ "${CI:-}" = "true" ] && fail "python3-distributed is not installed (README's set-up installs it)"
	echo "SKIP: python3-distributed missing" >&2
	exit 77
fi
need_tool rsvg-convert
need_tool setpriv
need_tool editcap

caps="$NT_TMP/caps"
mkdir "$caps"
"$mkcap" eth-stall "$caps/eth-stall.pcap"
"$mkcap" nodelay "$caps/nodelay.pcap"
"$mkcap" ipv6-stall "$caps/ipv6-stall.pcap"
cp "$golden/real-netns-write-write.pcap" "$caps/real-netns.pcap"
cp "$golden/tcpdump-tests-bgp-4byte-asn.pcap" "$caps/bgp.pcap"
# The bench capture's stalls run from 1.0 to 3.95 s after its start
# (1700000000 s); moved 2797.5 s on, an hour (UTC) begins at 2.5 s: every
# flow stalls in two hours, 15 rounds in each, and the hour table must count
# it so, stall by stall.
"$mkcap" bench "$caps/bench0.pcap" 300 30
editcap -F nsecpcap -t 2797.5 "$caps/bench0.pcap" "$caps/bench.pcap" 2>/dev/null ||
	fail "editcap could not move bench.pcap by 2797.5 s"
rm "$caps/bench0.pcap"
head -c 150000 "$caps/bench.pcap" >"$caps/truncated.pcap"
printf 'not a capture\n' >"$caps/garbage.pcap"
list=(eth-stall nodelay ipv6-stall real-netns bgp bench truncated garbage)
files=()
for n in "${list[@]}"; do files+=("$caps/$n.pcap"); done

# The references: analyze on each capture alone, and once over all of them.
mkdir "$NT_TMP/ref"
for n in "${list[@]}"; do
	"$NAGLE_TRACE" analyze --format jsonl -r "$caps/$n.pcap" >"$NT_TMP/ref/$n.jsonl" 2>/dev/null ||
		[ $? = 4 ] || fail "analyze $n.pcap failed"
done
rargs=()
for f in "${files[@]}"; do rargs+=(-r "$f"); done
"$NAGLE_TRACE" analyze --format jsonl "${rargs[@]}" 2>/dev/null | tail -n 1 >"$NT_TMP/ref/all.json" ||
	[ "${PIPESTATUS[0]}" = 4 ] || fail "analyze over all 8 failed"

# check DIR: the fleet run's records and totals against the references.
check() {
	/usr/bin/python3 - "$1" "$NT_TMP/ref" "$caps" "${list[@]}" <<'EOF' || fail "$1: $(cat "$NT_TMP/why")"
import json, os, sys
out, ref, caps, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
why = open(os.path.join(os.path.dirname(ref), "why"), "w")
def bad(msg):
    why.write(msg); why.close(); sys.exit(1)
got = {}
for line in open(os.path.join(out, "records.jsonl")):
    r = json.loads(line)
    got.setdefault(r["capture"], []).append(r["record"])
for n in names:
    path = os.path.join(caps, n + ".pcap")
    want = [json.loads(l) for l in open(os.path.join(ref, n + ".jsonl"))]
    if got.get(path) != want:
        bad(f"{n}: {len(got.get(path, []))} records, want {len(want)} (or they differ)")
fleet = json.load(open(os.path.join(out, "fleet.json")))
t, s = fleet["totals"], json.load(open(os.path.join(ref, "all.json")))["summary"]
for k in ("packets", "tcp_packets", "flows", "flows_with_stalls", "stalls", "stalled_total_ns",
          "stalled_wall_ns", "stalled_wall_min_ns", "think_time"):
    if t[k] != s[k]:
        bad(f"total {k} {t[k]}, serial analyze says {s[k]}")
if t["captures_damaged"] != s["files_damaged"] or t["captures_damaged"] != 2 or t["captures"] != 8:
    bad(f"captures {t['captures']}, damaged {t['captures_damaged']}: want 8 and 2")
if t["stalls"] < 1000 or t["flows_with_stalls"] < 300:
    bad(f"only {t['stalls']} stalls in {t['flows_with_stalls']} flows: the stalled captures did not count")
for key in ("service", "host_pair"):
    if sum(r["stalls"] for r in fleet[key]) != t["stalls"] or \
       sum(r["lost_ns"] for r in fleet[key]) != t["stalled_total_ns"]:
        bad(f"the {key} table does not add up to the totals")
if sum(r["stalls"] for r in fleet["hour"]) != t["stalls"]:
    bad("the hour table does not add up to the totals")
# The hour table from the stall records alone: the hour each held segment
# left, each flow counted once an hour.
hours = {}
for n in names:
    for r in got.get(os.path.join(caps, n + ".pcap"), []):
        if r.get("type") == "stall":
            h = hours.setdefault(r["held_t_ns"] // 3600000000000, {"stalls": 0, "lost_ns": 0,
                                                                   "flows": set()})
            h["stalls"] += 1
            h["lost_ns"] += r["stall_ns"]
            h["flows"].add((n, r["flow"]))
import datetime
want = {datetime.datetime.fromtimestamp(k * 3600, datetime.timezone.utc).strftime("%Y-%m-%dT%H:00Z"):
        (v["stalls"], v["lost_ns"], len(v["flows"])) for k, v in hours.items()}
have = {r["hour"]: (r["stalls"], r["lost_ns"], r["flows_with_stalls"]) for r in fleet["hour"]}
if have != want:
    bad(f"hour table {have}, the stall records say {want}")
for h in ("2023-11-14T22:00Z", "2023-11-14T23:00Z"):
    if have.get(h, (0, 0, 0))[0] < 4500 or have[h][2] < 300:
        bad(f"bench.pcap's flows do not stall in both {h} and the hour after: {have}")
status = {os.path.basename(c["capture"]): (c["status"], c["error"]) for c in fleet["captures"]}
for n in ("truncated", "garbage"):
    st, err = status[n + ".pcap"]
    if st != "damaged" or n + ".pcap" not in (err or ""):
        bad(f"{n}.pcap: status {st}, error {err!r}: want damaged, with the file named")
if [c["capture"] for c in fleet["captures"]] != [os.path.join(caps, n + ".pcap") for n in names]:
    bad("captures are not in the order given")
EOF
	for t in service host_pair hour captures; do
		[ -s "$1/$t.csv" ] || fail "$1: no $t.csv"
	done
	grep -q '^7000,' "$1/service.csv" || fail "$1: service.csv has no row for port 7000"
	rsvg-convert "$1/fleet.svg" -o "$1/fleet.png" || fail "$1: rsvg-convert rejects fleet.svg"
	/usr/bin/python3 -c '
import struct, sys
w, h = struct.unpack(">II", open(sys.argv[1], "rb").read()[16:24])
sys.exit(0 if (w, h) == (1280, 720) else 1)' "$1/fleet.png" || fail "$1: fleet.svg is not 1280x720"
	grep -q 'not read in full: .*truncated.pcap' "$1/fleet.svg" || fail "$1: the slide hides the damaged captures"
}

cd "$NT_TMP"
set +e
"$ex" --nagle-trace "$NAGLE_TRACE" --out "$NT_TMP/dask" "${files[@]}" >"$NT_TMP/dask.txt" 2>"$NT_TMP/dask.err"
rc=$?
set -e
[ "$rc" = 4 ] || fail "fleet-dask.py exited $rc, want 4 (two damaged captures): $(tail -5 "$NT_TMP/dask.err")"
check "$NT_TMP/dask"
grep -q '^2 captures not read in full' "$NT_TMP/dask.txt" || fail "the table does not name the damaged captures"
grep -q 'garbage.pcap: damaged: cannot read' "$NT_TMP/dask.txt" || fail "garbage.pcap's error is not told"

"$ex" --serial --nagle-trace "$NAGLE_TRACE" --out "$NT_TMP/serial" "${files[@]}" >/dev/null 2>&1 ||
	[ $? = 4 ] || fail "fleet-dask.py --serial failed"
for f in fleet.json records.jsonl service.csv host_pair.csv hour.csv captures.csv fleet.svg; do
	cmp -s "$NT_TMP/serial/$f" "$NT_TMP/dask/$f" || fail "--serial and the Dask run differ in $f"
done

# A worker killed mid-run. The wrapper stands in for nagle-trace: on the bench
# capture's first attempt it writes its worker's pid (its parent: setpriv
# execs it) and its own, then waits to be killed; later attempts run at once.
cat >"$NT_TMP/wrap.py" <<EOF
#!/usr/bin/python3
import os, sys, time
mark = "$NT_TMP/attempt"
if sys.argv[-1].endswith("/bench.pcap"):
    first = not os.path.exists(mark + "1")
    with open(mark + ("1" if first else "2") + ".tmp", "w") as f:
        f.write(f"{os.getppid()} {os.getpid()}\n")
    os.rename(mark + ("1" if first else "2") + ".tmp", mark + ("1" if first else "2"))
    if first:
        time.sleep(60)
os.execv("$NAGLE_TRACE", ["$NAGLE_TRACE"] + sys.argv[1:])
EOF
chmod +x "$NT_TMP/wrap.py"
"$ex" --nagle-trace "$NT_TMP/wrap.py" --out "$NT_TMP/killed" "${files[@]}" \
	>"$NT_TMP/killed.txt" 2>"$NT_TMP/killed.err" &
script=$!
for _ in $(seq 600); do
	[ -e "$NT_TMP/attempt1" ] && break
	kill -0 "$script" 2>/dev/null || break
	sleep 0.1
done
[ -e "$NT_TMP/attempt1" ] || fail "the bench capture's analyze never started: $(tail -5 "$NT_TMP/killed.err")"
read -r worker child <"$NT_TMP/attempt1"
grep -qa 'distributed\|dask\|python' "/proc/$worker/cmdline" || fail "pid $worker is not a Dask worker"
kill -KILL "$worker"
set +e
wait "$script"
rc=$?
set -e
[ "$rc" = 4 ] || fail "after the kill fleet-dask.py exited $rc, want 4: $(tail -5 "$NT_TMP/killed.err")"
[ -e "$NT_TMP/attempt2" ] || fail "the killed worker's task was not run again"
read -r worker2 _ <"$NT_TMP/attempt2"
[ "$worker2" != "$worker" ] || fail "the task ran again in the worker that was killed"
check "$NT_TMP/killed"
cmp -s "$NT_TMP/serial/fleet.json" "$NT_TMP/killed/fleet.json" || fail "the totals moved after the kill"
# Gone, or a zombie nobody has reaped yet (state Z): either way not running.
running() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
for _ in $(seq 50); do
	running "$child" || break
	sleep 0.1
done
! running "$child" || fail "the killed worker's analyze (pid $child) outlived it"
echo "ok"
