#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis, as run by tests/run-all.sh: the layering rules of
# docs/hacking.md (tests/static/layering.py), the paths and functions the docs
# and comments name (tests/static/doc_refs.py), the tree clean under
# .clang-format, cppcheck (warning, performance, portability) and clang-tidy
# with the check set documented in .clang-tidy, over src/ and over the C
# files under tests/ that CMake builds (unit tests, fuzz targets, bench_wire,
# mkcap, predict_tool; tests/.clang-tidy adds their headers).
# Both must be clean. Needs a configured build directory (compile_commands.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
[ -f "$build/compile_commands.json" ] || { echo "static: configure $build first" >&2; exit 2; }

missing=()
for tool in cppcheck clang-tidy clang-format; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "${CI:-}" = "true" ] && { echo "static: ${missing[*]} not installed" >&2; exit 1; }
	echo "static: SKIP (${missing[*]} not installed)"
	exit 0
fi

echo "== layering (docs/hacking.md)"
python3 tests/static/layering.py

echo "== references in docs and comments"
python3 tests/static/doc_refs.py

echo "== clang-format ($(clang-format --version | grep -o 'version [0-9.]*'))"
unformatted=$(git ls-files '*.c' '*.h' 2>/dev/null | while read -r f; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$unformatted" ]; then
	echo "static: not clean under .clang-format (run clang-format -i):" $unformatted >&2
	exit 1
fi

# The tests' C files are the ones the build compiles (a file under tests/ that
# CMake does not build, e.g. tests/bench/floor.c, has no compile command).
mapfile -t test_c < <(python3 - "$build/compile_commands.json" <<'PY'
import json, os, sys
root = os.getcwd()
files = {os.path.relpath(os.path.join(e["directory"], e["file"]), root)
	 for e in json.load(open(sys.argv[1]))}
print("\n".join(sorted(f for f in files if f.startswith("tests/"))))
PY
)
[ ${#test_c[@]} -gt 0 ] || { echo "static: no tests' C files in $build/compile_commands.json" >&2; exit 1; }

echo "== cppcheck (src/ and ${#test_c[@]} files under tests/)"
cppcheck --std=c11 --enable=warning,performance,portability --inline-suppr --error-exitcode=1 \
	-q -I include -I "$build/include" -D_GNU_SOURCE --suppress=missingIncludeSystem \
	src/ "${test_c[@]}"

echo "== clang-tidy ($(clang-tidy --version | grep -o 'version [0-9.]*'))"
# One file per run: clang-tidy 14 carries its va_list state from one file to
# the next in a run and then reports every vsnprintf() of the next as called
# with an uninitialized va_list (clang-analyzer-valist.Uninitialized).
{ find src -name '*.c' -print0; printf '%s\0' "${test_c[@]}"; } |
	xargs -0 -n 1 -P "$(nproc)" clang-tidy -p "$build" --quiet 2>/dev/null
echo "static: clean"
