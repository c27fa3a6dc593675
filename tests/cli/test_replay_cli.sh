#!/bin/sh
# gputrace replay without a GPU: --help, usage errors (exit 2, one "gputrace:" line), --list on the
# sample traces recorded on an H200 (every capture listed, the count line right, a hostile kernel
# name escaped), an unreadable trace (exit 2), and the replay itself where this machine has no CUDA
# driver: exit 77 with exactly one line that says "unavailable", never a pass. Input errors (a
# missing trace, a capture the trace does not hold, a trace without captures, a pattern that does
# not compile or picks nothing, a bad -n, --check-reps, --dtype or --device, an unknown --metrics set
# or a word that is no metric name, a 257th --capture, an existing -o without --force) are
# 2 on this machine too, which has no driver: they are checked before the driver is looked for, and
# 256 --capture options get as far as the driver. Kernel names with C0 and C1 controls, a bidi
# override, invalid UTF-8 and a newline, and a trace path with them, are shown escaped by --list and
# by extract's and the worker's messages, each one line. The worker (gputrace-replay) refuses a
# trace without captures and bad options with exit 2 on its own.
. tests/cli/progs/common.sh
need_gputrace
S=$ROOT/traces/samples
WORKER=$P/gputrace-replay

"$GPUTRACE" replay --help >"$T/o" 2>"$T/e" || fail "replay --help: exit $?"
for opt in --capture --kernel --reps --check-reps --dtype --with-structs --timeout --list --extract --metrics "Exit status of replay"; do
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
	printf 'ok: %s: %s\n' "$label" "$(cat "$T/e")" # printf: echo would read the escapes shown
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

# Input errors are 2, not 77 (this machine may have no driver: 77 would hide them as "skipped").
C=$S/h200-shadow-correct.gtrace
usage "a missing trace" "$T/missing.gtrace"
usage "a file that is no trace" "$T/junk.gtrace"
usage "a trace without captures" "$S/h200-splat_render.gtrace"
usage "a capture the trace does not hold" --capture 99 "$C"
grep -q "has no capture 99: it holds 8 captures, ids 1 to 8" "$T/e" || fail "--capture 99: $(cat "$T/e")"
usage "--capture 0" --capture 0 "$C"
usage "--capture x" --capture x "$C"
usage "a pattern that does not compile" -k '(' "$C"
usage "a pattern that picks nothing" -k 'no_such_kernel' "$C"
usage "-n x" -n x "$C"
usage "-n -1" -n -1 "$C"
usage "-n 1000001" -n 1000001 "$C"
usage "--check-reps x" --check-reps x "$C"
usage "--dtype f16" --dtype f16 "$C"
usage "--device x" --device x "$C"
usage "--metrics of an unknown set" --metrics memory,bogus "$C"
grep -q "'bogus' is neither a metric set (memory, compute) nor a CUPTI metric name" "$T/e" || fail "--metrics bogus: $(cat "$T/e")"
usage "--metrics of a word that is no metric name" --metrics 'DRAM bytes' "$C"
usage "--metrics empty" --metrics '' "$C"
usage "--metrics ending in a comma" --metrics memory, "$C"
: >"$T/exists.gtrace"
usage "an existing -o file without --force" -o "$T/exists.gtrace" "$C"
caps=
i=0
while [ $i -lt 257 ]; do caps="$caps --capture $((i % 8 + 1))"; i=$((i + 1)); done
# shellcheck disable=SC2086
usage "a 257th --capture" $caps "$C"
grep -q 'at most 256' "$T/e" || fail "a 257th --capture: $(cat "$T/e")"

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

# A kernel name with an escape sequence, a C1 CSI, a bidi override, an invalid byte and a newline:
# --list shows it as gpuanalyze's text rule does, on one line.
# raw FILE: fails when FILE holds ESC, a C1 control (UTF-8 C2 80..9F), U+202E or the byte FF.
raw() {
	LC_ALL=C grep -q "$(printf '\033')\\|$(printf '\302')[$(printf '\200-\237')]\\|$(printf '\342\200\256')\\|$(printf '\377')" "$1"
}
if [ -x "$P/tools/gt_synth" ]; then
	name=$(printf 'evil\033[31m\302\233m\342\200\256gnp.exe\377\nname')
	"$P/tools/gt_synth" -o "$T/evil.gtrace" -n 4 --all-types --kernel-name "$name" >/dev/null 2>&1 || fail "gt_synth failed"
	"$GPUTRACE" replay --list "$T/evil.gtrace" >"$T/l" 2>&1 || fail "--list evil: exit $?"
	raw "$T/l" && fail "--list printed a raw control or invalid byte: $(cat -v "$T/l")"
	[ "$(grep -c 'evil' "$T/l")" = 1 ] || fail "--list split the name over lines: $(cat -v "$T/l")"
	grep -qF "evil\x1b[31m\u009bm\u202egnp.exe$(printf '\357\277\275')\nname" "$T/l" ||
		fail "--list does not show the name by the text rule: $(grep evil "$T/l" | cat -v)"
	printf 'ok: --list escapes a hostile kernel name: %s\n' "$(grep evil "$T/l" | sed 's/^ *//')"
fi

# A trace path as hostile as that name: every message that quotes it is one escaped line.
hd=$T/$(printf 'dir\033]0;x\007\302\233\342\200\256\377\nnext')
mkdir "$hd" || fail "cannot create the hostile folder"
cp "$C" "$hd/t.gtrace"
usage "a capture a hostile path does not hold" --capture 99 "$hd/t.gtrace"
raw "$T/e" && fail "a hostile trace path printed raw: $(cat -v "$T/e")"
usage "a hostile missing trace" "$hd/missing.gtrace"
raw "$T/e" && fail "a hostile trace path printed raw: $(cat -v "$T/e")"
usage "--list of a hostile missing trace" --list "$hd/missing.gtrace"
raw "$T/e" && fail "--list: a hostile trace path printed raw: $(cat -v "$T/e")"
"$GPUTRACE" replay --extract 99 -o "$hd/x" "$hd/t.gtrace" >"$T/o" 2>"$T/e"
[ $? = 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || fail "--extract 99 of a hostile path: $(cat -v "$T/e")"
raw "$T/e" && fail "--extract: a hostile trace path printed raw: $(cat -v "$T/e")"
grep -qF 'dir\x1b]0;x\x07\u009b\u202e' "$T/e" || fail "--extract: the path not escaped by the text rule: $(cat -v "$T/e")"
: >"$hd/file"
"$GPUTRACE" replay --extract 1 -o "$hd/file" "$C" >"$T/o" 2>"$T/e"
[ $? = 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || fail "--extract into a hostile file name: $(cat -v "$T/e")"
raw "$T/e" && fail "--extract: a hostile -o path printed raw: $(cat -v "$T/e")"
note "a hostile trace path: one escaped line from replay, --list and --extract"

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
	# 256 --capture options (and so the ninth) are accepted: they reach the driver check.
	caps=
	i=0
	while [ $i -lt 256 ]; do caps="$caps --capture $((i % 8 + 1))"; i=$((i + 1)); done
	# shellcheck disable=SC2086
	"$GPUTRACE" replay $caps "$C" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 77 ] && grep -q 'unavailable' "$T/o" || fail "256 --capture options: exit $rc: $(cat "$T/o" "$T/e")"
	note "256 --capture options accepted (exit 77 here: no driver)"
fi

# The worker on its own.
if [ -x "$WORKER" ]; then
	"$WORKER" "$S/h200-splat_render.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && grep -q 'none of them picked' "$T/e" || fail "worker on a trace without captures: exit $rc $(cat "$T/e")"
	"$WORKER" --capture 0 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] || fail "worker --capture 0: exit $rc"
	"$WORKER" --capture 99 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && grep -q 'has no capture 99: it holds 8 captures, ids 1 to 8' "$T/e" || fail "worker --capture 99: exit $rc $(cat "$T/e")"
	"$WORKER" --kernel nomatch "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && grep -q '8 captured launches, none of them picked' "$T/e" || fail "worker --kernel nomatch: exit $rc $(cat "$T/e")"
	"$WORKER" "$hd/missing.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || fail "worker on a hostile missing path: exit $rc $(cat -v "$T/e")"
	raw "$T/e" && fail "worker: a hostile trace path printed raw: $(cat -v "$T/e")"
	"$WORKER" --dtype f16 "$S/h200-shadow-correct.gtrace" >"$T/o" 2>"$T/e"; rc=$?
	[ $rc = 2 ] || fail "worker --dtype f16: exit $rc"
	note "gputrace-replay: a trace without captures, --capture 0 / 99, --kernel nomatch, --dtype f16, a hostile missing path: exit 2"
else
	note "skip the worker's checks: $WORKER not built (no cuda.h at build time)"
fi
echo "all replay command-line checks passed"
