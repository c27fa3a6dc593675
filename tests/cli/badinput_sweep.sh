# badinput_sweep.sh: sourced (POSIX sh, from the repository root) by test_reliability_badinput.sh
# (BADINPUT_PART=single: the commands that read one trace) and test_reliability_badinput_pairs.sh
# (BADINPUT_PART=pairs: diff, ranks, report, stats, which also pair traces or run several reports),
# two tests so that the everyday tier runs them side by side; between them every command the
# analyzer lists is run.
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

# 1 GB of address space for the plain analyzer; a sanitized one reserves terabytes of shadow
# memory, so there the sanitizer's own limit on resident memory does it (leaving it room for its
# own bookkeeping).
if ldd "$GA" 2>/dev/null | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=2048"
	limit_memory() { :; }
else
	limit_memory() { ulimit -v 1048576 2>/dev/null; }
fi

# check LABEL EXPECT-FILE CMD...: runs CMD and checks the promises above.
runs=0
check() {
	label=$1 errfile=$2
	shift 2
	# 30 s of CPU at most (SIGXCPU: a status of 128 + 24 fails below): a hang that waits rather than
	# spins is left to the test runner's own timeout. Limits set by ulimit in the subshell cost no
	# process of their own, and the processes started per run are most of this test's time.
	(limit_memory; ulimit -t 30; exec "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	runs=$((runs + 1))
	case $rc in
	0|1|2) eval "st_$rc=\$((st_$rc + 1))" ;;
	152) fail "$label: hangs (30 s of CPU)" ;;
	*) fail "$label: status $rc: $(head -c 600 "$T/err")" ;;
	esac
	# One read of stderr, by the shell itself, for every promise about it: a sanitizer report, lines
	# not in the analyzer's voice, lines that are not warnings, and an "out of memory" within the
	# limit (a small input made the analyzer ask for more than 1 GB).
	san=0 voice=0 n=0 oom=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in *Sanitizer* | *"runtime error:"*) san=1 ;; esac
		case $line in *"out of memory"*) oom=1 ;; esac
		case $line in
		"gpuanalyze: warning: "*) ;;
		"gpuanalyze: "*) n=$((n + 1)) ;;
		*) voice=1 n=$((n + 1)) ;;
		esac
	done <"$T/err"
	set -- $san $voice $n $oom
	[ "$1" = 1 ] && fail "$label: sanitizer report: $(grep -m3 'ERROR\|runtime error' "$T/err")"
	[ "$2" = 1 ] && fail "$label: stderr not in the analyzer's voice: $(head -c 400 "$T/err")"
	if [ $rc != 2 ]; then
		# Success prints what it found; a message that is not a warning means it did not succeed.
		if [ ! -s "$T/out" ] || [ "$3" != 0 ]; then
			fail "$label: status $rc but $(wc -c <"$T/out") bytes on stdout, stderr: $(grep -v warning "$T/err" | head -c 300)"
		fi
		return 0
	fi
	[ "$4" = 1 ] && fail "$label: out of memory (limit 1 GB): $(cat "$T/err")"
	[ "$3" = 1 ] || { fail "$label: status 2 with $3 error lines: $(cat "$T/err")"; }
	if [ -n "$errfile" ] && [ -f "$errfile" ]; then
		set -- $(cat "$errfile")
		if [ "$1" != GT_OK ]; then
			shift 2
			grep -v '^gpuanalyze: warning: ' "$T/err" | grep -qF "$*" ||
				fail "$label: the error line does not give the reader's reason '$*': $(cat "$T/err")"
		fi
	fi
}

# Every command over every input, in every tier. The slow tier (GT_TIER=all: make check-all) adds
# the full sweep: diff and ranks with the input on both sides and beside itself, report with it as
# the baseline, every stats report over every input, diff over pairs of readable traces. An input
# the fuzzers once crashed on (crash-*) gets the full sweep in every tier.
REPORTS="cuda_api_sum nvtx_sum nvtx_kern_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum kern_launch_sum
	cuda_gpu_trace cuda_api_trace cuda_kern_exec_trace cuda_kern_exec_sum cuda_api_gpu_sum nvtx_pushpop_sum
	nvtx_pushpop_trace nvtx_gpu_proj_trace nvtx_gpu_proj_sum"
NREPORTS=$(echo $REPORTS | wc -w)
sweep=0
[ "${GT_TIER:-}" = all ] && sweep=1
printf '%-10s %7s %7s %7s %7s\n' command runs 'exit 0' 'exit 1' 'exit 2'
PAIRED="diff ranks report stats"
for cmd in $cmds; do
	case " $PAIRED " in *" $cmd "*) part=pairs ;; *) part=single ;; esac
	[ "$part" = "${BADINPUT_PART:?set by the test that sources badinput_sweep.sh}" ] || continue
	"$GA" "$cmd" --help >/dev/null 2>&1 || { printf '%-10s not run: no --help\n' "$cmd"; continue; }
	st_0=0 st_1=0 st_2=0
	before=$runs
	i=0
	for f in "$T"/in/*; do
		name=$(basename "$f")
		e=$ROOT/tests/data/bad/$name.err
		i=$((i + 1))
		# Every pairing for an input the fuzzers once crashed on, and for all in the slow tier.
		case $name in crash-*) all=1 ;; *) all=$sweep ;; esac
		case $cmd in
		shadow) check "$cmd $name" "$e" "$GA" shadow --ref "$REFS" "$f" ;;
		calibrate) check "$cmd $name" "$e" "$GA" calibrate --ref "$REFS" --kernel saxpy "$f" ;;
		diff)
			check "diff $name VALID" "$e" "$GA" diff --bootstrap 200 "$f" "$VALID"
			[ $all = 1 ] || continue
			check "diff VALID $name" "$e" "$GA" diff --bootstrap 200 "$VALID" "$f"
			check "diff $name $name" "$e" "$GA" diff --bootstrap 200 "$f" "$f" ;;
		report)
			check "report $name" "$e" "$GA" report "$f"
			[ $all = 1 ] || continue
			check "report --baseline $name VALID" "$e" "$GA" report --baseline "$f" "$VALID" ;;
		stats)
			# Outside the full sweep the reports take turns: each sees every NREPORTS-th input.
			j=0
			for r in $REPORTS; do
				j=$((j + 1))
				[ $all = 1 ] || [ $((i % NREPORTS + 1)) = $j ] || continue
				check "stats $r $name" "$e" "$GA" stats "$r" "$f"
			done ;;
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
		# Two traces, one per rank: each hostile input beside a valid one, and beside itself (both
		# ranks hostile: crash-ranks-clock-overflow once overflowed the clock alignment so).
		for f in "$T"/in/*; do
			check "ranks VALID $(basename "$f")" "" "$GA" ranks "$VALID" "$f"
			case $(basename "$f") in crash-*) ;; *) [ $sweep = 1 ] || continue ;; esac
			check "ranks $(basename "$f") $(basename "$f")" "" "$GA" ranks "$f" "$f"
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
		[ $sweep = 1 ] && for a in "$ROOT"/traces/samples/h200-graph_launch.gtrace "$ROOT"/traces/samples/h200-transfers.gtrace \
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
note "$BADINPUT_PART commands: $runs runs over $ninputs hostile inputs ($([ $sweep = 1 ] && echo "the full sweep" || echo "GT_TIER=all adds the full sweep")): every status 0, 1 or 2, errors in one line, no crash, hang or sanitizer report"
exit 0
