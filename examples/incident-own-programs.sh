#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An incident walk-through with your own programs: reproduce the stall with
# your server and your client in a private lab, read the kernel's evidence,
# then ask whether TCP_NODELAY would fix it before anyone changes code.
#
#   unshare -Urn examples/incident-own-programs.sh [path/to/nagle-trace]
#
# TARGET and CLIENT (environment) are your commands; by default the test
# programs of this repository stand in for them: a length-prefixed server and
# a Python client that writes each request's header and body separately.
# Writes incident.md (Markdown, for the ticket) and incident.json (both fixes)
# in the current directory. Exit status: 0 when --fix nodelay removed every
# stall, 1 when stalls remain under it, 3 when the programs did not run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nt=${1:-$here/../build/nagle-trace}
[ -x "$nt" ] || [ -n "${1:-}" ] || nt=$(command -v nagle-trace || echo "$nt")
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }
progs=$here/../tests/programs
[ -n "${TARGET:-}" ] && [ -n "${CLIENT:-}" ] || [ -f "$progs/server.py" ] || {
	echo "set TARGET and CLIENT to your commands (the stand-ins live in the source tree)" >&2
	exit 2
}
TARGET=${TARGET:-python3 $progs/server.py 7000}
CLIENT=${CLIENT:-python3 $progs/client.py target 7000 50}

step() { printf '\n== %s\n' "$*"; }

step "1. Reproduce: your target and your client in the lab, every stall named"
"$nt" run --target "$TARGET" --client "$CLIENT" --brief -o incident-before.txt
sed -n '1,/^$/p' incident-before.txt
grep -E '^  [0-9]+ stalls? ' incident-before.txt

step "2. The kernel's side: the target's delayed-ACK timer and its socket's mode"
grep -E 'counters over the run|ping-pong in' incident-before.txt

step "3. Before and after --fix nodelay (TCP_NODELAY through LD_PRELOAD), one table"
"$nt" run --fix none,nodelay --target "$TARGET" --client "$CLIENT" --format json \
	-o incident.json
"$nt" run --fix none,nodelay --target "$TARGET" --client "$CLIENT" --format markdown \
	-o incident.md
python3 - incident.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for row in doc["comparison"]:
    p50 = row["exchange_p50_ns"]
    print(f'  {row["fix"]:8s} stalls {row["stalls"]:4d}   lost {row["stalled_wall_ns"] / 1e6:8.1f} ms'
          f'   request -> answer p50 {p50 / 1e6 if p50 is not None else float("nan"):7.3f} ms')
PY

step "4. The verdict"
python3 - incident.json <<'PY'
import json, sys
rows = {r["fix"]: r for r in json.load(open(sys.argv[1]))["comparison"]}
before, after = rows["none"]["stalls"], rows["nodelay"]["stalls"]
if before == 0:
    print("  your programs did not stall: look elsewhere for the latency")
elif after == 0:
    print(f"  {before} stalls without it, none with TCP_NODELAY on the client: set it in the code"
          " (or write each request in one call); incident.md is ready for the ticket")
else:
    print(f"  {after} stalls remain with TCP_NODELAY on the client: the held writes are the"
          " target's (try --fix nodelay-target) or the client clears the option itself")
    sys.exit(1)
PY
