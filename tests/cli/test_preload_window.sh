#!/bin/sh
# Windowed recording (GPUTRACE_WINDOW) without a GPU, through the fake driver and CUPTI stand-in
# (tests/cli/progs/fake_cuda.c, which cannot detach, so windows switch the kinds off and on):
# - the program's output and status are those of a bare run;
# - the trace holds window-open/close process records, the first window opening at start, and
#   META trace.window_ms with the setting;
# - the kernels launched at start (inside the first window) are all there;
# - gpuanalyze split takes the windows as its units and says how much of the run they covered;
#   summary says the trace was recorded in windows.
# The GPU side (CUPTI detached between windows, PyTorch, NVTX) is tests/gpu/test_api_window.sh.
. tests/cli/progs/common.sh
need_lib
FAKELIB=$(prog fakecuda/libcuda.so.1) || skip "skipped: no CUPTI headers under $CUDA_DIR to build the fake driver"
APP=$(prog fake_app) || fail "cannot build fake_app"
GA=$B/gpuanalyze
FAKE="LD_LIBRARY_PATH=$(dirname "$FAKELIB") GPUTRACE_CUPTI_PATH=$FAKELIB"

# as_bare LABEL ENV ARGS...: fake_app ARGS with the fake driver, bare and with ENV added: the same
# stdout, stderr apart from gputrace: lines, and status.
as_bare() {
	ab_label=$1 ab_env=$2
	shift 2
	run bare "$FAKE" "$APP" "$@"
	run with "$FAKE $ab_env" "$APP" "$@"
	cmp -s "$T/bare.out" "$T/with.out" || fail "$ab_label: stdout differs"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" || fail "$ab_label: stderr differs: $(diff "$T/bare.err" "$T/with.err.prog" | head -5)"
	[ "$(cat "$T/bare.rc")" = "$(cat "$T/with.rc")" ] || fail "$ab_label: status $(cat "$T/with.rc"), bare $(cat "$T/bare.rc")"
}

# 1000 kernels at start, then about 1.6 s of waiting (windows of 100 ms every 300 ms open and
# close meanwhile), then 500 more.
as_bare "windows" "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 GPUTRACE_WINDOW=100/300 GPUTRACE_OUTPUT=w.gtrace" \
	return 0 1000 1500 500
[ -f "$WD/w.gtrace" ] || fail "windows: no trace written: $(cat "$T/with.err")"
"$GA" dump --type process,kernel --format csv "$WD/w.gtrace" >"$T/w.csv" 2>"$T/dump.err" ||
	fail "windows: dump failed: $(cat "$T/dump.err")"
opens=$(grep -c ',window-open,' "$T/w.csv")
closes=$(grep -c ',window-close,' "$T/w.csv")
kernels=$(grep -c '^kernel,' "$T/w.csv")
[ "$opens" -ge 4 ] && [ "$closes" -ge 3 ] || fail "windows: $opens openings, $closes closings in a 1.6 s run of 100/300 ms windows"
[ "$kernels" -ge 1000 ] && [ "$kernels" -le 1500 ] || fail "windows: $kernels kernels (1000 at start, inside the first window)"
"$GA" info "$WD/w.gtrace" >"$T/info" 2>&1 || fail "windows: info failed: $(cat "$T/info")"
grep -q 'trace.window_ms *100/300\|trace.window_ms.*100/300' "$T/info" || fail "windows: META trace.window_ms not 100/300: $(grep window "$T/info")"
note "windows: $opens openings, $closes closings, $kernels kernels; output and status as bare"

"$GA" split "$WD/w.gtrace" >"$T/split" 2>&1 || fail "split failed: $(cat "$T/split")"
grep -q 'units: the recording windows' "$T/split" || fail "split: units are not the windows: $(head -5 "$T/split")"
grep -q 'recorded in windows: [0-9]* windows, .* of a .* run' "$T/split" || fail "split: no coverage line: $(head -8 "$T/split")"
"$GA" split --format json "$WD/w.gtrace" >"$T/split.json" 2>&1 || fail "split --format json failed"
python3 - "$T/split.json" <<'PY' || fail "split's JSON: $(cat "$T/split.json" | head -c 600)"
import json, sys
j = json.load(open(sys.argv[1]))
w = j['trace']['windows']
assert j['units_from']['mode'] == 'window', j['units_from']
assert w['count'] >= 4 and 0 < w['recorded_ns'] < w['run_ns'], w
PY
"$GA" summary "$WD/w.gtrace" >"$T/summary" 2>&1 || fail "summary failed: $(cat "$T/summary")"
grep -q 'recorded in windows (GPUTRACE_WINDOW=100/300 ms)' "$T/summary" || fail "summary does not say the trace was recorded in windows"
note "split: the windows are the units, with how much of the run they saw; summary says so"

# A setting that does not parse: one line, the whole run recorded.
as_bare "bad window" "LD_PRELOAD=$LIB GPUTRACE_WINDOW=300/100 GPUTRACE_OUTPUT=b.gtrace" return 0 10 0 0
[ "$(gt_lines "$T/with.err")" -ge 1 ] && grep -q "GPUTRACE_WINDOW='300/100' is not ON/PERIOD" "$T/with.err" ||
	fail "bad window: no line naming GPUTRACE_WINDOW: $(cat "$T/with.err")"
"$GA" dump --type process --format csv "$WD/b.gtrace" | grep -q window && fail "bad window: windows recorded anyway"
note "GPUTRACE_WINDOW=300/100: one line, recorded all the time"
exit 0
