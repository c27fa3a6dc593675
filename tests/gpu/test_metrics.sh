#!/bin/bash
# GPUTRACE_METRICS on a real GPU: PM-sampled DRAM bytes against a stream whose traffic is known
# by construction (kernels/stream_bytes: R copy and R scale launches over two arrays far larger
# than L2, each reading and writing its array once). The samples whose interval meets the
# launches' span (pauses of idle device around it) must sum to the analytic bytes read and
# written within 3%; each metric of the sets is either sampled or named in META as left out; and
# with counters refused (another PM session holding them is not reproducible here), none of it
# is checked. Exits 77 without a GPU.
. "$(dirname "$0")/lib.sh"
[ -x "$B/kernels/stream_bytes" ] || skip "no $B/kernels/stream_bytes"
G=$B/gputrace
run() { GPUTRACE_METRICS=memory,compute "$@"; }
check "record stream_bytes with counters" \
	run "$G" record -o m.gtrace -- "$B/kernels/stream_bytes" --mib 2048 --reps 8 --pause-ms 50
"$GA" info m.gtrace > info.txt 2>&1
if grep -q "metrics.unavailable" info.txt; then
	grep "metrics.unavailable" info.txt
	skip "counters unavailable on this machine (see the line above)"
fi
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
[ "$fail" = 0 ]
