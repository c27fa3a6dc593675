#!/bin/sh
# gpuanalyze ceiling on gt_synth traces whose counters follow from their kernels by a known rule
# (tests/tools/gt_synth.c, metric_rates): with replay values, each kernel's DRAM bytes and FLOPs
# per launch are exact, so GB/s, % of the measured ceilings (a peaks file written here), FLOP/byte
# and the bound are checked to the last digit against the launches' durations; with samples,
# coverage is 100% (one stream, no concurrency), the attributed counts add up to the sampled ones
# less what was left out, and at 2 us samples each kernel's GB/s is within 1.5% of its rate; FLOPs
# (no sampled FLOP counter) say "not measured" in text and null in JSON; a trace without counters
# is one line saying how to get them, exit 2; a hostile kernel name reaches the terminal escaped.
# Then the place for traces recorded on a GPU: every traces/samples/*metrics* file is analyzed.
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

UUID=GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf # gt_synth's device
DEV="name=\"NVIDIA H200\" uuid=$UUID"
cat >"$T/peaks" <<PK
$DEV kind=dram_read gbps=3900 theory_gbps=4800 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="read"
$DEV kind=dram_copy gbps=4000 theory_gbps=4800 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="copy"
$DEV kind=fp32_fma gflops=50000 theory_gflops=unknown reps=7
PK
export GPUTRACE_PEAKS="$T/peaks"

"$SYNTH" -o "$T/l.gtrace" -n 150 --seed 3 --metrics launches || fail "gt_synth launches"
"$SYNTH" -o "$T/s.gtrace" -n 150 --seed 3 --metrics samples --metrics-us 2 || fail "gt_synth samples"
"$SYNTH" -o "$T/n.gtrace" -n 30 || fail "gt_synth plain"

"$G" ceiling --format json "$T/l.gtrace" >"$T/l.json" || fail "ceiling launches: exit $?"
"$G" dump --format jsonl --type kernel "$T/l.gtrace" >"$T/l.jsonl" || fail "dump: exit $?"
"$G" ceiling --format json "$T/s.gtrace" >"$T/s.json" || fail "ceiling samples: exit $?"
"$G" dump --format jsonl --type kernel "$T/s.gtrace" >"$T/s.jsonl" || fail "dump: exit $?"

python3 - "$T" <<'PY' || fail "the figures"
import json, sys
d = sys.argv[1]
# gt_synth's kernels: median ns and rates per ns (dram read, dram write, FFMA thread-instructions).
K = {"_Z10bin_splatsPK5SplatiPjS2_": (21500, 900.0, 300.0, 8000.0),
     "_Z9compositePK5SplatPKjS3_P6float4ii": (184000, 2100.0, 700.0, 61000.0),
     "_Z7tonemapPK6float4P6uchar4iif": (14800, 2600.0, 1300.0, 9000.0)}
def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b))
def durations(path):
    t = {}
    for line in open(path):
        r = json.loads(line)
        t.setdefault(r["name"], []).append(r["end"] - r["start"])
    return t
def bound(m, c):
    known = [x for x in (m, c) if x is not None]
    if not known: return "not measured"
    hi = max(known)
    if hi >= 60: return "memory" if m is not None and m >= hi else "compute"
    return "latency" if len(known) == 2 else "undecided"

c = json.load(open(d + "/l.json"))
dur = durations(d + "/l.jsonl")
assert c["peaks_file_status"] == "read" and c["devices"][0]["memory_ceiling"] == "dram_copy", c["devices"]
assert len(c["kernels"]) == 3
for k in c["kernels"]:
    med, rd, wr, ffma = K[k["name"]]
    n, ns = len(dur[k["name"]]), sum(dur[k["name"]])
    assert k["source"] == "replay" and k["coverage_pct"] is None and k["launches"] == n, k
    assert k["time_ns"] == ns, (k["time_ns"], ns)
    b = round(med * rd) + round(med * wr)
    f = 2 * round(med * ffma)
    assert k["dram_bytes_per_launch"] == b, (k, b)
    assert close(k["dram_gbps"], b * n / ns), k
    assert close(k["mem_pct"], 100 * b * n / ns / 4000), k
    assert close(k["mem_pct_theory"], 100 * b * n / ns / c["devices"][0]["theory_mem_gbps"]), k
    assert k["flops_per_launch"] == f and close(k["gflops"], f * n / ns), k
    assert close(k["compute_pct"], 100 * f * n / ns / 50000) and k["compute_vs"] == "fp32_fma", k
    assert close(k["intensity"], f / b), k
    assert k["l2_bytes_per_launch"] is None and k["l2_gbps"] is None, k  # not replayed
    assert k["bound"] == bound(k["mem_pct"], k["compute_pct"]), k

c = json.load(open(d + "/s.json"))
dur = durations(d + "/s.jsonl")
att = 0.0
for k in c["kernels"]:
    med, rd, wr, ffma = K[k["name"]]
    assert k["source"] == "samples" and k["coverage_pct"] == 100.0 and k["alone_pct"] == 100.0, k
    assert k["flops_per_launch"] is None and k["gflops"] is None and k["intensity"] is None, k
    assert abs(k["dram_gbps"] - (rd + wr)) <= 0.015 * (rd + wr), (k["name"], k["dram_gbps"], rd + wr)
    assert close(k["dram_bytes_per_launch"], k["dram_gbps"] * k["time_ns"] / k["launches"]), k
    att += k["dram_gbps"] * k["time_ns"]
sm = {m["metric"]: m for m in c["sampled_metrics"]}
tot = sum(sm[m]["sampled"] - sm[m]["left_out_concurrent"] - sm[m]["left_out_idle"]
          for m in ("dram__bytes_read.sum", "dram__bytes_write.sum"))
assert close(att, tot, 1e-9), (att, tot)
PY

# Several traces: kernels by name across them; the same trace twice doubles the launches and time
# and leaves every per-launch count, rate and coverage as it was.
"$G" ceiling --format json "$T/l.gtrace" "$T/s.gtrace" "$T/l.gtrace" >"$T/3.json" || fail "ceiling of three traces: exit $?"
"$G" ceiling --format json "$T/s.gtrace" "$T/s.gtrace" >"$T/ss.json" || fail "ceiling of two traces: exit $?"
python3 - "$T/l.json" "$T/3.json" "$T/s.json" "$T/ss.json" <<'PY' || fail "several traces"
import json, sys
one, three, s1, s2 = (json.load(open(p)) for p in sys.argv[1:])
assert three["trace"]["traces"] == 3
for k in one["kernels"]:
    t = [x for x in three["kernels"] if x["name"] == k["name"]][0]
    assert t["launches"] == 3 * k["launches"] and t["source"] == "replay+samples", t
    assert t["dram_bytes_per_launch"] == k["dram_bytes_per_launch"] and t["flops_per_launch"] == k["flops_per_launch"], (t, k)
for k in s1["kernels"]:
    t = [x for x in s2["kernels"] if x["name"] == k["name"]][0]
    assert t["launches"] == 2 * k["launches"] and t["coverage_pct"] == 100.0, t
    assert abs(t["dram_gbps"] - k["dram_gbps"]) <= 1e-9 * k["dram_gbps"], (t, k)
PY

# Not measured is words in text, never a zero.
"$G" ceiling "$T/s.gtrace" >"$T/s.txt" || fail "ceiling text: exit $?"
grep -q '^composite .* samples .*not measured' "$T/s.txt" || fail "text lacks 'not measured': $(cat "$T/s.txt")"
grep -q 'bound: M = % of the memory ceiling' "$T/s.txt" || fail "text does not state the bound rule"
"$G" ceiling --format csv "$T/l.gtrace" >"$T/l.csv" || fail "ceiling csv: exit $?"
head -1 "$T/l.csv" | grep -q '^kernel,name,device_id,launches,time_ns,source,coverage_pct,' || fail "csv header: $(head -1 "$T/l.csv")"
[ "$(wc -l <"$T/l.csv")" -eq 4 ] || fail "csv rows"
"$G" ceiling --format md "$T/l.gtrace" | grep -q '^| `composite` ' || fail "markdown row"

# No counters: one line on stderr, nothing on stdout, exit 2.
"$G" ceiling "$T/n.gtrace" >"$T/n.out" 2>"$T/n.err"
rc=$?
[ $rc -eq 2 ] || fail "no counters: exit $rc"
[ -s "$T/n.out" ] && fail "no counters: something on stdout"
[ "$(wc -l <"$T/n.err")" -eq 1 ] || fail "no counters: not one line: $(cat "$T/n.err")"
grep -q 'GPUTRACE_METRICS=memory,compute.*gputrace replay --metrics' "$T/n.err" || fail "no counters: $(cat "$T/n.err")"

# A hostile kernel name: escaped on the terminal.
"$SYNTH" -o "$T/h.gtrace" -n 30 --metrics both --kernel-name "$(printf 'k\033[31mred\nline')" || fail "gt_synth hostile"
"$G" ceiling "$T/h.gtrace" >"$T/h.txt" || fail "ceiling hostile: exit $?"
LC_ALL=C grep -q "$(printf '\033')" "$T/h.txt" && fail "an escape byte reached the terminal"

# report: the section and the roofline only for a trace with counters; the figure is well-formed
# SVG with the memory line, the fp32 roof, the theoretical roofs of the kinds not measured and a
# point per kernel.
"$G" report -o "$T/R.md" "$T/l.gtrace" || fail "report: exit $?"
grep -q '^### Against the ceiling' "$T/R.md" || fail "report has no ceiling section"
grep -q '(R-roofline.svg)' "$T/R.md" || fail "report does not link the roofline"
[ "$(grep -c '<circle' "$T/R-roofline.svg")" -eq 3 ] || fail "roofline: not a point per kernel"
grep -q 'memory 4000 GB/s (dram_copy)' "$T/R-roofline.svg" || fail "roofline: no memory ceiling line"
grep -q 'fp32_fma 50000 GFLOP/s' "$T/R-roofline.svg" || fail "roofline: no fp32 roof"
# A kind the peaks file does not measure gets its theoretical roof from the device record (gt_synth's:
# sm_90, 132 SMs, 1980 MHz: 132 x 128 x 1.98 GHz of FP64), labelled so.
grep -q 'fp64_fma theoretical 33454 GFLOP/s' "$T/R-roofline.svg" || fail "roofline: no theoretical fp64 roof"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$T/R-roofline.svg" || fail "roofline: not XML"
"$G" report -o "$T/N.md" "$T/n.gtrace" || fail "report plain: exit $?"
grep -q 'Against the ceiling' "$T/N.md" && fail "report of a trace without counters has a ceiling section"
[ -e "$T/N-roofline.svg" ] && fail "report of a trace without counters wrote a roofline"

# diff: per-launch counts side by side only when both sides have counters. Replay values against
# 100 us samples: composite (184 us launches) within 10%, bin_splats (21.5 us, its samples mixed
# with composite's far higher rate) beyond it.
"$SYNTH" -o "$T/s100.gtrace" -n 150 --seed 3 --metrics samples || fail "gt_synth samples 100"
"$G" diff "$T/l.gtrace" "$T/s100.gtrace" >"$T/d.txt" || fail "diff counters: exit $?"
grep -q '^hardware counters per launch' "$T/d.txt" || fail "diff has no counter section"
grep -q '^composite .* same$' "$T/d.txt" || fail "diff: composite not the same: $(cat "$T/d.txt")"
grep -q '^bin_splats .* CHANGED$' "$T/d.txt" || fail "diff: bin_splats not CHANGED"
"$G" diff --format json "$T/l.gtrace" "$T/s100.gtrace" | python3 -c 'import json,sys; c=json.load(sys.stdin)["counters"]; assert len(c)==3 and all(r["base_flops"] and r["new_flops"] is None for r in c)' ||
	fail "diff json counters"
"$G" diff "$T/l.gtrace" "$T/n.gtrace" >"$T/d1.txt"
grep -q 'hardware counters' "$T/d1.txt" && fail "diff shows counters when one side has none"
"$G" diff --format json "$T/n.gtrace" "$T/n.gtrace" | grep -q '"counters"' && fail "diff json has counters without any"

# export: a Chrome counter track per device and metric, a count as its rate per second; SQLite's
# metrics table a row per counter record, absent for a trace without counters.
"$SYNTH" -o "$T/b.gtrace" -n 40 --seed 3 --metrics both || fail "gt_synth both"
"$G" export --format chrome -o "$T/b.json" "$T/b.gtrace" || fail "export chrome: exit $?"
"$G" dump --format jsonl --type metric_sample,launch_metric "$T/b.gtrace" >"$T/b.jsonl" || fail "dump metrics"
python3 - "$T/b.json" "$T/b.jsonl" <<'PY' || fail "chrome counter tracks"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
samples = [json.loads(l) for l in open(sys.argv[2])]
samples = [r for r in samples if r["type"] == "metric_sample"]
c = [e for e in ev if e.get("ph") == "C" and e.get("cat", "").startswith("metric")]
assert len(c) == len(samples), (len(c), len(samples))
assert {(e["pid"], e["name"]) for e in c} == {(c[0]["pid"], r["metric"]) for r in samples}
for e, r in zip(c, samples):
    assert e["name"] == r["metric"]
    if r["metric"].endswith(".sum"):
        assert abs(e["args"]["per_second"] - r["value"] / ((r["end"] - r["start"]) * 1e-9)) <= 1e-9 * e["args"]["per_second"], (e, r)
    else:
        assert e["args"]["value"] == r["value"], (e, r)
PY
if command -v sqlite3 >/dev/null; then
	"$G" export --format sqlite -o "$T/b.sqlite" "$T/b.gtrace" || fail "export sqlite: exit $?"
	[ "$(sqlite3 "$T/b.sqlite" 'SELECT count(*) FROM metrics')" -eq "$(wc -l <"$T/b.jsonl")" ] || fail "sqlite: rows"
	[ "$(sqlite3 "$T/b.sqlite" "SELECT count(*) FROM metrics WHERE source = 'launch' AND role = 'fp32_flops' AND kernel_name IS NOT NULL")" -eq 40 ] ||
		fail "sqlite: launch rows"
	"$G" export --format sqlite -o "$T/n.sqlite" "$T/n.gtrace" || fail "export sqlite plain"
	[ -z "$(sqlite3 "$T/n.sqlite" "SELECT name FROM sqlite_master WHERE name = 'metrics'")" ] || fail "sqlite: a metrics table without counters"
fi

# stats gpu_metrics_sum: per source and metric, records and totals as the dump sums them.
"$G" stats --format json gpu_metrics_sum "$T/b.gtrace" >"$T/st.json" || fail "stats gpu_metrics_sum: exit $?"
python3 - "$T/st.json" "$T/b.jsonl" <<'PY' || fail "stats gpu_metrics_sum totals"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
recs = [json.loads(l) for l in open(sys.argv[2])]
want = {}
for r in recs:
    k = ("launch" if r["type"] == "launch_metric" else "sample", r["metric"])
    n, t = want.get(k, (0, 0.0))
    want[k] = (n + 1, t + r["value"])
assert len(rows) == len(want), (rows, want)
for r in rows:
    n, t = want[(r["source"], r["metric"])]
    assert r["records"] == n and r["not_measured"] == 0, r
    if r["metric"].endswith(".sum"):
        assert abs(r["total"] - t) <= 1e-9 * t, (r, t)
    else:
        assert r["total"] is None and r["per_second"] is None, r
PY
"$G" stats gpu_metrics_sum "$T/n.gtrace" | grep -q 'holds no hardware counters' || fail "stats: no note without counters"

# A full disk: one line, exit 2, as every command.
if [ -w /dev/full ]; then
	"$G" ceiling -o /dev/full "$T/l.gtrace" >"$T/full.out" 2>"$T/full.err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/full.err")" -eq 1 ] && grep -q "^gpuanalyze: cannot write '/dev/full': " "$T/full.err" ||
		fail "ceiling on a full disk: exit $rc, $(cat "$T/full.err")"
fi

# Traces recorded on a GPU (traces/samples/*metrics*, added by the recorder's and the replay's
# work): each analyzes, and every kernel has a bound.
for f in "$root"/traces/samples/*metrics*; do
	[ -e "$f" ] || continue
	"$G" ceiling --format json "$f" >"$T/gpu.json" || fail "ceiling $f: exit $?"
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["kernels"] and all(k["bound"] for k in c["kernels"])' "$T/gpu.json" ||
		fail "ceiling $f: no kernels or a kernel without a bound"
done
# findings' below-ceilings: the kernels ceiling finds below 10% of both ceilings (launched at least
# 3 times), counted and their time summed, with ceilings so high that every kernel is far below;
# none with the ceilings above (the kernels reach them), and none in a trace without counters.
cat >"$T/high" <<PK
$DEV kind=dram_copy gbps=400000 theory_gbps=4800 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="copy"
$DEV kind=fp32_fma gflops=50000000 theory_gflops=unknown reps=7
PK
for pk in "$T/high" "$T/peaks"; do
	GPUTRACE_PEAKS=$pk "$G" ceiling --format json "$T/l.gtrace" >"$T/c.json" || fail "ceiling: exit $?"
	GPUTRACE_PEAKS=$pk "$G" findings --format json "$T/l.gtrace" >"$T/f.json" || fail "findings: exit $?"
	python3 - "$T/c.json" "$T/f.json" "$pk" <<'PY' || fail "findings below-ceilings with $pk"
import json, sys
c, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
below = [k for k in c["kernels"] if k["launches"] >= 3 and k["mem_pct"] is not None
         and k["compute_pct"] is not None and k["mem_pct"] < 10 and k["compute_pct"] < 10]
got = [x for x in f["findings"] if x["id"] == "below-ceilings"]
if sys.argv[3].endswith("high"):
    assert below and len(below) == len(c["kernels"]), below
if not below:
    assert not got, got
else:
    assert len(got) == 1 and got[0]["count"] == len(below), got
    assert abs(got[0]["cost_ns"] - sum(k["time_ns"] for k in below)) < 1, (got, below)
PY
done
"$G" findings --format json "$T/n.gtrace" | grep -q below-ceilings && fail "below-ceilings without counters"

# The same counts under the names an H200 writes (the sampler's TriageCompute pipe activity, the
# replay's sm__ sums): every figure the same; only the metric's name, its role and what the
# compute share is taken from may differ.
for m in samples launches; do
	"$SYNTH" -o "$T/h$m.gtrace" -n 150 --seed 3 --metrics "$m" --metrics-us 2 --metric-names h200 ||
		fail "gt_synth $m --metric-names h200"
	"$G" ceiling --format json "$T/h$m.gtrace" >"$T/h$m.json" || fail "ceiling $m h200: exit $?"
done
python3 - "$T" <<'PY' || fail "figures from the H200's names differ from the same counts under the older ones"
import json, sys
d = sys.argv[1]
def load(name):
    j = json.load(open(f"{d}/{name}.json"))
    for t in j.get("trace", []) if isinstance(j.get("trace"), list) else [j.get("trace", {})]:
        if isinstance(t, dict):
            t.pop("path", None)
    for r in j.get("sampled_metrics", []):
        r.pop("metric", None); r.pop("role", None)
    for k in j["kernels"]:
        k.pop("compute_vs", None)
    return j
for old, new in (("s", "hsamples"), ("l", "hlaunches")):
    a, b = load(old), load(new)
    assert a["kernels"] and a["kernels"] == b["kernels"], (old, a["kernels"][:1], b["kernels"][:1])
    assert a["sampled_metrics"] == b["sampled_metrics"], (a["sampled_metrics"], b["sampled_metrics"])
PY

echo "ok: ceiling figures exact on replay values, apportioned samples conserve, not measured said; findings' below-ceilings; the H200's metric names give the same figures"
