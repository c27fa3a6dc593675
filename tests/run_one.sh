#!/bin/sh
# One test for tests/run_tests.sh: run_one.sh ID PASS:BUILD:PATH. Runs it with GT_BUILD=BUILD and
# GT_PASS=PASS, from the repository root, its output to GT_LOGDIR/ID.out, its exit status to
# ID.rc, its wall time in seconds to ID.secs and its CPU time (user + sys, of all its processes) to
# ID.cpu; prints one line when it ends.
id=$1
entry=$2
pass=${entry%%:*}
rest=${entry#*:}
build=${rest%%:*}
path=${rest#*:}
base=$GT_LOGDIR/$id
mkdir -p "$(dirname "$base")" || exit 255
rm -f "$base.rc" "$base.secs" "$base.cpu"

# GT_PLAIN_BUILD: scripts that need the preload use the plain build, since a sanitized library
# cannot be preloaded into programs that were not built with the sanitizer.
export GT_BUILD="$build" GT_PASS="$pass" GT_PLAIN_BUILD="${GT_PLAIN_BUILD:-build}"
t0=$(date +%s.%N)
case $path in
*.sh) $GT_DEFAULT_SIGNALS timeout -k 10 "$GT_TEST_TIMEOUT" sh "$path" > "$base.out" 2>&1 ;;
*) timeout -k 10 "$GT_TEST_TIMEOUT" "$path" > "$base.out" 2>&1 ;;
esac
rc=$?
t1=$(date +%s.%N)
# times' second line: the CPU (user and sys, as 0m1.234s) of the children this shell waited for,
# which is the test alone since this shell runs nothing else before it.
times > "$base.times" # not in $(...): a subshell has no children of its own to report
cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
	printf "%.1f", t }' "$base.times")
rm -f "$base.times"
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 124 ] && echo "run_tests: ended after ${GT_TEST_TIMEOUT} s (GT_TEST_TIMEOUT)" >> "$base.out"
echo "$secs" > "$base.secs"
echo "$cpu" > "$base.cpu"
echo "$rc" > "$base.rc"
case $path in
*.sh)
	case $rc in
	0) word="PASS" ;;
	77) word="SKIP" ;;
	*) word="FAIL" ;;
	esac ;;
*)
	if [ $rc -eq 0 ]; then word="PASS"; else word="FAIL"; fi ;;
esac
if [ "$word" = SKIP ]; then
	printf '[ SKIP ] %s (%s s): %s\n' "$id" "$secs" "$(tail -n 1 "$base.out")"
else
	printf '[ %s ] %s (%s s, CPU %s s)\n' "$word" "$id" "$secs" "$cpu"
fi
exit 0
