#!/bin/bash
# Recording cost on frameworks this project did not write: a launch-bound PyTorch
# Transformer step, a tiny-op loop, and CuPy (which launches through the driver API), measured side
# by side in one run, alternating the modes in rounds so that the machine's drift hits every mode
# alike. Prints medians with min..max, ratios to bare, the share of torch.profiler's added cost,
# API records per kernel, and whether windowed per-kernel medians agree with a full recording.
#
#   bash tests/gpu/overhead_frameworks.sh [ROUNDS] [KIND_ROUNDS]    (repository root, GPU machine)
#
# Modes ("gt:" = gputrace preloaded, GPUTRACE_* as shown):
#   bare          no tool
#   gt:default    the defaults (runtime and driver API: only the calls the analyses use)
#   gt:api-all    the defaults with every API call recorded (+api-all; the former defaults' cost)
#   gt:k+m        kernel,memcpy only: the floor of an activity tracer
#   gt:window     the defaults in windows of 100 ms every 1 s (GPUTRACE_WINDOW=100/1000: 10% duty)
#   gt:disabled   CUPTI attached with every kind switched off after a first 10 ms window
#                 (GPUTRACE_WINDOW=10/3600000): what CUPTI costs while disabled
#   profiler      torch.profiler (CPU + CUDA) around the timed loop, no gputrace (torch workloads)
#   floor         the least a CUPTI activity tracer can do (tests/gpu/cupti_floor.c: kernel and
#                 memcpy records into buffers it never reads), no gputrace
#   floor+sub     the same with a CUPTI subscriber and the resource callbacks, as gputrace has
#   gt:k+m-nosample  kernel,memcpy without the clock sampling thread (GPUTRACE_SAMPLE_MS=0)
#   gt:no-api     the defaults without the runtime and driver API kinds
#   gt:api-sel    kernel,memcpy and the API calls the analyses use (the defaults' selection)
# Each row gives wall time and the launching thread's CPU time (framework_workloads.py's cpu=): the
# second leaves out the time the VM spent elsewhere, the larger part of this machine's noise.
# MODES="bare floor ..." chooses the modes of the main rounds (default: the first seven above).
# and, KIND_ROUNDS rounds each, kernel,memcpy plus one more kind, to price each kind alone:
#   gt:+runtime gt:+driver gt:+runtime-all gt:+sync gt:+nvtx gt:+memory gt:+memset gt:+overhead
set -u
repo=$(pwd)
B=$repo/build
GA=$B/gpuanalyze
rounds=${1:-5}
kind_rounds=${2:-3}
out=${OUT:-/tmp/gt-out}
mkdir -p "$out"
work=$(mktemp -d)
cd "$work" || exit 1
log=$out/overhead_frameworks.log
res=$out/overhead_frameworks.tsv
: > "$log"
: > "$res"
W="$repo/tests/gpu/framework_workloads.py"
SECS=${SECONDS_PER_WORKLOAD:-1.5}

# run MODE ROUND: one process running every workload under MODE; rows into $res.
run() {
	local m=$1 r=$2 trace=$work/t-$1-$2.gtrace
	local gt="GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=$trace LD_PRELOAD=$B/libgputrace.so"
	local cmd="python3 $W --seconds $SECS"
	local o
	case $m in
	bare) o=$($cmd 2>>"$log") ;;
	profiler) o=$($cmd --profiler --only transformer,tinyop 2>>"$log") ;;
	gt:default) o=$(env $gt $cmd 2>>"$log") ;;
	gt:api-all) o=$(env $gt GPUTRACE_ACTIVITIES=+api-all $cmd 2>>"$log") ;;
	gt:k+m) o=$(env $gt GPUTRACE_ACTIVITIES=kernel,memcpy $cmd 2>>"$log") ;;
	gt:no-api) o=$(env $gt GPUTRACE_ACTIVITIES=-runtime,-driver $cmd 2>>"$log") ;;
	gt:api-sel) o=$(env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,runtime,driver $cmd 2>>"$log") ;;
	gt:window) o=$(env $gt GPUTRACE_WINDOW=100/1000 $cmd 2>>"$log") ;;
	gt:disabled) o=$(env $gt GPUTRACE_WINDOW=10/3600000 $cmd 2>>"$log") ;;
	gt:k+m-nosample) o=$(env $gt GPUTRACE_ACTIVITIES=kernel,memcpy GPUTRACE_SAMPLE_MS=0 $cmd 2>>"$log") ;;
	floor) o=$(env LD_PRELOAD=$B/tests/gpu/libcuptifloor.so $cmd 2>>"$log") ;;
	floor+sub) o=$(env CUPTI_FLOOR_SUBSCRIBE=1 LD_PRELOAD=$B/tests/gpu/libcuptifloor.so $cmd 2>>"$log") ;;
	gt:+runtime-all) o=$(env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,runtime,api-all $cmd 2>>"$log") ;;
	gt:+*) o=$(env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,${m#gt:+} $cmd 2>>"$log") ;;
	esac
	printf '%s %s\n%s\n' "$m" "$r" "$o" >> "$log"
	printf '%s\n' "$o" |
		sed -n 's/^workload=\([a-z]*\) unit=[^ ]* value=\([0-9.]*\).* cpu=\([0-9.]*\).*/\1 \2 \3/p' |
		while read -r w v c; do printf '%s\t%s\t%s\t%s\t%s\n' "$w" "$m" "$r" "$v" "$c" >> "$res"; done
	if [ -f "$trace" ]; then
		# Records per type, kept for the API-per-kernel column; the trace itself only where the
		# window comparison needs it.
		"$GA" info --format json "$trace" > "$work/info-$m-$r.json" 2>>"$log"
		case $m in gt:default|gt:window) ;; *) rm -f "$trace" ;; esac
	fi
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"
python3 -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__)' 2>&1 | tee -a "$out/gpu.txt"
for r in $(seq 1 "$rounds"); do
	for m in ${MODES:-bare gt:default gt:api-all gt:k+m gt:window gt:disabled profiler}; do run "$m" "$r"; done
done
for r in $(seq 1 "$kind_rounds"); do
	for m in bare gt:k+m gt:+runtime gt:+driver gt:+runtime-all gt:+sync gt:+nvtx gt:+memory gt:+memset gt:+overhead; do
		run "$m" "k$r"
	done
done

# Per-kernel medians of the first two full recordings and of the first windowed one.
for t in "$work"/t-gt:default-1.gtrace "$work"/t-gt:default-2.gtrace "$work"/t-gt:window-1.gtrace; do
	[ -f "$t" ] && "$GA" summary --format json "$t" > "$t.summary.json" 2>>"$log"
done
cp "$work"/info-*.json "$out/" 2>/dev/null

python3 - "$res" "$work" <<'PY'
import glob, json, os, sys, statistics as st
res, work = sys.argv[1], sys.argv[2]
rows = [l.rstrip('\n').split('\t') for l in open(res) if l.strip()]
data, cpu = {}, {}
for w, m, r, v, c in rows:
    kind = r.startswith('k')
    data.setdefault((w, m, kind), []).append(float(v))
    cpu.setdefault((w, m, kind), []).append(float(c))
def med(w, m, kind=False):
    v = data.get((w, m, kind))
    return st.median(v) if v else float('nan')
print("workload     mode              median  (min..max)              vs bare   added    n")
for (w, m, kind), v in sorted(data.items(), key=lambda x: (x[0][2], x[0][0])):
    b = med(w, 'bare', kind)
    print(f"{w:11s}  {m:16s} {st.median(v):8.4f}  ({min(v):.4f}..{max(v):.4f})  x{st.median(v)/b:6.3f}  {st.median(v)-b:+8.4f}  {len(v)}"
          + ("   [per-kind rounds]" if kind else ""))
print("launching thread's CPU time: median (min..max), vs bare")
for (w, m, kind), v in sorted(cpu.items(), key=lambda x: (x[0][2], x[0][0])):
    b = cpu.get((w, 'bare', kind))
    b = st.median(b) if b else float('nan')
    print(f"cpu {w:11s}  {m:16s} {st.median(v):8.4f}  ({min(v):.4f}..{max(v):.4f})  x{st.median(v)/b:6.3f}  {len(v)}"
          + ("   [per-kind rounds]" if kind else ""))
for w in ('transformer', 'tinyop'):
    b, p = med(w, 'bare'), med(w, 'profiler')
    for m in ('gt:default', 'gt:api-all', 'gt:k+m', 'gt:no-api', 'gt:api-sel', 'gt:k+m-nosample', 'gt:window', 'gt:disabled', 'floor', 'floor+sub'):
        g = med(w, m)
        if g != g:
            continue
        print(f"{w}: {m} adds {g-b:+.4f} = {(g-b)/(p-b) if p > b else float('nan'):.2f}x of torch.profiler's added {p-b:+.4f}")
# API records per kernel, from each trace's record counts.
def counts(path):
    return json.load(open(path))['traces'][0]['records_by_type']
for m in ('gt:default', 'gt:api-all', 'gt:window'):
    for f in sorted(glob.glob(os.path.join(work, f'info-{m}-1.json'))):
        try:
            c = counts(f)
            k, a = c.get('kernel', 0), c.get('api', 0)
            print(f"records {m}: {k} kernels, {a} API records: {a/k if k else float('nan'):.2f} per kernel; {c}")
        except Exception as e:  # noqa: BLE001
            print(f"records {m}: unreadable ({e})")
# Counts stay exact: the same workload (fixed iteration counts) gives the same kernels, copies and
# memsets whatever else is recorded.
seen = {}
for m in ('gt:k+m', 'gt:default', 'gt:api-all'):
    f = os.path.join(work, f'info-{m}-1.json')
    if os.path.exists(f):
        c = counts(f)
        # k+m records no memsets: kernels and copies are compared for every mode.
        seen[m] = (c.get('kernel', 0), c.get('memcpy', 0))
print("counts (kernel, memcpy), round 1:", seen,
      "EQUAL" if len(set(seen.values())) == 1 else "DIFFER")
# Windowed per-kernel medians against full recordings.
def medians(path):
    try:
        j = json.load(open(path))
    except Exception:  # noqa: BLE001
        return {}
    out = {}
    for k in j.get('kernels', []):
        if k.get('launches', 0) >= 20:
            out[k.get('name')] = k.get('median_ns')
    return out
a = medians(os.path.join(work, 't-gt:default-1.gtrace.summary.json'))
b = medians(os.path.join(work, 't-gt:default-2.gtrace.summary.json'))
wm = medians(os.path.join(work, 't-gt:window-1.gtrace.summary.json'))
common = [k for k in wm if k in a and k in b and a[k] and b[k]]
if common:
    full = sorted(abs(a[k] / b[k] - 1) for k in common)
    win = sorted(abs(wm[k] / a[k] - 1) for k in common)
    worst_full = full[-1]
    within = sum(1 for k in common if abs(wm[k] / a[k] - 1) <= max(worst_full, 0.02))
    print(f"window vs full: {len(common)} kernels with n >= 20 in both; |full1/full2 - 1| median {st.median(full):.4f} "
          f"max {worst_full:.4f}; |window/full1 - 1| median {st.median(win):.4f} max {win[-1]:.4f}; "
          f"{within} of {len(common)} within the full runs' worst spread (or 2%)")
else:
    print("window vs full: no kernel common to the summaries (see the log)")
PY
