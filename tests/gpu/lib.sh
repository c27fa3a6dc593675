# tests/gpu/lib.sh: shared set-up for the GPU test scripts (sourced, not run).
# Sets REPO, B (the plain build, where libgputrace.so and the CUDA programs are), GA (gpuanalyze),
# WORK (a scratch directory) and KEEP (where traces worth keeping go: $GT_GPU_KEEP, else WORK).
# Exits 77 (skipped) with the reason on its last line when there is no GPU to run on.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
in_repo() { case $1 in /*) echo "$1" ;; *) echo "$REPO/$1" ;; esac; } # a build folder may be absolute
B=$(in_repo "${GT_PLAIN_BUILD:-build}")
GA=$(in_repo "${GT_BUILD:-build}")/gpuanalyze
skip() { echo "skipped: $*"; exit 77; }
[ -f "$B/libgputrace.so" ] || skip "no $B/libgputrace.so (CUPTI headers missing at build time)"
[ -x "$B/kernels/splat_render" ] || skip "no CUDA programs in $B/kernels (nvcc missing at build time)"
command -v nvidia-smi >/dev/null 2>&1 || skip "no GPU: nvidia-smi not found"
nvidia-smi -L >/dev/null 2>&1 || skip "no GPU: nvidia-smi -L failed ($(nvidia-smi -L 2>&1 | head -1))"
WORK=$(mktemp -d)
KEEP=${GT_GPU_KEEP:-$WORK}
mkdir -p "$KEEP"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
fail=0
check() { # check NAME COMMAND...: runs, prints PASS/FAIL with the output indented
	local name=$1; shift
	local out; out=$("$@" 2>&1); local rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	if [ $rc -eq 0 ]; then echo "  PASS $name"; else echo "  FAIL $name (exit $rc)"; fail=1; fi
}
