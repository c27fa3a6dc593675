#!/usr/bin/env python3
"""escaping_check.py FORMAT HOSTILE TWIN: is HOSTILE (an output made from a trace whose strings are
hostile) a well-formed FORMAT document with the same structure as TWIN (the same command's output
on a trace with the same records under plain names)?

Each format is read with a real parser where Python has one (json, csv, xml.etree) and, for
Markdown and text, line by line with the block rules of CommonMark/GFM. Structure is compared with
the twin rather than with fixed expectations, so that a name can be shown any way its format's
rule allows, but can never add a line, a heading, a list item, a table cell, a link, an HTML tag,
a JSON member, a CSV field or an XML element. Exits 1 with one line per problem.
"""
import csv
import io
import json
import re
import sys
import xml.etree.ElementTree as ET

problems = []


def fail(msg):
    problems.append(msg)


def decode(data, what):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{what}: not UTF-8: {e}")
        return data.decode("utf-8", "replace")


# Characters that steer a terminal or reorder text, as escape.c lists them.
def controls(text, allowed="\n"):
    bad = []
    for i, ch in enumerate(text):
        c = ord(ch)
        if ch in allowed:
            continue
        if c < 0x20 or 0x7F <= c <= 0x9F or c in (0x061C, 0x200E, 0x200F) or 0x202A <= c <= 0x202E \
                or 0x2066 <= c <= 0x2069:
            bad.append((i, hex(c)))
    return bad


def check_text(h, t):
    for where, c in controls(h)[:5]:
        fail(f"text: control character {c} at offset {where}")
    if h.count("\n") != t.count("\n"):
        fail(f"text: {h.count(chr(10))} lines, the twin has {t.count(chr(10))}")


# ---- Markdown ------------------------------------------------------------------------------------

# A fence: three or more backticks whose info string holds none (else it is a code span), or tildes.
FENCE = re.compile(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})(.*)$")


def strip_code_spans(line):
    """The line with each code span replaced by `X`, as CommonMark finds them (a backslash outside a
    span escapes the next character; a run of n backticks opens a span closed by the next run of
    exactly n), and the number of spans."""
    out, i, spans = [], 0, 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            out.append(line[i:i + 2])
            i += 2
            continue
        if ch == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            n = j - i
            k = j
            close = -1
            while k < len(line):
                if line[k] == "`":
                    m = k
                    while m < len(line) and line[m] == "`":
                        m += 1
                    if m - k == n:
                        close = k
                        break
                    k = m
                else:
                    k += 1
            if close >= 0:
                out.append("`X`")
                spans += 1
                i = close + n
                continue
            out.append(line[i:j])
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out), spans


def unescaped(line):
    """Counts of the characters that would be markup, outside code spans and not backslash-escaped."""
    s, spans = strip_code_spans(line)
    counts = {"spans": spans}
    i = 0
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i:i + 3] == "`X`":
            i += 3
            continue
        if s[i] in "<>[]*_|`#&~":
            counts[s[i]] = counts.get(s[i], 0) + 1
        i += 1
    return counts


def table_cells(line):
    """Cells of a GFM table row as cmark-gfm splits it: before code spans, reading a backslash and
    the punctuation after it as one escaped character."""
    cells, i = 1, 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and not line[i + 1].isalnum() and not line[i + 1].isspace():
            i += 2
            continue
        cells += line[i] == "|"
        i += 1
    return cells


def block_kind(s, depth=0):
    if not s.strip():
        return "blank"
    m = re.match(r" {0,3}(#{1,6})(\s|$)", s)
    if m:
        return "h%d" % len(m.group(1))
    if FENCE.match(s):
        return "fence"
    if s.startswith("|"):
        return "table"
    if re.match(r" {0,3}>", s):
        return "quote"
    if re.match(r" {0,3}([-*_])(\s*\1){2,}\s*$", s):
        return "rule"
    m = re.match(r"(\s*)([-*+]|\d{1,9}[.)])(\s+|$)(.*)", s)
    if m:
        inner = block_kind(m.group(4), depth + 1) if depth < 3 else "para"
        return "li%d(%s)" % (len(m.group(1)), inner)
    if re.match(r" {0,3}(=+|-+)\s*$", s):
        return "setext"
    if re.match(r" {0,3}<", s):
        return "html"
    if s.startswith("    ") or s.startswith("\t"):
        return "indented"
    return "para"


def md_lines(text):
    """(kind, line) per line, code block content marked as such."""
    out, fence = [], None
    for line in text.split("\n"):
        if fence:
            m = FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                out.append(("fence", line))
                fence = None
            else:
                out.append(("code", line))
            continue
        k = block_kind(line)
        if k == "fence":
            fence = FENCE.match(line).group(1)
        out.append((k, line))
    return out


def heading_text(kind, line):
    s, _ = strip_code_spans(line)
    if kind == "h1" and ": " in s:
        s = s[:s.index(": ")]  # "# GPU benchmark report: NAME": the name is the trace's
    return s


def check_md(h, t):
    for where, c in controls(h)[:5]:
        fail(f"md: control character {c} at offset {where}")
    hl, tl = md_lines(h), md_lines(t)
    if len(hl) != len(tl):
        fail(f"md: {len(hl)} lines, the twin has {len(tl)}")
    for n, ((hk, hs), (tk, ts)) in enumerate(zip(hl, tl), 1):
        if hk != tk:
            fail(f"md line {n}: {hk}, the twin's is {tk}: {hs[:120]!r}")
            continue
        if hk.startswith("h") and heading_text(hk, hs) != heading_text(tk, ts):
            fail(f"md line {n}: heading {hs[:120]!r}, the twin's is {ts[:120]!r}")
        hc, tc = unescaped(hs), unescaped(ts)
        if hk == "table":  # a '#' in a cell is text: only the start of a line makes a heading
            hc.pop("#", None)
            tc.pop("#", None)
            if table_cells(hs) != table_cells(ts):
                fail(f"md line {n}: {table_cells(hs)} table cells, the twin's row has {table_cells(ts)}: {hs[:160]!r}")
        if hk not in ("code", "fence") and hc != tc:
            fail(f"md line {n}: markup {hc} where the twin has {tc}: {hs[:160]!r}")
        if len(problems) > 20:
            return


# ---- JSON, CSV, XML ------------------------------------------------------------------------------

def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, bool) or v is None:
        return type(v).__name__
    if isinstance(v, (int, float)):
        return "number"
    return "string"


def check_json(h, t):
    try:
        hv = json.loads(h)
    except ValueError as e:
        fail(f"json: does not parse: {e}")
        return
    tv = json.loads(t)
    hs, ts = shape(hv), shape(tv)
    if json.dumps(hs, sort_keys=True) != json.dumps(ts, sort_keys=True):
        fail("json: members or arrays differ from the twin's")


def check_csv(h, t):
    try:
        hr = list(csv.reader(io.StringIO(h, newline="")))
        tr = list(csv.reader(io.StringIO(t, newline="")))
    except csv.Error as e:
        fail(f"csv: does not parse: {e}")
        return
    if len(hr) != len(tr):
        fail(f"csv: {len(hr)} rows, the twin has {len(tr)}")
    width = None
    for n, row in enumerate(hr, 1):
        if not row:
            continue
        if width is None:
            width = len(row)
        elif len(row) != width and len(row) > 1:
            fail(f"csv row {n}: {len(row)} fields, the header has {width}")
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r", "\n"):
                try:
                    float(cell)
                except ValueError:
                    fail(f"csv row {n}: a string field that a spreadsheet would run: {cell[:60]!r}")


def check_xml(hb, tb):
    try:
        hroot = ET.fromstring(hb)
    except ET.ParseError as e:
        fail(f"xml: does not parse: {e}")
        return
    troot = ET.fromstring(tb)
    htags = [(e.tag, sorted(e.attrib)) for e in hroot.iter()]
    ttags = [(e.tag, sorted(e.attrib)) for e in troot.iter()]
    if htags != ttags:
        fail(f"xml: {len(htags)} elements, the twin has {len(ttags)} (or other names or attributes)")


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().split("\n")[0], file=sys.stderr)
        return 2
    fmt, hp, tp = sys.argv[1:]
    hb, tb = open(hp, "rb").read(), open(tp, "rb").read()
    if fmt == "xml":
        check_xml(hb, tb)
    else:
        h, t = decode(hb, hp), decode(tb, tp)
        {"text": check_text, "md": check_md, "json": check_json, "csv": check_csv}[fmt](h, t)
    for p in problems[:20]:
        print(f"{hp}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
