#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The incident report of `nagle-trace run`, checked by real consumers. The
# Markdown (one fix, and three) must paste into a GitHub issue as it is:
# every table in GitHub-flavoured form (a header, a delimiter row, rows of
# the same width), no raw HTML, and every Mermaid block rendered by the
# Mermaid CLI (tests/js/node_modules/.bin/mmdc, with Debian's chromium, as
# test_mermaid.sh does). The HTML page goes through headless chromium at
# 1024x768 (tests/js/incident.test.mjs): nothing cut off, no network request.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool chromium
need_tool node
js="${NT_SOURCE_DIR:?}/tests/js"
mmdc="$js/node_modules/.bin/mmdc"
if [ ! -x "$mmdc" ] || [ ! -d "$js/node_modules/playwright-core" ]; then
	[ "${CI:-}" = "true" ] && fail "tests/js/node_modules is missing: run 'npm ci' in tests/js"
	echo "SKIP: run 'npm ci' in tests/js first" >&2
	exit 77
fi
progs="$NT_SOURCE_DIR/tests/programs"

md() {
	unshare -Urn "$NAGLE_TRACE" run --target "python3 $progs/server.py 7000" \
		--client "python3 $progs/client.py target 7000 10" --fix "$1" --format markdown \
		-o "$2" >/dev/null 2>"$NT_TMP/err" || fail "run --fix $1 --format markdown: $(tail -3 "$NT_TMP/err")"
}
md none,nodelay,quickack "$NT_TMP/three.md"
md none "$NT_TMP/one.md"

grep -q '^# Incident: ' "$NT_TMP/three.md" || fail "no incident heading"
# Summary and conclusion come before the first section.
first_h2=$(grep -n '^## ' "$NT_TMP/three.md" | head -1 | cut -d: -f1)
concl=$(grep -n '^\*\*Conclusion:\*\* ' "$NT_TMP/three.md" | cut -d: -f1)
summ=$(grep -n '^\*\*Summary:\*\* ' "$NT_TMP/three.md" | cut -d: -f1)
[ -n "$summ" ] && [ -n "$concl" ] && [ "$summ" -lt "$concl" ] && [ "$concl" -lt "$first_h2" ] ||
	fail "summary ($summ) and conclusion ($concl) do not come before the first section ($first_h2)"
grep -qE '^\*\*Conclusion:\*\* `(nodelay|quickack)` removed the stalls at the least cost' \
	"$NT_TMP/three.md" || fail "no conclusion naming the fix: $(grep Conclusion "$NT_TMP/three.md")"
[ "$(grep -c '^xychart-beta$' "$NT_TMP/three.md")" = 3 ] || fail "not one latency chart per fix"
grep -q '^unshare -Urn nagle-trace run --target ' "$NT_TMP/three.md" || fail "no command to reproduce"
# Which requests stalled: each with its number, start, request -> answer and cost.
grep -q '^| # | request | started (ms into the capture) | request → answer | held at | ACK after | time lost |$' \
	"$NT_TMP/three.md" || fail "no table of the stalled requests"
grep -qE '^\| 1 \| 2 \| [0-9.]+ \| [0-9.]+ ms \| client \(4 B\) \| [0-9.]+ ms \(delack_min\) \| [0-9.]+ ms \|$' \
	"$NT_TMP/three.md" || fail "the first stall is not request 2: $(grep -A3 '^| # | request' "$NT_TMP/three.md")"

python3 - "$NT_TMP/three.md" "$NT_TMP/one.md" <<'PY' || fail "the Markdown breaks GitHub's table conventions"
import re, sys
bad = 0
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.search(r"<[a-zA-Z/][^>]*>", re.sub(r"`[^`]*`", "", line)):
            print(f"{path}:{i + 1}: raw HTML: {line}", file=sys.stderr)
            bad = 1
        if not fence and line.startswith("|"):
            cells = lambda l: len(re.findall(r"(?<!\\)\|", l)) - 1
            width = cells(line)
            delim = lines[i + 1] if i + 1 < len(lines) else ""
            if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", delim) or cells(delim) != width:
                print(f"{path}:{i + 2}: no delimiter row of {width} cells", file=sys.stderr)
                bad = 1
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                if cells(lines[j]) != width:
                    print(f"{path}:{j + 1}: {cells(lines[j])} cells, want {width}", file=sys.stderr)
                    bad = 1
                j += 1
            if j < len(lines) and lines[j] != "":
                print(f"{path}:{j + 1}: a table must end at a blank line", file=sys.stderr)
                bad = 1
            i = j
            continue
        i += 1
sys.exit(bad)
PY

# One mmdc run for both (each starts a browser): their diagrams in one file.
f=$NT_TMP/both.md
cat "$NT_TMP/three.md" "$NT_TMP/one.md" >"$f"
n=$(grep -c '^```mermaid' "$f")
"$mmdc" -q -p "$js/puppeteer.json" -i "$f" -o "$NT_TMP/out-both.md" >"$NT_TMP/mmdc.log" 2>&1 ||
	fail "mmdc rejects the incident Markdown: $(tail -5 "$NT_TMP/mmdc.log")"
[ "$(ls "$NT_TMP"/out-both-*.svg | wc -l)" = "$n" ] || fail "mmdc rendered fewer than $n diagrams"

cd "$js"
node --test incident.test.mjs
echo "ok"
