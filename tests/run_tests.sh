#!/bin/sh
# Runs every test of one build and prints "LABEL: N passed, N failed, N skipped".
#   tests/run_tests.sh BUILD LABEL
# cmocka binaries count their test cases (cmocka's own summary is printed as they run); each script
# under tests/cli and tests/gpu counts as one test: exit 0 passed, 77 skipped (printed reason), else failed.
# The log goes to BUILD/check.log for tests/summary.sh. GT_PASS holds LABEL, for a script whose work
# is the same in every pass (test_fuzz_targets.sh, a build of its own) and so is done in one.
build=${1:?usage: run_tests.sh BUILD LABEL}
label=${2:-tests}
log=$build/check.log
: > "$log"
passed=0 failed=0 skipped=0
failures=""

export CMOCKA_MESSAGE_OUTPUT=stdout
export GT_BUILD="$build"
export GT_PASS="$label"
# The plain build: scripts that need the preload use it, since a sanitized library cannot be
# preloaded into programs that were not built with the sanitizer.
export GT_PLAIN_BUILD="${GT_PLAIN_BUILD:-build}"

for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	printf '%s\n' "$out" >> "$log"
	p=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	s=$(printf '%s\n' "$out" | sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	passed=$((passed + ${p:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ -n "$f" ]; then
		failed=$((failed + f))
		failures="$failures $(basename "$t")"
	elif [ $rc -ne 0 ]; then
		# Crashed or aborted (a sanitizer report) before cmocka could count.
		failed=$((failed + 1))
		failures="$failures $(basename "$t")(exit $rc)"
	fi
done

# Tests that end programs with SIGINT need its default action: a shell started in the background
# (make check &, a CI step without a terminal) starts its children with SIGINT ignored, and a shell
# cannot undo that itself. env(1) can, where it knows --default-signal (coreutils 8.31 and later).
default_signals=""
env --default-signal=INT true 2>/dev/null && default_signals="env --default-signal=INT"

for s in tests/cli/test_*.sh tests/gpu/test_*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	out=$($default_signals sh "$s" 2>&1)
	rc=$?
	printf '%s\n' "$out" >> "$log"
	case $rc in
	0) passed=$((passed + 1)); echo "[ PASS ] $name" ;;
	77) skipped=$((skipped + 1)); echo "[ SKIP ] $name: $(printf '%s\n' "$out" | tail -n 1)" ;;
	*) failed=$((failed + 1)); failures="$failures $name"
	   printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
	   echo "[ FAIL ] $name (exit $rc)" ;;
	esac
done

[ -n "$failures" ] && echo "failed:$failures"
echo "$label: $passed passed, $failed failed, $skipped skipped"
echo "TOTAL $passed $failed $skipped" >> "$log"
[ "$failed" -eq 0 ]
