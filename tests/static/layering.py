#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering rules of docs/hacking.md, checked on the source tree.

Usage: layering.py [ROOT]        check ROOT (default: the repository)
       layering.py --self-test   plant one breach of each rule in a copy of
                                 the tree and make sure each is caught

Rules (each a function below; a breach prints FILE:LINE: rule: the line):
  1. Layers only include downwards. The layers, bottom up:
       shared (include/nt/*.h: err, clock, unknown, version, output, cli,
       exitcode, pages) < model < lab, capture < live, vm, render < cmd < main.
     A file of a layer may include the shared headers, its own layer's and
     those of the layers below it (lab and capture are beside each other, as
     are live, vm and render; render may not include live or vm, live may
     include capture and lab, vm only the model).
  2. Each library stays in its module: <libmnl/...> only in src/lab/,
     <pcap/...> or <pcap.h> only in src/capture/, <json-c/...> only in
     src/render/, <archive.h> and <archive_entry.h> (libarchive) only in
     src/vm/ (and their headers in include/nt/<module>/).
  3. The model is pure: no I/O headers (<unistd.h>, <fcntl.h>, <poll.h>...
     see MODEL_BANNED) and no I/O, clock or environment calls (MODEL_CALLS)
     in src/model/ or include/nt/model/.
  4. Only the commands write to the terminal: stderr, printf(), puts(),
     perror() appear only in src/cmd/, src/main.c and src/preload/ (a
     library of its own that runs inside the user's programs); stdout also in
     the output module and the pcap writer, which write it when the user
     names it as a destination (-o -, -w -).
  5. Nothing calls exit() or abort(): commands return their status to main().
     _exit() is allowed only in a file that forks, for the child's own end: a
     forked child must not run the parent's atexit handlers or flush its
     copy of the parent's stdio buffers.
"""
import os
import re
import sys

import checker

LAYERS = {
    'model': 1, 'lab': 2, 'capture': 2, 'live': 3, 'vm': 3, 'render': 3, 'cmd': 4,
}
# Which layers each layer may include, besides its own and the shared headers.
ALLOWED = {
    'model': set(),
    'lab': {'model'},
    'capture': {'model'},
    'live': {'model', 'lab', 'capture'},
    'vm': {'model'},
    'render': {'model'},
    'cmd': {'model', 'lab', 'capture', 'live', 'vm', 'render'},
    'main': {'cmd'},
}
SHARED = {'err.h', 'clock.h', 'unknown.h', 'version.h', 'output.h', 'cli.h', 'exitcode.h',
          'pages.h', 'prefetch.h'}
LIBRARIES = [
    (re.compile(r'#include\s*<libmnl/'), 'lab', 'libmnl'),
    (re.compile(r'#include\s*<pcap[/.]'), 'capture', 'libpcap'),
    (re.compile(r'#include\s*<json-c/'), 'render', 'json-c'),
    (re.compile(r'#include\s*<archive(_entry)?\.h>'), 'vm', 'libarchive'),
]
MODEL_BANNED = ['unistd.h', 'fcntl.h', 'poll.h', 'sys/ioctl.h', 'pthread.h', 'sys/stat.h',
                'dirent.h', 'signal.h', 'linux/netlink.h', 'linux/rtnetlink.h']
# <sys/socket.h> is allowed in the model for AF_INET/AF_INET6; the calls are not.
MODEL_CALLS = re.compile(r'(?<![\w.>])(socket|bind|connect|send|sendto|sendmsg|recv|recvfrom|'
                         r'recvmsg|read|write|open|openat|close|ioctl|setsockopt|getsockopt|'
                         r'poll|ppoll|fopen|fdopen|fread|fwrite|fprintf|fputs|fputc|'
                         r'clock_gettime|time|gettimeofday|getenv)\s*\(')
TERMINAL = re.compile(r'\b(stderr\b|perror\s*\(|(?<![fsn])printf\s*\(|(?<![f])puts\s*\()')
TERMINAL_OK = ('src/cmd/', 'src/main.c', 'src/preload/')
# Standard output may also be a destination the user named (-o -, -w -): the
# output module and the pcap writer handle it as a file.
STDOUT = re.compile(r'\bstdout\b')
STDOUT_OK = TERMINAL_OK + ('src/output.c', 'src/output_path.c', 'src/capture/pcap_writer.c')
EXIT = re.compile(r'(?<![\w.>])(exit|abort)\s*\(')
CHILD_EXIT = re.compile(r'(?<![\w.>])_exit\s*\(')
FORKS = re.compile(r'\w*(fork|clone3?)\s*\(')
INCLUDE = re.compile(r'#include\s*"nt/([^"]+)"')


def layer_of(rel):
    """The layer a file belongs to, or None (shared code at the top of src/)."""
    parts = rel.split('/')
    if rel == 'src/main.c':
        return 'main'
    if parts[0] == 'src' and len(parts) > 2 and parts[1] in LAYERS:
        return parts[1]
    if parts[0] == 'include' and len(parts) > 3 and parts[2] in LAYERS:
        return parts[2]
    return None


def strip_comments(text):
    """The source with comments and string literals blanked, lines kept."""
    out = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)
    out = re.sub(r'//[^\n]*', '', out)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', out)


def check_file(root, rel, report):
    path = os.path.join(root, rel)
    raw = open(path, encoding='utf-8', errors='replace').read()
    code = strip_comments(raw)
    layer = layer_of(rel)
    forks = bool(FORKS.search(code))
    for n, (line, cline) in enumerate(zip(raw.split('\n'), code.split('\n')), 1):
        m = INCLUDE.search(line)
        if m and layer:
            inc = m.group(1)
            inc_layer = inc.split('/')[0] if '/' in inc else None
            if inc_layer is None:
                if inc not in SHARED:
                    report(rel, n, 'unknown shared header', line)
            elif inc_layer != layer and inc_layer not in ALLOWED.get(layer, set()):
                report(rel, n, f'layer {layer} includes {inc_layer}', line)
        for rx, home, lib in LIBRARIES:
            if rx.search(line) and layer != home:
                report(rel, n, f'{lib} outside src/{home}', line)
        if layer == 'model':
            for h in MODEL_BANNED:
                if re.search(r'#include\s*<' + re.escape(h) + '>', line):
                    report(rel, n, 'I/O header in the model', line)
            if MODEL_CALLS.search(cline):
                report(rel, n, 'I/O call in the model', line)
        if rel.endswith('.c') and not rel.startswith(TERMINAL_OK) and TERMINAL.search(cline):
            report(rel, n, 'terminal output outside the commands', line)
        if rel.endswith('.c') and not rel.startswith(STDOUT_OK) and STDOUT.search(cline):
            report(rel, n, 'terminal output outside the commands', line)
        if rel.endswith('.c') and EXIT.search(cline) and not rel.startswith('src/preload/'):
            report(rel, n, 'exit() or abort()', line)
        if rel.endswith('.c') and CHILD_EXIT.search(cline) and not forks:
            report(rel, n, '_exit() in a file that does not fork', line)


def sources(root):
    for top in ('src', 'include'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def check(root):
    breaches = []

    def report(rel, n, rule, line):
        breaches.append(f'{rel}:{n}: {rule}: {line.strip()}')

    for rel in sources(root):
        check_file(root, rel, report)
    return breaches


# One planted breach per rule: (file, text appended, words the report must contain).
PLANTS = [
    ('src/model/stats.c', '#include "nt/render/fmt.h"\n', 'layer model includes render'),
    ('src/render/text.c', '#include "nt/live/trace.h"\n', 'layer render includes live'),
    ('src/render/text.c', '#include "nt/vm/guest.h"\n', 'layer render includes vm'),
    ('src/vm/qemu.c', '#include "nt/live/trace.h"\n', 'layer vm includes live'),
    ('src/live/trace.c', '#include <archive.h>\n', 'libarchive outside'),
    ('src/model/stats.c', '#include <pcap/pcap.h>\n', 'libpcap outside'),
    ('src/render/json.c', '#include <libmnl/libmnl.h>\n', 'libmnl outside'),
    ('src/live/trace.c', '#include <json-c/json.h>\n', 'json-c outside'),
    ('src/model/stats.c', '#include <unistd.h>\n', 'I/O header in the model'),
    ('src/model/stats.c', 'static void k(void) { fputs("x", NULL); }\n', 'I/O call in the model'),
    ('src/render/text.c', 'static void f(void) { fputs("x", stderr); }\n', 'terminal output'),
    ('src/live/trace.c', 'static void g(void) { printf("x"); }\n', 'terminal output'),
    ('src/model/record.c', 'static void h(void) { exit(1); }\n', 'exit() or abort()'),
    ('src/live/trace.c', 'static void h(void) { _exit(1); }\n', '_exit() in a file that does not fork'),
]


def main():
    return checker.main('layering', check, PLANTS, ('src', 'include'), 'breach(es)')


if __name__ == '__main__':
    sys.exit(main())
