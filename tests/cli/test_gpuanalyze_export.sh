#!/bin/sh
# gpuanalyze export on the real H200 traces of traces/samples and on the synthetic fixtures: the
# Chrome JSON is valid JSON (python3 -m json.tool) and keeps the Trace Event Format's rules
# (tests/cli/chrome_trace_check.py: slices on each track nest or are disjoint, flows pair and bind
# inside slices, timestamps are microseconds with at most three decimals and within the trace's
# span); -z gives a gzip file (gzip -t, Python's gzip) holding the same JSON, compressed; CSV has one row per event, as many as
# info counts; usage and input errors exit 2.
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
	python3 -m json.tool "$T/$name.json" >/dev/null || fail "$name: not valid JSON"
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
"$G" export "$root/traces/samples/h200-splat_render.gtrace" "$root/traces/samples/h200-splat_render.gtrace" \
	>/dev/null 2>&1 && fail "two traces accepted"
exit 0
