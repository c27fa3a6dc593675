#!/bin/sh
# The recorder's settings as a traced program sees them (no GPU needed):
# - GPUTRACE_DISABLE=1: the library loads and adds nothing, not even a line;
# - an invalid value (GPUTRACE_FLUSH_MS=abc, ...): exactly one "gputrace:" line naming the variable,
#   the value and the fallback, and the program is otherwise unchanged;
# - several invalid values: one line each;
# - a program that marks NVTX ranges but never uses CUDA, with no driver: NVTX's injection must not
#   start a recorder behind the "nothing will be recorded" line (one line, no trace file).
. tests/cli/progs/common.sh
need_lib
PLAIN=$(prog plain) || fail "cannot build the plain test program"
if has_driver; then driver=1; else driver=0; fi

# GPUTRACE_DISABLE=1: stderr byte-identical, not just "identical apart from gputrace: lines".
same_as_bare "GPUTRACE_DISABLE=1" "LD_PRELOAD=$LIB GPUTRACE_DISABLE=1" "$PLAIN" return 3
cmp -s "$T/bare.err" "$T/with.err" || fail "GPUTRACE_DISABLE=1 added output: $(cat "$T/with.err")"
no_traces "GPUTRACE_DISABLE=1"
note "GPUTRACE_DISABLE=1 adds nothing"

# One invalid value: one line about it, naming the variable, the value and the fallback.
check_invalid() { # VAR VALUE FALLBACK-TEXT [QUOTED-TEXT, default VALUE]
	quoted=${4:-$2}
	same_as_bare "$1=$2" "LD_PRELOAD=$LIB $1=$2" "$PLAIN" return 0
	n=$(grep -c "^gputrace: .*$1" "$T/with.err")
	[ "$n" = 1 ] || fail "$1=$2: $n lines name it, expected 1: $(cat "$T/with.err")"
	line=$(grep "^gputrace: .*$1" "$T/with.err")
	case $line in
	*"'$quoted'"*"$3"*) ;;
	*) fail "$1=$2: the line does not name the value and '$3': $line" ;;
	esac
	if [ $driver = 0 ]; then
		# The other line is the missing driver; nothing else.
		[ "$(gt_lines "$T/with.err")" = 2 ] || fail "$1=$2: unexpected lines: $(cat "$T/with.err")"
	fi
	note "$1=$2: $line"
}
check_invalid GPUTRACE_FLUSH_MS abc "using 1000"
check_invalid GPUTRACE_FLUSH_MS 5 "using 1000"
check_invalid GPUTRACE_BUFFER_KB 1x "using 4096"
check_invalid GPUTRACE_LATENCY maybe "using 0"
check_invalid GPUTRACE_KERNELS "gemm(" "recording all kernels"
check_invalid GPUTRACE_ACTIVITIES kernal,memcpy "ignored" kernal

# Several at once: one line each. GPUTRACE_DISABLE=1 still reports bad values (they are read
# before anything else) but adds nothing more.
same_as_bare "three invalid" \
	"LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=x GPUTRACE_BUFFERS_MAX=1 GPUTRACE_SAMPLE_MS=-1" \
	"$PLAIN" return 0
for v in GPUTRACE_FLUSH_MS GPUTRACE_BUFFERS_MAX GPUTRACE_SAMPLE_MS; do
	[ "$(grep -c "^gputrace: $v=" "$T/with.err")" = 1 ] || fail "three invalid: $v: $(cat "$T/with.err")"
done
note "three invalid values: three lines"

# GPUTRACE_QUIET=1 keeps the warnings about settings (they are errors in what the user asked).
same_as_bare "GPUTRACE_QUIET=1" "LD_PRELOAD=$LIB GPUTRACE_QUIET=1 GPUTRACE_FLUSH_MS=abc" \
	"$PLAIN" return 0
grep -q '^gputrace: GPUTRACE_FLUSH_MS=' "$T/with.err" || fail "GPUTRACE_QUIET=1 hid a settings error"

# NVTX without CUDA and without a driver.
if NVTXP=$(prog nvtx_plain); then
	same_as_bare "nvtx_plain" "LD_PRELOAD=$LIB" "$NVTXP" 4
	if [ $driver = 0 ]; then
		[ "$(gt_lines "$T/with.err")" = 1 ] ||
			fail "nvtx_plain without a driver: expected one gputrace: line: $(cat "$T/with.err")"
		no_traces "nvtx_plain"
	fi
	note "nvtx_plain: status $(cat "$T/with.rc"), output unchanged, $(gt_lines "$T/with.err") line"
else
	note "nvtx_plain not built (no NVTX headers under $CUDA_DIR): NVTX case not run"
fi
exit 0
