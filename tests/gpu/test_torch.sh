#!/bin/bash
# PyTorch, unmodified: traced by gputrace, compared with torch.profiler on the same workload run
# separately; then the collision case (torch.profiler inside a traced process) must be reported.
. "$(dirname "$0")/lib.sh"
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || skip "no PyTorch with CUDA"
W="$REPO/tests/gpu/torch_workload.py"
"$B/gputrace" record -q -o "$KEEP/torch_mlp.gtrace" -- python3 "$W" --steps 30 --nvtx > "$KEEP/torch_mlp.out" 2> torch.err ||
	{ echo "  FAIL: traced torch run failed"; cat torch.err; exit 1; }
python3 "$W" --steps 30 --profile prof.jsonl > prof.out 2> prof.err || { echo "  FAIL: profiled run failed"; cat prof.err; exit 1; }
"$GA" dump "$KEEP/torch_mlp.gtrace" --type kernel --format csv > k.csv
check "torch vs torch.profiler" python3 "$REPO/tests/gpu/check_torch.py" k.csv prof.jsonl 30 30
# Collision: the preload holds CUPTI; torch.profiler started later is refused, and we say so.
"$B/gputrace" record -q -o "$KEEP/torch_collide.gtrace" -- python3 "$W" --steps 5 --collide > collide.out 2> collide.err
grep -q '^gputrace: another CUPTI client in this process' collide.err &&
	"$GA" info "$KEEP/torch_collide.gtrace" | grep -q 'tracing.other_clients_refused' &&
	echo "  PASS collision reported on stderr and in the trace" ||
	{ echo "  FAIL collision not reported"; cat collide.err; fail=1; }
exit $fail
