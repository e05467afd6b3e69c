#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `nagle-trace kernels`: the model conformance set (model_conformance.py, the
# one run on the host by test_model_conformance.sh) in a qemu guest of each of
# Debian 12's 6.1 and 6.12 kernels (tests/kernels/fetch.sh downloads them in
# README's setup): every round inside the model's prediction for that kernel,
# and the same measurements against a model told the wrong kernel must fail.
# Then the ways a guest cannot run: a panic, a kernel without veth, no qemu,
# and SIGKILL of the tool, each one line and an exit status, no qemu left.
# Not registered in the sanitizer build (tests/integration/CMakeLists.txt).
set -eu
. "$(dirname "$0")/lib.sh"
need_tool python3
need_jsonschema
need_tool qemu-system-x86_64
[ -x /bin/busybox ] || need_tool busybox

KERNELS=${NT_KERNELS_DIR:-/var/cache/nagle-trace/kernels}
deb61=$(ls "$KERNELS"/linux-image-6.1.0-*-amd64-unsigned_*.deb 2>/dev/null | sort -V | tail -1 || true)
deb612=$(ls "$KERNELS"/linux-image-6.12.*-amd64-unsigned_*.deb 2>/dev/null | sort -V | tail -1 || true)
tree612=$KERNELS/tree-6.12
if [ -z "$deb61" ] || [ -z "$deb612" ] || [ ! -d "$tree612" ]; then
	[ "${CI:-}" = "true" ] && fail "no kernel packages in $KERNELS (README's setup runs tests/kernels/fetch.sh)"
	echo "SKIP: no kernel packages in $KERNELS (run tests/kernels/fetch.sh)" >&2
	exit 77
fi
PREDICT_TOOL=${PREDICT_TOOL:-$(dirname "$NAGLE_TRACE")/predict_tool}
CONFORMANCE=$(dirname "$0")/model_conformance.py

# No qemu of ours may outlive the command: each run is marked on its kernel command line.
no_qemu_left() {
	for _ in $(seq 50); do
		pgrep -f "nt.test=$1" >/dev/null || return 0
		sleep 0.1
	done
	fail "a qemu of run $1 outlived nagle-trace: $(pgrep -af "nt.test=$1")"
}

for deb in "$deb61" "$deb612"; do
	name=$(basename "$deb" .deb)
	mkdir "$NT_TMP/$name"
	start=$(date +%s)
	python3 "$CONFORMANCE" --nagle-trace "$NAGLE_TRACE" --predict-tool "$PREDICT_TOOL" \
		--set ci --kernel "$deb" --keep "$NT_TMP/$name" --json "$NT_TMP/$name.json" \
		>"$NT_TMP/$name.txt" || fail "$name: a verdict outside the model's prediction for that kernel: $(cat "$NT_TMP/$name.txt")"
	echo "$name: conformance set in $(( $(date +%s) - start )) s"
	grep '^kernel ' "$NT_TMP/$name.txt"
	json_check "$NT_TMP/$name.json" '
ran = [r for r in doc if not r.get("unsupported")]
assert sum(r["rounds"] for r in ran) >= 100, sum(r["rounds"] for r in ran)
assert all(not r["mismatches"] for r in doc)
release = doc[0]["kernel"]
absent = [r["args"] for r in doc if r.get("unsupported")]
# net.ipv4.tcp_pingpong_thresh came in 6.7: 6.1 has none, 6.12 has it.
if release.startswith("6.1.0-"):
    assert absent and all("--pingpong-thresh" in a for a in absent), absent
else:
    assert not absent, absent
'
	"$py" - "$NT_SOURCE_DIR/docs/nagle-trace-kernels.schema.json" "$NT_TMP/$name/kernels.json" <<'PY' ||
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
		fail "$name: the kernels report does not follow docs/nagle-trace-kernels.schema.json"
	# The comparison must be able to fail: a model told 5.4 (ping-pong threshold 3).
	printf '#!/bin/sh\nexec "%s" "$@" --kernel 5.4.0\n' "$PREDICT_TOOL" >"$NT_TMP/wrong-kernel"
	chmod +x "$NT_TMP/wrong-kernel"
	set +e
	python3 "$CONFORMANCE" --nagle-trace "$NAGLE_TRACE" --predict-tool "$NT_TMP/wrong-kernel" \
		--set ci --kernel "$deb" --reuse "$NT_TMP/$name" >"$NT_TMP/wrong.txt"
	rc=$?
	set -e
	[ "$rc" = 1 ] || fail "$name: a model of the wrong kernel passed (exit $rc)"
	grep -q "MISMATCH *--variant default" "$NT_TMP/wrong.txt" ||
		fail "$name: the wrong kernel's mismatch was not reported: $(cat "$NT_TMP/wrong.txt")"
done

# The unpacked tree, Markdown, and the option 6.1 lacks, in one table of two
# kernels; the package by a name of 254 bytes (a path once kept in 200 bytes
# and opened cut: "Invalid argument").
longdeb=$NT_TMP/$(printf 'p%.0s' $(seq 250)).deb
ln -s "$deb61" "$longdeb"
set +e
"$NAGLE_TRACE" kernels --kernel "$tree612,$longdeb" --format markdown --rounds 3 \
	--pingpong-thresh 2 --kernel-args "nt.test=$$.md" >"$NT_TMP/table.md" 2>"$NT_TMP/md.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "markdown table: exit $rc: $(cat "$NT_TMP/md.err")"
grep -q '^| kernel | variant | verdicts | stall ms | the model for that kernel |$' "$NT_TMP/table.md" ||
	fail "no markdown table: $(cat "$NT_TMP/table.md")"
grep -q '^| 6\.12\.[^|]* | `default` | .* | as predicted (6\.12, HZ 250) |$' "$NT_TMP/table.md" ||
	fail "6.12's row: $(cat "$NT_TMP/table.md")"
grep -q '^| 6\.1\.0-[^|]* | .*not on this kernel (net.ipv4.tcp_pingpong_thresh came in 6.7)' "$NT_TMP/table.md" ||
	fail "6.1's missing sysctl is not said: $(cat "$NT_TMP/table.md")"
no_qemu_left "$$.md"

# A guest that panics: one line, exit 3, no qemu left; the JSON report says why.
set +e
"$NAGLE_TRACE" kernels --kernel "$tree612" --kernel-args "rdinit=/nonexistent nt.test=$$.p" \
	--format json -o "$NT_TMP/panic.json" >"$NT_TMP/panic.out" 2>"$NT_TMP/panic.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "a panicking guest exited $rc: $(cat "$NT_TMP/panic.err")"
[ "$(wc -l <"$NT_TMP/panic.err")" = 1 ] || fail "not one line: $(cat "$NT_TMP/panic.err")"
grep -q '^nagle-trace: kernel 6\.12\.[^:]*: the guest kernel panicked: Kernel panic - not syncing' \
	"$NT_TMP/panic.err" || fail "the panic's line: $(cat "$NT_TMP/panic.err")"
no_qemu_left "$$.p"
json_check "$NT_TMP/panic.json" '
k = doc["kernels"][0]
assert k["error"].startswith("the guest kernel panicked: Kernel panic - not syncing"), k["error"]
assert k["release"].startswith("6.12.") and k["cells"] == [] and k["runs"] == [], k
'
"$py" - "$NT_SOURCE_DIR/docs/nagle-trace-kernels.schema.json" "$NT_TMP/panic.json" <<'PY' ||
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
	fail "the kernels report does not follow docs/nagle-trace-kernels.schema.json"

# The report to a FIFO whose reader left: a write error (exit 4, "Broken
# pipe"), as analyze's; only standard output's reader may leave quietly. The
# reader opens first, shrinks the pipe to a page, takes 10 bytes and leaves;
# the report is made longer than the page by its image's path, four
# directories of 200 \x01 each (six bytes each in JSON, \u0001), so the
# write is still under way when the reader goes.
ctl=$(printf '\001%.0s' $(seq 200))
long=$NT_TMP/$ctl/$ctl/$ctl/$ctl
mkdir -p "$long"
ln -s "$tree612" "$long/tree"
mkfifo "$NT_TMP/gone.fifo"
python3 - "$NT_TMP/gone.fifo" "$NT_TMP/gone.ready" >"$NT_TMP/gone.got" <<'PY' &
import fcntl, os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
open(sys.argv[2], "w").close()
select.select([fd], [], [])
os.set_blocking(fd, True)
sys.stdout.write(str(len(os.read(fd, 10))))
PY
reader=$!
for _ in $(seq 100); do [ -e "$NT_TMP/gone.ready" ] && break; sleep 0.1; done
set +e
"$NAGLE_TRACE" kernels --kernel "$long/tree" --kernel-args "rdinit=/nonexistent nt.test=$$.f" \
	--format json -o "$NT_TMP/gone.fifo" 2>"$NT_TMP/gone.err"
rc=$?
set -e
wait "$reader"
[ "$(cat "$NT_TMP/gone.got")" = 10 ] || fail "the FIFO's reader took no 10 bytes"
[ "$rc" = 4 ] || fail "a FIFO whose reader left: exit $rc: $(cat "$NT_TMP/gone.err")"
grep -qx "nagle-trace: write \"$NT_TMP/gone.fifo\": Broken pipe" "$NT_TMP/gone.err" ||
	fail "the FIFO's line: $(cat "$NT_TMP/gone.err")"
no_qemu_left "$$.f"

# The initramfs past `ulimit -f`: its real reason, not an I/O error (exit 3, before any boot).
set +e
(ulimit -f 1 && exec "$NAGLE_TRACE" kernels --kernel "$tree612") 2>"$NT_TMP/fsize.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "ulimit -f 1: exit $rc: $(cat "$NT_TMP/fsize.err")"
grep -qx 'nagle-trace: initramfs: "[^"]*": Write error: File too large' "$NT_TMP/fsize.err" ||
	fail "ulimit -f 1: $(cat "$NT_TMP/fsize.err")"

# refused NAME STATUS ARGS...: `kernels ARGS` exits STATUS, nothing on
# standard output; what it said, in $said (and $NT_TMP/NAME.err).
refused() {
	local name=$1 want=$2 got
	shift 2
	set +e
	"$NAGLE_TRACE" kernels "$@" >"$NT_TMP/$name.out" 2>"$NT_TMP/$name.err"
	got=$?
	set -e
	said=$(cat "$NT_TMP/$name.err")
	[ "$got" = "$want" ] || fail "$name: exit $got, not $want: $said"
	[ ! -s "$NT_TMP/$name.out" ] || fail "$name: a report: $(cat "$NT_TMP/$name.out")"
}

# A kernel without veth (its tree, minus the module): no boot, one line, exit 3.
release=$(basename "$(ls -d "$tree612"/lib/modules/*)")
mkdir -p "$NT_TMP/noveth/boot" "$NT_TMP/noveth/lib/modules/$release"
ln -s "$tree612/boot/vmlinuz-$release" "$NT_TMP/noveth/boot/vmlinuz-$release"
refused noveth 3 --kernel "$NT_TMP/noveth"
[ "$said" = "nagle-trace: kernel \"$NT_TMP/noveth\" ($release) has no veth module and does not build it in" ] ||
	fail "the no-veth line: $said"

# qemu in a directory after 4 KiB of PATH is found (PATH was copied into 4
# KiB and the rest lost): the image is read, and it is the image that is refused.
longpath=$(printf '/nonexistent/%0200d:' $(seq 25))/usr/bin:/bin
set +e
PATH=$longpath "$NAGLE_TRACE" kernels --kernel "$NT_TMP/noveth" >/dev/null 2>"$NT_TMP/longpath.err"
set -e
grep -q 'has no veth module' "$NT_TMP/longpath.err" ||
	fail "qemu after 4 KiB of PATH: $(cat "$NT_TMP/longpath.err")"

# A tree whose modules' path would pass PATH_MAX: said so, exit 4, not "no veth
# module" (the path was cut and the cut one held none). A release longer than
# the tool keeps: said so, not cut.
deep=$NT_TMP
while [ ${#deep} -lt 3800 ]; do deep=$deep/$(printf 'd%.0s' $(seq 250)); done
mkdir -p "$deep"
deep=$deep/$(printf 'e%.0s' $(seq $((4060 - ${#deep} - 1))))
ln -s "$tree612" "$deep"
refused deep 4 --kernel "$deep"
grep -qx 'nagle-trace: kernel image "[^"]*…[^"]*": a path in it: File name too long' \
	"$NT_TMP/deep.err" || fail "a tree near PATH_MAX: $said"
longrel=$(printf 'r%.0s' $(seq 90))
mkdir -p "$NT_TMP/longrel/boot"
ln -s "$tree612/boot/vmlinuz-$release" "$NT_TMP/longrel/boot/vmlinuz-$longrel"
refused longrel 4 --kernel "$NT_TMP/longrel"
[ "$said" = "nagle-trace: kernel image \"$NT_TMP/longrel\": release \"rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr...\" is too long (over 71 bytes)" ] ||
	fail "a release of 90 bytes: $said"
# The same in a bzImage's setup header (kernel_version at 0x200 + 0x0c00).
python3 - "$NT_TMP/long.bzImage" <<'PY'
import sys
img = bytearray(0x1000)
img[0x202:0x206] = b"HdrS"
img[0x206:0x208] = b"\x0f\x02"
img[0x20e:0x210] = b"\x00\x0c"
img[0xe00:0xe00 + 91] = b"r" * 90 + b" "
open(sys.argv[1], "wb").write(img)
PY
refused longbz 4 --kernel "$NT_TMP/long.bzImage"
[ "$said" = "nagle-trace: kernel image \"$NT_TMP/long.bzImage\": its release is too long (over 71 bytes)" ] ||
	fail "a bzImage's release of 90 bytes: $said"

# No qemu on PATH: one line, exit 3. A file that is no kernel: exit 4.
set +e
PATH=/nonexistent "$NAGLE_TRACE" kernels --kernel "$deb61" 2>"$NT_TMP/noqemu.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "no qemu: exit $rc"
grep -qx 'nagle-trace: qemu-system-x86_64 not found in PATH (install qemu-system-x86)' \
	"$NT_TMP/noqemu.err" || fail "the no-qemu line: $(cat "$NT_TMP/noqemu.err")"
refused notkernel 4 --kernel "$CONFORMANCE"

# libarchive is loaded by kernels alone (src/vm/archive_dl.h): no other command maps it at start,
# and one that cannot be loaded is one line and exit 3, before any image is read. Hidden here
# under /dev/null in a mount namespace of the test's own.
readelf -d "$NAGLE_TRACE" | grep -q 'NEEDED.*libarchive' && fail "libarchive linked, loaded at every start"
lib=$(ldconfig -p | awk '$1 == "libarchive.so.13" && /x86-64/ { print $NF; exit }')
[ -n "$lib" ] || fail "no libarchive.so.13 in ldconfig's cache"
set +e
unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
	"$NAGLE_TRACE" kernels --kernel "$deb61" >"$NT_TMP/nolib.out" 2>"$NT_TMP/nolib.err"
rc=$?
set -e
[ "$rc" = 3 ] || fail "no libarchive: exit $rc: $(cat "$NT_TMP/nolib.err")"
[ "$(wc -l <"$NT_TMP/nolib.err")" = 1 ] && grep -q '^nagle-trace: libarchive: ' "$NT_TMP/nolib.err" ||
	fail "the no-libarchive line: $(cat "$NT_TMP/nolib.err")"
[ ! -s "$NT_TMP/nolib.out" ] || fail "no libarchive: a report"

# SIGKILL while the guest runs: qemu dies with the tool (PR_SET_PDEATHSIG).
"$NAGLE_TRACE" kernels --kernel "$tree612" --rounds 200 --kernel-args "nt.test=$$.k" \
	>/dev/null 2>&1 &
tool=$!
for _ in $(seq 300); do
	pgrep -f "nt.test=$$.k" >/dev/null && break
	sleep 0.1
done
pgrep -f "nt.test=$$.k" >/dev/null || fail "qemu did not start"
sleep 1
kill -KILL "$tool"
wait "$tool" 2>/dev/null || true
no_qemu_left "$$.k"
echo "ok"
