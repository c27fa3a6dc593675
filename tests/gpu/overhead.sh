#!/bin/bash
# Overhead of recording, measured as ratios side by side in one run, alternating the modes in rounds
# so that drift of the machine hits every mode alike. Prints medians and spread (min..max over rounds).
#
#   bash tests/gpu/overhead.sh [ROUNDS]        (from the repository root, on a GPU machine)
#
# launch_storm (one thread, one stream, 4 kernel names; per-launch host time from its own rate line):
#   bare            no tool
#   floor           tests/gpu/cupti_floor.c: CUPTI kernel+memcpy activity, buffers discarded
#   gt:k+m          gputrace, kinds kernel,memcpy, no latency timestamps   (same work as the floor)
#   gt:k+m+lat      + queued/submitted latency timestamps
#   gt:k+m+rt       + runtime API records
#   gt:default      gputrace defaults
#   gt:default+drv  + driver API records
# splat_render (e2e per frame, median of its own timed frames), bare vs gt:default.
# PyTorch (tests/gpu/torch_workload.py, ms per training step), bare vs gt:default vs torch.profiler.
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
storm="$B/kernels/launch_storm --launches $N --threads 1 --streams 1 --kernels 4"

storm_mode() { # mode -> prints us/launch
	local mode=$1 line
	case $mode in
	bare) line=$($storm 2>>"$log" | grep '^rate') ;;
	floor) line=$(LD_PRELOAD=$B/tests/gpu/libcuptifloor.so $storm 2>>"$log" | grep '^rate') ;;
	gt:k+m) line=$(GPUTRACE_QUIET=1 GPUTRACE_ACTIVITIES=kernel,memcpy GPUTRACE_LATENCY=0 GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so $storm 2>>"$log" | grep '^rate') ;;
	gt:k+m+lat) line=$(GPUTRACE_QUIET=1 GPUTRACE_ACTIVITIES=kernel,memcpy GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so $storm 2>>"$log" | grep '^rate') ;;
	gt:k+m+rt) line=$(GPUTRACE_QUIET=1 GPUTRACE_ACTIVITIES=kernel,memcpy,runtime GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so $storm 2>>"$log" | grep '^rate') ;;
	gt:default) line=$(GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so $storm 2>>"$log" | grep '^rate') ;;
	gt:default+drv) line=$(GPUTRACE_QUIET=1 GPUTRACE_ACTIVITIES=+driver GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so $storm 2>>"$log" | grep '^rate') ;;
	esac
	rm -f t*.gtrace
	echo "$line" >> "$log"
	echo "$line" | sed -n 's/.*launches_per_s=\([0-9.e+]*\).*/\1/p' | awk '{ if ($1 > 0) printf "%.4f\n", 1e6 / $1; }'
}

modes="bare floor gt:k+m gt:k+m+lat gt:k+m+rt gt:default gt:default+drv"
res=$out/overhead.tsv
: > "$res"
for r in $(seq 1 "$rounds"); do
	for m in $modes; do
		v=$(storm_mode "$m")
		printf 'storm\t%s\t%s\t%s\n' "$m" "$r" "$v" >> "$res"
	done
	for m in bare gt:default; do
		if [ "$m" = bare ]; then
			v=$($B/kernels/splat_render --frames 60 --warmup 5 2>>"$log" | sed -n 's/.*e2e_ms_median=\([0-9.]*\).*/\1/p')
		else
			v=$(GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=s.gtrace LD_PRELOAD=$B/libgputrace.so $B/kernels/splat_render --frames 60 --warmup 5 2>>"$log" | sed -n 's/.*e2e_ms_median=\([0-9.]*\).*/\1/p')
			rm -f s*.gtrace
		fi
		printf 'splat\t%s\t%s\t%s\n' "$m" "$r" "$v" >> "$res"
	done
done
if [ "${SKIP_TORCH:-0}" != 1 ]; then
	for r in $(seq 1 3); do
		for m in bare gt:default profiler; do
			case $m in
			bare) v=$(python3 "$repo/tests/gpu/torch_workload.py" --steps 100 2>>"$log") ;;
			gt:default) v=$(GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=p.gtrace LD_PRELOAD=$B/libgputrace.so python3 "$repo/tests/gpu/torch_workload.py" --steps 100 2>>"$log"); rm -f p*.gtrace ;;
			profiler) v=$(python3 "$repo/tests/gpu/torch_workload.py" --steps 100 --timed-profiler 2>>"$log") ;;
			esac
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
print("workload  mode              median     min..max            vs bare   added")
for (w, m), v in data.items():
    b = med(w, 'bare')
    unit = 'us/launch' if w == 'storm' else 'ms'
    print(f"{w:8s}  {m:16s} {st.median(v):9.4f} {unit:9s} {min(v):.4f}..{max(v):.4f}  x{st.median(v)/b:6.3f}  {st.median(v)-b:+.4f}")
fb = med('storm', 'floor') - med('storm', 'bare')
gb = med('storm', 'gt:k+m') - med('storm', 'bare')
print(f"storm: added per launch: floor {fb:.4f} us, gputrace same kinds {gb:.4f} us, ratio {gb/fb if fb else float('nan'):.3f} (goal <= 1.10)")
PY
