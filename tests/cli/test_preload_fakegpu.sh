#!/bin/sh
# The recorder's whole life without a GPU: tests/cli/progs/fake_cuda.c stands in for libcuda.so.1
# and libcupti (cuInit calls the injection entry, CUPTI hands activity buffers back on a flush or
# when full), and fake_app "launches" kernels and copies through it. Checked against what the
# documentation promises (gputrace(1), SIGNALS AND EXIT, LIMITATIONS):
# - every ending that runs code (return, exit, exit from a thread, abort, a real SIGSEGV,
#   raise(SIGSEGV), SIGTERM, SIGINT) leaves a complete trace with every record, the exit status or
#   the signal recorded, and the program's output and status unchanged;
# - _exit and SIGKILL leave a trace cut at its last flush that still holds everything flushed
#   before (at most one flush period is lost);
# - fork after cuInit records nothing for the child; fork before gives the child its own trace;
#   exec gives the new program its own trace and cuts the old one at its last flush;
# - another CUPTI client: refused with one line while gputrace records; taking CUPTI's buffers
#   over, said in one line and in the trace; holding CUPTI first, it leaves an empty trace that
#   says why; a libcupti of another major version likewise;
# - settings: activity kinds, kernel filter, refused kinds, CUPTI's dropped records, quiet,
#   disable, an output folder that does not exist, numbered names, CUDA_INJECTION64_PATH alone;
# - `gputrace record` prints each trace's tally and passes statuses through.
. tests/cli/progs/common.sh
need_lib
need_gputrace
FAKELIB=$(prog fakecuda/libcuda.so.1) || skip "skipped: no CUPTI headers under $CUDA_DIR to build the fake driver"
APP=$(prog fake_app) || fail "cannot build fake_app"
PEEK=$(prog trace_peek) || fail "cannot build trace_peek"
FAKE="LD_LIBRARY_PATH=$(dirname "$FAKELIB") GPUTRACE_CUPTI_PATH=$FAKELIB"
TRACED="$FAKE LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50"

# fake_cmd TAG EXTRA-ENV CMD...: CMD with the fake driver (and EXTRA-ENV) in a clean $WD.
fake_cmd() {
	fr_tag=$1 fr_env=$2
	shift 2
	rm -rf "$WD" && mkdir -p "$WD"
	run "$fr_tag" "$FAKE $fr_env" "$@"
}
# fake_run TAG EXTRA-ENV ARGS...: the same for fake_app ARGS.
fake_run() {
	fr_tag=$1 fr_env=$2
	shift 2
	fake_cmd "$fr_tag" "$fr_env" "$APP" "$@"
}

# compare LABEL: the bare run and the traced run agree on stdout, stderr (apart from gputrace:
# lines) and status.
compare() {
	cmp -s "$T/bare.out" "$T/with.out" || fail "$1: stdout differs: $(diff "$T/bare.out" "$T/with.out")"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" || fail "$1: stderr differs: $(cat "$T/with.err")"
	[ "$(cat "$T/bare.rc")" = "$(cat "$T/with.rc")" ] ||
		fail "$1: status $(cat "$T/with.rc") traced, $(cat "$T/bare.rc") bare"
}

# traced LABEL EXTRA-ENV ARGS...: runs bare and traced, compares, leaves the traced run's files.
traced() {
	tr_label=$1 tr_env=$2
	shift 2
	fake_run bare "" "$@"
	[ -z "$(ls "$WD")" ] || fail "$tr_label: the bare run wrote files: $(ls "$WD")"
	fake_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 $tr_env" "$@"
	compare "$tr_label"
}

traces() { ls "$WD" | grep -c '\.gtrace'; }
only_trace() {
	[ "$(traces)" = 1 ] || fail "$1: expected one trace, found: $(ls "$WD")"
	ls "$WD"/*.gtrace*
}
peek() { "$PEEK" "$1" >"$T/peek" 2>&1 || fail "cannot read $1: $(cat "$T/peek")"; }
val() { sed -n "s/^$1 //p" "$T/peek"; }
has() { grep -qxF "$1" "$T/peek" || fail "$2: the trace lacks '$1': $(grep -v '^meta [hpt][or]' "$T/peek")"; }
lines() { [ "$(gt_lines "$T/with.err")" = "$1" ] || fail "$2: expected $1 gputrace: lines: $(cat "$T/with.err")"; }

# ---- endings that finish the trace -----------------------------------------------------------
for pair in "return 2:3" "exit 2:3" "thread-exit 2:3" "abort 3:6" "segv 3:11" "raise-segv 3:11" \
            "sigterm 3:15" "sigint 3:2"; do
	set -- $pair
	how=$1 ending=$(echo "$2" | tr ':' ' ')
	traced "fake $how" "" "$how" 3 100 0 50
	peek "$(only_trace "fake $how")"
	has "complete 1" "fake $how"
	has "kernels 150" "fake $how"
	has "memcpys 100" "fake $how"
	has "bytes 104857600" "fake $how"
	has "process 1 0" "fake $how"
	has "process $ending" "fake $how"
	has "device Fake GPU (gputrace tests)" "fake $how"
	lines 1 "fake $how"
	grep -q "^gputrace: trace written to '.*': 150 kernels, 100 copies, 104857600 bytes copied, 0 dropped$" \
		"$T/with.err" || fail "fake $how: tally line: $(cat "$T/with.err")"
	note "fake $how: status $(cat "$T/with.rc"), complete trace, 150 kernels, process record '$ending'"
done

# ---- endings that cut the trace at its last flush ----------------------------------------------
# 100 kernels (and 100 copies), taken by a periodic flush and given 100 ms (two flush periods of
# 50 ms) to reach the disk; then 50 more kernels and the ending at once.
for how in _exit sigkill; do
	traced "fake $how" "" "$how" 3 100 100 50
	peek "$(only_trace "fake $how")"
	has "complete 0" "fake $how"
	k=$(val kernels)
	[ "$k" -ge 100 ] && [ "$k" -le 150 ] || fail "fake $how: $k kernels, expected 100..150"
	grep -q '^process 2\|^process 3' "$T/peek" && fail "fake $how: an end record where none can be"
	lines 0 "fake $how"
	note "fake $how: trace cut at its last flush: $k of 150 kernels kept (the 100 flushed before are all there)"
done

# ---- fork and exec ------------------------------------------------------------------------------
traced "fake fork-after" "" fork-after 3 100 0 50
peek "$(only_trace "fake fork-after")"
has "kernels 150" "fake fork-after"
has "complete 1" "fake fork-after"
note "fork after cuInit: the child records nothing, the parent's trace is whole"

traced "fake fork-before" "" fork-before 3 100 0 50
[ "$(traces)" = 2 ] || fail "fork before cuInit: expected two traces: $(ls "$WD")"
for f in "$WD"/*.gtrace; do
	peek "$f"
	has "complete 1" "fork-before $f"
	has "kernels 150" "fork-before $f"
done
lines 2 "fake fork-before"
note "fork before cuInit: parent and child each have their own complete trace"

traced "fake exec" "" exec 3 100 100 50
[ "$(traces)" = 2 ] || fail "exec: expected two traces: $(ls "$WD")"
first=$(ls "$WD"/*.gtrace | grep -v '\.1\.gtrace$')
peek "$first"
has "complete 0" "exec (old image)"
k=$(val kernels)
[ "$k" -ge 100 ] && [ "$k" -le 150 ] || fail "exec: old image has $k kernels, expected 100..150"
peek "$(ls "$WD"/*.1.gtrace)"
has "complete 1" "exec (new image)"
has "kernels 50" "exec (new image)"
note "exec: the old trace ends at its last flush ($k kernels), the new program has its own"

# ---- other CUPTI clients, CUPTI versions --------------------------------------------------------
fake_run with "LD_PRELOAD=$LIB" subscribe 3 100 0 50
[ "$(cat "$T/with.rc")" = 3 ] || fail "second client: status $(cat "$T/with.rc")"
grep -q 'cuptiSubscribe returned 39$' "$T/with.out" || fail "second client: CUPTI's answer: $(cat "$T/with.out")"
grep -q "^gputrace: another CUPTI client in this process (e.g. torch.profiler) was refused by CUPTI because gputrace holds it" \
	"$T/with.err" || fail "second client: no line: $(cat "$T/with.err")"
lines 2 "second client" # the refusal and the tally
peek "$(only_trace "second client")"
has "kernels 150" "second client"
grep -q '^meta tracing.other_clients_refused=1 ' "$T/peek" || fail "second client: not in the trace's metadata"
note "a second CUPTI client is refused, said once, noted in the trace"

# A client that registers its own buffer callbacks (without subscribing) takes CUPTI's buffers,
# one of ours included: the trace says it is incomplete, and so does one line.
fake_run with "LD_PRELOAD=$LIB" register 3 100 0 50
[ "$(cat "$T/with.rc")" = 3 ] || fail "buffer takeover: status $(cat "$T/with.rc")"
grep -q "^gputrace: another CUPTI client in this process (e.g. torch.profiler, Nsight) took over activity collection: 1 of our buffers never came back, 0 of its came to us; the trace '.*' is incomplete$" \
	"$T/with.err" || fail "buffer takeover: line: $(cat "$T/with.err")"
peek "$(only_trace "buffer takeover")"
has "meta tracing.collision=0 foreign, 1 of ours never returned" "buffer takeover"
note "a client that takes CUPTI's buffers over: said in one line and in the trace"

traced "client first" "FAKE_CUPTI_TAKEN=nsys-probe" return 3 100 0 50
lines 1 "client first"
grep -q "^gputrace: another CUPTI client is already active in this process (nsys-probe); the program runs untraced$" \
	"$T/with.err" || fail "client first: line: $(cat "$T/with.err")"
peek "$(only_trace "client first")"
has "kernels 0" "client first"
has "complete 1" "client first"
grep -q '^meta tracing.off=another CUPTI client is already active' "$T/peek" || fail "client first: tracing.off"
has "process 6 39" "client first"
note "a CUPTI client that came first: one line, an empty trace that says why"

traced "CUPTI 12" "FAKE_CUPTI_VERSION=120000" return 0 10 0 0
lines 1 "CUPTI 12"
grep -q "^gputrace: libcupti API version 120000 does not match the 130001 this library was built for; the program runs untraced$" \
	"$T/with.err" || fail "CUPTI 12: line: $(cat "$T/with.err")"
peek "$(only_trace "CUPTI 12")"
grep -q '^meta tracing.off=libcupti API version 120000' "$T/peek" || fail "CUPTI 12: tracing.off"
note "a libcupti of another major version: refused, one line, an empty trace that says why"

# ---- settings -----------------------------------------------------------------------------------
traced "kinds" "GPUTRACE_ACTIVITIES=memcpy" return 0 100 0 50
peek "$(only_trace kinds)"
has "kernels 0" kinds
has "memcpys 100" kinds
has "meta trace.activities=memcpy" kinds
note "GPUTRACE_ACTIVITIES=memcpy: copies only"

traced "refused kind" "FAKE_CUPTI_REFUSE_KIND=2" return 0 10 0 0
grep -q '^gputrace: CUPTI refused these activity kinds: memset$' "$T/with.err" ||
	fail "refused kind: line: $(cat "$T/with.err")"
peek "$(only_trace "refused kind")"
has "meta trace.activities_refused=memset" "refused kind"
has "kernels 10" "refused kind"
note "a kind CUPTI refuses: said in one line and in the trace; the rest recorded"

traced "filter" "GPUTRACE_KERNELS=^_Z5child" return 0 100 0 50
peek "$(only_trace filter)"
has "kernels 0" filter
has "dropped 3 150" filter # GT_DROP_FILTERED
has "meta trace.kernel_filter=^_Z5child" filter
traced "filter keeps" "GPUTRACE_KERNELS=stepper" return 0 100 0 50
peek "$(only_trace "filter keeps")"
has "kernels 150" "filter keeps"
grep -q '^dropped 3 ' "$T/peek" && fail "filter keeps: a filtered count where nothing was filtered"
note "GPUTRACE_KERNELS: left-out kernels counted as filtered"

traced "dropped" "FAKE_CUPTI_DROP=7" return 0 100 0 50
peek "$(only_trace dropped)"
has "dropped 1 7" dropped # GT_DROP_CUPTI
grep -q ', 7 dropped$' "$T/with.err" || fail "dropped: the tally does not say 7 dropped: $(cat "$T/with.err")"
note "records CUPTI dropped: in the trace and in the tally"

traced "quiet" "GPUTRACE_QUIET=1" return 0 100 0 50
lines 0 quiet
[ "$(traces)" = 1 ] || fail "quiet: no trace"
traced "disable" "GPUTRACE_DISABLE=1" return 0 100 0 50
cmp -s "$T/bare.err" "$T/with.err" || fail "disable: stderr changed: $(cat "$T/with.err")"
[ "$(traces)" = 0 ] || fail "disable: a trace was written"
note "GPUTRACE_QUIET=1: no lines, a trace; GPUTRACE_DISABLE=1: neither"

traced "no folder" "GPUTRACE_OUTPUT=$T/no/such/dir/run.gtrace" return 0 100 0 50
lines 1 "no folder"
grep -q "^gputrace: cannot create the trace file for '$T/no/such/dir/run.gtrace': No such file or directory; the program runs untraced$" \
	"$T/with.err" || fail "no folder: line: $(cat "$T/with.err")"
note "an output folder that does not exist: one line, the program unchanged"

rm -rf "$WD" && mkdir -p "$WD"
run with "$TRACED GPUTRACE_OUTPUT=run.gtrace" "$APP" return 0 10 0 0
run with "$TRACED GPUTRACE_OUTPUT=run.gtrace" "$APP" return 0 20 0 0
run with "$TRACED GPUTRACE_OUTPUT=run.gtrace" "$APP" return 0 30 0 0
for pair in "run.gtrace 10" "run.1.gtrace 20" "run.2.gtrace 30"; do
	set -- $pair
	peek "$WD/$1"
	has "kernels $2" "numbered $1"
done
note "an existing trace is never replaced: run.gtrace, run.1.gtrace, run.2.gtrace"

fake_run bare "" return 4 100 0 50
fake_run with "CUDA_INJECTION64_PATH=$LIB GPUTRACE_FLUSH_MS=50" return 4 100 0 50
compare "CUDA_INJECTION64_PATH"
peek "$(only_trace CUDA_INJECTION64_PATH)"
has "kernels 150" CUDA_INJECTION64_PATH
has "meta tool.injected_by=CUDA_INJECTION64_PATH" CUDA_INJECTION64_PATH
note "CUDA_INJECTION64_PATH alone: recorded from cuInit"

# ---- the launcher -------------------------------------------------------------------------------
REC="$GPUTRACE record --lib $LIB"
fake_run bare "" return 5 100 0 50
fake_cmd with "" $REC -o run.gtrace -- "$APP" return 5 100 0 50
compare "record"
grep -qx 'gputrace: run.gtrace: 150 kernels, 100 copies, 0 memsets, 104.86 MB copied, 0 dropped' "$T/with.err" ||
	fail "record: tally: $(cat "$T/with.err")"
lines 1 "record"
peek "$WD/run.gtrace"
has "kernels 150" record
note "gputrace record: one tally line, status 5 passed through"

fake_cmd with "" $REC -q -o run.gtrace -- "$APP" return 0 100 0 50
lines 0 "record -q"
fake_cmd with "FAKE_CUPTI_DROP=3" $REC -q -o run.gtrace -- "$APP" return 0 100 0 50
grep -q '^gputrace: run.gtrace: .*, 3 dropped$' "$T/with.err" || fail "record -q with drops: $(cat "$T/with.err")"
note "gputrace record -q: silent unless records were lost"

fake_cmd with "" $REC -o 'run-%p.gtrace' -- "$APP" fork-before 0 100 0 50
[ "$(traces)" = 2 ] || fail "record fork-before: expected two traces: $(ls "$WD")"
[ "$(grep -c '^gputrace: run-[0-9]*\.gtrace: 150 kernels' "$T/with.err")" = 2 ] ||
	fail "record fork-before: expected two tally lines: $(cat "$T/with.err")"
note "gputrace record: one tally line per traced process"

fake_run bare "" sigterm 0 100 0 50
fake_cmd with "" $REC -o run.gtrace -- "$APP" sigterm 0 100 0 50
compare "record sigterm"
[ "$(cat "$T/with.rc")" = 143 ] || fail "record sigterm: status $(cat "$T/with.rc")"
peek "$WD/run.gtrace"
has "process 3 15" "record sigterm"
note "gputrace record: a program killed by SIGTERM: 143, and its trace is complete"

fake_cmd with "" $REC -o run.gtrace -- "$APP" register 0 100 0 50
grep -q '^gputrace: run.gtrace: 0 kernels, .*; collision$' "$T/with.err" ||
	fail "record, buffer takeover: tally: $(cat "$T/with.err")"
note "gputrace record: a trace another client cut short is marked 'collision' in the tally"

fake_cmd with "FAKE_CUDA_NO_CONTEXT=1" $REC -o run.gtrace -- "$APP" return 0 0 0 0
[ "$(traces)" = 0 ] || fail "record, no context: a trace was left: $(ls "$WD")"
grep -qx 'gputrace: no trace written: the program initialised CUDA but never used a GPU (it created no CUDA context)' \
	"$T/with.err" || fail "record, no context: $(cat "$T/with.err")"
lines 1 "record, no context"
fake_cmd with "FAKE_CUDA_NO_CONTEXT=1" $REC -o run.gtrace -- "$APP" return 0 3 0 0
peek "$WD/run.gtrace"
has "kernels 3" "record, no context reported but kernels recorded"
note "gputrace record: a process that created no context and recorded nothing leaves no trace"

printf 'old\n' >"$WD/keep.gtrace"
run with "$FAKE" $REC --force -o keep.gtrace -- "$APP" return 0 100 0 50
peek "$WD/keep.gtrace"
has "kernels 150" "record --force"
[ -e "$WD/keep.1.gtrace" ] && fail "record --force: wrote keep.1.gtrace instead of replacing"
note "gputrace record --force: the old file replaced by the new trace"
exit 0
