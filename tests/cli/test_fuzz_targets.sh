#!/bin/sh
# Every fuzz target of tests/fuzz/ builds and runs. The fuzzers build with clang and
# libFuzzer, the project with gcc, and nothing else built them: a clang-only error
# (-Wstring-plus-int in analyze/) stopped tests/fuzz/run.sh (now a wrapper of run_all.sh), unnoticed until someone fuzzed.
#
# Built by `make fuzz` (tests/fuzz/module.mk: one clang build of the libraries, -fsanitize=fuzzer-no-link,
# address,undefined, shared by all targets, rebuilt only where a source changed; a source that does
# not compile fails, none is left out), and run through tests/fuzz/run_all.sh --prebuilt --strict:
# - every source of traces/ and analyze/ compiles with clang -Wall -Wextra -Werror and every target
#   links with -fsanitize=fuzzer,address,undefined;
# - --regress: every target once over each of its seeds and each known-bad trace of tests/data/bad/
#   (the fuzzers' earlier findings among them), with no crash, leak, hang or sanitizer report;
# - fuzzing: each target for GT_FUZZ_SECONDS (default 4) or 20000 executions, whichever ends first,
#   two at a time (CI has two cores), from its seeds alone (a fresh working corpus each time), with
#   no finding. -seed=1: the same build mutates the same inputs in the same order, so a finding
#   repeats on the next run instead of coming and going; the crashing input is kept
#   (BUILD/fuzz-check/crashes/NAME/) and named below.
# How many executions each target managed is printed, never checked: the machine may be busy.
#
# Once per make check-all, in the plain pass: the targets are a build of their own, sanitized in
# any pass, so the sanitizer pass would build and run the very same binaries again. Skipped (77) with
# the reason where clang or its fuzzer and sanitizer runtimes are missing (make deps installs them:
# tests/deps.sh, tests/fuzz/toolchain.sh). Environment: GT_FUZZ_SECONDS, FUZZ_CC (default clang).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
secs=${GT_FUZZ_SECONDS:-4}
fail() { echo "FAIL: $*"; exit 1; }

if [ "${GT_PASS:-}" = sanitizers ]; then
	echo "skipped: the fuzz targets are built and run once, in the plain pass (they are sanitized there too)"
	exit 77
fi
why=$(sh "$root/tests/fuzz/toolchain.sh") || { echo "skipped: cannot build the fuzz targets: $why"; exit 77; }

FB=$build/fuzz-check
# Built by make (tests/fuzz/module.mk), once per source state: after no change this does nothing.
# The make that runs this test (make check-all) must not lend its jobserver to this one.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$root" -j2 \
	BUILD="$build" FUZZ_BUILD="$FB" fuzz >"$build/fuzz-build.log" 2>&1 || {
	tail -n 30 "$build/fuzz-build.log"
	fail "make fuzz: a fuzz target or a source of traces/ or analyze/ does not build with clang (above; log $build/fuzz-build.log)"
}
# Corpus and findings start afresh.
rm -rf "$FB/corpus" "$FB/crashes"
targets=$(ls "$root"/tests/fuzz/fuzz_*.c | sed 's,.*/fuzz_\(.*\)\.c,\1,' | grep -v '^common$')
ntargets=$(echo "$targets" | wc -l)
[ "$ntargets" -gt 0 ] || fail "no fuzz targets in tests/fuzz/"

start=$(date +%s)
# run_all.sh exits 0, 1 (a finding) or 2 (a build failure), never libFuzzer's own statuses (a crash
# is 77 there, which would read as a skip here); anything but 0 fails.
FUZZ_BUILD=$FB sh "$root/tests/fuzz/run_all.sh" --prebuilt --strict --jobs 2 --regress >"$FB/regress.out" 2>&1
rc=$?
cat "$FB/regress.out"
[ $rc -eq 0 ] || {
	for t in $targets; do
		[ -f "$FB/fuzz_$t.regress.log" ] || continue
		grep -q 'ERROR\|runtime error' "$FB/fuzz_$t.regress.log" &&
			grep -m 1 -A 12 'ERROR\|runtime error' "$FB/fuzz_$t.regress.log"
	done
	fail "run_all.sh --strict --regress exits $rc: a target does not build or fails on a seed or known-bad input (above; logs in $FB)"
}

FUZZ_BUILD=$FB FUZZ_FLAGS="-seed=1" sh "$root/tests/fuzz/run_all.sh" --prebuilt --strict --jobs 2 \
	--time "$secs" --runs 20000 >"$FB/fuzz.out" 2>&1
rc=$?
cat "$FB/fuzz.out"
found=""
for t in $targets; do
	for f in "$FB/crashes/$t"/*; do
		[ -f "$f" ] && found="$found $f"
	done
	log=$FB/fuzz_$t.log
	if grep -q 'ERROR\|runtime error' "$log" 2>/dev/null; then
		echo "fuzz_$t:"
		grep -m 1 -A 12 'ERROR\|runtime error' "$log"
	fi
done
[ -n "$found" ] && fail "a fuzz target found an input that crashes, hangs or leaks:$found (logs in $FB)"
[ $rc -eq 0 ] || fail "run_all.sh --strict exits $rc (above; logs in $FB)"
# Each target ran to its end: libFuzzer prints its final statistics only then.
for t in $targets; do
	grep -q '^stat::number_of_executed_units' "$FB/fuzz_$t.log" 2>/dev/null ||
		fail "fuzz_$t did not run to its end (log $FB/fuzz_$t.log)"
done
echo "$ntargets fuzz targets built with clang and run over their seeds, tests/data/bad and ${secs}s of fuzzing each:" \
	"no finding ($(($(date +%s) - start)) s)"
