# tests/gpu/progs/rel_lib.sh: what the reliability and load scripts (tests/gpu/test_reliability_*.sh,
# tests/gpu/test_load_*.sh) share, on top of tests/gpu/lib.sh (sourced after it; bash).
#
# - the programs: LIB (the preload), RC (tests/gpu/progs/rel_cuda: built here by
#   tests/gpu/progs/module.mk, else compiled now with nvcc where it runs), PLAIN (the plain C
#   program of tests/cli/progs), STORM (kernels/launch_storm), PYPROG (tests/gpu/progs/rel_torch.py);
# - pair NAME WRAP ENV TENV -- CMD...: CMD run bare and under the preload, each in its own folder
#   ($WORK/NAME/bare, .../with; traces land in the latter), with the environment ENV (both runs)
#   and TENV (the traced run only), under WRAP (a command prefix, e.g. a private mount namespace),
#   each bounded by `timeout $TMO`; then compared: stdout byte for byte, stderr apart from
#   "gputrace:" lines (and lines matching $NOISE, when set), the exit status. Sets D (the cell's
#   folder), SAME ("" when equal, else what differs), MS and BMS (the traced and the bare run's
#   wall times, ms);
# - reading a trace with gpuanalyze info: ginfo FILE (cached), kernels_of, complete_of,
#   dropped_of, meta_of FILE KEY;
# - row PROGRAM CONDITION PASS|FAIL|SKIP DETAIL: one line of the table, counted.
LIB=$B/libgputrace.so
TMO=${TMO:-120}
FLUSH_MS=100
nfail=0
npass=0
nskip=0

row() {
	printf '  %-7s %-40s %-4s %s\n' "$1" "$2" "$3" "$4"
	case $3 in FAIL) nfail=$((nfail + 1)); fail=1 ;; PASS) npass=$((npass + 1)) ;; *) nskip=$((nskip + 1)) ;; esac
}
table_head() { printf '  %-7s %-40s %-4s %s\n' program condition res detail; }

# The programs.
RC=$B/tests/gpu/progs/rel_cuda
if [ ! -x "$RC" ]; then
	RC=$WORK/rel_cuda
	NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
	[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
	[ -n "$NVCC" ] || skip "no rel_cuda in $B/tests/gpu/progs (include tests/gpu/progs/module.mk) and no nvcc here"
	"$NVCC" -std=c++17 -O2 -cudart static -o "$RC" "$REPO/tests/gpu/progs/rel_cuda.cu" -lpthread \
		>"$WORK/nvcc.log" 2>&1 || skip "cannot build rel_cuda here: $(tail -n 3 "$WORK/nvcc.log")"
fi
PLAIN=$B/tests/progs/plain
if [ ! -x "$PLAIN" ]; then
	PLAIN=$WORK/plain
	cc -std=c11 -D_GNU_SOURCE -O1 -pthread -I"$REPO/tests/cli/progs" -o "$PLAIN" "$REPO/tests/cli/progs/plain.c" ||
		skip "cannot build the plain C program"
fi
STORM=$B/kernels/launch_storm
PYPROG=$REPO/tests/gpu/progs/rel_torch.py
[ -x "$GA" ] || skip "no gpuanalyze at $GA"
# The caller's settings must not leak into the cells.
unset LD_PRELOAD CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
for v in $(env | sed -n 's/^\(GPUTRACE_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
ulimit -c 0 2>/dev/null

ms_now() { date +%s%3N; }

pair() {
	local name=$1 wrap=$2 env=$3 tenv=$4
	shift 5 # the four and "--"
	D=$WORK/$name
	rm -rf "$D"
	mkdir -p "$D/bare" "$D/with"
	# shellcheck disable=SC2086 # WRAP, ENV and TENV are word lists on purpose
	local t0
	t0=$(ms_now)
	# The status is taken inside the subshell, so that a program killed by a signal gives 128 + n
	# there and the shell running this script does not report the death on its own stderr.
	(cd "$D/bare" && timeout "$TMO" $wrap env $env "$@"; echo $? >"$D/bare.rc") >"$D/bare.out" 2>"$D/bare.err" </dev/null
	BMS=$(($(ms_now) - t0))
	t0=$(ms_now)
	# shellcheck disable=SC2086
	(cd "$D/with" && timeout "$TMO" $wrap env $env LD_PRELOAD="$LIB" GPUTRACE_FLUSH_MS=$FLUSH_MS $tenv "$@"
	 echo $? >"$D/with.rc") >"$D/with.out" 2>"$D/with.err" </dev/null
	MS=$(($(ms_now) - t0))
	SAME=""
	# bash reports a child killed by a signal ("rel_lib.sh: line 67: 2178 Aborted  timeout ..."),
	# naming this script's line, the pid and the command, which differ between the two runs: keep
	# only the signal's name from those lines.
	local norm='s/^.*rel_lib\.sh: line [0-9]*: *[0-9]* *\([A-Za-z][A-Za-z ]*[a-z]\)  .*$/shell: \1/'
	grep -v '^gputrace:' "$D/with.err" | sed "$norm" >"$D/with.err.prog"
	sed "$norm" "$D/bare.err" >"$D/bare.err.prog"
	if [ -n "${NOISE:-}" ]; then
		grep -Ev "$NOISE" "$D/with.err.prog" >"$D/t" ; mv "$D/t" "$D/with.err.prog"
		grep -Ev "$NOISE" "$D/bare.err.prog" >"$D/t" ; mv "$D/t" "$D/bare.err.prog"
	fi
	if [ "$(cat "$D/bare.rc")" = 124 ] || [ "$(cat "$D/with.rc")" = 124 ]; then
		SAME="timed out (${TMO}s): bare $(cat "$D/bare.rc"), traced $(cat "$D/with.rc")"
	elif [ "$(cat "$D/bare.rc")" != "$(cat "$D/with.rc")" ]; then
		SAME="status $(cat "$D/with.rc") traced, $(cat "$D/bare.rc") bare"
	elif ! cmp -s "$D/bare.out" "$D/with.out"; then
		SAME="stdout differs: $(diff "$D/bare.out" "$D/with.out" | head -n 4 | tr '\n' ' ')"
	elif ! cmp -s "$D/bare.err.prog" "$D/with.err.prog"; then
		SAME="stderr differs: $(diff "$D/bare.err.prog" "$D/with.err.prog" | head -n 4 | tr '\n' ' ')"
	fi
}

# Lines "gputrace: ..." of the traced run, and how many.
gt_err() { grep '^gputrace:' "$D/with.err"; }
gt_n() { grep -c '^gputrace:' "$D/with.err"; }
# The program's own count: its last "tally kernels=N" line (in the bare run's output: the same).
tally() { sed -n 's/^tally kernels=\([0-9]*\).*/\1/p' "$D/bare.out" | tail -n 1; }
# The traces a run left in a folder (default: the traced run's).
traces() { ls "${1:-$D/with}" 2>/dev/null | grep '\.gtrace' | sed "s,^,${1:-$D/with}/,"; }
ntraces() { traces "$@" | grep -c .; }

ginfo() {
	local c
	c=$WORK/info-cache/$(echo "$1" | tr '/' '_')
	mkdir -p "$WORK/info-cache"
	[ -f "$c" ] || "$GA" info "$1" >"$c" 2>&1
	cat "$c"
}
kernels_of() { ginfo "$1" | awk '$1 == "kernel" { n = $2 } END { print n + 0 }'; }
complete_of() { ginfo "$1" | grep -q '^  end: *complete' && echo 1 || echo 0; }
dropped_of() { ginfo "$1" | sed -n 's/^  dropped: *\([0-9]*\) dropped.*/\1/p'; }
dropped_line() { ginfo "$1" | sed -n 's/^  dropped: *//p'; }
meta_of() { ginfo "$1" | sed -n "s/^    $2 = //p" | head -n 1; }
# Where in info's output the loss is said: the line number of "dropped:" and of "metadata:".
dropped_first() {
	local dl ml
	dl=$(ginfo "$1" | grep -n '^  dropped:' | cut -d: -f1)
	ml=$(ginfo "$1" | grep -n '^  metadata:' | cut -d: -f1)
	[ -n "$dl" ] && [ -n "$ml" ] && [ "$dl" -lt "$ml" ]
}
# One trace, complete, holding exactly N kernels and nothing dropped: "" or what is wrong.
check_all() {
	local f=$1 want=$2 k c d
	[ -f "$f" ] || { echo "no trace"; return; }
	k=$(kernels_of "$f"); c=$(complete_of "$f"); d=$(dropped_of "$f")
	[ "$c" = 1 ] || { echo "trace incomplete ($k kernels)"; return; }
	[ "$d" = 0 ] || { echo "$d dropped ($(dropped_line "$f"))"; return; }
	[ "$k" = "$want" ] || { echo "$k kernels in the trace, the program launched $want"; return; }
}
