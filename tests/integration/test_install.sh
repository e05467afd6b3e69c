#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cmake --install puts everything where the man page says: the binary, the
# man page (it renders), the bash completion (it completes), the docs, both
# JSON schemas, the examples (they find the installed binary) and the licence.
set -eu
. "$(dirname "$0")/lib.sh"
: "${NT_BUILD_DIR:?}"
prefix=$NT_TMP/prefix
cmake --install "$NT_BUILD_DIR" --prefix "$prefix" >/dev/null || fail "cmake --install failed"
doc=$prefix/share/doc/nagle-trace
for f in bin/nagle-trace share/man/man1/nagle-trace.1 share/bash-completion/completions/nagle-trace \
	share/doc/nagle-trace/LICENSE share/doc/nagle-trace/README.md; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in how-it-works.md formats.md analyze.md json-schema.md performance.md reliability.md \
	hacking.md nagle-trace.schema.json nagle-trace-analyze.schema.json; do
	[ -s "$doc/$f" ] || fail "not installed: share/doc/nagle-trace/$f"
done
[ -x "$doc/examples/classroom.sh" ] && [ -x "$doc/examples/incident-check.sh" ] ||
	fail "examples not installed as programs"
"$prefix/bin/nagle-trace" --version >/dev/null || fail "installed binary does not run"
MANWIDTH=80 man -l "$prefix/share/man/man1/nagle-trace.1" 2>"$NT_TMP/man.err" | grep -q 'share/doc/nagle-trace' ||
	fail "the man page does not render or name the docs: $(cat "$NT_TMP/man.err")"

# The completion completes, from the binary's own tables.
out=$(bash -c '. "$1"; COMP_WORDS=(nagle-trace --variant default,node); COMP_CWORD=2; _nagle_trace
	echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/nagle-trace")
[ "$out" = "default,nodelay default,nodelay-server" ] || fail "completion of --variant: '$out'"
out=$(bash -c '. "$1"; COMP_WORDS=(nagle-trace analyze --fail); COMP_CWORD=2; _nagle_trace
	echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/nagle-trace")
[ "$out" = "--fail-on-stall" ] || fail "completion of analyze options: '$out'"
cmp -s <("$NAGLE_TRACE" completion bash) "$prefix/share/bash-completion/completions/nagle-trace" ||
	fail "installed completion differs from the binary's"
echo ok
