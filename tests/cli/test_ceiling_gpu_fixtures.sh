#!/bin/sh
# The counter analyses on traces an H100 wrote (traces/samples/h100-*metrics*, tests/gpu/run.sh
# on the lent machine, 2026-12-05; traces/samples/README.md says how each was made), against the
# counts their programs have by construction, so that make check tests the whole path without a GPU:
#   stream_bytes (GPUTRACE_METRICS=memory,compute, 8 copy and 8 scale launches over 2 GiB arrays):
#     the PM samples inside the launches' span sum to 2 x 8 x 2 GiB read and written, each within
#     3%; gpuanalyze ceiling gives each launch 4 GiB of DRAM traffic within 5%, from samples at 100%
#     coverage, bound by memory; the samples reach Perfetto as counter tracks and SQLite as rows.
#   known_counts replayed with --metrics memory,compute: the triad's DRAM bytes per launch within 3%
#     of 12n, mma_chain's tensor FLOPs per launch exactly 4096 x its m16n8k16 MMAs, the FP32 and
#     FP64 chains bound by compute through their pipes' activity (no FP32/FP64 FLOP counter:
#     docs/METRICS.md), each chain under its own label, none of the Range Profiler's own kernels
#     (WaitNs), and each value a row of the CSV export.
#   a PyTorch 4096^3 FP16 GEMM replayed with --metrics compute: its tensor FLOPs exactly 2MNK.
# With no peaks file, the theoretical compute peaks of the H100's record (132 SMs, 1980 MHz, sm_90)
# stand beside the pipes: mma_chain (mma.sync) keeps the tensor pipe 99% busy at 57.5% of the dense
# FP16 rate, the GEMM (wgmma) its pipe 95% busy at 70.5%: both compute-bound.
# Every other command that reads counters (report, stats, diff, findings) runs on each.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
S="$root/traces/samples"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
T=$(mktemp -d /tmp/gt_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
export GPUTRACE_PEAKS="$T/none" # no peaks file: the theoretical peak stands in, as on a fresh machine
SB=$S/h100-stream_bytes-metrics.gtrace
KC=$S/h100-known_counts-replay-metrics.gtrace
GM=$S/h100-torch_gemm-replay-metrics.gtrace
for f in "$SB" "$KC" "$GM"; do [ -f "$f" ] || fail "missing fixture $f"; done

"$G" dump --format jsonl --type kernel,metric_sample "$SB" >"$T/sb.jsonl" || fail "dump $SB"
"$G" ceiling --format json "$SB" >"$T/sb.json" || fail "ceiling $SB"
python3 - "$T/sb.jsonl" "$T/sb.json" <<'PY' || fail "stream_bytes: sampled bytes against the analytic count"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
kern = [r for r in rows if r["type"] == "kernel"]
samp = [r for r in rows if r["type"] == "metric_sample"]
assert len(kern) == 16, len(kern)
lo, hi = min(k["start"] for k in kern), max(k["end"] for k in kern)
want = 8 * 2 * (2048 << 20)
for name in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
    got = sum(r["value"] for r in samp if r["metric"] == name and r["end"] > lo and r["start"] < hi)
    assert abs(got - want) <= 0.03 * want, (name, got, want)
c = json.load(open(sys.argv[2]))
per = 2 * (2048 << 20)
names = set()
for k in c["kernels"]:
    names.add(k["kernel"])
    assert k["source"] == "samples" and k["launches"] == 8 and abs(k["coverage_pct"] - 100) < 1e-9, k
    assert abs(k["dram_bytes_per_launch"] - per) <= 0.05 * per, k
    assert k["bound"] == "memory" and 50 < k["mem_pct_theory"] <= 100, k
    assert k["flops_per_launch"] is None, k  # no FLOP counter is sampled
assert names == {"copy_kernel", "scale_kernel"}, names
PY
"$G" export -o "$T/sb.chrome.json" "$SB" || fail "export chrome"
"$G" export --format sqlite -o "$T/sb.db" "$SB" || fail "export sqlite"
python3 - "$T/sb.chrome.json" "$T/sb.db" "$T/sb.jsonl" <<'PY' || fail "stream_bytes: samples in Perfetto and SQLite"
import json, sqlite3, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
n = sum(1 for l in open(sys.argv[3]) if json.loads(l)["type"] == "metric_sample")
tracks = [e for e in ev if e.get("ph") == "C" and e.get("name") == "dram__bytes_read.sum"]
assert len(tracks) == n // 8, (len(tracks), n)  # 8 metrics sampled, one counter event per sample
rows = sqlite3.connect(sys.argv[2]).execute("select count(*) from metrics").fetchone()[0]
assert rows == n, (rows, n)
PY
echo "ok: stream_bytes on the H100: sampled DRAM bytes and per-launch traffic against the analytic count"

"$G" ceiling --format json "$KC" >"$T/kc.json" || fail "ceiling $KC"
python3 - "$T/kc.json" <<'PY' || fail "known_counts: replayed counts against the analytic ones"
import json, sys
c = json.load(open(sys.argv[1]))
k = {x["kernel"]: x for x in c["kernels"]}
assert set(k) == {"triad", "chain<float>", "chain<double>", "mma_chain"}, sorted(k)
n = 1 << 25  # known_counts' triad: three arrays of 2^25 floats (128 MiB each)
t = k["triad"]
assert t["source"] == "replay" and abs(t["dram_bytes_per_launch"] - 12 * n) <= 0.03 * 12 * n, t
assert t["bound"] == "memory", t
m = k["mma_chain"]
assert m["flops_per_launch"] == 4096 * 16777216, m  # 4096 FLOPs per m16n8k16 MMA, 2^24 MMAs
tensor = 132 * 4096 * 1.98e9 / 1e9  # the H100's dense FP16 rate from its record, GFLOP/s
d = c["devices"][0]
assert abs(d["theory_gflops"]["fp16_mma"] - tensor) < 1e-6, d
assert abs(m["compute_pct_theory"] - 100 * m["gflops"] / tensor) < 1e-9 and 50 < m["compute_pct_theory"] < 65, m
assert m["compute_vs"] == "busiest pipe's activity" and m["compute_pct"] > 95 and m["bound"] == "compute", m
for name in ("chain<float>", "chain<double>"):
    x = k[name]
    assert x["flops_per_launch"] is None and x["compute_vs"] == "busiest pipe's activity", x
    assert x["compute_pct"] > 90 and x["bound"] == "compute", x
PY
"$G" export --format csv -o "$T/kc.csv" "$KC" || fail "export csv $KC"
"$G" dump --format jsonl --type launch_metric "$KC" >"$T/kc.jsonl" || fail "dump $KC"
python3 - "$T/kc.csv" "$T/kc.jsonl" <<'PY' || fail "known_counts: the replayed values as CSV rows"
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["type"] == "launch_metric"]
recs = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(recs) > 0, (len(rows), len(recs))
for r, m in zip(rows, recs):
    assert r["name"] == m["metric"] and int(r["correlation_id"]) == m["correlation_id"], (r, m)
    assert r["detail"] == "value %.17g passes %d" % (m["value"], m["passes"]) or \
        float(r["detail"].split()[1]) == m["value"], (r, m)
PY
echo "ok: known_counts on the H100: triad bytes, tensor FLOPs exact, the chains compute-bound by their pipes"

"$G" ceiling --format json "$GM" >"$T/gm.json" || fail "ceiling $GM"
python3 - "$T/gm.json" <<'PY' || fail "PyTorch GEMM: tensor FLOPs against 2MNK"
import json, sys
c = json.load(open(sys.argv[1]))
gemm = [k for k in c["kernels"] if k["flops_per_launch"]]
assert len(gemm) == 1 and gemm[0]["flops_per_launch"] == 2 * 4096 ** 3, gemm
assert all(k["source"] == "replay" for k in c["kernels"]), c["kernels"]
g = gemm[0]
# The rate is the measured launch's own (its FLOPs over its kernel record's time); the other
# launches of the same kernel took within 2% of it.
assert abs(g["gflops"] - g["flops_per_launch"] * g["launches"] / g["time_ns"]) <= 0.02 * g["gflops"], g
assert 65 < g["compute_pct_theory"] < 75 and g["compute_pct"] > 90 and g["bound"] == "compute", g
PY
echo "ok: PyTorch GEMM on the H100: tensor FLOPs per launch exactly 2MNK, 70% of the theoretical rate"

for f in "$SB" "$KC" "$GM"; do
	"$G" report -o "$T/r.md" "$f" >/dev/null || fail "report $f"
	grep -q '^### Against the ceiling' "$T/r.md" || fail "report $f: no ceiling section"
	"$G" stats gpu_metrics_sum "$f" >"$T/st.txt" || fail "stats gpu_metrics_sum $f"
	grep -q 'holds no hardware counters' "$T/st.txt" && fail "stats $f: no counters seen"
	"$G" findings "$f" >/dev/null || fail "findings $f"
done
"$G" diff "$KC" "$KC" >/dev/null || fail "diff of a replay trace with itself: exit $?"
echo "ok: report, stats, findings and diff read the H100's counters"
