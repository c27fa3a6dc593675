#!/bin/bash
# gputrace peak's ceilings on the real GPU: the whole probe within 60 s; every ceiling line present
# (dram_read, dram_copy, dram_triad, l2_read, fp32_fma, fp64_fma, fp16_mma, bf16_mma) with its
# method and clocks; no measured figure above 105% of its theoretical one (a wrong count or rate
# would show there), device memory, FP32 and FP64 at least 60% of theirs, the tensor cores (mma.sync,
# not wgmma) at least 25%, L2 faster than device memory; the library GEMM's (fp16_gemm, bf16_gemm:
# cuBLAS, wgmma on sm_90) where the probe found cuBLAS, at least 50% of the theoretical rate and
# above mma.sync's, else its skip line shown; and `gpuanalyze info` shows them under the device of
# a trace recorded on the same GPU (matched by UUID).
. "$(dirname "$0")/lib.sh"
[ -x "$B/gputrace" ] && [ -x "$B/kernels/bwprobe" ] || skip "no gputrace or bwprobe in $B"

start=$(date +%s)
"$B/gputrace" peak -o "$WORK/peaks" > "$WORK/peak.out" 2> "$WORK/peak.err" ||
	{ echo "  FAIL gputrace peak exits $?"; cat "$WORK/peak.err"; exit 1; }
secs=$(( $(date +%s) - start ))
cp "$WORK/peaks" "$KEEP/peaks" 2>/dev/null
grep '^peak \|^detail \|^skip ' "$WORK/peak.out" | sed 's/^/    /'
echo "    gputrace peak: ${secs} s"
[ "$secs" -le 60 ] && echo "  PASS peak within 60 s" || { echo "  FAIL peak took ${secs} s"; fail=1; }

check "ceilings present and plausible" python3 - "$WORK/peaks" "$WORK/peak.out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
skipped = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith('skip ')]
got = {}
for l in lines:
    f = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
    got[f.get('kind')] = {k: v.strip('"') for k, v in f.items()}
bad = []
for k, lo in [('dram_read', .6), ('dram_copy', .6), ('dram_triad', .6), ('l2_read', None),
              ('fp32_fma', .6), ('fp64_fma', .6), ('fp16_mma', .25), ('bf16_mma', .25),
              ('fp16_gemm', .5), ('bf16_gemm', .5)]:
    f = got.get(k)
    if not f and k.endswith('_gemm') and any(f'kind={k} ' in l for l in skipped):
        print(f'{k}: not measured here: {[l for l in skipped if f"kind={k} " in l][0]}'); continue
    if not f:
        bad.append(f'{k}: missing'); continue
    unit = 'gflops' if k.startswith(('fp', 'bf')) else 'gbps'
    v, t = float(f[unit]), f['theory_' + unit]
    if not f.get('method') or f.get('clocks') not in ('nvml', 'attribute') or not f.get('sm_mhz'):
        bad.append(f'{k}: method or clocks missing')
    if t == 'unknown':
        print(f'{k}: {v:.1f} {unit}, theoretical unknown, clocks {f["sm_mhz"]}/{f["mem_mhz"]} MHz ({f["clocks"]})')
        if lo is not None:
            bad.append(f'{k}: theoretical unknown on this GPU')
        continue
    t = float(t)
    print(f'{k}: {v:.1f} {unit} = {100 * v / t:.1f}% of {t:.1f}, clocks {f["sm_mhz"]}/{f["mem_mhz"]} MHz ({f["clocks"]})')
    if v > 1.05 * t:
        bad.append(f'{k}: above its theoretical figure')
    if lo is not None and v < lo * t:
        bad.append(f'{k}: below {lo:.0%} of its theoretical figure')
if 'l2_read' in got and 'dram_read' in got and float(got['l2_read']['gbps']) <= float(got['dram_read']['gbps']):
    bad.append('l2_read not faster than dram_read')
for g, m in (('fp16_gemm', 'fp16_mma'), ('bf16_gemm', 'bf16_mma')):
    if g in got and m in got and float(got[g]['gflops']) <= float(got[m]['gflops']):
        print(f'note: {g} not above {m} on this GPU')
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY

# A trace of this GPU, and info's ceilings under its device.
GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$WORK/probe.gtrace" LD_PRELOAD="$B/libgputrace.so" \
	"$B/kernels/bwprobe" --no-ceilings --reps 1 --warmup 0 --bytes 1M > /dev/null 2> "$WORK/rec.err" ||
	{ echo "  FAIL recording bwprobe"; cat "$WORK/rec.err"; fail=1; }
"$GA" info --peaks "$WORK/peaks" "$WORK/probe.gtrace" > "$WORK/info.txt" 2>&1
stored=$(grep -c ' kind=\(dram\|l2\|fp\|bf\)' "$WORK/peaks")
check "info shows the $stored ceilings" sh -c "sed -n '/measured ceilings/,/records by type/p' '$WORK/info.txt'; \
	[ \$(grep -cE '^        (dram|l2|fp|bf)[a-z0-9_]* ' '$WORK/info.txt') = $stored ]"
exit $fail
