#!/usr/bin/env python3
"""chrome_trace_check.py: checks a Chrome Trace Event JSON file against the format's rules.

Used by tests/cli/test_gpuanalyze_export.sh on what `gpuanalyze export` writes:
  - the file is JSON (gzip'd when it starts with the gzip magic, read with Python's gzip module),
    an object with a traceEvents array, displayTimeUnit "ns" and otherData;
  - every event has ph, pid and, except process metadata and process/global instants, tid; X events
    have numeric ts and dur >= 0; every ts is in microseconds: a number with at most three decimals
    (exact nanoseconds), and none beyond the span given with --max-us;
  - on every (pid, tid) track the X slices nest or are disjoint: sorted by (ts, -dur), no slice
    ends after the slice that encloses its start; and no two slices on a track start at once
    unless one is zero-length;
  - flows: every "s" id has exactly one "f" with the same id and vice versa; the "f" binds to the
    enclosing slice (bp "e") and lies inside a slice on its track, the "s" inside one on its own;
  - counters (C) have numeric args; metadata (M) names every track that holds a slice.
Prints one line of counts on success; exits 1 with the first violation otherwise.

  chrome_trace_check.py FILE [--max-us US] [--expect-slices N] [--expect-flows N]
"""
import bisect
import gzip
import json
import re
import sys
from collections import defaultdict

TS = re.compile(r'"ts":(-?[0-9.eE+-]+)')


def fail(msg):
    print("chrome_trace_check: FAIL: " + msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    try:
        doc = json.loads(text)
    except ValueError as e:
        fail("not JSON: %s" % e)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents array")
    if doc.get("displayTimeUnit") != "ns":
        fail("displayTimeUnit is not ns")
    if not isinstance(doc.get("otherData"), dict):
        fail("no otherData object")
    # Microseconds with at most three decimals, read from the text (json turns them into floats).
    for m in TS.finditer(text):
        t = m.group(1)
        if "e" in t.lower() or ("." in t and len(t.split(".")[1]) > 3):
            fail("timestamp %s is not microseconds with at most 3 decimals" % t)
    max_us = float(opts["--max-us"]) if "--max-us" in opts else None
    slices = defaultdict(list)
    named = set()
    flows_s, flows_f = {}, {}
    counts = defaultdict(int)
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        counts[ph] += 1
        if "pid" not in e:
            fail("event without pid: %r" % e)
        if ph == "M":
            if e.get("name") == "thread_name":
                named.add((e["pid"], e["tid"]))
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            fail("bad ts in %r" % e)
        if max_us is not None and ts > max_us:
            fail("ts %s beyond the trace's span (%s us): not microseconds?" % (ts, max_us))
        if ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, float)) or d < 0:
                fail("bad dur in %r" % e)
            if "tid" not in e:
                fail("slice without tid: %r" % e)
            slices[(e["pid"], e["tid"])].append((ts, ts + d, e.get("name")))
        elif ph in ("s", "f"):
            table = flows_s if ph == "s" else flows_f
            if e["id"] in table:
                fail("flow id %s has two '%s' events" % (e["id"], ph))
            if ph == "f" and e.get("bp") != "e":
                fail("flow end without bp e: %r" % e)
            table[e["id"]] = e
        elif ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(isinstance(v, (int, float)) for v in a.values()):
                fail("counter without numeric args: %r" % e)
        elif ph == "i":
            if e.get("s") not in ("t", "p", "g"):
                fail("instant without scope: %r" % e)
        else:
            fail("unexpected ph %r" % ph)
    # Nesting, with the viewers' order: by start, the longer first.
    eps = 1e-9
    for key, evs in slices.items():
        if key not in named:
            fail("track %s holds slices but has no thread_name" % (key,))
        evs.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        stack = []
        prev_start = None
        for (a, b, name) in evs:
            while stack and stack[-1][1] <= a + eps:
                stack.pop()
            if stack and b > stack[-1][1] + eps:
                fail("track %s: slice '%s' [%s, %s] overlaps '%s' [%s, %s] partly"
                     % (key, name, a, b, stack[-1][2], stack[-1][0], stack[-1][1]))
            if prev_start is not None and a == prev_start[0] and b > a and prev_start[1] > prev_start[0]:
                fail("track %s: two slices start at %s" % (key, a))
            prev_start = (a, b)
            stack.append((a, b, name))
    if set(flows_s) != set(flows_f):
        fail("flows: %d starts and %d ends do not pair" % (len(flows_s), len(flows_f)))

    # A point lies inside a slice of its track when some slice starting at or before it ends at or
    # after it: per track, the starts (sorted above) and the largest end among the slices so far,
    # so each flow is one binary search rather than a walk over the track.
    reach = {}
    for key, evs in slices.items():
        ends, far = [], float("-inf")
        for (_, b, _) in evs:
            far = max(far, b)
            ends.append(far)
        reach[key] = ([a for (a, _, _) in evs], ends)

    def inside(e):
        starts, ends = reach.get((e["pid"], e["tid"]), ([], []))
        i = bisect.bisect_right(starts, e["ts"] + eps) - 1
        return i >= 0 and ends[i] >= e["ts"] - eps

    for e in list(flows_s.values()) + list(flows_f.values()):
        if not inside(e):
            fail("flow %s at %s is inside no slice of its track" % (e["id"], e["ts"]))
    n_slices = sum(len(v) for v in slices.values())
    if "--expect-slices" in opts and n_slices != int(opts["--expect-slices"]):
        fail("%d slices, expected %s" % (n_slices, opts["--expect-slices"]))
    if "--expect-flows" in opts and len(flows_f) != int(opts["--expect-flows"]):
        fail("%d flows, expected %s" % (len(flows_f), opts["--expect-flows"]))
    print("ok: %d slices on %d tracks, %d flows, %d counters, %d instants, %d metadata"
          % (n_slices, len(slices), len(flows_f), counts["C"], counts["i"], counts["M"]))


main()
