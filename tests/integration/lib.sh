# SPDX-License-Identifier: MIT
# Shared helpers for the integration tests: the real binary in real namespaces.
# Sourced, not run. NAGLE_TRACE is the binary; in CI (CI=true) nothing skips.
set -u

: "${NAGLE_TRACE:?NAGLE_TRACE must point at the nagle-trace binary}"
NT_TMP=$(mktemp -d)
trap 'rm -rf "$NT_TMP"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Skip (77) only outside CI, and only when user+net namespaces are impossible.
need_unshare() {
	if ! unshare -Urn true 2>/dev/null; then
		[ "${CI:-}" = "true" ] && fail "unshare -Urn does not work, and CI may not skip"
		echo "SKIP: unshare -Urn does not work here" >&2
		exit 77
	fi
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = "true" ] && fail "not root, and CI may not skip"
		echo "SKIP: needs real root" >&2
		exit 77
	fi
}

need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "${CI:-}" = "true" ] && fail "$1 is not installed (README's setup command installs it)"
	echo "SKIP: $1 is not installed" >&2
	exit 77
}

# jsonschema_python: set $py to a python3 that imports jsonschema, or return 1.
# Debian's python3-jsonschema serves /usr/bin/python3, which a pyenv or venv
# python3 earlier on PATH does not see: use whichever one imports it.
# shellcheck disable=SC2034 # $py is for the sourcing test
jsonschema_python() {
	py=
	for candidate in python3 /usr/bin/python3; do
		if "$candidate" -c 'import jsonschema' 2>/dev/null; then
			py=$candidate
			return 0
		fi
	done
	return 1
}

# need_jsonschema: $py as jsonschema_python sets it; skip (77) only outside CI.
need_jsonschema() {
	jsonschema_python && return 0
	[ "${CI:-}" = "true" ] && fail "python3-jsonschema is not installed"
	echo "SKIP: python3-jsonschema missing" >&2
	exit 77
}

# nt ARGS...: run the binary in a fresh user+network namespace; sets $rc.
nt() {
	set +e
	unshare -Urn "$NAGLE_TRACE" "$@"
	rc=$?
	set -e
}

# json_check FILE PYTHON: run a python3 snippet with `doc` loaded from FILE; it asserts.
json_check() {
	python3 - "$1" "$2" <<'PY' || fail "JSON check on $1 failed (traceback above)"
import json, sys
# The delayed-ACK timer's earliest, as tests/tools/check_sentences.py has it:
# TCP_DELACK_MIN (40 ms) less two jiffies at HZ 250, the tick it was armed in
# and a late one (a descheduled vCPU's jiffies stand still).
DELACK_LO_NS = 32e6
doc = json.load(open(sys.argv[1]))
exec(sys.argv[2])
PY
}

# wait_delivered PID N (tests/integration/wait.sh)
. "$(dirname "${BASH_SOURCE[0]}")/wait.sh"
