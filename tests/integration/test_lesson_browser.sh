#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The lesson page in Debian's chromium (tests/js/lesson.test.mjs, driven by
# playwright-core from tests/js/node_modules, installed by README's setup
# command with `npm ci`): deep links, keys, predict and projector modes,
# 1024x768 without overflow, and no network request.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool node
need_tool chromium
js="${NT_SOURCE_DIR:?}/tests/js"
if [ ! -d "$js/node_modules/playwright-core" ]; then
	[ "${CI:-}" = "true" ] && fail "tests/js/node_modules is missing: run 'npm ci' in tests/js"
	echo "SKIP: run 'npm ci' in tests/js first" >&2
	exit 77
fi
cd "$js"
node --test lesson.test.mjs
