#!/bin/bash
# Every GPU test and benchmark, from an already built tree, on the GPU machine:
#   bash tests/gpu/run.sh [--no-bench]
# TESTS="counts torch" runs only tests/gpu/test_counts.sh and test_torch.sh (the session's GPU time
# is short: the whole set is split over two calls).
# Prints a table last; with $OUT set, leaves there the traces worth keeping and the logs (one tarball).
cd "$(dirname "$0")/../.." || exit 2
final=${OUT:-/tmp}
out=/tmp/gt-gpu-run
rm -rf "$out"
mkdir -p "$out"
export GT_GPU_KEEP=$out/keep
mkdir -p "$GT_GPU_KEEP"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pcie.link.gen.max,pcie.link.width.max --format=csv | tee "$out/gpu.txt"
results=""
for t in tests/gpu/test_*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "${TESTS:-}" ]; then
		case " $TESTS " in *" ${name#test_} "*) ;; *) continue ;; esac
	fi
	start=$(date +%s)
	bash "$t" > "$out/$name.log" 2>&1
	rc=$?
	cat "$out/$name.log"
	case $rc in 0) r=PASS ;; 77) r=SKIP ;; *) r=FAIL ;; esac
	results="$results$(printf '%-28s %s (%ss)' "$name" "$r" $(( $(date +%s) - start )))\n"
done
if [ "${1:-}" != "--no-bench" ]; then
	OUT=$out bash tests/gpu/overhead.sh "${ROUNDS:-5}" > "$out/overhead.txt" 2>&1
	tail -20 "$out/overhead.txt"
fi
printf '\n%b' "$results" | tee "$out/summary.txt"
# One tarball comes back (the device tool returns few files, 16 MiB each at most): files over 8 MiB
# (a recorded PyTorch trace is 120 MB) stay behind, named in big-files.txt, so that the kept traces
# worth committing as fixtures come back.
(cd "$out" && find . -type f -size +8M | sort > big-files.txt)
tar czf "$final/gpu-run.tgz" -C "$out" --exclude-from="$out/big-files.txt" . 2>/dev/null
if [ -s "$out/big-files.txt" ]; then
	echo "left out of gpu-run.tgz (over 8 MiB): $(tr '\n' ' ' < "$out/big-files.txt")"
fi
# The status is the tests': 1 when one failed (the line above used to decide it).
case "$results" in *" FAIL ("*) exit 1 ;; esac
exit 0
