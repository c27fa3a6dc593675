#!/bin/sh
# Runs a list of tests in parallel, one process per core, and prints "LABEL: N passed, N failed,
# N skipped" last.
#   tests/run_tests.sh LOGDIR LABEL ENTRY...
# An ENTRY is PASS:BUILD:PATH. PASS names the build the test runs against (plain, sanitizers); BUILD
# is that build's folder (GT_BUILD for a script); PATH is a cmocka binary, which counts its test
# cases, or a script under tests/cli or tests/gpu, which counts as one test: exit 0 passed, 77
# skipped (its last line says why), anything else failed.
#
# Each test's output, exit status and wall time go to LOGDIR/PASS/KIND/NAME.{out,rc,secs} (KIND:
# unit, cli or gpu; tests/unit/test_shadow.c and tests/cli/test_shadow.sh both exist); one line per
# test is printed as it ends; a failed test's output is printed whole at the end, then the ten
# slowest. LOGDIR/check.log collects every output and a closing "TOTAL passed failed skipped" line
# for tests/summary.sh. The longest tests of the previous run (LOGDIR/times) start first, so the
# last minutes are not spent waiting on one long test that started late.
#
# Environment: GT_JOBS (default: the number of cores), GT_TEST_TIMEOUT (seconds, default 900: a test
# that hangs is ended and failed rather than stalling CI).
logdir=${1:?usage: run_tests.sh LOGDIR LABEL PASS:BUILD:PATH...}
label=${2:?usage: run_tests.sh LOGDIR LABEL PASS:BUILD:PATH...}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${GT_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$logdir" || exit 2
times=$logdir/times
queue=$logdir/queue.$$
trap 'rm -f "$queue" "$queue.known"' EXIT

# test_id ENTRY: PASS/KIND/NAME, the test's name in the logs and in LOGDIR/times.
test_id() {
	path=${1##*:}
	case $path in
	*.sh) kind=$(basename "$(dirname "$path")"); name=$(basename "$path" .sh) ;;
	*) kind=unit; name=$(basename "$path") ;;
	esac
	echo "${1%%:*}/$kind/$name"
}

# The queue, longest known first; tests never timed go first of all (they may be long).
: > "$queue"
for e in "$@"; do
	id=$(test_id "$e")
	t=$( [ -f "$times" ] && awk -v id="$id" '$1 == id { t = $2 } END { print t }' "$times")
	printf '%s %s %s\n' "${t:-99999}" "$id" "$e" >> "$queue"
done
sort -k1,1 -g -r "$queue" | cut -d' ' -f2- > "$queue.known"

export CMOCKA_MESSAGE_OUTPUT=stdout
# Tests that end programs with SIGINT need its default action: a shell started in the background
# (make check &, a CI step without a terminal) starts its children with SIGINT ignored, and a shell
# cannot undo that itself. env(1) can, where it knows --default-signal (coreutils 8.31 and later).
GT_DEFAULT_SIGNALS=""
env --default-signal=INT true 2>/dev/null && GT_DEFAULT_SIGNALS="env --default-signal=INT"
export GT_DEFAULT_SIGNALS GT_TEST_TIMEOUT="${GT_TEST_TIMEOUT:-900}" GT_LOGDIR="$logdir"

# python3 through a version manager's shim (pyenv's is a shell script) costs a quarter of a second
# a start, and the CLI tests start it thousands of times: they get the interpreter the shim would
# run, found once, first on their PATH.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; then
	bin=$(cd "$logdir" && pwd)/bin
	mkdir -p "$bin" && ln -sf "$py" "$bin/python3" && PATH="$bin:$PATH" && export PATH
fi

start=$(date +%s)
tr ' \n' '\0\0' < "$queue.known" | xargs -0 -n 2 -P "$jobs" sh "$here/run_one.sh"
wall=$(($(date +%s) - start))

# Totals, in the order the entries were given.
log=$logdir/check.log
: > "$log"
passed=0 failed=0 skipped=0
failures="" failed_outputs=""
: > "$times.new"
for e in "$@"; do
	id=$(test_id "$e")
	base=$logdir/$id
	rc=$(cat "$base.rc" 2>/dev/null || echo 255)
	secs=$(cat "$base.secs" 2>/dev/null || echo 0)
	cpu=$(cat "$base.cpu" 2>/dev/null || echo 0)
	printf '%s %s %s\n' "$id" "$secs" "$cpu" >> "$times.new"
	printf '== %s (exit %s, %s s)\n' "$id" "$rc" "$secs" >> "$log"
	cat "$base.out" >> "$log" 2>/dev/null
	case ${e##*:} in
	*.sh)
		case $rc in
		0) passed=$((passed + 1)) ;;
		77) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)); failures="$failures $id"
		   failed_outputs="$failed_outputs $base.out" ;;
		esac ;;
	*)
		p=$(sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$base.out" | tail -n 1)
		f=$(sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$base.out" | tail -n 1)
		s=$(sed -n 's/.*\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$base.out" | tail -n 1)
		passed=$((passed + ${p:-0}))
		skipped=$((skipped + ${s:-0}))
		if [ -n "$f" ] || [ "$rc" -ne 0 ]; then
			# A crash or a sanitizer report ends the binary before cmocka counts: one failure.
			failed=$((failed + ${f:-1}))
			failures="$failures $id"
			failed_outputs="$failed_outputs $base.out"
		fi ;;
	esac
done
# Times of tests this run did not include (another tier's) are kept for the next run's order.
[ -f "$times" ] && awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' "$times.new" "$times" \
	> "$times.all" && mv "$times.all" "$times.new"
mv "$times.new" "$times"

for f in $failed_outputs; do
	printf '\n======== output of %s\n' "${f#$logdir/}"
	cat "$f"
	printf '======== end of %s\n' "${f#$logdir/}"
done
printf '\n%s: the ten slowest tests (%s at a time; the whole run took %s s):\n   wall s  CPU s\n' \
	"$label" "$jobs" "$wall"
for e in "$@"; do test_id "$e"; done | awk 'NR == FNR { ran[$1] = 1; next } $1 in ran' - "$times" |
	sort -k2,2 -g -r | head -n 10 | while read -r n s c; do printf '  %7s %6s  %s\n' "$s" "${c:-?}" "$n"; done
[ -n "$failures" ] && echo "failed:$failures"
echo "$label: $passed passed, $failed failed, $skipped skipped"
echo "TOTAL $passed $failed $skipped" >> "$log"
[ "$failed" -eq 0 ]
