#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# For an incident writeup: does this kernel stall a write-write-read client with
# your message sizes, and which fix removes it? Writes a JSON report, prints the
# comparison, and exits 0 when the default pattern (two writes, Nagle on) stalls
# -- the cause is confirmed -- or 1 when it never does (the cause is elsewhere).
# Other variants' expectations do not decide the exit status: their table says
# what each fix did.
#   unshare -Urn examples/incident-check.sh HEADER_BYTES BODY_BYTES REPLY_BYTES [nagle-trace]
set -eu
header=${1:-64} body=${2:-256} reply=${3:-128}
# The binary: as given, else the build tree's next to this script, else the installed one.
nt=${4:-$(dirname "$0")/../build/nagle-trace}
[ -x "$nt" ] || [ -n "${4:-}" ] || nt=$(command -v nagle-trace || echo "$nt")
[ -x "$nt" ] || { echo "build nagle-trace first (see README.md), or pass its path" >&2; exit 2; }
out=${OUT:-incident-$(date +%Y%m%d-%H%M%S).json}

# The report and the table; an expectation not met is a finding here, not a failure.
"$nt" --header "$header" --body "$body" --reply "$reply" --rounds 10 \
	--variant default,nodelay,writev,quickack-rearm --format json -o "$out"
"$nt" --header "$header" --body "$body" --reply "$reply" --rounds 10 \
	--variant default,nodelay,writev,quickack-rearm
echo
echo "report: $out"
python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
default = next(r for r in doc["runs"] if r["variant"] == "default")
stalled = default["summary"]["verdicts"]["stalled"]
if stalled:
    print(f"the default pattern stalled in {stalled} of {default['summary']['rounds']} rounds: "
          "Nagle + delayed ACK is the cause; the table shows which fix removes it")
    sys.exit(0)
print("the default pattern never stalled with these sizes: the cause is elsewhere")
sys.exit(1)
PY
