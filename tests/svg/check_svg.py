#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Geometric checks of nagle-trace's ladder diagrams, standalone (.svg) or
inline in a page (.html): the document is at most 1920 px wide (a 1080p
slide), no label overlaps another, and no line (an arrow, a lifeline, a
tick) crosses a label.

A label's box is its font size (from the ladder's CSS classes) times the
advance widths of DejaVu Sans by character class (the widest font of the
stack the ladder names; the table is the one src/render/ladder.c lays out
with), from the baseline up 0.8 em and down 0.25 em. Transforms are the
ladder's translate(x y) groups. Exit 1 with one line per collision.

    check_svg.py FILE...
"""
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
MAX_W = 1920
# class -> (font px, bold), as in nt_ladder_css()
FONTS = {"title": (20, True), "who": (16, True), "addr": (14, False), "note": (14, False),
         "call": (14, False), "seg": (15, False), "stall": (17, True)}


def char_em(c):
    """DejaVu Sans advance width, per mille of the em, rounded up by class."""
    if ord(c) >= 0x80 or c in "=+<>~":
        return 840
    if c in " .,:;'!|ijl":
        return 320
    if c in "()[]{}ftr-/":
        return 420
    if c in "mwMW":
        return 990
    if "A" <= c <= "Z":
        return 780
    return 640


def width(text, px, bold):
    w = sum(char_em(c) for c in text) * px / 1000.0
    return w * 1.1 if bold else w


def font_of(el):
    cls = (el.get("class") or "").split()
    px, bold = 15, False
    for c in cls:
        if c in FONTS:
            px, bold = FONTS[c]
    if "key" in cls:
        bold = True
    return px, bold


def boxes_of_text(el, dx, dy):
    px, bold = font_of(el)
    anchor = el.get("text-anchor", "start")
    x = float(el.get("x", 0)) + dx
    y = float(el.get("y", 0)) + dy
    lines = [(x, y, "".join(el.text or ""))]
    for t in el.findall(SVG + "tspan"):
        if t.get("dy") is not None:
            # a new line
            lx = float(t.get("x", el.get("x", 0))) + dx
            y += float(t.get("dy"))
            lines.append((lx, y, t.text or ""))
        else:
            # inline (the verdict of a title): part of the current line
            lx, ly, s = lines[-1]
            lines[-1] = (lx, ly, s + (t.text or "") + (t.tail or ""))
    out = []
    for lx, ly, s in lines:
        s = re.sub(r"\s+", " ", s)
        if not s.strip():
            continue
        w = width(s, px, bold)
        x0 = lx - w / 2 if anchor == "middle" else lx - w if anchor == "end" else lx
        out.append((x0, ly - 0.8 * px, x0 + w, ly + 0.25 * px, s.strip()))
    return out


def walk(el, dx, dy, texts, lines):
    tr = el.get("transform")
    if tr:
        m = re.match(r"translate\(\s*([-\d.]+)[\s,]+([-\d.]+)\s*\)", tr)
        if m:
            dx, dy = dx + float(m.group(1)), dy + float(m.group(2))
    tag = el.tag.replace(SVG, "")
    if tag == "text":
        texts.extend(boxes_of_text(el, dx, dy))
        return
    if tag == "line" and el.get("stroke") != "#bbbbbb":  # panel separators are borders
        lines.append((float(el.get("x1")) + dx, float(el.get("y1")) + dy,
                      float(el.get("x2")) + dx, float(el.get("y2")) + dy))
    if tag in ("defs", "marker", "style", "title"):
        return
    for c in el:
        walk(c, dx, dy, texts, lines)


def seg_hits_box(l, b, pad=0.5):
    """Liang-Barsky: does segment l cross box b (shrunk by pad)?"""
    x1, y1, x2, y2 = l
    bx0, by0, bx1, by1 = b[0] + pad, b[1] + pad, b[2] - pad, b[3] - pad
    t0, t1 = 0.0, 1.0
    dx, dy = x2 - x1, y2 - y1
    for p, q in ((-dx, x1 - bx0), (dx, bx1 - x1), (-dy, y1 - by0), (dy, by1 - y1)):
        if p == 0:
            if q < 0:
                return False
        else:
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                return False
    return True


def overlap(a, b, pad=0.5):
    return a[0] + pad < b[2] and b[0] + pad < a[2] and a[1] + pad < b[3] and b[1] + pad < a[3]


def check_svg(root, where):
    errors = []
    w = float(root.get("width", 0))
    if w > MAX_W:
        errors.append(f"{where}: {w:.0f} px wide (at most {MAX_W})")
    texts, lines = [], []
    walk(root, 0, 0, texts, lines)
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if overlap(a, b):
                errors.append(f"{where}: label {a[4]!r} overlaps label {b[4]!r}")
        for l in lines:
            if seg_hits_box(l, a):
                errors.append(f"{where}: a line {tuple(round(v) for v in l)} crosses label {a[4]!r}")
    return errors, len(texts)


def svgs_of(path):
    data = open(path, encoding="utf-8").read()
    if path.endswith(".svg"):
        yield path, ET.fromstring(data.encode())
        return
    for i, m in enumerate(re.finditer(r"<svg[\s\S]*?</svg>", data)):
        frag = m.group(0)
        if 'class="nt-ladder"' not in frag:
            continue
        yield f"{path} (diagram {i + 1})", ET.fromstring(frag.encode())


def main(argv):
    errors, n_svg, n_text = [], 0, 0
    for path in argv[1:]:
        for where, root in svgs_of(path):
            e, n = check_svg(root, where)
            errors += e
            n_svg += 1
            n_text += n
    for e in errors:
        print(e)
    if n_svg == 0 or n_text == 0:
        print("no ladder diagram found")
        return 1
    print(f"{n_svg} diagrams, {n_text} labels: {len(errors)} collisions")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
