#!/bin/sh
# Builds every fuzz target (tests/fuzz/fuzz_*.c: the reader's, one per gpuanalyze subcommand's
# input path, fuzz_analyze_*.c, replay's capture loader, fuzz_capture_set.c, and the readers of its
# report, fuzz_replay_*.c) and runs them, one
# table row per target:
#
#   tests/fuzz/run_all.sh [--strict] [--runs N] [--time SECONDS] [--jobs J] [TARGET...]
#   tests/fuzz/run_all.sh [--strict] --regress [TARGET...]
#   tests/fuzz/run_all.sh --prebuilt ...   (the targets `make fuzz` built into FB: no build here)
#
# Fuzzing (the default, --time 60): each target runs for N executions or SECONDS (whichever ends
# first when both are given), J at a time (default: the number of CPUs), on its working corpus
# FB/corpus/NAME, seeded from tests/fuzz/corpus/NAME and, for the analyzer's targets, from the
# reader's corpora too (tests/fuzz/corpus/reader: whole traces; tests/fuzz/corpus/chunks:
# decompressed chunk payloads; fuzz_analyze.h takes both forms). Crashing, hanging (-timeout=10 s)
# and leaking inputs land in FB/crashes/NAME/ (those of earlier runs moved to FB/crashes/NAME/old/).
# The table says, per target, the executions, the rate, the coverage and the crash files; the last
# line the total. Exit 1 when any target found anything, 2 when one cannot be built.
#
# --regress runs every target once over its seeds and the known-bad traces of tests/data/bad/
# (the fuzzers' findings among them, crash-*), without fuzzing: a few seconds, for a check after an
# analyzer change.
#
# Build: the libraries are compiled here with clang, -fsanitize=fuzzer-no-link,address,undefined,
# file by file (J at a time) into FB/obj (FB: $FUZZ_BUILD, default build/fuzz-analyze, apart from
# run.sh's build/fuzz so both can run at once), once for all targets. A source file that does not
# compile (another developer's work in progress) is left out with a line; a target that then cannot
# link is reported "not built" and counts as a build failure. --strict (what make check runs,
# tests/cli/test_fuzz_targets.sh) leaves nothing out: a source that does not compile fails the run
# (exit 2), since a library missing a file can still link every target that does not call it.
# Environment: FUZZ_CC (clang), FUZZ_FLAGS (extra libFuzzer flags), FUZZ_SAN (the sanitizer flags,
# default ASan and UBSan; campaign.sh also builds a UBSan-only copy, about 3 times faster).
set -u
cd "$(dirname "$0")/../.." || exit 2
CC=${FUZZ_CC:-clang}
FB=${FUZZ_BUILD:-build/fuzz-analyze}
SAN=${FUZZ_SAN:-"-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"}
CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -I. $SAN"
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include

mode=fuzz
strict=0
prebuilt=0
runs=""
secs=""
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	--regress) mode=regress; shift ;;
	--strict) strict=1; shift ;;
	--prebuilt) prebuilt=1; shift ;;
	--runs) runs="-runs=$2"; shift 2 ;;
	--time) secs="-max_total_time=$2"; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-h|--help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) echo "run_all.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -z "$runs$secs" ] && secs="-max_total_time=60"
limit="$runs $secs"
if [ $# -gt 0 ]; then
	targets="$*"
else
	targets=$(ls tests/fuzz/fuzz_*.c | sed 's,.*/fuzz_\(.*\)\.c,\1,' | grep -v '^common$')
fi
mkdir -p "$FB/obj" "$FB/lib" || exit 2

# ---- libraries ------------------------------------------------------------------------------
obj_of() { echo "$FB/obj/$(echo "$1" | tr '/' '_' | sed 's/\.c$/.o/')"; }
# compile SRC: its object, or no object and the compiler's errors in OBJ.err.
compile() {
	obj=$(obj_of "$1")
	if $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$1" -o "$obj" 2>"$obj.err"; then
		rm -f "$obj.err"
	else
		rm -f "$obj"
	fi
}
# archive NAME SOURCES...: compiles what changed, J at a time, and archives what compiled.
archive() {
	name=$1
	shift
	srcs=$*
	cpids=""
	for src in $srcs; do
		obj=$(obj_of "$src")
		if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find traces analyze common -name '*.h' -newer "$obj" 2>/dev/null | head -n 1)" ]; then
			# shellcheck disable=SC2086
			set -- $cpids
			if [ $# -ge "$jobs" ]; then
				wait "$1"
				shift
			fi
			compile "$src" &
			cpids="$* $!"
		fi
	done
	wait
	objs=""
	for src in $srcs; do
		obj=$(obj_of "$src")
		if [ -f "$obj" ]; then
			objs="$objs $obj"
		elif [ $strict = 1 ]; then
			echo "run_all.sh: $src does not compile:" >&2
			head -n 20 "$obj.err" >&2
			build_failed=1
		else
			echo "run_all.sh: $src does not compile; left out of $name ($(head -n 1 "$obj.err"))" >&2
		fi
	done
	rm -f "$FB/lib/$name"
	# shellcheck disable=SC2086
	ar rcs "$FB/lib/$name" $objs || exit 2
}
build_failed=0
built=""
unbuilt=""
if [ $prebuilt = 1 ]; then
	for t in $targets; do
		if [ -x "$FB/fuzz_$t" ]; then built="$built $t"; else unbuilt="$unbuilt $t"; fi
	done
	[ -f "$FB/hostile_refs.so" ] || { echo "run_all.sh: --prebuilt: no $FB/hostile_refs.so (make fuzz)" >&2; exit 2; }
else
# common/ goes into libgttrace.a, as in the Makefile (common/module.mk).
archive libgttrace.a traces/*.c common/*.c
archive libgtanalyze.a $(find analyze -name '*.c' | LC_ALL=C sort | grep -v '/gpuanalyze\.c$')
[ $build_failed = 1 ] && { echo "run_all.sh: --strict: the libraries do not compile" >&2; exit 2; }
# The hostile reference library that fuzz_structured loads (beside it) for shadow and calibrate.
# Not instrumented: it stands for a user's library, and what it does itself is not under test.
$CC -std=c11 -Wall -Wextra -Werror -O1 -I. -shared -fPIC -o "$FB/hostile_refs.so" \
	tests/fuzz/hostile_refs.c 2>"$FB/hostile_refs.build.log" ||
	{ echo "run_all.sh: tests/fuzz/hostile_refs.c does not compile:" >&2; head -n 20 "$FB/hostile_refs.build.log" >&2; exit 2; }

# ---- targets --------------------------------------------------------------------------------
for t in $targets; do
	src=tests/fuzz/fuzz_$t.c
	[ -f "$src" ] || { echo "run_all.sh: no target $src" >&2; exit 2; }
	libs=$(sed -n 's/.*FUZZ_LIBS: *\(.*\)$/\1/p' "$src" | sed 's, *\*/$,,' | head -n 1)
	[ -n "$libs" ] || libs=libgttrace.a
	link=""
	for l in $libs; do
		case $l in
		*.a) link="$link $FB/lib/$l" ;;
		*) link="$link $l" ;;
		esac
	done
	# shellcheck disable=SC2086
	if $CC $CFLAGS -I"$CUDA_INC" -fsanitize=fuzzer -o "$FB/fuzz_$t" "$src" tests/fuzz/fuzz_common.c \
		$link -lzstd -lz -lm -lpthread 2>"$FB/fuzz_$t.build.log"; then
		built="$built $t"
	else
		echo "run_all.sh: fuzz_$t not built: $(grep -m1 -i 'error' "$FB/fuzz_$t.build.log")" >&2
		unbuilt="$unbuilt $t"
	fi
done
fi

# ---- seeds ----------------------------------------------------------------------------------
# The analyzer's targets take whole traces and chunk payloads; diff takes two of them joined by
# "GTSECOND", and so do the replay report's targets (a run trace, then a replay trace). Their seeds
# are made once into FB/seeds/NAME.
seeds_of() {
	t=$1
	dirs=""
	[ -d "tests/fuzz/corpus/$t" ] && dirs="tests/fuzz/corpus/$t"
	case $t in
	analyze_bandwidth*)
		# A trace, then a peaks file (gputrace peak's lines) for the device the H200 samples name.
		s=$FB/seeds/$t
		if [ ! -d "$s" ]; then
			mkdir -p "$s"
			for a in tests/fuzz/corpus/reader/h200-*.gtrace tests/fuzz/corpus/reader/renderer_small.gtrace; do
				{
					cat "$a"
					printf GTSECOND
					for k in htod_pinned:55.41 dtoh_pinned:54.9 htod_pageable:7.02 dtoh_pageable:6.5 dtod:2040.5; do
						printf 'name="NVIDIA H200" uuid=GPU-3cb58ead-f3b7-3bf0-a500-90c7814a66ff cc=9.0 kind=%s gbps=%s bytes=268435456 reps=7\n' \
							"${k%%:*}" "${k#*:}"
					done
					# and two ceiling lines, which bandwidth parses and skips
					printf 'name="NVIDIA H200" uuid=GPU-3cb58ead-f3b7-3bf0-a500-90c7814a66ff kind=dram_read gbps=4403.10 theory_gbps=4814.30 bytes=2147483648 reps=7 sm_mhz=1980 mem_mhz=3201 clocks=nvml method="stream read"\n'
					printf 'name="NVIDIA H200" uuid=GPU-3cb58ead-f3b7-3bf0-a500-90c7814a66ff kind=fp16_mma gflops=662000.00 theory_gflops=unknown flops=2267742732288 reps=7 clocks=attribute\n'
				} >"$s/$(basename "$a" .gtrace).peaks"
			done
		fi
		dirs="$dirs $s tests/fuzz/corpus/reader tests/fuzz/corpus/chunks" ;;
	analyze_diff*|analyze_ranks*|analyze_report*|replay_*)
		s=$FB/seeds/$t
		if [ ! -d "$s" ]; then
			mkdir -p "$s"
			i=0
			for a in tests/fuzz/corpus/reader/*.gtrace; do
				for b in tests/fuzz/corpus/reader/steady.gtrace tests/fuzz/corpus/reader/renderer_small.gtrace "$a"; do
					i=$((i + 1))
					{ cat "$a"; printf GTSECOND; cat "$b"; } >"$s/pair$i"
				done
			done
			for f in tests/fuzz/corpus/chunks/*.raw; do
				i=$((i + 1))
				{ cat "$f"; printf GTSECOND; cat "$f"; } >"$s/rawpair$i"
			done
		fi
		dirs="$dirs $s" ;;
	capture_set)
		# The loader of gputrace replay: the shadow target's traces with captures, and the
		# analyzer targets' traces and chunk payloads (it takes their two input forms).
		dirs="$dirs tests/fuzz/corpus/analyze_shadow tests/fuzz/corpus/reader tests/fuzz/corpus/chunks" ;;
	analyze_*)
		dirs="$dirs tests/fuzz/corpus/reader tests/fuzz/corpus/chunks" ;;
	esac
	echo "$dirs"
}
# The analyzer targets' dictionary: made once, before any target starts (made per target, it was
# rewritten under a target that was reading it, which then found it empty and stopped).
cat tests/fuzz/reader.dict tests/fuzz/chunks.dict 2>/dev/null |
	awk -F= '/^[a-z_0-9]*=/ { if (!seen[$1]++) print }' >"$FB/analyze.dict.tmp" &&
	mv "$FB/analyze.dict.tmp" "$FB/analyze.dict"
dict_of() {
	case $1 in
	analyze_*|capture_set) echo "-dict=$FB/analyze.dict" ;;
	*) [ -f "tests/fuzz/$1.dict" ] && echo "-dict=tests/fuzz/$1.dict" ;;
	esac
}
# Inputs up to 4 KiB for the analyzer's targets (a trace of a few hundred records; the reader's own
# targets take whole recordings): each execution runs a whole subcommand, and small inputs keep the
# rate near a thousand per second per target.
maxlen_of() {
	case $1 in
	analyze_*|capture_set) echo "-max_len=${FUZZ_MAX_LEN:-4096}" ;;
	# A description of 2 KiB is some 300 records (OP_REPEAT makes more); it caps itself at 2000
	# opcodes whatever its length.
	structured) echo "-max_len=${FUZZ_MAX_LEN:-2048}" ;;
	esac
}

status=0
[ -n "$unbuilt" ] && status=2

if [ $mode = regress ]; then
	printf '%-26s %8s  %s\n' target inputs result
	for t in $built; do
		# shellcheck disable=SC2046
		files=$(find $(seeds_of "$t") tests/data/bad -type f ! -name '*.err' \
			! -name '*.py' ! -name '*.md' 2>/dev/null)
		n=$(echo "$files" | grep -c .)
		# shellcheck disable=SC2086
		# -timeout=60, not fuzzing's 10: amp-demangled.gtrace (a million-name budget's worth of
		# demangling, made to be slow) takes fuzz_analyze_ranks 8 to 17 s under these sanitizers,
		# with the machine's load; the bad-input test bounds the real commands' time.
		# FUZZ_STRUCTURED_ALL=1: fuzz_structured runs every engine on each input, not one.
		if FUZZ_STRUCTURED_ALL=1 "$FB/fuzz_$t" -timeout=60 -rss_limit_mb=2048 $files \
			>"$FB/fuzz_$t.regress.log" 2>&1; then
			r=ok
		else
			r="FAILED (see $FB/fuzz_$t.regress.log)"
			status=1
		fi
		printf '%-26s %8d  %s\n' "fuzz_$t" "$n" "$r"
	done
	for t in $unbuilt; do printf '%-26s %8s  %s\n' "fuzz_$t" - "not built"; done
	exit $status
fi

# ---- fuzzing, J at a time -------------------------------------------------------------------
running=0
pids=""
for t in $built; do
	# Findings of earlier runs move aside (FB/crashes/NAME/old/), so that the table counts this
	# run's alone.
	mkdir -p "$FB/corpus/$t" "$FB/crashes/$t/old"
	for f in "$FB/crashes/$t"/*; do [ -f "$f" ] && mv "$f" "$FB/crashes/$t/old/"; done
	[ $t = analyze_shadow ] && [ ! -d tests/fuzz/corpus/analyze_shadow ] &&
		mkdir -p "$FB/seeds/analyze_shadow" &&
		FUZZ_ANALYZE_SEEDS=$FB/seeds/analyze_shadow "$FB/fuzz_$t" >/dev/null 2>&1
	extra=""
	[ -d "$FB/seeds/$t" ] && [ $t = analyze_shadow ] && extra=$FB/seeds/$t
	if [ $running -ge "$jobs" ]; then
		# shellcheck disable=SC2086
		set -- $pids
		wait "$1" || status=1
		shift
		pids="$*"
		running=$((running - 1))
	fi
	# shellcheck disable=SC2046,SC2086
	"$FB/fuzz_$t" $limit -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$FB/crashes/$t/" $(dict_of "$t") $(maxlen_of "$t") ${FUZZ_FLAGS:-} \
		"$FB/corpus/$t" $(seeds_of "$t") $extra >"$FB/fuzz_$t.log" 2>&1 &
	pids="$pids $!"
	running=$((running + 1))
	echo "fuzz_$t: started (log $FB/fuzz_$t.log)"
done
for p in $pids; do
	wait "$p" || status=1
done

total=0
printf '\n%-26s %12s %9s %10s %8s %7s\n' target executions exec/s coverage corpus crashes
for t in $built; do
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$FB/fuzz_$t.log" | awk '{s+=$1} END {print s+0}')
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$FB/fuzz_$t.log" | awk '{s+=$1} END {print s+0}')
	cov=$(grep -o 'cov: [0-9]*' "$FB/fuzz_$t.log" | tail -n 1 | sed 's/cov: //')
	crashes=$(find "$FB/crashes/$t" -maxdepth 1 -type f 2>/dev/null | wc -l)
	corpus=$(ls "$FB/corpus/$t" | wc -l)
	printf '%-26s %12d %9d %10s %8d %7d\n' "fuzz_$t" "$execs" "$rate" "${cov:--}" "$corpus" "$crashes"
	total=$((total + execs))
	[ "$crashes" -gt 0 ] && status=1
done
for t in $unbuilt; do printf '%-26s %12s\n' "fuzz_$t" "not built"; done
echo "total: $total executions"
[ $status -eq 1 ] && echo "run_all.sh: a target found something; see $FB/fuzz_*.log and $FB/crashes/"
exit $status
