#!/bin/bash
# test_torch_gemm_metrics.sh: `gputrace replay --metrics compute` on a kernel this project did not
# write: cuBLAS's FP16 GEMM under PyTorch. torch.mm of two 4096 x 4096 FP16 matrices on the GPU,
# three times, is recorded with --shadow '*' --shadow-max 1 (one capture of each kernel), and every
# capture is replayed with --metrics compute. The launch with the largest tensor op count in the
# replay trace's LAUNCH_METRIC records is taken for the GEMM; its tensor FLOPs,
# sm__ops_path_tensor_src_fp16.sum (or sm__ops_path_tensor_src_bf16_dst_fp32.sum where only that one
# is nonzero) taken as one FLOP per op, must lie within 2% of 2MNK (4096 divides cuBLAS's tiles, so
# no padded work is counted). Value, expected and ratio are printed, the ratio named (0.5 would mean
# an op is a multiply-add). No replayed launch with tensor work fails the test, with what the
# recorder and the replay said of the GEMM-looking captures: a cuBLAS kernel the recorder could not
# capture, or the replay could not run or calls unsupported ("not replayable"), is a finding, not a
# reason to skip. `gpuanalyze ceiling` on the replay trace is printed, for information only.
. "$(dirname "$0")/lib.sh"
GT=$B/gputrace
export GPUTRACE_QUIET=1
command -v python3 >/dev/null 2>&1 || skip "no python3"
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || skip "no PyTorch with CUDA"
N=4096

cat > gemm.py <<'EOF'
import sys, torch
n = int(sys.argv[1])
torch.manual_seed(0)
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
for _ in range(3):
    c = torch.mm(a, b)
torch.cuda.synchronize()
print("gemm ok: torch", torch.__version__, "cuda", torch.version.cuda, "c[0,0] =", float(c[0, 0]))
EOF
check "record torch.mm with --shadow" "$GT" record -q --force -o g.gtrace --shadow '*' --shadow-max 1 -- python3 gemm.py $N
"$GT" replay --list g.gtrace > list.txt 2>&1
sed 's/^/    /' list.txt
"$GA" info g.gtrace 2>&1 | grep -i 'capture' | sed 's/^/    /'
"$GT" replay --force -o g.replay.gtrace -n 3 --metrics compute g.gtrace > replay.txt 2>&1; rc=$?
sed 's/^/    /' replay.txt
echo "  (gputrace replay --metrics compute: exit $rc; other kernels' verdicts do not decide this test)"
cp g.gtrace g.replay.gtrace "$KEEP/" 2>/dev/null
cp replay.txt "$KEEP/torch_gemm.replay.txt" 2>/dev/null
"$GA" dump --format jsonl --type launch_metric g.replay.gtrace > lm.jsonl 2> dump.err ||
	{ echo "  FAIL gpuanalyze dump of the replay trace: $(cat dump.err)"; fail=1; }

python3 - lm.jsonl list.txt replay.txt $N <<'PY' || fail=1
import json, re, sys
n = int(sys.argv[4])
want = 2 * n * n * n
F16, BF16 = "sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"
HMMA, GMMA = "sm__inst_executed_pipe_tensor_op_hmma.sum", "sm__inst_executed_pipe_tensor_op_gmma.sum"
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
launches, times = {}, {}  # (correlation id, mangled name): {metric: value}, its kernel record's times
for r in rows:
    key = (r.get("correlation_id"), r["name"])
    launches.setdefault(key, {})[r["metric"]] = r["value"]
    times[key] = (r["start"], r["end"], r["flags"])
capture_of = {}  # mangled name -> capture id, from `gputrace replay --list`
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) >= 7 and w[0].isdigit():
        capture_of[w[-1]] = w[0]
verdict, title, cur = {}, {}, None  # capture id -> verdict line, header line
for line in open(sys.argv[3]):
    mo = re.match(r"capture (\d+): (.*)", line)
    if mo:
        cur = mo.group(1)
        title[cur] = mo.group(2).strip()
    elif cur and line.startswith("  verdict: "):
        verdict[cur] = line[len("  verdict: "):].strip()
gemmish = re.compile(r"gemm|nvjet|xmma|cutlass|cublas|sm90_|sm80_|ampere_|hmma|gmma", re.I)
def v(m, name): return m.get(name, 0.0)
def score(m): return (max(v(m, F16), v(m, BF16)), v(m, HMMA) + v(m, GMMA))  # ops, else instructions
best = max(launches.items(), key=lambda kv: score(kv[1]), default=None)
if best is None or max(score(best[1])) <= 0:
    print("  FAIL no replayed launch shows tensor-core work: cuBLAS's GEMM was not captured, or its capture "
          "was not replayed under the profiler (%d launches with LAUNCH_METRIC records)" % len(launches))
    looks = [c for c in title if gemmish.search(title[c])]
    if not looks:
        print("       no capture's kernel name looks like a GEMM: the recorder did not capture cuBLAS's kernel "
              "(see the capture lines of gpuanalyze info above)")
    for c in looks:
        vd = verdict.get(c, "(no verdict line)")
        if vd.startswith("not replayable"):
            print("       the replay reports capture %s (%s) as unsupported: %s" % (c, title[c], vd))
        else:
            print("       capture %s (%s): %s" % (c, title[c], vd))
    sys.exit(1)
(corr, name), m = best
cap = capture_of.get(name)
print("       the GEMM: %s (capture %s, correlation id %s)" % (name, cap or "?", corr))
print("       its replay verdict: %s" % verdict.get(cap, "(not found in the replay's output)"))
for metric in sorted(m):
    print("         %-72s %.6g" % (metric, m[metric]))
metric = F16 if v(m, F16) > 0 else BF16 if v(m, BF16) > 0 else None
if metric is None:
    print("  FAIL neither %s nor %s is nonzero for the GEMM (%s), though it shows tensor instructions "
          "(HMMA %.0f, GMMA %.0f)" % (F16 if F16 in m else F16 + " (absent)", BF16 if BF16 in m else BF16 + " (absent)",
                                       name, v(m, HMMA), v(m, GMMA)))
    sys.exit(1)
ops = m[metric]
ratio = ops / want
if abs(ratio - 1) <= 0.02:
    meaning = "one FLOP per counted op"
elif abs(ratio - 0.5) <= 0.01:
    meaning = "CUPTI counts each multiply-add as ONE op (an FMA): FLOPs are 2 x this counter"
else:
    meaning = "neither one FLOP per op (1) nor one multiply-add per op (0.5)"
print("       %s: %.0f, expected 2MNK = %d, ratio %.4f: %s" % (metric, ops, want, ratio, meaning))
t = times[best[0]][1] - times[best[0]][0]
if times[best[0]][2]:
    print("       its records carry flags %d (1: no interval of its own, 2: the counters may miss part of it)" %
          times[best[0]][2])
elif t > 0:
    print("       the GEMM's replayed launch took %.1f us: %.1f TFLOP/s at 2MNK" % (t / 1e3, want / t / 1e3))
ok = abs(ops - want) <= 0.02 * want
print("  %s GEMM tensor FLOPs (%s) within 2%% of 2MNK: %.0f against %d (%+.3f%%)" %
      ("PASS" if ok else "FAIL", metric, ops, want, 100 * (ops - want) / want))
sys.exit(0 if ok else 1)
PY

"$GA" ceiling g.replay.gtrace > ceiling.txt 2>&1; rc=$?
echo "  gpuanalyze ceiling on the replay trace (information only; exit $rc):"
sed 's/^/    /' ceiling.txt
exit $fail
