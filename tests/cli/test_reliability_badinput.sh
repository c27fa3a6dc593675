#!/bin/sh
# Every gpuanalyze subcommand on hostile input: the known-bad traces of tests/data/bad/ (each a
# valid trace with one thing wrong, and the fuzzers' findings, crash-*, committed as found), cuts
# of a real H200 trace at awkward offsets, random bytes; diff over pairs of real and synthetic traces
# (crash-diff-mwu-*: the pair on which diff once wrote past a table), ranks over each input beside
# a valid trace. Each run must end cleanly (timeout 30 s):
# - status 0, 1 or 2, never a signal, a hang or a sanitizer report (the sanitizer pass runs this
#   with its sanitized gpuanalyze: GT_BUILD=build/san);
# - status 2: nothing but "gpuanalyze: " lines on stderr, exactly one of them not a warning; where
#   the reader refuses the file (its .err names a GT_ERR_*), that line holds the reader's reason;
# - status 0 or 1: something on stdout, and nothing on stderr but "gpuanalyze: warning: " lines
#   (such as a trace that ends early).
# Commands the analyzer does not list in --help are not run; shadow and calibrate get the
# references of kernels/refs (refs.so of the same build).
. tests/cli/progs/common.sh
GA=$B/gpuanalyze
[ -x "$GA" ] || fail "no analyzer at $GA"
REFS=$B/kernels/refs.so
[ -f "$REFS" ] || REFS=$P/kernels/refs.so
VALID=$ROOT/traces/samples/h200-splat_render.gtrace
[ -f "$VALID" ] || fail "no sample trace $VALID"
export GPUTRACE_PEAKS="$T/no-peaks" HOME="$T"

# The inputs.
mkdir -p "$T/in"
for f in "$ROOT"/tests/data/bad/*; do
	[ -f "$f" ] || continue
	case $f in *.err|*.py|*.md) continue ;; esac
	cp "$f" "$T/in/"
done
size=$(wc -c <"$VALID")
for cut in 1 8 31 32 33 64 100 $((size / 2)) $((size - 33)) $((size - 1)); do
	head -c "$cut" "$VALID" >"$T/in/cut_$cut.gtrace"
done
head -c 4096 /dev/urandom >"$T/in/random.bin"
{ head -c 32 "$VALID"; head -c 600 /dev/urandom; } >"$T/in/header_then_noise.gtrace"
ninputs=$(ls "$T/in" | wc -l)

cmds=$("$GA" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || fail "gpuanalyze --help lists no commands"

# Known bugs, reported, not yet fixed: inputs on which some subcommand still fails one of the
# promises above. A failure on a run naming one of them is printed as XFAIL (and counted) instead of
# failing the test; once the analyzer is fixed the XFAIL lines stop appearing and the name can go.
#   crash-split-huge-times, crash-timeline-overflow, crash-report-garbage: sums of intervals past
#   2^63 ns on hostile timestamps (analyze/timeline.c's cursors, signed) come back from the split
#   engine as a garbage status: split, and report, ranks and diff through it, print nothing and
#   exit 0 or with a stray status (125), or trip UBSan (signed overflow).
#   crash-export-corr-pages (2.7 KB, 131072 records with correlation ids spread over 32 bits):
#   export allocates a 64 KiB page per distinct high half of an id, 6 GB and 73 s: not run at all
#   (SKIP_RUN, "COMMAND FILE" pairs) until fixed, so that this test cannot exhaust a CI machine.
KNOWN="crash-split-huge-times.gtrace crash-timeline-overflow.gtrace crash-report-garbage.gtrace"
SKIP_RUN="export_crash-export-corr-pages.gtrace"
xfails=0

# bad LABEL WHY: a broken promise: fails the test, or an XFAIL line when LABEL names a known input.
# Returns 1 so that check stops at the first one.
bad() {
	for k in $KNOWN; do
		case " $1 " in
		*" $k "*) echo "XFAIL (known bug, reported): $1: $2" | cut -c1-300; xfails=$((xfails + 1)); return 1 ;;
		esac
	done
	fail "$1: $2"
}

# check LABEL EXPECT-FILE CMD...: runs CMD and checks the promises above.
runs=0
check() {
	label=$1 errfile=$2
	shift 2
	case " $SKIP_RUN " in
	*" $(echo "$label" | tr ' ' '_') "*)
		echo "XFAIL (known bug, reported; not run): $label"
		xfails=$((xfails + 1))
		return 0 ;;
	esac
	timeout 30 "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	runs=$((runs + 1))
	case $rc in
	0|1|2) eval "st_$rc=\$((st_$rc + 1))" ;;
	124) bad "$label" "hangs (30 s)" || return 0 ;;
	*) bad "$label" "status $rc: $(head -c 600 "$T/err")" || return 0 ;;
	esac
	if grep -q 'Sanitizer\|runtime error:\|LeakSanitizer' "$T/err"; then
		bad "$label" "sanitizer report: $(grep -m3 'ERROR\|runtime error' "$T/err")" || return 0
	fi
	if grep -v '^gpuanalyze: ' "$T/err" | grep -q .; then
		bad "$label" "stderr not in the analyzer's voice: $(head -c 400 "$T/err")" || return 0
	fi
	if [ $rc != 2 ]; then
		# Success prints what it found; a message that is not a warning means it did not succeed.
		if [ ! -s "$T/out" ] || grep -v '^gpuanalyze: warning: ' "$T/err" | grep -q .; then
			bad "$label" "status $rc but $(wc -c <"$T/out") bytes on stdout, stderr: $(grep -v warning "$T/err" | head -c 300)" ||
				return 0
		fi
		return 0
	fi
	n=$(grep -vc '^gpuanalyze: warning: ' "$T/err")
	[ "$n" = 1 ] || { bad "$label" "status 2 with $n error lines: $(cat "$T/err")" || return 0; }
	if [ -n "$errfile" ] && [ -f "$errfile" ]; then
		set -- $(cat "$errfile")
		if [ "$1" != GT_OK ]; then
			shift 2
			grep -v '^gpuanalyze: warning: ' "$T/err" | grep -qF "$*" ||
				bad "$label" "the error line does not give the reader's reason '$*': $(cat "$T/err")" || return 0
		fi
	fi
}

printf '%-10s %7s %7s %7s %7s\n' command runs 'exit 0' 'exit 1' 'exit 2'
for cmd in $cmds; do
	"$GA" "$cmd" --help >/dev/null 2>&1 || { printf '%-10s not run: no --help\n' "$cmd"; continue; }
	st_0=0 st_1=0 st_2=0
	before=$runs
	for f in "$T"/in/*; do
		name=$(basename "$f")
		e=$ROOT/tests/data/bad/$name.err
		case $cmd in
		shadow) check "$cmd $name" "$e" "$GA" shadow --ref "$REFS" "$f" ;;
		calibrate) check "$cmd $name" "$e" "$GA" calibrate --ref "$REFS" --kernel saxpy "$f" ;;
		diff)
			check "diff $name VALID" "$e" "$GA" diff --bootstrap 200 "$f" "$VALID"
			check "diff VALID $name" "$e" "$GA" diff --bootstrap 200 "$VALID" "$f"
			check "diff $name $name" "$e" "$GA" diff --bootstrap 200 "$f" "$f" ;;
		report)
			check "report $name" "$e" "$GA" report "$f"
			check "report --baseline $name VALID" "$e" "$GA" report --baseline "$f" "$VALID" ;;
		*) check "$cmd $name" "$e" "$GA" "$cmd" "$f" ;;
		esac
	done
	if [ "$cmd" = report ]; then
		# The pair the fuzzer found (fuzz_analyze_report): an unreadable baseline beside a trace
		# whose timestamps overflow the timeline's sums.
		g=$ROOT/tests/data/bad/crash-report-garbage
		check "report --baseline crash-report-garbage-base.gtrace crash-report-garbage.gtrace" "" \
			"$GA" report --baseline "$g-base.gtrace" "$g.gtrace"
	fi
	if [ "$cmd" = ranks ]; then
		# Two traces, one per rank: each hostile input beside a valid one.
		for f in "$T"/in/*; do
			check "ranks VALID $(basename "$f")" "" "$GA" ranks "$VALID" "$f"
		done
	fi
	if [ "$cmd" = diff ]; then
		# The pair the fuzzer found (fuzz_analyze_diff: a kernel with at most 8 launches on one side
		# took the exact Mann-Whitney path, which wrote past its table), both ways round.
		crash=$ROOT/tests/data/bad/crash-diff-mwu
		check "diff crash-diff-mwu base new" "" "$GA" diff "$crash-base.gtrace" "$crash-new.gtrace"
		check "diff crash-diff-mwu new base" "" "$GA" diff "$crash-new.gtrace" "$crash-base.gtrace"
		# Pairs of readable traces, real and synthetic, small and large samples: diff's statistics on
		# few samples, one-sided kernels, no kernels at all.
		for a in "$ROOT"/traces/samples/h200-graph_launch.gtrace "$ROOT"/traces/samples/h200-transfers.gtrace \
		         "$ROOT"/tests/fuzz/corpus/reader/renderer_small.gtrace "$ROOT"/tests/fuzz/corpus/reader/steady.gtrace \
		         "$ROOT"/tests/fuzz/corpus/reader/no_end.gtrace "$VALID"; do
			for b in "$ROOT"/tests/fuzz/corpus/reader/steady.gtrace "$ROOT"/tests/fuzz/corpus/reader/renderer_small.gtrace "$VALID"; do
				[ -f "$a" ] && [ -f "$b" ] || continue
				check "diff $(basename "$a") $(basename "$b")" "" "$GA" diff --bootstrap 200 "$a" "$b"
			done
		done
	fi
	printf '%-10s %7d %7d %7d %7d\n' "$cmd" $((runs - before)) "$st_0" "$st_1" "$st_2"
done
note "$runs runs over $ninputs hostile inputs: every status 0, 1 or 2, errors in one line, no crash, hang or sanitizer report ($xfails known failures, reported)"
exit 0
