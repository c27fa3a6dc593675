#!/bin/sh
# The recorder in an nvcc-built CUDA program (static cudart) on a machine without a driver, entered
# both ways: LD_PRELOAD=libgputrace.so and CUDA_INJECTION64_PATH=libgputrace.so. For each ending
# (return with 0 and 4, exit, _exit, abort, a real SIGSEGV, raise(SIGSEGV), SIGTERM) stdout is
# byte-identical to the bare run, stderr identical apart from "gputrace:" lines, the status the
# same. Under LD_PRELOAD there is exactly one "no CUDA driver" line; CUDA_INJECTION64_PATH alone is
# read only by libcuda, so without a driver the library is never even loaded: stderr is identical.
# Skipped (77) where nvcc is missing.
. tests/cli/progs/common.sh
need_lib
[ -x "$NVCC" ] || [ -x "$P/tests/progs/cuda_probe" ] || skip "skipped: no nvcc at $NVCC"
PROBE=$(prog cuda_probe) || fail "cannot build the CUDA test program with $NVCC"
if has_driver; then driver=1; else driver=0; fi

for ending in "0 return" "4 return" "5 exit" "6 _exit" "7 abort" "0 segv" "0 raise-segv" "0 sigterm"; do
	set -- $ending
	same_as_bare "cuda_probe $2 $1 (LD_PRELOAD)" "LD_PRELOAD=$LIB" "$PROBE" "$1" "$2"
	if [ $driver = 0 ]; then
		[ "$(gt_lines "$T/with.err")" = 1 ] ||
			fail "cuda_probe $2 (LD_PRELOAD): expected one gputrace: line: $(cat "$T/with.err")"
		grep -q '^gputrace: no CUDA driver (' "$T/with.err" ||
			fail "cuda_probe $2 (LD_PRELOAD): no 'no CUDA driver' line: $(cat "$T/with.err")"
		grep -q 'cudaErrorInsufficientDriver\|cudaErrorNoDevice' "$T/with.out" ||
			fail "cuda_probe did not report the missing driver: $(cat "$T/with.out")"
		no_traces "cuda_probe $2 (LD_PRELOAD)"
	fi
	note "cuda_probe $2 $1 under LD_PRELOAD: status $(cat "$T/with.rc"), output unchanged"

	same_as_bare "cuda_probe $2 $1 (CUDA_INJECTION64_PATH)" "CUDA_INJECTION64_PATH=$LIB" \
		"$PROBE" "$1" "$2"
	if [ $driver = 0 ]; then
		cmp -s "$T/bare.err" "$T/with.err" ||
			fail "cuda_probe $2 (CUDA_INJECTION64_PATH): stderr changed: $(cat "$T/with.err")"
		no_traces "cuda_probe $2 (CUDA_INJECTION64_PATH)"
	fi
	note "cuda_probe $2 $1 under CUDA_INJECTION64_PATH: status $(cat "$T/with.rc"), output unchanged"

	# Both at once (what a user who sets both gets): still unchanged, still one line.
	same_as_bare "cuda_probe $2 $1 (both)" "LD_PRELOAD=$LIB CUDA_INJECTION64_PATH=$LIB" \
		"$PROBE" "$1" "$2"
done

for pair in "4 return 4" "5 exit 5" "6 _exit 6" "7 abort 134" "0 segv 139" "0 raise-segv 139" \
            "0 sigterm 143"; do
	set -- $pair
	run with "LD_PRELOAD=$LIB" "$PROBE" "$1" "$2"
	[ "$(cat "$T/with.rc")" = "$3" ] || fail "cuda_probe $2: status $(cat "$T/with.rc"), expected $3"
done
note "statuses as expected"
exit 0
