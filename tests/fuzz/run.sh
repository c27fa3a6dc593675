#!/bin/sh
# Builds the fuzz targets and runs them: tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# A target is a file tests/fuzz/fuzz_<name>.c (LLVMFuzzerTestOneInput, helpers in fuzz_common.c).
# Adding one needs nothing here: drop the file in, give it seeds in tests/fuzz/corpus/<name>/ and,
# when it needs more than the trace library, a line "FUZZ_LIBS: libgtanalyze.a libgttrace.a -lelf"
# in its opening comment (archives are built by the top Makefile into build/fuzz, linked in order).
#
# The libraries are rebuilt with clang, -fsanitize=fuzzer-no-link,address,undefined, into build/fuzz,
# through the top Makefile. Each target runs for SECONDS (default 60) in parallel with the others, on
# its working corpus build/fuzz/corpus/<name> seeded from tests/fuzz/corpus/<name>; crashing inputs
# land in build/fuzz/crashes/<name>/. Exits 1 if any target crashed, hung or tripped a sanitizer.
# Environment: FUZZ_CC (default clang), FUZZ_FLAGS (extra libFuzzer flags, e.g. -jobs=2 -workers=2).
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/../.." || exit 2
CC=${FUZZ_CC:-clang}
B=build/fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -I. -Itraces $SAN"

if [ $# -gt 0 ]; then
	targets="$*"
else
	targets=$(ls tests/fuzz/fuzz_*.c | sed 's,.*/fuzz_\(.*\)\.c,\1,' | grep -v '^common$')
fi

build_target() {
	name=$1
	src=tests/fuzz/fuzz_$name.c
	[ -f "$src" ] || { echo "run.sh: no target $src" >&2; return 1; }
	libs=$(sed -n 's/.*FUZZ_LIBS: *\(.*\)$/\1/p' "$src" | sed 's, *\*/$,,' | head -n 1)
	[ -n "$libs" ] || libs=libgttrace.a
	link=""
	for l in $libs; do
		case $l in
		*.a) make --no-print-directory -s BUILD=$B CC="$CC" OPT="-O1 -g" \
		        EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $SAN" "$B/$l" || return 1
		     link="$link $B/$l" ;;
		*) link="$link $l" ;;
		esac
	done
	$CC $CFLAGS -fsanitize=fuzzer -o "$B/fuzz_$name" "$src" tests/fuzz/fuzz_common.c $link \
		-lzstd -lz -lm || return 1
}

mkdir -p $B || exit 2
for t in $targets; do
	build_target "$t" || { echo "run.sh: building fuzz_$t failed" >&2; exit 2; }
done

pids=""
for t in $targets; do
	mkdir -p "$B/corpus/$t" "$B/crashes/$t"
	dict=""
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	seeds=""
	[ -d "tests/fuzz/corpus/$t" ] && seeds="tests/fuzz/corpus/$t"
	# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: 2 GiB bounds any allocation
	# a hostile size could ask for (the reader's limits keep it far below).
	"$B/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/crashes/$t/" $dict ${FUZZ_FLAGS:-} "$B/corpus/$t" $seeds \
		> "$B/fuzz_$t.log" 2>&1 &
	pids="$pids $!"
	echo "fuzz_$t: running for ${secs}s (log $B/fuzz_$t.log)"
done
status=0
for p in $pids; do
	wait "$p" || status=1
done

total=0
for t in $targets; do
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz_$t.log" | awk '{s+=$1} END {print s+0}')
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/fuzz_$t.log" | awk '{s+=$1} END {print s+0}')
	cov=$(grep -o 'cov: [0-9]*' "$B/fuzz_$t.log" | tail -n 1)
	crashes=$(ls "$B/crashes/$t" 2>/dev/null | wc -l)
	corpus=$(ls "$B/corpus/$t" | wc -l)
	echo "fuzz_$t: $execs executions in ${secs}s ($rate/s), $cov, corpus $corpus, crash files $crashes"
	total=$((total + execs))
	[ "$crashes" -gt 0 ] && status=1
done
echo "total: $total executions"
[ $status -ne 0 ] && echo "run.sh: a target failed; see the logs and build/fuzz/crashes/"
exit $status
