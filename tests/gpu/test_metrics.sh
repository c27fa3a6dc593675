#!/bin/bash
# GPUTRACE_METRICS on a real GPU: PM-sampled DRAM bytes against a stream whose traffic is known
# by construction (kernels/stream_bytes: R copy and R scale launches over two arrays far larger
# than L2, each reading and writing its array once). The samples whose interval meets the
# launches' span (pauses of idle device around it) must sum to the analytic bytes read and
# written within 3%; each metric of the sets is either sampled or named in META as left out; and
# with counters refused (another PM session holding them is not reproducible here), none of it
# is checked. Then gpuanalyze ceiling on the same trace must give each launch its bytes within 5%.
# The trace is kept (stream_bytes.metrics.gtrace) as a fixture. Exits 77 without a GPU.
. "$(dirname "$0")/lib.sh"
[ -x "$B/kernels/stream_bytes" ] || skip "no $B/kernels/stream_bytes"
G=$B/gputrace
# GPUTRACE_DEBUG=1 says on which thread the sampler started, how long that took, and the phase of
# its stop (docs/METRICS.md: a sampler started or disabled on the wrong thread crashed programs).
run() { GPUTRACE_METRICS=memory,compute GPUTRACE_DEBUG=1 "$@"; }
check "record stream_bytes with counters" \
	run "$G" record -o m.gtrace -- "$B/kernels/stream_bytes" --mib 2048 --reps 8 --pause-ms 50
"$GA" info m.gtrace > info.txt 2>&1
if grep -q "metrics.unavailable" info.txt; then
	grep "metrics.unavailable" info.txt
	skip "counters unavailable on this machine (see the line above)"
fi
# What the H200 samples must be what CUPTI's host API planned for GH100 without a GPU
# (docs/METRICS.md, tests/unit/test_cupti_metric_chips.c): every member, nothing left out.
grep -E "metrics\.(sampled|left_out|interval_us|samples|overflow)" info.txt | sed 's/^/    /'
# The first GPU runs crashed or hung programs at exit (docs/METRICS.md): the trace must be closed.
check "the trace is complete (END written at a clean exit)" grep -q "complete (END" info.txt
check "samples were written (META metrics.samples > 0)" grep -Eq "metrics\.samples = [1-9]" info.txt
check "every member of memory,compute sampled on this GPU (META metrics.left_out absent)" \
	sh -c '! grep -q "metrics.left_out" info.txt && grep -q "metrics.sampled" info.txt'
"$GA" dump --format jsonl --type kernel,metric_sample m.gtrace > m.jsonl
check "sampled DRAM bytes within 3% of the analytic count" python3 - m.jsonl 2048 8 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mib, reps = int(sys.argv[2]), int(sys.argv[3])
want = reps * 2 * (mib << 20)          # per direction: read and written alike
kern = [r for r in rows if r["type"] == "kernel"]
samp = [r for r in rows if r["type"] == "metric_sample"]
assert len(kern) == 2 * reps, len(kern)
lo, hi = min(k["start"] for k in kern), max(k["end"] for k in kern)
metrics = sorted({r["metric"] for r in samp})
print("metrics sampled:", ", ".join(metrics))
ok = True
for name in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
    s = [r for r in samp if r["metric"] == name]
    assert s, f"no {name} samples"
    inside = [r for r in s if r["end"] > lo and r["start"] < hi]
    got = sum(r["value"] for r in inside)
    rest = sum(r["value"] for r in s) - got
    iv = sorted(r["end"] - r["start"] for r in s)[len(s) // 2]
    err = (got - want) / want
    print(f"{name}: sampled {got:.0f} B over {len(inside)} samples (median interval {iv} ns), "
          f"analytic {want} B, error {100 * err:+.3f}%; outside the launches {rest:.0f} B")
    ok &= abs(err) <= 0.03
sys.exit(0 if ok else 1)
PY
cp m.gtrace "$KEEP/stream_bytes.metrics.gtrace" 2>/dev/null
# The analysis on the same samples: apportioned to copy_kernel and scale_kernel by time, each
# launch's DRAM bytes (read plus written: 2 x the array) within 5% of the analytic count; the
# looser bound leaves room for samples that straddle two launches and are shared out by time.
"$GA" ceiling --format json m.gtrace > ceiling.json 2> ceiling.err ||
	{ echo "  FAIL gpuanalyze ceiling: $(cat ceiling.err)"; fail=1; }
"$GA" ceiling m.gtrace 2>&1 | sed 's/^/    /' | head -20
check "ceiling's DRAM bytes per launch within 5% of the analytic count" python3 - ceiling.json 2048 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = 2 * (int(sys.argv[2]) << 20)
print("sampled metrics:", d.get("sampled_metrics"))
ok, seen = True, 0
for k in d["kernels"]:
    if not any(w in k["name"] for w in ("copy_kernel", "scale_kernel")):
        continue
    seen += 1
    got = k["dram_bytes_per_launch"]
    err = (got - want) / want if got is not None else float("nan")
    print(f"{k['kernel']}: {got} B per launch against {want} ({100 * err:+.2f}%), coverage {k['coverage_pct']}%, "
          f"{k['dram_gbps']} GB/s, {k['mem_pct_theory']}% of the theoretical peak, compute {k['compute_pct']}% "
          f"({k['compute_vs']}), bound {k['bound']}")
    ok &= abs(err) <= 0.05
sys.exit(0 if ok and seen == 2 else 1)
PY
# A program we did not write, with threads of its own (autograd): with counters it must exit as it
# does without, its trace closed, with samples (15 of 20 such runs hung at exit before the first
# fix; 3 of 20 crashed at exit before the second, docs/METRICS.md). TORCH_RUNS=20 gives a crash
# of that rate little room to hide (0.85^20: 4%); the default keeps the whole suite short.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	for i in $(seq 1 "${TORCH_RUNS:-3}"); do
		check "PyTorch training step with counters, run $i: exit 0" \
			run "$G" record -q -o t$i.gtrace -- python3 "$REPO/tests/gpu/torch_workload.py" --steps 50
		"$GA" info t$i.gtrace > t$i.txt 2>&1
		check "PyTorch run $i: trace complete with samples" \
			sh -c "grep -q 'complete (END' t$i.txt && grep -Eq 'metrics\.samples = [1-9]' t$i.txt"
		# The exit handler's work: a sampler no program thread stopped is left running and
		# named in META metrics.unfinished (preload/metrics.c).
		check "PyTorch run $i: the sampler was stopped before exit (no META metrics.unfinished)" \
			sh -c "! grep -q 'metrics\.unfinished' t$i.txt"
	done
else
	echo "  (no PyTorch with CUDA: the PyTorch runs are not made)"
fi
[ "$fail" = 0 ]
