#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis, as run by tests/run-all.sh: the layering rules of
# docs/hacking.md (tests/static/layering.py), the tree clean under
# .clang-format, cppcheck (warning, performance, portability) and clang-tidy
# with the check set documented in .clang-tidy.
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

echo "== clang-format ($(clang-format --version | grep -o 'version [0-9.]*'))"
unformatted=$(git ls-files '*.c' '*.h' 2>/dev/null | while read -r f; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$unformatted" ]; then
	echo "static: not clean under .clang-format (run clang-format -i):" $unformatted >&2
	exit 1
fi

echo "== cppcheck"
cppcheck --std=c11 --enable=warning,performance,portability --inline-suppr --error-exitcode=1 \
	-q -I include -I "$build/include" -D_GNU_SOURCE --suppress=missingIncludeSystem src/

echo "== clang-tidy ($(clang-tidy --version | grep -o 'version [0-9.]*'))"
# One file per run: clang-tidy 14 carries its va_list state from one file to
# the next in a run and then reports every vsnprintf() of the next as called
# with an uninitialized va_list (clang-analyzer-valist.Uninitialized).
find src -name '*.c' -print0 |
	xargs -0 -n 1 -P "$(nproc)" clang-tidy -p "$build" --quiet 2>/dev/null
echo "static: clean"
