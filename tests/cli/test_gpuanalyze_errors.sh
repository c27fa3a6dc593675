#!/bin/sh
# Input and usage errors: exit status 2 (never 1), exactly one line on standard error in the
# analyzer's voice, nothing on standard output. A trace that ends early is not an error: it is
# read, with one warning line, and the status is 0.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURE="$build/tests/test_analyze_cli_fixture"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURE" ] || fail "no fixture writer at $FIXTURE"
T=$(mktemp -d /tmp/gt_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$FIXTURE" write "$T" || fail "cannot write the fixtures"
cd "$T" || fail "cd $T"

# expect STATUS LINE CMD...: exit status, the one line of stderr, and stdout empty when STATUS is 2
# (PARTIAL=1: except for what a streaming command wrote before the damage).
expect() {
	want_rc=$1
	want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "'$*' exits $rc, want $want_rc: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*' wrote $(wc -l <"$T/err") lines to stderr: $(cat "$T/err")"
	[ "$(cat "$T/err")" = "$want" ] || fail "'$*' says '$(cat "$T/err")', want '$want'"
	if [ "$want_rc" -eq 2 ] && [ -s "$T/out" ] && [ "${PARTIAL:-0}" = 0 ]; then
		fail "'$*' wrote to stdout on error: $(head -c 200 "$T/out")"
	fi
}

for cmd in info summary dump; do
	expect 2 "gpuanalyze: $cmd: unknown option '--frobnicate' (see 'gpuanalyze $cmd --help')" \
		"$G" $cmd --frobnicate small.gtrace
	expect 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" \
		"$G" $cmd missing.gtrace
	expect 2 "gpuanalyze: cannot open trace 'not-a-trace.gtrace': not a gputrace file (bad file magic at byte 0)" \
		"$G" $cmd not-a-trace.gtrace
	expect 2 "gpuanalyze: cannot open trace 'cut-header.gtrace': empty or truncated before its header (10 bytes, shorter than the 32-byte file header at byte 0)" \
		"$G" $cmd cut-header.gtrace
	# dump streams its rows: those of the chunk before the damage are out when it is found.
	partial=0
	[ $cmd = dump ] && partial=1
	PARTIAL=$partial expect 2 "gpuanalyze: cannot read trace 'corrupt.gtrace': corrupt trace (zstd: Src size is incorrect at byte 515)" \
		"$G" $cmd corrupt.gtrace
	expect 0 "gpuanalyze: warning: truncated.gtrace ends early: 39 bytes of an incomplete chunk lost; the recording process did not close the trace" \
		"$G" $cmd truncated.gtrace
	expect 2 "gpuanalyze: cannot write 'nodir/out': No such file or directory" \
		"$G" $cmd -o nodir/out small.gtrace
done
expect 2 "gpuanalyze: summary: missing operand FILE... (see 'gpuanalyze summary --help')" "$G" summary --warmup 3
expect 2 "gpuanalyze: summary: option '--warmup' wants a non-negative integer, not 'three' (see 'gpuanalyze summary --help')" \
	"$G" summary --warmup three small.gtrace
expect 2 "gpuanalyze: summary: option '--format' wants one of text|md|json|csv, not 'xml' (see 'gpuanalyze summary --help')" \
	"$G" summary --format xml small.gtrace
expect 2 "gpuanalyze: summary: option '--sort' wants one of total|median|count|name, not 'size' (see 'gpuanalyze summary --help')" \
	"$G" summary --sort size small.gtrace
expect 2 "gpuanalyze: summary: option '--kernel': bad regular expression '(': Unmatched ( or \\( (see 'gpuanalyze summary --help')" \
	"$G" summary --kernel '(' small.gtrace
expect 2 "gpuanalyze: info: option '--format' wants one of text|json, not 'csv' (see 'gpuanalyze info --help')" \
	"$G" info --format csv small.gtrace
expect 2 "gpuanalyze: dump: too many operands (wants FILE) (see 'gpuanalyze dump --help')" \
	"$G" dump small.gtrace small.gtrace
# A failure in one of several files fails the summary: no partial numbers.
expect 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" \
	"$G" summary small.gtrace missing.gtrace
# A write error found only when the output is flushed and closed (a full disk: /dev/full) exits 2
# with one line, whatever the command had printed: the output is not complete (cmd_output.c owns
# the close for every command). The reason depends on when the stream first failed (ENOSPC at the
# close, EIO when an earlier flush failed), so only the line's start is asserted.
full() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] || fail "'$*' exits $rc on a full disk, want 2: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*' wrote $(wc -l <"$T/err") lines to stderr: $(cat "$T/err")"
	case $(cat "$T/err") in
	"gpuanalyze: cannot write '/dev/full': "?*) ;;
	*) fail "'$*' says '$(cat "$T/err")', want \"gpuanalyze: cannot write '/dev/full': REASON\"" ;;
	esac
}
if [ -w /dev/full ]; then
	for cmd in info summary dump split bandwidth findings ranks export; do
		full "$G" $cmd -o /dev/full small.gtrace
	done
	full "$G" findings --fail-on info -o /dev/full small.gtrace # a write error before the verdict
	full "$G" stats -o /dev/full cuda_gpu_kern_sum small.gtrace
	full "$G" diff -o /dev/full small.gtrace small.gtrace
fi
exit 0
