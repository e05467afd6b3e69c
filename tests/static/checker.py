# SPDX-License-Identifier: MIT
"""The driver both tree checkers share (layering.py, doc_refs.py).

A checker is a function check(root) -> [finding, ...] and a list of plants,
(file, text appended to it, a string the finding must contain): its
self-test copies the named top-level parts of the tree, plants one breach
at a time and expects each caught, so a check that cannot fail is found.
"""
import os
import shutil
import sys
import tempfile


def self_test(root, check, plants, tops):
    ok = True
    for rel, text, want in plants:
        with tempfile.TemporaryDirectory() as tmp:
            for top in tops:
                src = os.path.join(root, top)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(tmp, top),
                                    ignore=shutil.ignore_patterns('node_modules', 'corpus'))
                elif os.path.isfile(src):
                    shutil.copy(src, os.path.join(tmp, top))
            with open(os.path.join(tmp, rel), 'a') as f:
                f.write(text)
            found = [b for b in check(tmp) if want in b]
            print(f'self-test: {rel} + {text.strip()!r}: ' + ('caught' if found else 'MISSED'))
            ok = ok and bool(found)
    return ok


def main(name, check, plants, tops, what):
    """Usage: NAME [ROOT] | NAME --self-test; what: ('breach(es)', 'clean')."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    if len(sys.argv) > 1 and sys.argv[1] == '--self-test':
        if check(root):
            print(f'{name}: the tree itself fails the check; run without --self-test')
            return 1
        return 0 if self_test(root, check, plants, tops) else 1
    if len(sys.argv) > 1:
        root = sys.argv[1]
    found = check(root)
    for f in found:
        print(f)
    print(f'{name}: {len(found)} {what}' if found else f'{name}: clean')
    return 1 if found else 0
