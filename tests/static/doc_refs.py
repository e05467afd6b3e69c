#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every path and every project function that the docs and the comments name exists.

Usage: doc_refs.py [ROOT]        check ROOT (default: the repository)
       doc_refs.py --self-test   plant one stale reference of each kind in a
                                 copy of the tree and make sure each is caught

What is read: README.md, docs/ (Markdown and the man page), examples/, and
the comments of the C sources and headers under src/, include/ and tests/
(a C string is not a reference: it is what the program prints).

What is checked (a stale reference prints FILE:LINE: what: the name):
  1. A path that starts at the top of the tree (src/..., include/...,
     tests/..., docs/..., examples/..., cmake/..., .ci/...) names a file or
     folder that exists. A glob (predict*.c, expected.*) must match at least
     one; a trailing :LINE is dropped. A path under tests/ also resolves
     without its tests/ prefix when it names a ctest (unit/test_rtnl).
  2. A project function, nt_anything(), is defined or declared somewhere in
     src/, include/ or tests/ (kernel and library functions have no nt_
     prefix, so they are never taken for ours).
  3. A function named beside a C file's path, right after it
     (`src/lab/lab.c` `wait_target_up()`) or before it (`name()` in
     `src/live/exchange.c`), appears in that file.
"""
import glob
import os
import re
import sys

import checker

TOPS = ('src', 'include', 'tests', 'docs', 'examples', 'cmake', '.ci')
# include/ is ours only below include/nt/: include/net/tcp.h, include/linux/
# are the kernel's tree, cited for its rules.
PATH_TOPS = ('src', 'include/nt', 'tests', 'docs', 'examples', 'cmake', '.ci')
PATH_RE = re.compile(r'(?<![\w/.$~-])((?:' + '|'.join(re.escape(t) for t in PATH_TOPS) +
                     r')/[\w.*+/-]*[\w*])(?::\d+(?:-\d+)?)?')
NT_FUNC_RE = re.compile(r'\b(nt_[a-z0-9_]+)\(\)')
# A C file's path in backticks and, right after it (a space, a comma or an
# opening parenthesis between), the functions it is said to hold.
PATH_FUNCS_RE = re.compile(r'`((?:src|include/nt|tests)/[\w/.-]+\.[ch])`'
                           r'((?:[\s,(]*`[A-Za-z_]\w*\(\)`)+)')
FUNC_IN_TICKS_RE = re.compile(r'`([A-Za-z_]\w*)\(\)`')
# The other order: `name()` in `src/....c`.
FUNC_THEN_PATH_RE = re.compile(r'`([A-Za-z_]\w*)\(\)` in `((?:src|include/nt|tests)/[\w/.-]+\.[ch])`')
# Names that are made by the build, not kept in the tree.
GENERATED = ('build', 'build-asan')
PROSE = ('README.md',)


def comment_lines(text):
    """The comment text of a C file, line by line (other text blanked)."""
    out = []
    i, n = 0, len(text)
    line = []
    state = 'code'
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ''
        if c == '\n':
            out.append(''.join(line))
            line = []
            if state == 'line':
                state = 'code'
            i += 1
            continue
        if state == 'code':
            if c == '/' and nxt == '*':
                state, i = 'block', i + 2
                continue
            if c == '/' and nxt == '/':
                state, i = 'line', i + 2
                continue
            if c in '"\'':
                quote, i = c, i + 1
                while i < n and text[i] != quote and text[i] != '\n':
                    i += 2 if text[i] == '\\' else 1
                i += 1
                continue
            line.append(' ')
        elif state == 'block':
            if c == '*' and nxt == '/':
                state, i = 'code', i + 2
                continue
            line.append(c)
        else:
            line.append(c)
        i += 1
    out.append(''.join(line))
    return out


def sources(root):
    """(relative path, lines to read) of every file whose references count."""
    files = []
    for name in PROSE:
        files.append(name)
    for top in ('docs', 'examples'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith(('.md', '.1', '.sh', '.py', '.txt')):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root))
    for top in ('src', 'include', 'tests'):
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ('node_modules', 'corpus')]
            for name in names:
                if name.endswith(('.c', '.h')):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root))
    for rel in sorted(files):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        lines = comment_lines(text) if rel.endswith(('.c', '.h')) else text.split('\n')
        yield rel, lines


def path_exists(root, ref):
    if ref.split('/')[0] in GENERATED:
        return True
    full = os.path.join(root, ref)
    if any(ch in ref for ch in '*?['):
        return bool(glob.glob(full))
    if os.path.exists(full):
        return True
    # tests/unit/test_rtnl, a ctest, is the program built from test_rtnl.c.
    return bool(glob.glob(full + '.*'))


def project_functions(root):
    """Every nt_ identifier that stands in the tree's C code."""
    names = set()
    ident = re.compile(r'\b(nt_[a-z0-9_]+)\b')
    for top in ('src', 'include', 'tests'):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ('node_modules', 'corpus')]
            for name in files:
                if name.endswith(('.c', '.h')):
                    with open(os.path.join(dirpath, name), encoding='utf-8',
                              errors='replace') as f:
                        text = f.read()
                    code = strip_comments(text)
                    names.update(ident.findall(code))
    return names


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def check(root):
    stale = []
    functions = project_functions(root)
    file_text = {}
    for rel, lines in sources(root):
        for no, line in enumerate(lines, 1):
            for m in PATH_RE.finditer(line):
                ref = m.group(1).rstrip('.')
                if not path_exists(root, ref):
                    stale.append(f'{rel}:{no}: no such path: {ref}')
            for name in NT_FUNC_RE.findall(line):
                if name not in functions:
                    stale.append(f'{rel}:{no}: no such function: {name}()')
            held = [(m.group(1), FUNC_IN_TICKS_RE.findall(m.group(2)))
                    for m in PATH_FUNCS_RE.finditer(line)]
            held += [(m.group(2), [m.group(1)]) for m in FUNC_THEN_PATH_RE.finditer(line)]
            for path, names in held:
                target = os.path.join(root, path)
                if not os.path.isfile(target):
                    continue
                if target not in file_text:
                    with open(target, encoding='utf-8', errors='replace') as f:
                        file_text[target] = strip_comments(f.read())
                for name in names:
                    if not re.search(r'\b' + re.escape(name) + r'\b', file_text[target]):
                        stale.append(f'{rel}:{no}: {path} has no {name}()')
    return stale


PLANTS = [
    ('docs/hacking.md', '\nThe widget lives in `src/model/widget.c`.\n', 'src/model/widget.c'),
    ('docs/model.md', '\nSee `nt_widget_frobnicate()`.\n', 'nt_widget_frobnicate'),
    ('src/model/verdict.c', '\n/* as tests/unit/test_widget.c checks */\n', 'tests/unit/test_widget.c'),
    ('docs/analyze.md', '\n`src/model/stall.c` `widget_release()` decides it.\n',
     'widget_release'),
]


def main():
    return checker.main('doc_refs', check, PLANTS, TOPS + PROSE, 'stale reference(s)')


if __name__ == '__main__':
    sys.exit(main())
