#!/bin/bash
# Overhead of recording, measured as ratios side by side in one run, alternating the modes in rounds
# so that drift of the machine hits every mode alike. Prints medians and spread (min..max over rounds).
#
#   bash tests/gpu/overhead.sh [ROUNDS]        (from the repository root, on a GPU machine)
#
# Modes (each a set of environment variables; "gt:" = gputrace preloaded):
#   bare              no tool
#   floor             tests/gpu/cupti_floor.c: CUPTI kernel+memcpy activity, buffers discarded
#   gt:k+m            gputrace, kinds kernel,memcpy, no latency timestamps (the floor's work)
#   gt:k+m+lat        + queued/submitted latency timestamps
#   gt:k+m+rt         + runtime API records
#   gt:k+m+rt+sync    + synchronisation records
#   gt:k+m+rt+nvtx    + NVTX ranges (kernel,memcpy,runtime,nvtx)
#   gt:default        gputrace's defaults
#   gt:default+lat    defaults + latency timestamps
#   gt:default+drv    defaults + driver API records
# Workloads: launch_storm (one thread, one stream, 4 kernel names; host time per launch from its rate
# line), splat_render (end-to-end ms per frame, median of its 60 timed frames), and PyTorch
# (tests/gpu/torch_workload.py, ms per training step; bare vs gt:default vs torch.profiler).
set -u
repo=$(pwd)
B=$repo/build
rounds=${1:-5}
out=${OUT:-/tmp/gt-out}
mkdir -p "$out"
work=$(mktemp -d)
cd "$work" || exit 1
log=$out/overhead.log
: > "$log"
N=${STORM_LAUNCHES:-200000}

modes="bare floor gt:k+m gt:k+m+lat gt:k+m+rt gt:k+m+rt+sync gt:k+m+rt+nvtx gt:default gt:default+lat gt:default+drv"
# with MODE CMD...: runs CMD under MODE, stdout to stdout
with() {
	local m=$1; shift
	local gt="GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so"
	case $m in
	bare) "$@" ;;
	floor) env LD_PRELOAD="$B/tests/gpu/libcuptifloor.so" "$@" ;;
	gt:k+m) env $gt GPUTRACE_ACTIVITIES=kernel,memcpy GPUTRACE_LATENCY=0 "$@" ;;
	gt:k+m+lat) env $gt GPUTRACE_ACTIVITIES=kernel,memcpy GPUTRACE_LATENCY=1 "$@" ;;
	gt:k+m+rt) env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,runtime GPUTRACE_LATENCY=0 "$@" ;;
	gt:k+m+rt+sync) env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,runtime,sync GPUTRACE_LATENCY=0 "$@" ;;
	gt:k+m+rt+nvtx) env $gt GPUTRACE_ACTIVITIES=kernel,memcpy,runtime,nvtx GPUTRACE_LATENCY=0 "$@" ;;
	gt:default) env $gt "$@" ;;
	gt:default+lat) env $gt GPUTRACE_LATENCY=1 "$@" ;;
	gt:default+drv) env $gt GPUTRACE_ACTIVITIES=+driver "$@" ;;
	esac
	rm -f t*.gtrace
}

res=$out/overhead.tsv
: > "$res"
for r in $(seq 1 "$rounds"); do
	for m in $modes; do
		v=$(with "$m" "$B/kernels/launch_storm" --launches "$N" --threads 1 --streams 1 --kernels 4 2>>"$log" |
			tee -a "$log" | sed -n 's/^rate .*launches_per_s=\([0-9.e+]*\).*/\1/p' | awk '{ if ($1 > 0) printf "%.4f\n", 1e6 / $1; }')
		printf 'storm\t%s\t%s\t%s\n' "$m" "$r" "$v" >> "$res"
		v=$(with "$m" "$B/kernels/splat_render" --frames 60 --warmup 5 2>>"$log" |
			tee -a "$log" | sed -n 's/.*e2e_ms_median=\([0-9.]*\).*/\1/p')
		printf 'splat\t%s\t%s\t%s\n' "$m" "$r" "$v" >> "$res"
	done
done
if [ "${SKIP_TORCH:-0}" != 1 ]; then
	for r in $(seq 1 3); do
		for m in bare gt:default profiler; do
			if [ "$m" = profiler ]; then
				v=$(python3 "$repo/tests/gpu/torch_workload.py" --steps 100 --timed-profiler 2>>"$log")
			else
				v=$(with "$m" python3 "$repo/tests/gpu/torch_workload.py" --steps 100 2>>"$log")
			fi
			v=$(echo "$v" | sed -n 's/.*per_step_ms=\([0-9.]*\).*/\1/p' | head -1)
			printf 'torch\t%s\t%s\t%s\n' "$m" "$r" "$v" >> "$res"
		done
	done
fi
python3 - "$res" <<'PY'
import sys, statistics as st
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
data = {}
for w, m, r, v in rows:
    if v:
        data.setdefault((w, m), []).append(float(v))
def med(w, m):
    v = data.get((w, m))
    return st.median(v) if v else float('nan')
print("workload  mode              median               min..max          vs bare    added")
for (w, m), v in data.items():
    b = med(w, 'bare')
    unit = 'us/launch' if w == 'storm' else 'ms'
    print(f"{w:8s}  {m:16s} {st.median(v):9.4f} {unit:9s}  {min(v):.4f}..{max(v):.4f}  x{st.median(v)/b:6.3f}  {st.median(v)-b:+.4f}")
fb = med('storm', 'floor') - med('storm', 'bare')
gb = med('storm', 'gt:k+m') - med('storm', 'bare')
print(f"storm: added per launch: floor {fb:.4f} us, gputrace same kinds {gb:.4f} us, ratio {gb/fb if fb else float('nan'):.3f} (goal <= 1.10)")
print(f"splat: gputrace defaults slow a frame by {100*(med('splat','gt:default')/med('splat','bare')-1):.2f}% (goal <= 1%); the CUPTI floor by {100*(med('splat','floor')/med('splat','bare')-1):.2f}%")
PY
# The frameworks' rows of docs/MEASURED.md's tables (PyTorch, CuPy, windows, CUPTI detached): their own
# script, so that it can also run alone within one call of the lent machine.
cd "$repo" && OUT=$out bash tests/gpu/overhead_frameworks.sh "$rounds" "${KIND_ROUNDS:-2}"
