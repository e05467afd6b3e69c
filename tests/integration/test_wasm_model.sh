#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The lesson page's model is the native one: for every knob combination of
# the model conformance sweep, the WebAssembly module a `predict --format
# html` page carries, run under Node's WASI with the page's own knob vector
# (tests/js/wasm_model.mjs), predicts exactly what `predict --format json`
# does (tests/integration/wasm_conformance.py). Then the comparison must be
# able to fail: one byte more body in the WebAssembly run only is caught.
set -eu
. "$(dirname "$0")/lib.sh"
need_tool node
need_tool python3

"$NAGLE_TRACE" predict --format html -o "$NT_TMP/probe.html"
if ! grep -q 'id="nt-wasm"' "$NT_TMP/probe.html"; then
	[ "${CI:-}" = "true" ] && fail "built without the WebAssembly model (README's set-up installs its toolchain)"
	echo "SKIP: built without the WebAssembly model (cmake -DNT_WASM=ON)" >&2
	exit 77
fi
here=$(dirname "$0")
python3 "$here/wasm_conformance.py" --nagle-trace "$NAGLE_TRACE" \
	--node-script "$NT_SOURCE_DIR/tests/js/wasm_model.mjs" >"$NT_TMP/same.txt" ||
	fail "the WebAssembly model differs from the native one: $(grep -A6 MISMATCH "$NT_TMP/same.txt")"
grep -Eq '^([0-9]+) of \1 combinations identical' "$NT_TMP/same.txt" ||
	fail "not every combination was compared: $(tail -1 "$NT_TMP/same.txt")"

python3 "$here/wasm_conformance.py" --nagle-trace "$NAGLE_TRACE" \
	--node-script "$NT_SOURCE_DIR/tests/js/wasm_model.mjs" --override '{"body_bytes": 1448}' \
	--expect-mismatch >"$NT_TMP/differs.txt" ||
	fail "a WebAssembly run with another body size was not told apart"
grep -q 'MISMATCH --variant default' "$NT_TMP/differs.txt" ||
	fail "the mismatch was not reported: $(head -5 "$NT_TMP/differs.txt")"
