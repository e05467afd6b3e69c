#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every shell command the documentation shows, run as written.

usage: run_doc_commands.py NAGLE_TRACE [--list]

Takes each ```sh (or ```bash) block of README.md and docs/*.md and runs its
commands, one at a time, from a scratch directory that looks like the source
tree (build/, tests/, docs/, examples/ link to the tree and the build under
test) with the binary first on PATH as `nagle-trace`. A command must exit 0,
or the status its line announces in a trailing comment `# exits N`.

Blocks that are not run say so in the document, in an HTML comment right
before the fence, with the reason:
  <!-- ci:setup -->, <!-- ci:test -->   .ci/run runs them
  <!-- not run: REASON -->             e.g. it installs system packages, or
                                        runs for minutes (a benchmark)
The list of what was not run, and why, is printed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
FENCE = re.compile(r'(?:<!--\s*(?P<mark>[^>]*?)\s*-->\s*\n)?```(?P<lang>sh|bash)\n(?P<body>.*?)```',
                   re.S)
TIMEOUT_S = 300


def blocks():
    docs = [os.path.join(ROOT, 'README.md')] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    for path in docs:
        text = open(path, encoding='utf-8').read()
        for m in FENCE.finditer(text):
            line = text.count('\n', 0, m.start('body')) + 1
            yield os.path.relpath(path, ROOT), line, (m.group('mark') or '').strip(), m.group('body')


def commands(body):
    """Commands of a block: continuation lines joined, blank lines skipped."""
    cmd, first = '', None
    for n, line in enumerate(body.split('\n')):
        if not cmd and (not line.strip() or line.lstrip().startswith('#')):
            continue
        if first is None:
            first = n
        cmd += line
        if line.endswith('\\'):
            cmd += '\n'
            continue
        yield first, cmd
        cmd, first = '', None


def expected_status(cmd):
    m = re.search(r'#\s*exits\s+(\d+)\s*$', cmd)
    return int(m.group(1)) if m else 0


def scratch(nagle_trace):
    work = tempfile.mkdtemp(prefix='nt-docs-')
    bindir = os.path.join(work, '.bin')
    os.mkdir(bindir)
    os.symlink(nagle_trace, os.path.join(bindir, 'nagle-trace'))
    os.symlink(os.path.dirname(nagle_trace), os.path.join(work, 'build'))
    for d in ('tests', 'docs', 'examples'):
        os.symlink(os.path.join(ROOT, d), os.path.join(work, d))
    return work, bindir


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    nagle_trace = os.path.abspath(sys.argv[1])
    listing = '--list' in sys.argv[2:]
    work, bindir = scratch(nagle_trace)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ['PATH'], HOME=work)
    failed, ran, skipped = 0, 0, []
    try:
        for path, line, mark, body in blocks():
            if mark.startswith('ci:') or mark.startswith('not run'):
                skipped.append(f'{path}:{line}: {mark}')
                continue
            for offset, cmd in commands(body):
                where = f'{path}:{line + offset}'
                if listing:
                    print(f'{where}: {cmd}')
                    continue
                want = expected_status(cmd)
                try:
                    p = subprocess.run(['bash', '-o', 'pipefail', '-c', cmd], cwd=work, env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       timeout=TIMEOUT_S, text=True)
                    rc, err = p.returncode, p.stderr
                except subprocess.TimeoutExpired:
                    rc, err = 'timeout', ''
                ran += 1
                if rc != want:
                    failed += 1
                    tail = '\n    '.join(err.strip().split('\n')[-3:])
                    print(f'FAIL {where}: exit {rc}, want {want}: {cmd}\n    {tail}')
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for s in skipped:
        print(f'not run: {s}')
    if not listing:
        print(f'doc commands: {ran} run, {failed} failed, {len(skipped)} blocks not run')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
