#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A grammar checker for the packetdrill subset nagle-trace --export-packetdrill writes.

Usage: pkt_check.py FILE.pkt...     exit 0 when every file parses, else 1
                                    with FILE:LINE: what is wrong, per error

packetdrill is not packaged for Debian, so its parser cannot run here. This is
a second implementation of the part of its grammar we emit, written from its
lexer.l and parser.y (google/packetdrill, gtests/net/packetdrill), with the
semantic checks its parser makes on those productions:

  script     := option* event+
  option     := '--'NAME ['=' value]
  event      := time action                  one event per line (our subset)
  time       := ['+'] (INTEGER | FLOAT)      non-negative seconds
  action     := packet | syscall
  packet     := ('<' | '>') flags seq ['ack' INT] ['win' INT] ['urg' INT] [tcp_options]
  flags      := WORD ['.'] | '.' | '-'       WORD letters from F S R P U E W C, each once
  seq        := INT ':' INT '(' INT ')'      end == start + len; u32, u32, u16
  tcp_options:= '<' '...' '>'                outbound only
              | '<' tcp_option (',' tcp_option)* '>'
  tcp_option := 'nop' | 'eol' | 'mss' INT | 'wscale' INT | 'sackOK'
              | 'sack' (INT ':' INT)+ | 'TS' 'val' INT 'ecr' INT
  syscall    := ['...' time] NAME '(' [expr (',' expr)*] ')' '=' expr [ERRNO '(' WORD+ ')']
  expr       := '...' | INT | WORD | STRING | expr '|' expr
              | '[' [expr (',' expr)*] ']' | '{' '...' ',' INT '}'

The system calls are those the export writes, each with its argument count.
"""
import re
import sys

KEYWORDS = {'ack', 'win', 'urg', 'nop', 'eol', 'mss', 'wscale', 'sackOK', 'sack', 'TS', 'val',
            'ecr'}
SYSCALLS = {'socket': 3, 'fcntl': 3, 'setsockopt': 5, 'connect': 3, 'write': 3, 'send': 4,
            'writev': 3, 'read': 3, 'close': 1}
FLAG_LETTERS = set('FSRPUEWC')

# Longest match first, as flex does; comments and whitespace are skipped.
TOKEN_RE = re.compile(r'''
    (?P<ws>[ \t]+)
  | (?P<nl>\n)
  | (?P<cpp>//[^\n]*)
  | (?P<c>/\*(?:[^*]|\*(?!/))*\*/)
  | (?P<ellipsis>\.\.\.)
  | (?P<option>--[a-zA-Z0-9_]+)
  | (?P<hex>0x[0-9a-fA-F]+)
  | (?P<float>-?[0-9]*\.[0-9]+)
  | (?P<int>-?[0-9]+)
  | (?P<word>[a-zA-Z0-9_]+)
  | (?P<string>"(?:\\.|[^"])*")
  | (?P<punct>[^ \t\n])
''', re.X)


class CheckError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line
        self.msg = msg


class Tok:
    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f'{self.text!r}'


def tokenize(text):
    toks, line, pos = [], 1, 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        kind, val = m.lastgroup, m.group()
        if kind in ('float', 'int') and m.end() < len(text) and \
                re.match(r'[a-zA-Z_]', text[m.end()]):
            # flex takes the longest match: "1abc" is a word, not a number then a word.
            m = re.compile(r'[a-zA-Z0-9_]+').match(text, pos)
            kind, val = 'word', m.group()
        pos = m.end()
        if kind == 'nl':
            line += 1
        elif kind == 'c':
            line += val.count('\n')
        elif kind not in ('ws', 'cpp'):
            if kind == 'word' and val in KEYWORDS:
                kind = val
            toks.append(Tok(kind, val, line))
    return toks


class Parser:
    def __init__(self, toks):
        self.toks, self.i = toks, 0

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else Tok('eof', 'end of file', self.last_line())

    def last_line(self):
        return self.toks[-1].line if self.toks else 1

    def take(self, kind=None, text=None, what=None):
        t = self.peek()
        if (kind and t.kind != kind) or (text and t.text != text):
            raise CheckError(t.line, f"expected {what or text or kind}, found {t.text!r}")
        self.i += 1
        return t

    def integer(self, what, lo, hi):
        t = self.take('int', what=what)
        v = int(t.text)
        if not lo <= v <= hi:
            raise CheckError(t.line, f'{what} {v} out of range {lo}..{hi}')
        return v

    def script(self):
        while self.peek().kind == 'option':
            self.take('option')
            if self.peek().text == '=':
                self.take(text='=')
                self.i += 1
        if self.peek().kind == 'eof':
            raise CheckError(self.peek().line, 'no events')
        first = True
        while self.peek().kind != 'eof':
            self.event(first)
            first = False

    def event(self, first):
        start = self.peek()
        relative = start.text == '+'
        if relative:
            self.take(text='+')
        elif first:
            pass
        else:
            raise CheckError(start.line, "expected a relative time '+N' (only the first event "
                             "is absolute in this subset)")
        t = self.peek()
        if t.kind not in ('int', 'float'):
            raise CheckError(t.line, f'expected a time, found {t.text!r}')
        if t.text.startswith('-'):
            raise CheckError(t.line, 'negative time')
        self.i += 1
        try:
            if self.peek().text in ('<', '>'):
                self.packet()
            else:
                self.syscall()
        except CheckError as e:
            # Running into the next line: the event's own line is what is wrong.
            e.line = start.line
            raise
        # Our subset: one event per line, all on the line of its time.
        for k in range(self.i - 1, -1, -1):
            if self.toks[k] is start:
                break
            if self.toks[k].line != start.line:
                raise CheckError(start.line, 'the event continues on the next line')
        nxt = self.peek()
        if nxt.kind != 'eof' and nxt.line == start.line:
            raise CheckError(nxt.line, f'unexpected {nxt.text!r} after the event')

    def flags(self):
        t = self.peek()
        if t.text in ('.', '-'):
            self.i += 1
            return t.text
        w = self.take('word', what='TCP flags')
        letters = w.text
        if not letters or set(letters) - FLAG_LETTERS or len(set(letters)) != len(letters):
            raise CheckError(w.line, f'bad TCP flags {letters!r}')
        if self.peek().text == '.':
            self.i += 1
            letters += '.'
        return letters

    def packet(self):
        direction = self.take('punct').text
        flags = self.flags()
        start = self.integer('start sequence', 0, 2**32 - 1)
        self.take(text=':')
        end_tok = self.peek()
        end = self.integer('end sequence', 0, 2**32 - 1)
        self.take(text='(')
        length = self.integer('payload size', 0, 65535)
        self.take(text=')')
        if end != start + length:
            raise CheckError(end_tok.line, 'inconsistent TCP sequence numbers and payload size')
        if self.peek().kind == 'ack':
            self.i += 1
            self.integer('ack', 0, 2**32 - 1)
        elif '.' in flags:
            raise CheckError(end_tok.line, "an ACK segment ('.') without 'ack N'")
        if self.peek().kind == 'win':
            self.i += 1
            self.integer('window', 0, 65535)
        if self.peek().kind == 'urg':
            self.i += 1
            self.integer('urgent pointer', 0, 65535)
        if self.peek().text == '<':
            self.tcp_options(direction)

    def tcp_options(self, direction):
        lt = self.take(text='<')
        if self.peek().kind == 'ellipsis':
            self.i += 1
            self.take(text='>')
            if direction != '>':
                raise CheckError(lt.line, '<...> for TCP options can only be used with '
                                 'outbound packets')
            return
        while True:
            t = self.peek()
            self.i += 1
            if t.kind in ('nop', 'eol', 'sackOK'):
                pass
            elif t.kind == 'mss':
                self.integer('mss', 0, 65535)
            elif t.kind == 'wscale':
                self.integer('window scale', 0, 255)
            elif t.kind == 'TS':
                self.take('val')
                self.integer('ts val', 0, 2**32 - 1)
                self.take('ecr')
                self.integer('ecr', 0, 2**32 - 1)
            elif t.kind == 'sack':
                while self.peek().kind == 'int':
                    self.integer('sack left', 0, 2**32 - 1)
                    self.take(text=':')
                    self.integer('sack right', 0, 2**32 - 1)
            else:
                raise CheckError(t.line, f'unknown TCP option {t.text!r}')
            if self.peek().text == ',':
                self.i += 1
                continue
            self.take(text='>', what="',' or '>'")
            return

    def syscall(self):
        if self.peek().kind == 'ellipsis':
            self.i += 1
            t = self.peek()
            if t.kind not in ('int', 'float'):
                raise CheckError(t.line, "expected an end time after '...'")
            self.i += 1
        name = self.take('word', what='a system call or a packet')
        if name.text not in SYSCALLS:
            raise CheckError(name.line, f'system call {name.text!r} is not in the exported '
                             'subset')
        self.take(text='(')
        args = 0
        if self.peek().text != ')':
            self.expr()
            args = 1
            while self.peek().text == ',':
                self.i += 1
                self.expr()
                args += 1
        self.take(text=')', what="',' or ')'")
        if args != SYSCALLS[name.text]:
            raise CheckError(name.line, f'{name.text}() takes {SYSCALLS[name.text]} arguments, '
                             f'not {args}')
        self.take(text='=', what="'= result'")
        self.expr()
        if self.peek().kind == 'word' and self.peek().line == name.line:
            self.i += 1
            self.note()
        elif self.peek().text == '(' and self.peek().line == name.line:
            self.note()

    def note(self):
        self.take(text='(')
        self.take('word', what='a word')
        while self.peek().kind == 'word':
            self.i += 1
        self.take(text=')')

    def expr(self):
        self.term()
        while self.peek().text == '|':
            self.i += 1
            self.term()

    def term(self):
        t = self.peek()
        if t.kind in ('ellipsis', 'int', 'hex', 'word', 'string'):
            self.i += 1
        elif t.text == '[':
            self.i += 1
            if self.peek().text != ']':
                self.expr()
                while self.peek().text == ',':
                    self.i += 1
                    self.expr()
            self.take(text=']', what="',' or ']'")
        elif t.text == '{':
            self.i += 1
            self.take('ellipsis', what="'...' (an iovec)")
            self.take(text=',')
            self.integer('iov_len', 0, 2**31 - 1)
            self.take(text='}')
        else:
            raise CheckError(t.line, f'expected an expression, found {t.text!r}')


def check_text(text):
    """Returns None when @text parses, else (line, message)."""
    try:
        Parser(tokenize(text)).script()
    except CheckError as e:
        return e.line, e.msg
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split('\n\n')[0], file=sys.stderr)
        return 2
    bad = 0
    for path in argv[1:]:
        with open(path, encoding='utf-8') as f:
            err = check_text(f.read())
        if err:
            print(f'{path}:{err[0]}: {err[1]}', file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
