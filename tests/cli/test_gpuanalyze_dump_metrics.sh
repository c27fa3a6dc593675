#!/bin/sh
# The hardware-counter kinds (metric_sample, launch_metric) through the schema: dump shows their
# value as a number, exactly, and their metric by name; a dump without --type leaves them out, so
# its columns are those of a trace without counters; info's GPU span does not count samples as
# work. The traces are gt_synth's renderer shape with and without --metrics (same seed, so the same
# kernels), whose counts follow from the kernels by a stated rule that the sums are checked against.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
SYNTH="$build/tools/gt_synth"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$SYNTH" ] || fail "no gt_synth at $SYNTH"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
T=$(mktemp -d /tmp/gt_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

"$SYNTH" -o "$T/plain.gtrace" -n 120 --seed 7 || fail "gt_synth plain"
"$SYNTH" -o "$T/m.gtrace" -n 120 --seed 7 --metrics both --metrics-us 50 || fail "gt_synth --metrics"

# Without --type: the same columns and rows as the trace without counters.
"$G" dump "$T/plain.gtrace" >"$T/plain.csv" || fail "dump plain: exit $?"
"$G" dump "$T/m.gtrace" >"$T/m.csv" || fail "dump metrics: exit $?"
cmp -s "$T/plain.csv" "$T/m.csv" || fail "a dump without --type differs when the trace holds counters"
grep -q metric "$T/m.csv" && fail "a dump without --type shows counter records"

# info: the GPU span is the kernels', samples or not.
span() { "$G" info "$1" | grep 'gpu span'; }
[ "$(span "$T/plain.gtrace")" = "$(span "$T/m.gtrace")" ] || fail "info's GPU span counts metric samples"

"$G" dump --type metric_sample "$T/m.gtrace" >"$T/s.csv" || fail "dump --type metric_sample: exit $?"
[ "$(head -1 "$T/s.csv")" = "type,start,end,value,device_id,metric,flags" ] ||
	fail "metric_sample columns: $(head -1 "$T/s.csv")"
"$G" dump --format jsonl --type kernel,metric_sample,launch_metric "$T/m.gtrace" >"$T/all.jsonl" ||
	fail "dump jsonl: exit $?"

python3 - "$T/all.jsonl" <<'PY' || fail "the counters' values"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
kern = [r for r in rows if r["type"] == "kernel"]
samp = [r for r in rows if r["type"] == "metric_sample"]
lm = [r for r in rows if r["type"] == "launch_metric"]
assert len(kern) == 120, len(kern)
# gt_synth's rates (B/ns of dram__bytes_read.sum) and medians (ns), by kernel name.
rate = {"_Z10bin_splatsPK5SplatiPjS2_": 900.0, "_Z9compositePK5SplatPKjS3_P6float4ii": 2100.0,
        "_Z7tonemapPK6float4P6uchar4iif": 2600.0}
median = {"_Z10bin_splatsPK5SplatiPjS2_": 21500, "_Z9compositePK5SplatPKjS3_P6float4ii": 184000,
          "_Z7tonemapPK6float4P6uchar4iif": 14800}
for r in samp + lm:
    assert type(r["value"]) is float, r          # a JSON number, never a string
    assert r["end"] > r["start"] and r["device_id"] == 0 and r["flags"] == 0, r
reads = [r for r in samp if r["metric"] == "dram__bytes_read.sum"]
assert all(r["end"] - r["start"] == 50000 for r in reads)
# The samples cover every kernel: their sum is the kernels' busy time times their rates, to the
# rounding of each sample to a whole byte.
want = sum((k["end"] - k["start"]) * rate[k["name"]] for k in kern)
got = sum(r["value"] for r in reads)
assert abs(got - want) <= len(reads), (got, want)
pct = [r["value"] for r in samp if r["metric"].endswith("pct_of_peak_sustained_elapsed")]
assert pct and all(0.0 <= v <= 100.0 for v in pct), pct
# One value per launch and metric, each its kernel's median times its rate, paired by correlation.
byc = {k["correlation_id"]: k for k in kern}
lr = [r for r in lm if r["metric"] == "dram__bytes_read.sum"]
assert len(lr) == 120 and len(lm) == 360, (len(lr), len(lm))
for r in lr:
    k = byc[r["correlation_id"]]
    assert r["name"] == k["name"] and r["start"] == k["start"] and r["end"] == k["end"], r
    assert r["value"] == round(median[k["name"]] * rate[k["name"]]) and r["passes"] == 2, r
PY

# CSV shows the same value text as the shortest exact form (a percentage with its decimals).
grep -q '^metric_sample,[0-9]*,[0-9]*,[0-9.]*,0,sm__throughput.avg.pct_of_peak_sustained_elapsed,0$' "$T/s.csv" ||
	fail "no percentage sample in the CSV"
grep -q '^metric_sample,.*,[0-9]*\.[0-9]*e' "$T/s.csv" && fail "a value in exponent form where the digits fit"
echo "ok: counters dumped as numbers, left out by default, not in the GPU span"
