#!/bin/sh
# Says whether the fuzz targets can be built and run here:
#   tests/fuzz/toolchain.sh      exit 0, or 1 with the reason on one line of standard output
# $FUZZ_CC (default clang) must link a libFuzzer target with AddressSanitizer and
# UndefinedBehaviorSanitizer, as run.sh and run_all.sh build them, and the result must run. It checks
# the compiler and its runtimes rather than packages, so that a clang installed any other way passes
# too. On Debian 12 they are the packages clang and libclang-rt-14-dev: clang only recommends the
# runtimes (libclang_rt.fuzzer-x86_64.a, libclang_rt.asan-x86_64.a, ...), and a machine that skips
# recommended packages has a clang that compiles but cannot link -fsanitize=fuzzer.
# Used by tests/deps.sh (to install what is missing) and tests/cli/test_fuzz_targets.sh (to skip
# with the reason).
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null 2>&1 || { echo "$CC is not installed"; exit 1; }
T=$(mktemp -d /tmp/gt_fuzzcc_XXXXXX) || { echo "cannot make a temporary directory"; exit 1; }
trap 'rm -rf "$T"' EXIT
cat >"$T/probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
EOF
if ! "$CC" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" >"$T/err" 2>&1; then
	echo "$CC cannot link a libFuzzer target with -fsanitize=fuzzer,address,undefined" \
		"(its fuzzer and sanitizer runtimes: libclang-rt-N-dev on Debian): $(grep -m 1 -i 'cannot find\|error' "$T/err")"
	exit 1
fi
if ! "$T/probe" -runs=1 >"$T/err" 2>&1; then
	echo "a libFuzzer target built by $CC does not run here: $(grep -m 1 -i 'cannot find\|error' "$T/err")"
	exit 1
fi
exit 0
