#!/bin/sh
# gpuanalyze export on the real H200 traces of traces/samples and on the synthetic fixtures: the
# Chrome JSON is valid JSON and keeps the Trace Event Format's rules (tests/cli/chrome_trace_check.py,
# which parses it with Python's json: slices on each track nest or are disjoint, flows pair and bind
# inside slices, timestamps are microseconds with at most three decimals and within the trace's
# span); -z gives a gzip file (gzip -t, Python's gzip) holding the same JSON, compressed; CSV has
# one row per event, as many as info counts; usage and input errors exit 2. Windows (--start/--end,
# --range, --kernel) keep exactly the full export's records that overlap them; two ranks make one
# timeline, each rank's processes its own, its times its own shifted onto the shared clock as
# `ranks` aligns them; nothing goes to a stderr that is not a terminal.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURE="$build/tests/test_analyze_cli_fixture"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check the JSON"; exit 77; }
command -v gzip >/dev/null 2>&1 || { echo "gzip is not installed: cannot check -z"; exit 77; }
T=$(mktemp -d /tmp/gt_export_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
CHECK="python3 $here/chrome_trace_check.py"

# The span of a trace's events in microseconds, from info (first GPU operation to last end) plus
# the host side: an upper bound for every ts is the export's own otherData origin to the last end,
# which info's gpu span does not cover; take the file's largest ts and compare it with the span of
# all events computed from the CSV export instead.
for f in "$root"/traces/samples/*.gtrace; do
	name=$(basename "$f" .gtrace)
	"$G" export -o "$T/$name.json" "$f" || fail "export $name: exit $?"
	"$G" export --format csv -o "$T/$name.csv" "$f" || fail "export --format csv $name: exit $?"
	# Every event is a CSV row: the records info counts, less the definitions (string, meta,
	# device, blob, capture, end).
	rows=$(($(wc -l < "$T/$name.csv") - 1))
	events=$("$G" info --format json "$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["traces"][0] if "traces" in d else d
c = t["records_by_type"]
print(sum(v for k, v in c.items() if k not in ("string", "meta", "device", "blob", "capture", "end")))') ||
		fail "$name: cannot count events with info"
	[ "$rows" -eq "$events" ] || fail "$name: $rows CSV rows for $events events"
	# The span: the largest end in the CSV, from the smallest start, in microseconds.
	span=$(python3 -c '
import csv, sys
lo, hi = None, 0
for r in csv.DictReader(open(sys.argv[1])):
    s = int(r["start_ns"]) if r["start_ns"] else 0
    e = int(r["end_ns"]) if r["end_ns"] else s
    if s and r["ts_us"]:
        lo = s if lo is None or s < lo else lo
        hi = max(hi, e, s)
print((hi - lo) / 1000.0 if lo is not None else 0)' "$T/$name.csv") || fail "$name: cannot read the CSV"
	out=$($CHECK "$T/$name.json" --max-us "$span") || fail "$name: $out"
done

# The flows of a real trace: launch_storm launched 20000 kernels, and its copy and memset have their
# calls too: 20002 arrows.
out=$($CHECK "$T/h200-launch_storm.json" --expect-flows 20002) || fail "launch_storm: $out"
# The renderer: 13 kernels, 26 copies, 0 memsets, and every one has its API call.
out=$($CHECK "$T/h200-splat_render.json" --expect-flows 39) || fail "splat_render: $out"

# The header PyTorch's profiler writes: each device as info lists it, and the rank where the trace
# has one; an export of two traces has no one rank and writes neither.
python3 - "$T" "$G" "$root/traces/samples" <<'PY' || fail "deviceProperties / distributedInfo"
import json, subprocess, sys
t, g, samples = sys.argv[1:4]
def info(name):
    d = json.loads(subprocess.run([g, "info", "--format", "json", f"{samples}/{name}.gtrace"],
                                  check=True, capture_output=True).stdout)
    return d["traces"][0] if "traces" in d else d
for name, rank in (("h200-splat_render", None), ("h200-multi_procs-rank1", 1)):
    d = json.load(open(f"{t}/{name}.json"))
    devs = info(name)["devices"]
    props = d["deviceProperties"]
    assert d["schemaVersion"] == 1, d["schemaVersion"]
    assert len(props) == len(devs), (props, devs)
    for p, v in zip(props, devs):
        assert p["id"] == v["device_id"] and p["name"] == v["name"], (p, v)
        assert p["numSms"] == v["sm_count"] and p["totalGlobalMem"] == v["global_mem_bytes"], (p, v)
        assert (p["computeMajor"], p["computeMinor"]) == tuple(int(x) for x in v["compute_capability"].split(".")), (p, v)
    got = d.get("distributedInfo")
    assert (got["rank"] if got else None) == rank, (name, got)
both = subprocess.run([g, "export", f"{samples}/h200-multi_procs-rank0.gtrace",
                       f"{samples}/h200-multi_procs-rank1.gtrace"], check=True, capture_output=True).stdout
d = json.loads(both)
assert "deviceProperties" not in d and "distributedInfo" not in d, list(d)
PY

# -z: a gzip file that holds the same bytes.
"$G" export -z -o "$T/r.json.gz" "$root/traces/samples/h200-splat_render.gtrace" || fail "-z: exit $?"
gzip -t "$T/r.json.gz" || fail "-z: not a valid gzip file"
gzip -dc "$T/r.json.gz" | cmp -s - "$T/h200-splat_render.json" || fail "-z: holds other bytes than the plain export"
out=$($CHECK "$T/r.json.gz") || fail "-z: $out"
python3 -c 'import gzip, sys; sys.exit(gzip.open(sys.argv[1]).read() != open(sys.argv[2], "rb").read())' \
	"$T/r.json.gz" "$T/h200-splat_render.json" || fail "-z: Python's gzip reads other bytes"
# Compressed: the JSON repeats its keys on every line and shrinks several times.
[ $(($(wc -c < "$T/r.json.gz") * 4)) -lt "$(wc -c < "$T/h200-splat_render.json")" ] ||
	fail "-z: $(wc -c < "$T/r.json.gz") bytes for $(wc -c < "$T/h200-splat_render.json") of JSON: not compressed"
"$G" export --gzip "$root/traces/samples/h200-splat_render.gtrace" | cmp -s - "$T/r.json.gz" || fail "--gzip is not -z"
# To standard output as well.
"$G" export -z "$root/traces/samples/h200-splat_render.gtrace" | gzip -dc | cmp -s - "$T/h200-splat_render.json" ||
	fail "-z to standard output differs"

# The synthetic fixtures: out-of-order records, bad timestamps, a truncated trace (warning, exit 0).
if [ -x "$FIXTURE" ]; then
	"$FIXTURE" write "$T" || fail "cannot write the fixtures"
	"$G" export -o "$T/small.json" "$T/small.gtrace" || fail "small: exit $?"
	out=$($CHECK "$T/small.json") || fail "small: $out"
	"$G" export -o "$T/trunc.json" "$T/truncated.gtrace" 2>"$T/err" || fail "truncated: exit $?"
	grep -q "ends early" "$T/err" || fail "truncated: no warning"
	[ "$(grep -c . "$T/err")" -eq 1 ] || fail "truncated: the warning is not given once: $(cat "$T/err")"
	out=$($CHECK "$T/trunc.json") || fail "truncated: $out"
	grep -q '"complete":false' "$T/trunc.json" || fail "truncated: otherData does not say it is incomplete"
fi

# Errors: 2 and one line.
err=$("$G" export --format svg "$root/traces/samples/h200-splat_render.gtrace" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "bad format: exit $rc"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "bad format: more than one line: $err"
err=$("$G" export "$T/none.gtrace" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "missing trace: exit $rc"
case $err in "gpuanalyze: cannot open trace '$T/none.gtrace':"*) ;; *) fail "missing trace: '$err'" ;; esac

# ---- windows: --start/--end, --range, --kernel ------------------------------------------------
S=$root/traces/samples
R0=$S/h200x2-ddp-rank0.gtrace
R1=$S/h200x2-ddp-rank1.gtrace
"$G" export -o "$T/full0.json" "$R0" || fail "export rank 0: exit $?"
# A window keeps exactly the slices of the full export that overlap it, with the same times, and
# nothing outside it; its flows bind (no arrow loses an end).
"$G" export --start 3s --end 3250ms -o "$T/w.json" "$R0" 2>"$T/err" || fail "--start/--end: exit $?"
[ -s "$T/err" ] && fail "--start/--end: printed '$(cat "$T/err")'"
out=$($CHECK "$T/w.json") || fail "--start/--end: $out"
WINDOW_SAME='
import json, sys
full, win, lo, hi = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3]), float(sys.argv[4])
def slices(d, keep):
    return sorted((e["name"], e["ts"], e["dur"]) for e in d["traceEvents"] if e["ph"] == "X" and keep(e))
want = slices(full, lambda e: e["ts"] <= hi and e["ts"] + e["dur"] >= lo)
got = slices(win, lambda e: True)
if not want:
    sys.exit("the full export has no slice in [%s, %s]: a test that cannot fail" % (lo, hi))
if got != want:
    sys.exit("%d slices in the window, %d in the full export overlap it" % (len(got), len(want)))
w = win["otherData"]["window"]
if (w["start_us"], w["end_us"]) != (lo, hi):
    sys.exit("otherData says the window is %r" % w)
print(len(got))'
n=$(python3 -c "$WINDOW_SAME" "$T/full0.json" "$T/w.json" 3000000 3250000) || fail "--start/--end: $n"
# --range step#5: the window of the fifth "step" range by start, as the full export shows it.
"$G" export --range 'step#5' -o "$T/r5.json" "$R0" || fail "--range: exit $?"
out=$($CHECK "$T/r5.json") || fail "--range: $out"
bounds=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = sorted((e["ts"], e["ts"] + e["dur"]) for e in d["traceEvents"] if e["ph"] == "X" and e["name"] == "step")
print("%.3f %.3f" % s[4])' "$T/full0.json") || fail "--range: no fifth step in the full export"
n=$(python3 -c "$WINDOW_SAME" "$T/full0.json" "$T/r5.json" $bounds) || fail "--range step#5: $n"
# --kernel: only the kernels that match, all of them; the other records stay; arrows still bind.
"$G" export --kernel '^nccl' -o "$T/k.json" "$R0" || fail "--kernel: exit $?"
out=$($CHECK "$T/k.json") || fail "--kernel: $out"
python3 -c '
import json, re, sys
full, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
kern = lambda d: sorted((e["name"], e["ts"]) for e in d["traceEvents"] if e.get("cat") == "kernel")
other = lambda d: sorted((e["name"], e["ts"]) for e in d["traceEvents"] if e["ph"] == "X" and e.get("cat") != "kernel")
want = [x for x in kern(full) if re.search("^nccl", x[0])]
if not want or len(want) == len(kern(full)):
    sys.exit("the filter selects %d of %d kernels: a test that cannot fail" % (len(want), len(kern(full))))
if kern(k) != want:
    sys.exit("%d kernels kept, %d match" % (len(kern(k)), len(want)))
if other(k) != other(full):
    sys.exit("records other than kernels changed")' "$T/full0.json" "$T/k.json" || fail "--kernel"
# The same for CSV: the window's rows only.
"$G" export --format csv --kernel '^nccl' "$R0" | awk -F, 'NR > 1 && $1 == "kernel" && $9 !~ /^"?nccl/ { bad = 1 } END { exit bad }' ||
	fail "--kernel: CSV has other kernels"
# Bad windows: one line, exit 2.
for args in "--range step#99" "--range nosuch" "--start 2s --end 1s" "--start 2" "--range step --start 1s" "--end -1ms"; do
	# shellcheck disable=SC2086
	err=$("$G" export $args "$R0" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] || fail "export $args: exit $rc"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "export $args: not one line: $err"
done

# ---- several ranks in one timeline -----------------------------------------------------------
"$G" export -o "$T/ddp.json" "$R0" "$R1" 2>"$T/err" || fail "two ranks: exit $?"
[ -s "$T/err" ] && fail "two ranks: printed '$(cat "$T/err")'"
out=$($CHECK "$T/ddp.json") || fail "two ranks: $out"
"$G" export -o "$T/full1.json" "$R1" || fail "export rank 1: exit $?"
"$G" ranks --format json "$R0" "$R1" > "$T/ranks.json" || fail "ranks: exit $?"
# Each rank is its own processes (host and GPU), named by its rank; its slices are those of its
# own export, shifted by where ranks puts its start on the shared clock. The shift is exact at the
# trace's start; the drift correction moves later times by at most ranks' offset_change_ns (65 ns
# and 31 ns here) and rounding by 1 ns: 0.2 us is the bound.
python3 -c '
import json, sys
ddp, ranks = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = {e["pid"]: e["args"]["name"] for e in ddp["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
for r, path in enumerate(sys.argv[3:]):
    own = json.load(open(path))
    mine = {p for p, n in names.items() if n.startswith("rank %d " % r)}
    if not any("host" in names[p] for p in mine) or not any("GPU" in names[p] for p in mine):
        sys.exit("rank %d: processes %r" % (r, sorted(names[p] for p in mine)))
    shift = [x for x in ranks["ranks"] if x["rank"] == r][0]["start_ns"] / 1000.0
    a = [(e["name"], e["ts"]) for e in own["traceEvents"] if e["ph"] == "X"]
    b = [(e["name"], e["ts"]) for e in ddp["traceEvents"] if e["ph"] == "X" and e["pid"] in mine]
    if [n for n, _ in a] != [n for n, _ in b]:
        sys.exit("rank %d: %d slices of its own, %d in the timeline" % (r, len(a), len(b)))
    worst = max(abs(tb - (ta + shift)) for (_, ta), (_, tb) in zip(a, b))
    if worst > 0.2:
        sys.exit("rank %d: a slice %.3f us off its aligned time" % (r, worst))
others = set(names) - {p for p, n in names.items() if n.startswith("rank ")}
if others:
    sys.exit("processes without a rank: %r" % sorted(names[p] for p in others))' "$T/ddp.json" "$T/ranks.json" "$T/full0.json" "$T/full1.json" ||
	fail "two ranks: not aligned"
# CSV: the process column names the rank.
"$G" export --format csv "$R0" "$R1" | awk -F, 'NR > 1 && $6 !~ /^rank [01] (host|GPU [0-9]+)$/ { print; exit 1 }' >"$T/bad" ||
	fail "two ranks CSV: process '$(cut -d, -f6 "$T/bad")'"
# A window over both: each rank's fifth step, from the earliest start to the latest end.
"$G" export --range 'step#5' -o "$T/ddp5.json" "$R0" "$R1" || fail "two ranks --range: exit $?"
out=$($CHECK "$T/ddp5.json") || fail "two ranks --range: $out"
bounds=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
steps = {}
for e in d["traceEvents"]:
    if e["ph"] == "X" and e["name"] == "step":
        steps.setdefault(e["pid"], []).append((e["ts"], e["ts"] + e["dur"]))
fifth = [sorted(v)[4] for v in steps.values()]
if len(fifth) != 2:
    sys.exit("steps on %d processes" % len(fifth))
print("%.3f %.3f" % (min(s for s, _ in fifth), max(e for _, e in fifth)))' "$T/ddp.json") || fail "two ranks: $bounds"
n=$(python3 -c "$WINDOW_SAME" "$T/ddp.json" "$T/ddp5.json" $bounds) || fail "two ranks --range step#5: $n"

# ---- the progress line: only on a terminal ----------------------------------------------------
# stderr here is a file: nothing but what went wrong may appear there, even for a long export.
"$G" export -o "$T/storm.json" "$S/h200-launch_storm.gtrace" 2>"$T/err" || fail "launch_storm: exit $?"
[ -s "$T/err" ] && fail "export wrote to a stderr that is not a terminal: '$(cat "$T/err")'"
exit 0
