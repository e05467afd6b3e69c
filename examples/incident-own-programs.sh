#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An incident walk-through with a server people actually run: Debian's nginx
# with its stock configuration (its workers switch to www-data, so this runs
# as real root, in the run's own namespaces) and a client that writes each
# request's headers and the blank line that ends them separately. Reproduce
# the stall, read the kernel's evidence, then ask which fix removes it,
# before anyone changes code.
#
#   sudo examples/incident-own-programs.sh [path/to/nagle-trace]
#
# TARGET and CLIENT (environment) are your own commands instead. Writes
# incident.md (Markdown for the ticket: paste it into a GitHub issue),
# incident.html (the same as one page) and incident.json (every fix) in the
# current directory. Exit status: 0 when a fix removed every stall, 1 when
# stalls remain under every fix, 3 when the programs did not run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nt=${1:-$here/../build/nagle-trace}
[ -x "$nt" ] || [ -n "${1:-}" ] || nt=$(command -v nagle-trace || echo "$nt")
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }
progs=$here/../tests/programs
if [ -z "${TARGET:-}" ] || [ -z "${CLIENT:-}" ]; then
	command -v nginx >/dev/null || { echo "install nginx (nginx-light), or set TARGET and CLIENT" >&2; exit 2; }
	[ "$(id -u)" = 0 ] || { echo "nginx switches its workers to www-data: run this as root (sudo)" >&2; exit 2; }
	[ -f "$progs/http_split.sh" ] || { echo "the client lives in the source tree's tests/programs" >&2; exit 2; }
fi
stock_nginx="nginx -g 'daemon off;'"
TARGET=${TARGET:-$stock_nginx}
CLIENT=${CLIENT:-bash $progs/http_split.sh target 80 20}
FIXES=none,nodelay,quickack

step() { printf '\n== %s\n' "$*"; }

step "1. Reproduce: your target and your client in the lab, every stall named"
"$nt" run --target "$TARGET" --client "$CLIENT" --brief -o incident-before.txt 2>/dev/null ||
	exit 3
sed -n '1,/^$/p' incident-before.txt
grep -E '^  [0-9]+ stalls? ' incident-before.txt

step "2. The kernel's side: the target's delayed-ACK timer and its socket's mode"
grep -E 'counters over the run|ping-pong in' incident-before.txt

step "3. Before and after each fix ($FIXES), each in a fresh lab"
"$nt" run --fix "$FIXES" --target "$TARGET" --client "$CLIENT" --format json -o incident.json \
	2>/dev/null || exit 3
python3 - incident.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for row in doc["comparison"]:
    ms = lambda k: row[k] / 1e6 if row[k] is not None else float("nan")
    print(f'  {row["fix"]:9s} stalls {row["stalls"]:3d}  held {row["held"]:6s}'
          f'  p50 {ms("exchange_p50_ns"):7.3f} ms  p99 {ms("exchange_p99_ns"):7.3f} ms'
          f'  {row["packets_per_request"] or 0:5.2f} packets/request')
PY

step "4. The incident report: Markdown for the ticket, one HTML page"
"$nt" run --fix "$FIXES" --target "$TARGET" --client "$CLIENT" --format markdown \
	-o incident.md 2>/dev/null || exit 3
"$nt" run --fix "$FIXES" --target "$TARGET" --client "$CLIENT" --format html \
	-o incident.html 2>/dev/null || exit 3
echo "  incident.md, incident.html"

step "5. The verdict"
python3 - incident.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["conclusion"]
print("  " + c["text"])
if c["stalls_before"] and not c["best"]:
    sys.exit(1)
PY
