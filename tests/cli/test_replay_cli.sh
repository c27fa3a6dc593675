#!/bin/sh
# gputrace replay without a GPU: --help, usage errors (exit 2, one "gputrace:" line), --list on the
# sample traces recorded on an H200 (every capture listed, the count line right, a hostile kernel
# name escaped), an unreadable trace (exit 2), and the replay itself where this machine has no CUDA
# driver: exit 77 with exactly one line that says "unavailable", never a pass. The worker
# (gputrace-replay) refuses a trace without captures and bad options with exit 2 on its own.
. tests/cli/progs/common.sh
need_gputrace
S=$ROOT/traces/samples
WORKER=$P/gputrace-replay

"$GPUTRACE" replay --help >"$T/o" 2>"$T/e" || fail "replay --help: exit $?"
for opt in --capture --kernel --reps --check-reps --dtype --with-structs --timeout --list --extract "Exit status of replay"; do
	grep -q -- "$opt" "$T/o" || fail "replay --help lacks $opt"
done
note "replay --help lists its options and exit statuses"

usage() { # LABEL ARGS...: exit 2, nothing on stdout, one gputrace: line on stderr
	label=$1
	shift
	"$GPUTRACE" replay "$@" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 2 ] || fail "$label: exit $rc, expected 2 ($(cat "$T/e"))"
	[ -s "$T/o" ] && fail "$label: wrote to stdout: $(cat "$T/o")"
	[ "$(wc -l <"$T/e")" -eq 1 ] || fail "$label: not one line on stderr: $(cat "$T/e")"
	grep -q '^gputrace' "$T/e" || fail "$label: $(cat "$T/e")"
	note "$label: $(cat "$T/e")"
}
usage "no trace" 
usage "two traces" a.gtrace b.gtrace
usage "unknown option" --bogus "$S/h200-shadow-correct.gtrace"
usage "option without value" "$S/h200-shadow-correct.gtrace" --capture
usage "--timeout 0" --timeout 0 "$S/h200-shadow-correct.gtrace"
usage "--extract 0" --extract 0 -o "$T/x" "$S/h200-shadow-correct.gtrace"
usage "--extract without -o" --extract 1 "$S/h200-shadow-correct.gtrace"
usage "--list of a missing file" --list "$T/missing.gtrace"
printf 'not a trace' >"$T/junk.gtrace"
usage "--list of a file that is no trace" --list "$T/junk.gtrace"

# --list: one line per capture, ids 1..N, and the count; a trace without captures says so.
for f in h200-shadow-correct h200-shadow-broken h200-shadow-histogram h200-shadow-composite; do
	"$GPUTRACE" replay --list "$S/$f.gtrace" >"$T/l" 2>"$T/e" || fail "--list $f: exit $? $(cat "$T/e")"
	n=$(sed -n 's/^\([0-9]*\) captured launches.*/\1/p' "$T/l")
	rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+x' "$T/l")
	[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$rows" = "$n" ] || fail "--list $f: $rows rows for '$n' captures: $(cat "$T/l")"
	last=$(grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+x' "$T/l" | tail -1 | awk '{print $1}')
	[ "$last" = "$n" ] || fail "--list $f: the last id is $last, not $n"
done
note "--list: every capture of four H200 traces, ids 1..N"
"$GPUTRACE" replay --list "$S/h200-splat_render.gtrace" >"$T/l" 2>&1 || fail "--list of a trace without captures: exit $?"
grep -q '^0 captured launches' "$T/l" || fail "--list without captures: $(cat "$T/l")"
note "--list of a trace without captures: 0"

# A kernel name with an escape sequence and a newline: --list shows it escaped, on one line.
if [ -x "$P/tools/gt_synth" ]; then
	name=$(printf 'evil\033[31m\nname')
	"$P/tools/gt_synth" -o "$T/evil.gtrace" -n 4 --all-types --kernel-name "$name" >/dev/null 2>&1 || fail "gt_synth failed"
	"$GPUTRACE" replay --list "$T/evil.gtrace" >"$T/l" 2>&1 || fail "--list evil: exit $?"
	grep -q "$(printf '\033')" "$T/l" && fail "--list printed a raw escape character: $(cat -v "$T/l")"
	[ "$(grep -c 'evil' "$T/l")" = 1 ] || fail "--list split the name over lines: $(cat -v "$T/l")"
	note "--list escapes a hostile kernel name: $(grep evil "$T/l" | sed 's/^ *//')"
fi

# The replay itself: without a CUDA driver, unavailable (77) in one line on stdout.
if has_driver; then
	note "skip the no-driver case: this machine has libcuda.so.1 (tests/gpu/test_replay.sh covers the replay)"
else
	"$GPUTRACE" replay "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 77 ] || fail "replay without a driver: exit $rc, expected 77: $(cat "$T/o" "$T/e")"
	[ "$(cat "$T/o" "$T/e" | wc -l)" -eq 1 ] || fail "replay without a driver: not one line: $(cat "$T/o" "$T/e")"
	grep -q 'unavailable' "$T/o" || fail "replay without a driver: $(cat "$T/o")"
	[ -e "$WD/h200-shadow-correct.replay.gtrace" ] && fail "a replay trace was written without a GPU"
	note "replay without a driver: exit 77, $(cat "$T/o")"
fi

# The worker on its own.
if [ -x "$WORKER" ]; then
	"$WORKER" "$S/h200-splat_render.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && grep -q 'none of them picked' "$T/e" || fail "worker on a trace without captures: exit $rc $(cat "$T/e")"
	"$WORKER" --capture 0 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] || fail "worker --capture 0: exit $rc"
	"$WORKER" --capture 99 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && grep -q '8 captured launches, none of them picked' "$T/e" || fail "worker --capture 99: exit $rc $(cat "$T/e")"
	"$WORKER" --dtype f16 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] || fail "worker --dtype f16: exit $rc"
	note "gputrace-replay: a trace without captures, --capture 0 / 99, --dtype f16: exit 2"
else
	note "skip the worker's checks: $WORKER not built (no cuda.h at build time)"
fi
echo "all replay command-line checks passed"
