#!/usr/bin/env python3
"""tidy_check.py KIND FILE [FREE_COLUMN...]: is FILE, one of gpuanalyze's outputs, tidy data that a
reader which types columns by their values (pandas, DuckDB, sqlite3's .import) reads as meant?

KIND csv: one header of unique names, every row as wide as the header; a column whose values look
like numbers holds only numbers (empty for n/a), except the FREE_COLUMNs named (a long table's
value column); unit words (ns, bytes, gbps, pct, ppm) only at the end of a column name.
KIND json: one document; in every array of objects, each member has one JSON type in every object
(null aside), integers and reals told apart: a real always has a fraction or an exponent.
KIND jsonl: JSON Lines: every line one object and nothing else; per event type ("type"), each
member one JSON type in every line.
In all three every real is written as the shortest of %.15g, %.16g and %.17g that reads back the
same double (JSON: with ".0" when that is integral). Exits 1 with one line per problem.

tidy_check.py batch LIST: the same check of many files, one per line of LIST (LABEL, KIND, FILE,
FREE_COLUMN... separated by tabs); each problem follows its output's label.

tidy_check.py sql FILE TABLE: the sqlite3 commands that load the CSV FILE into TABLE with typed
columns, as a reader that types by value would (DuckDB's sniffer): INTEGER where every value is an
integer, REAL where every value is a number, TEXT otherwise; empty fields become NULL.
"""
import csv
import json
import re
import sys

problems = []
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
UNIT_WORD = re.compile(r"(^|_)(ns|bytes|gbps|pct|ppm)(_|$)")


def fail(msg):
    if len(problems) < 20:
        problems.append(msg)


def shortest(v):
    for prec in (15, 16, 17):
        s = "%.*g" % (prec, v)
        if float(s) == v:
            return s
    return s


def check_real_text(tok, json_real, where):
    want = shortest(float(tok))
    if json_real and not any(c in want for c in ".e"):
        want += ".0"
    got = tok
    if not json_real and "." in got and "e" not in got.lower():
        # CSV: a fixed number of decimals (export's ts_us, exact to the ns) is not noise.
        got = got.rstrip("0").rstrip(".")
    if got != want:
        fail(f"{where}: number written as {tok}, not {want}")


class Real(str):
    pass


class Int(str):
    pass


def typename(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, Real):
        return "real"
    if isinstance(v, Int):
        return "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    return "array"


def load_json(text, where):
    def real(tok):
        check_real_text(tok, True, where)
        return Real(tok)

    return json.loads(text, parse_float=real, parse_int=Int)


def one_type_per_member(objects, where):
    seen = {}
    for o in objects:
        for k, v in o.items():
            t = typename(v)
            if t is None:
                continue
            first = seen.setdefault(k, (t, v))
            if first[0] != t:
                fail(f"{where}: member '{k}' is {first[0]} ({first[1]!s}) and {t} ({v!s})")


def walk(v, where):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, f"{where}.{k}")
    elif isinstance(v, list):
        objs = [x for x in v if isinstance(x, dict)]
        if objs:
            one_type_per_member(objs, where)
        for i, x in enumerate(v):
            walk(x, f"{where}[{i}]")


def check_json(path):
    with open(path, encoding="utf-8") as f:
        walk(load_json(f.read(), path), path)


def check_jsonl(path):
    by_type = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            where = f"{path}:{n}"
            if not line.endswith("\n"):
                fail(f"{where}: the last line does not end in a newline")
            try:
                o = load_json(line, where)
            except ValueError as e:
                fail(f"{where}: not one JSON value: {e}")
                continue
            if not isinstance(o, dict):
                fail(f"{where}: a line is a {typename(o)}, not an object")
                continue
            by_type.setdefault(o.get("type"), []).append(o)
    if not by_type:
        fail(f"{path}: no records")
    for t, objs in by_type.items():
        one_type_per_member(objs, f"{path} (type {t})")


def check_csv(path, free):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        fail(f"{path}: no header")
        return
    head = rows[0]
    if len(set(head)) != len(head):
        fail(f"{path}: repeated column names: {head}")
    for name in head:
        m = UNIT_WORD.search(name)
        if m and m.end() != len(name):
            fail(f"{path}: column '{name}' has its unit '{m.group(2)}' before its end")
    numeric = {}
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(head):
            fail(f"{path}:{n}: {len(row)} fields, the header has {len(head)}")
            continue
        for name, value in zip(head, row):
            if value == "" or name in free:
                continue
            is_num = bool(NUMBER.match(value))
            first = numeric.setdefault(name, (is_num, value, n))
            if first[0] != is_num:
                fail(f"{path}: column '{name}' holds '{first[1]}' (line {first[2]}) and '{value}' (line {n})")
            if is_num and any(c in value for c in ".eE"):
                check_real_text(value, False, f"{path}:{n} column {name}")


def sql_load(path, table):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    types = []
    for c in range(len(head)):
        values = [r[c] for r in rows[1:] if c < len(r) and r[c] != ""]
        if values and all(re.match(r"-?[0-9]+$", v) for v in values):
            types.append("INTEGER")
        elif values and all(NUMBER.match(v) for v in values):
            types.append("REAL")
        else:
            types.append("TEXT")
    cols = ", ".join('"%s" %s' % (h, t) for h, t in zip(head, types))
    print(f'CREATE TABLE "{table}" ({cols});')
    print(f'.import --csv --skip 1 "{path}" {table}')
    for h in head:
        print(f'UPDATE "{table}" SET "{h}" = NULL WHERE "{h}" = \'\';')


def check(kind, path, free):
    try:
        if kind == "csv":
            check_csv(path, set(free))
        elif kind == "json":
            check_json(path)
        else:
            check_jsonl(path)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def batch(listing):
    """Each line of LISTING: LABEL, KIND, FILE and the FREE columns, tab-separated. One interpreter
    for every file (a start of python3 costs more than most checks); each problem is printed after
    the label of the output that has it."""
    bad = 0
    for line in open(listing, encoding="utf-8"):
        label, kind, path, *free = line.rstrip("\n").split("\t")
        if kind not in ("csv", "json", "jsonl"):
            sys.exit(f"tidy_check.py: {listing}: bad kind {kind!r}")
        check(kind, path, [f for f in free if f])
        for p in problems:
            print(f"{label}: {p}")
        bad += bool(problems)
        problems.clear()
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "sql":
        sql_load(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "batch":
        batch(sys.argv[2])
    if len(sys.argv) < 3 or sys.argv[1] not in ("csv", "json", "jsonl"):
        sys.exit("usage: tidy_check.py csv|json|jsonl FILE [FREE_COLUMN...] | batch LIST | sql FILE TABLE")
    check(sys.argv[1], sys.argv[2], sys.argv[3:])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
