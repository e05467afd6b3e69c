#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets with clang (ASan + UBSan), replay each checked-in
# seed corpus, then fuzz each target briefly. Longer runs:
#   FUZZ_SECONDS=600 tests/fuzz/run.sh
# Findings are written to build-fuzz/findings/; the script fails on any.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-15}

if ! command -v clang >/dev/null 2>&1; then
	[ "${CI:-}" = "true" ] && { echo "fuzz: clang is not installed" >&2; exit 1; }
	echo "fuzz: SKIP (no clang)"
	exit 0
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DNT_FUZZ=ON -DNT_TESTS=ON -DNT_WERROR=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for src in tests/fuzz/fuzz_*.c; do
	targets+=("$(basename "$src" .c)")
done
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"
mkdir -p build-fuzz/findings
for t in "${targets[@]}"; do
	name=${t#fuzz_}
	seeds=tests/fuzz/corpus/$name
	work=build-fuzz/corpus-$name
	mkdir -p "$work"
	echo "== $t: replay $(ls "$seeds" | wc -l) seeds, then fuzz ${seconds}s"
	ASAN_OPTIONS=detect_leaks=1 ./build-fuzz/tests/fuzz/"$t" -runs=0 "$seeds"
	ASAN_OPTIONS=detect_leaks=1 ./build-fuzz/tests/fuzz/"$t" -max_total_time="$seconds" \
		-artifact_prefix=build-fuzz/findings/"$t"- -print_final_stats=1 "$work" "$seeds" \
		2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==.*ERROR)' || true
done
if ls build-fuzz/findings/* >/dev/null 2>&1; then
	echo "fuzz: findings in build-fuzz/findings/" >&2
	exit 1
fi
echo "fuzz: no findings"
