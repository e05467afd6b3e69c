#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite, as README.md's test command: a -Werror build and its
# ctest (unit, golden, integration in real namespaces), then the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer in a second build
# directory, cppcheck and clang-tidy, and the fuzz corpora replayed with a
# short fuzz run of each target.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (warnings are errors)"
cmake -S . -B build -DNT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
echo "== test suite"
(cd build && ctest --output-on-failure)

echo "== static analysis"
tests/static/run.sh build

echo "== build with ASan + UBSan"
cmake -S . -B build-asan -DNT_WERROR=ON -DNT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
echo "== test suite under ASan + UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure)

if [ -x tests/fuzz/run.sh ]; then
	echo "== fuzz corpora replay and a short fuzz run"
	tests/fuzz/run.sh
fi
