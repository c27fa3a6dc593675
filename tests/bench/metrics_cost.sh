#!/bin/bash
# The cost of GPUTRACE_METRICS=memory,compute, as ratios measured side by side: each round runs a
# workload under gputrace's defaults and then with counters sampled (at the default interval and
# at 100 us), in turn, so that drift of the machine hits every mode alike. Prints per workload
# and mode the median over rounds, min..max, and the ratio to the defaults' median (goal: <= 1.05
# at the default interval). On a GPU machine, from the repository root, with the build in build/:
#
#   bash tests/bench/metrics_cost.sh [ROUNDS]
#
# MODES="default metrics" and WORKLOADS="transformer" run a subset (the defaults: every mode and
# workload), so that a short device call spends its rounds where the spread is widest.
#
# Workloads: kernels/splat_render (end-to-end ms per frame, median of its timed frames) and, where
# PyTorch is installed, a 2-layer TransformerEncoder training step (tests/gpu/framework_workloads.py
# --only transformer, ms per step over 1.5 s) and tests/gpu/torch_workload.py (an MLP, ms per step).
set -u
repo=$(pwd)
B=$repo/build
rounds=${1:-5}
out=${OUT:-/tmp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
log=$out/metrics_cost.log
: > "$log"
res=$work/cost.tsv
: > "$res"
with() {
	local m=$1; shift
	local gt="GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=t.gtrace LD_PRELOAD=$B/libgputrace.so"
	case $m in
	default) env $gt "$@" ;;
	metrics) env $gt GPUTRACE_METRICS=memory,compute "$@" ;;
	metrics100us) env $gt GPUTRACE_METRICS=memory,compute \
		GPUTRACE_METRICS_US=100 "$@" ;;
	esac
	rm -f t*.gtrace
}
have_torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && have_torch=1
modes=${MODES:-default metrics metrics100us}
workloads=${WORKLOADS:-splat torch transformer}
wants() { case " $workloads " in *" $1 "*) return 0 ;; esac; return 1; }
for r in $(seq 1 "$rounds"); do
	for m in $modes; do
		if wants splat; then
			v=$(with "$m" "$B/kernels/splat_render" --frames 60 --warmup 5 2>>"$log" |
				tee -a "$log" | sed -n 's/.*e2e_ms_median=\([0-9.]*\).*/\1/p')
			printf 'splat\t%s\t%s\n' "$m" "$v" >> "$res"
		fi
		if [ $have_torch = 1 ] && wants torch; then
			v=$(with "$m" python3 "$repo/tests/gpu/torch_workload.py" --steps 100 2>>"$log" |
				tee -a "$log" | sed -n 's/.*per_step_ms=\([0-9.]*\).*/\1/p' | head -1)
			printf 'torch\t%s\t%s\n' "$m" "$v" >> "$res"
		fi
		if [ $have_torch = 1 ] && wants transformer; then
			v=$(with "$m" python3 "$repo/tests/gpu/framework_workloads.py" --only transformer 2>>"$log" |
				tee -a "$log" | sed -n 's/^workload=transformer .*value=\([0-9.]*\).*/\1/p' | head -1)
			printf 'transformer\t%s\t%s\n' "$m" "$v" >> "$res"
		fi
	done
	# Each round's figures as they stand, so that a run cut off by its time limit still says something.
	cp "$res" "$out/metrics_cost.tsv" 2>/dev/null
done
python3 - "$res" <<'PY'
import sys, statistics as st
data = {}
for line in open(sys.argv[1]):
    w, m, v = line.rstrip("\n").split("\t")
    if v:
        data.setdefault((w, m), []).append(float(v))
print("workload     mode           median ms   min..max            vs default")
for (w, m), v in sorted(data.items()):
    base = st.median(data.get((w, "default"), [float("nan")]))
    print(f"{w:11s}  {m:13s}  {st.median(v):9.4f}   {min(v):.4f}..{max(v):.4f}   x{st.median(v) / base:.3f}")
PY
