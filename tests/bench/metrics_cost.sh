#!/bin/bash
# The cost of GPUTRACE_METRICS=memory,compute, as ratios measured side by side: each round runs a
# workload under gputrace's defaults and then with counters sampled (at the default interval and
# at 100 us), in turn, the order reversed every other round (ABBA), so that drift of the machine
# hits every mode alike. Prints per workload and mode the median over rounds, min..max and the
# ratio to the defaults' median; then, paired by round, the geometric mean of each round's ratio to
# its own defaults with a 95% confidence interval (Student t on the log ratios) and the verdict
# against the goal (<= 1.05 at the default interval): shown, or not resolved with about how many
# rounds would resolve it at the spread seen. On a GPU machine, from the repository root, with the
# build in build/:
#
#   bash tests/bench/metrics_cost.sh [ROUNDS]
#
# MODES="default metrics" and WORKLOADS="transformer" run a subset (the defaults: every mode and
# workload), so that a short device call spends its rounds where the spread is widest;
# TRANSFORMER_SECONDS (1.5) times each Transformer run for that long, in TRANSFORMER_CHUNKS (10)
# synchronised chunks whose median is the run's figure; BUDGET_S (below) ends the run
# early rather than past a device call's limit. Timed as one window, the Transformer's paired log
# ratio spread by 0.14-0.18 (one sd) on the lent H100; as the median of 10 chunks, by 0.023, so
# that 14 rounds resolved 1.05x. Runs can be pooled afterwards, on any machine:
#
#   bash tests/bench/metrics_cost.sh --summary RUN1/metrics_cost.tsv RUN2/metrics_cost.tsv ...
#
# (each run's rounds stay paired within that run).
#
# Workloads: kernels/splat_render (end-to-end ms per frame, median of its timed frames) and, where
# PyTorch is installed, a 2-layer TransformerEncoder training step (tests/gpu/framework_workloads.py
# --only transformer, ms per step over 1.5 s, the median of 10 chunks) and
# tests/gpu/torch_workload.py (an MLP, ms per step).
set -u
# The summary of one run's rounds, or of several runs pooled (each run's rounds paired within it).
summarize() {
python3 - "$@" <<'PY'
import math, sys, statistics as st

# Two-sided 95% Student t quantiles by degrees of freedom (1..30); beyond, the normal's 1.96.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]
GOAL = 1.05

data = {}    # (workload, mode) -> [value per round]
rounds = {}  # (workload, mode) -> {(run, round): value}
for run, path in enumerate(sys.argv[1:]):
    for line in open(path):
        r, w, m, v = line.rstrip("\n").split("\t")
        if v:
            data.setdefault((w, m), []).append(float(v))
            rounds.setdefault((w, m), {})[(run, r)] = float(v)
print("workload         mode           median ms   min..max            vs default (ratio of medians)")
for (w, m), v in sorted(data.items()):
    base = st.median(data.get((w, "default"), [float("nan")]))
    print(f"{w:15s}  {m:13s}  {st.median(v):9.4f}   {min(v):.4f}..{max(v):.4f}   x{st.median(v) / base:.3f}")
print()
print("paired by round (each mode over the same round's defaults): geometric mean of the ratios,")
print(f"its 95% confidence interval (Student t on the log ratios), and the verdict against x{GOAL}")
for (w, m), by in sorted(rounds.items()):
    if m == "default" or (w, "default") not in rounds:
        continue
    base = rounds[(w, "default")]
    logs = [math.log(by[r] / base[r]) for r in sorted(by) if r in base and base[r] > 0 and by[r] > 0]
    n = len(logs)
    if n < 2:
        print(f"{w:15s}  {m:13s}  {n} paired round(s): no interval")
        continue
    mean, sd = st.mean(logs), st.stdev(logs)
    t = T95[n - 2] if n - 2 < len(T95) else 1.96
    lo, hi = math.exp(mean - t * sd / math.sqrt(n)), math.exp(mean + t * sd / math.sqrt(n))
    if hi <= GOAL:
        verdict = f"at most x{GOAL}: shown"
    elif lo > GOAL:
        verdict = f"over x{GOAL}: shown"
    elif mean < math.log(GOAL) and sd > 0:
        need = max(n + 1, math.ceil((1.96 * sd / (math.log(GOAL) - mean)) ** 2))
        verdict = f"not resolved: about {need} rounds in all would be at this spread"
    else:
        verdict = "not resolved"
    print(f"{w:15s}  {m:13s}  x{math.exp(mean):.3f}  95% CI x{lo:.3f}..x{hi:.3f}  over {n} rounds "
          f"(sd of log ratios {sd:.3f}): {verdict}")
PY
}
if [ "${1:-}" = --summary ]; then
	shift
	[ $# -gt 0 ] || { echo "metrics_cost.sh: --summary needs the metrics_cost.tsv files of earlier runs" >&2; exit 2; }
	summary_only=1
else
	summary_only=0
fi
repo=$(pwd)
if [ $summary_only = 1 ]; then
	summarize "$@"
	exit
fi
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
reversed=$(echo "$modes" | tr ' ' '\n' | sed '/^$/d' | tac | tr '\n' ' ')
# BUDGET_S: start no round that would end past this many seconds from here (the longest round so
# far as the guide), so that a device call's time limit never cuts off the summary.
t0=$(date +%s)
longest=0
for r in $(seq 1 "$rounds"); do
	now=$(date +%s)
	if [ -n "${BUDGET_S:-}" ] && [ $((now - t0 + longest)) -gt "$BUDGET_S" ]; then
		echo "metrics_cost.sh: stopping after $((r - 1)) rounds: another would pass BUDGET_S=$BUDGET_S s" >&2
		break
	fi
	order=$modes
	[ $((r % 2)) = 0 ] && order=$reversed
	for m in $order; do
		if wants splat; then
			v=$(with "$m" "$B/kernels/splat_render" --frames 60 --warmup 5 2>>"$log" |
				tee -a "$log" | sed -n 's/.*e2e_ms_median=\([0-9.]*\).*/\1/p')
			printf '%s\tsplat\t%s\t%s\n' "$r" "$m" "$v" >> "$res"
		fi
		if [ $have_torch = 1 ] && wants torch; then
			v=$(with "$m" python3 "$repo/tests/gpu/torch_workload.py" --steps 100 2>>"$log" |
				tee -a "$log" | sed -n 's/.*per_step_ms=\([0-9.]*\).*/\1/p' | head -1)
			printf '%s\ttorch\t%s\t%s\n' "$r" "$m" "$v" >> "$res"
		fi
		if [ $have_torch = 1 ] && wants transformer; then
			line=$(with "$m" python3 "$repo/tests/gpu/framework_workloads.py" --only transformer \
				--seconds "${TRANSFORMER_SECONDS:-1.5}" --chunks "${TRANSFORMER_CHUNKS:-10}" \
				2>>"$log" | tee -a "$log" |
				grep '^workload=transformer ' | head -1)
			v=$(echo "$line" | sed -n 's/.* value=\([0-9.]*\).*/\1/p')
			cpu=$(echo "$line" | sed -n 's/.* cpu=\([0-9.]*\).*/\1/p')
			printf '%s\ttransformer\t%s\t%s\n' "$r" "$m" "$v" >> "$res"
			# The launching thread's CPU time per step: what a tracer adds on the program's
			# thread, without the time the VM ran something else.
			printf '%s\ttransformer_cpu\t%s\t%s\n' "$r" "$m" "$cpu" >> "$res"
		fi
	done
	# Each round's figures as they stand, so that a run cut off by its time limit still says something.
	cp "$res" "$out/metrics_cost.tsv" 2>/dev/null
	took=$(($(date +%s) - now))
	[ "$took" -gt "$longest" ] && longest=$took
done
summarize "$res"
