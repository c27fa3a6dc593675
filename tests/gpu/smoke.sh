#!/bin/bash
# First contact with the GPU machine: record each kernels/ program and a PyTorch workload, and bring
# the traces back. Run from the repository root on the device: bash tests/gpu/smoke.sh
set -u
repo=$(pwd)
B=$repo/build
out=${OUT:-/tmp/gt-out}
mkdir -p "$out"
work=$(mktemp -d)
cd "$work" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1 | tail -2
step() { local name=$1; shift; local t0=$(date +%s.%N)
  "$@" > "$out/$name.out" 2> "$out/$name.err"; local rc=$?
  printf '== %s rc=%d (%.1fs)\n' "$name" $rc "$(echo "$(date +%s.%N) - $t0" | bc)"
  grep -h -E '^tally|^summary|^torch|gputrace:|error|Error' "$out/$name.out" "$out/$name.err" | head -8; }
step splat "$B/gputrace" record -o splat.gtrace -- "$B/kernels/splat_render" --frames 10
step storm "$B/gputrace" record -o storm.gtrace -- "$B/kernels/launch_storm" --launches 20000
step transfers "$B/gputrace" record -o transfers.gtrace -- "$B/kernels/transfers" --reps 3
step graph "$B/gputrace" record -o graph.gtrace -- "$B/kernels/graph_launch"
step inject env CUDA_INJECTION64_PATH="$B/libgputrace.so" GPUTRACE_OUTPUT=inject.gtrace "$B/kernels/launch_storm" --launches 1000
step torch "$B/gputrace" record -o torch.gtrace -- python3 "$repo/tests/gpu/torch_workload.py" --steps 20 --nvtx
step collide "$B/gputrace" record -o collide.gtrace -- python3 "$repo/tests/gpu/torch_workload.py" --steps 5 --collide
step bare_storm "$B/kernels/launch_storm" --launches 20000
for f in *.gtrace; do echo "-- $f"; "$B/tools/gt_count" "$f" 2>&1 | head -20; done
tar czf "$out/traces.tgz" *.gtrace
ls -la "$out"
