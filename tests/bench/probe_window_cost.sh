#!/bin/bash
# Quick side-by-side cost of windowed recording (CUPTI detached between windows) on PyTorch:
# bare, windows of 100 ms every 1 s, CUPTI detached for good after a 10 ms window, and the
# defaults, alternating, ROUNDS rounds; prints each run's figures and records by type.
#   bash tests/bench/probe_window_cost.sh [ROUNDS]      (repository root, GPU machine; exit 77 without one)
# The full table is tests/gpu/overhead_frameworks.sh; this is its windowed part, short enough
# for one call of the lent machine.
B=$PWD/build; W=$PWD/tests/gpu/framework_workloads.py
[ -f "$B/libgputrace.so" ] || { echo "probe_window_cost: skipped: $B/libgputrace.so missing (make)"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "probe_window_cost: skipped: no GPU (nvidia-smi not found)"; exit 77; }
rounds=${1:-2}
work=$(mktemp -d); cd "$work" || exit 1
for r in $(seq 1 "$rounds"); do
	for m in bare window detached default; do
		rm -f p.gtrace
		case $m in
		bare) e="" ;;
		window) e="GPUTRACE_WINDOW=100/1000 LD_PRELOAD=$B/libgputrace.so" ;;
		detached) e="GPUTRACE_WINDOW=10/3600000 LD_PRELOAD=$B/libgputrace.so" ;;
		default) e="LD_PRELOAD=$B/libgputrace.so" ;;
		esac
		env $e GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=p.gtrace python3 "$W" --only transformer,tinyop --seconds 1.5 2>&1 |
			sed -n "s/^workload=\([a-z]*\) unit=\([^ ]*\) value=\([0-9.]*\).*/$m $r \1 \3 \2/p"
		[ -f p.gtrace ] && "$B/gpuanalyze" info --format json p.gtrace | python3 -c 'import json,sys; c=json.load(sys.stdin)["traces"][0]["records_by_type"]; print("   records", {k: c.get(k, 0) for k in ("kernel", "api", "process")})'
	done
done
rm -rf "$work"
