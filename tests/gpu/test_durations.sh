#!/bin/bash
# Kernel durations in the trace agree with the renderer's own CUDA-event timings, and its NVTX frames
# with the renderer's own end-to-end wall times (tolerances and reasons: check_durations.py).
. "$(dirname "$0")/lib.sh"
"$B/gputrace" record -q -o "$KEEP/splat_render-timed.gtrace" -- "$B/kernels/splat_render" --frames 50 --warmup 5 \
	> "$KEEP/splat_render-timed.out" || { echo "  FAIL: splat_render failed"; exit 1; }
"$GA" dump "$KEEP/splat_render-timed.gtrace" --type kernel,nvtx --format csv > dump.csv
check "durations" python3 "$REPO/tests/gpu/check_durations.py" "$KEEP/splat_render-timed.out" dump.csv
exit $fail
