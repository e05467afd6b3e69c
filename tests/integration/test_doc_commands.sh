#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every ```sh command of README.md and docs/*.md runs as written and exits 0,
# or as its line says (tests/docs/run_doc_commands.py); README's set-up and
# test blocks are .ci/run's, and a block not run says why in the document.
set -eu
. "$(dirname "$0")/lib.sh"
need_unshare
need_tool tshark
need_tool capinfos
python3 "${NT_SOURCE_DIR:?}/tests/docs/run_doc_commands.py" "$NAGLE_TRACE"
