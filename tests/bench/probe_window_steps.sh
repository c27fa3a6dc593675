#!/bin/bash
# Per-step view of windowed recording's cost: tests/bench/probe_window_steps.py bare, with
# each window setting of WINDOWS (default "100/1000": 100 ms of every 1 s), and with the defaults
# recording throughout, alternating, ROUNDS rounds of SECONDS each.
#   bash tests/bench/probe_window_steps.sh [ROUNDS] [SECONDS]      (repository root, GPU machine; exit 77 without one)
B=$PWD/build; P=$PWD/tests/bench/probe_window_steps.py
[ -f "$B/libgputrace.so" ] || { echo "probe_window_steps: skipped: $B/libgputrace.so missing (make)"; exit 77; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "probe_window_steps: skipped: no GPU (nvidia-smi not found)"; exit 77; }
rounds=${1:-2}; secs=${2:-4}
work=$(mktemp -d); cd "$work" || exit 1
for r in $(seq 1 "$rounds"); do
	for m in bare ${WINDOWS:-100/1000} default; do
		rm -f p.gtrace
		case $m in
		bare) e="" ;;
		default) e="LD_PRELOAD=$B/libgputrace.so" ;;
		*) e="GPUTRACE_WINDOW=$m LD_PRELOAD=$B/libgputrace.so" ;;
		esac
		echo "== $m round $r"
		env $e GPUTRACE_QUIET=1 GPUTRACE_OUTPUT=p.gtrace PYTHONPATH="${P%/*}" python3 "$P" --seconds "$secs" 2>&1
	done
done
rm -rf "$work"
