#!/bin/sh
# How `gputrace replay --metrics` writes the measured values into the replay trace, without a GPU:
# the launcher's last step (launcher_replay_metrics) run alone by tests/cli/progs/replay_metrics_write
# on a synthetic trace and a values file in the worker's format. Each value becomes one
# LAUNCH_METRIC record carrying the start, end, correlation id, device and kernel name of the
# kernel at its ordinal (the trace's kernels in start order), its metric, value and passes; a value
# whose ordinal is past the trace's kernels, or any value when the trace holds another number of
# kernels than the worker's results say it launched, is kept off the timeline (flags 1); every
# other record stays as it was (the default dump is byte-identical); META says how the values were
# measured and names the set members the GPU lacked; "counters unavailable" gives no record and
# META metrics.unavailable; a values file with nothing in it leaves the trace byte for byte as it was.
. tests/cli/progs/common.sh
G=$B/gpuanalyze
W=$P/tests/progs/replay_metrics_write
PEEK=$P/tests/progs/trace_peek
SYNTH=$B/tools/gt_synth
for x in "$G" "$W" "$PEEK" "$SYNTH"; do [ -x "$x" ] || fail "$x not built"; done
command -v python3 >/dev/null || skip "SKIP: no python3"

"$SYNTH" -o "$T/t.gtrace" -n 40 --seed 3 || fail "gt_synth"
# The worker's results: three captures whose launches add up to the trace's 40 kernels.
printf '1 10 0 5 2\n2 20 0 9 1\n3 10 0 12 1\n' >"$T/res"
printf '1 10 0 5 2\n2 20 0 9 1\n3 9 0 12 1\n' >"$T/res39"
cp "$T/t.gtrace" "$T/r.gtrace"
printf 'D sm__pipe_x.sum\nV 1 0 2 dram__bytes_read.sum 1234.5\nV 1 0 2 dram__bytes_write.sum 99\nV 2 5 1 gpu__time_duration.sum 4250\nV 3 100000 1 dram__bytes_read.sum 7\n' >"$T/v"
"$W" "$T/r.gtrace" "$T/v" "$T/res" >"$T/o" 2>"$T/e" || fail "replay_metrics_write: exit $? $(cat "$T/e")"
grep -q '^metrics: 4 values written into the replay trace as LAUNCH_METRIC records$' "$T/o" || fail "its line: $(cat "$T/o")"
[ -s "$T/e" ] && fail "stderr: $(cat "$T/e")"
"$G" dump "$T/t.gtrace" >"$T/d0" && "$G" dump "$T/r.gtrace" >"$T/d1" || fail "dump"
cmp -s "$T/d0" "$T/d1" || fail "records other than the metrics changed"
"$G" dump --format jsonl --type kernel "$T/t.gtrace" >"$T/k.jsonl" || fail "dump kernels"
"$G" dump --format jsonl --type launch_metric "$T/r.gtrace" >"$T/m.jsonl" || fail "dump launch_metric"
python3 - "$T/k.jsonl" "$T/m.jsonl" <<'PY' || fail "the LAUNCH_METRIC records"
import json, sys
k = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["start"])
m = [json.loads(l) for l in open(sys.argv[2])]
assert len(m) == 4, m
want = [(0, "dram__bytes_read.sum", 1234.5, 2), (0, "dram__bytes_write.sum", 99.0, 2), (5, "gpu__time_duration.sum", 4250.0, 1)]
for r, (i, metric, value, passes) in zip(m, want):
    for f in ("start", "end", "correlation_id", "device_id", "name"):
        assert r[f] == k[i][f], (f, r, k[i])
    assert (r["metric"], r["value"], r["passes"], r["flags"]) == (metric, value, passes, 0), r
last = m[3]
assert (last["start"], last["end"], last["correlation_id"], last["flags"], last["value"]) == (0, 0, 0, 1, 7.0), last
PY
"$PEEK" "$T/r.gtrace" >"$T/p" || fail "trace_peek"
grep -q '^complete 1$' "$T/p" || fail "the rewritten trace is not closed: $(cat "$T/p")"
grep -q '^meta metrics.method=gputrace replay --metrics: CUPTI Range Profiler' "$T/p" || fail "META metrics.method"
grep -q '^meta metrics.dropped=sm__pipe_x.sum$' "$T/p" || fail "META metrics.dropped"
grep -q '^meta metrics.unavailable' "$T/p" && fail "META metrics.unavailable where counters were had"
note "values: attached to the kernel at their ordinal, the rest of the trace unchanged, META method and dropped"

cp "$T/t.gtrace" "$T/l.gtrace"
"$W" "$T/l.gtrace" "$T/v" "$T/res39" >"$T/o" 2>"$T/e" || fail "lost kernels: exit $? $(cat "$T/e")"
grep -q 'the replay trace holds 40 kernels, the replay made 39 launches' "$T/o" || fail "lost kernels: $(cat "$T/o")"
"$G" dump --format jsonl --type launch_metric "$T/l.gtrace" >"$T/m.jsonl" || fail "dump launch_metric"
python3 - "$T/m.jsonl" <<'PY' || fail "values whose kernels cannot be told"
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])]
assert len(m) == 4 and all(r["flags"] == 1 and r["start"] == 0 and r["correlation_id"] == 0 for r in m), m
PY
note "kernels lost from the replay trace: every value off the timeline, said in one line"

cp "$T/t.gtrace" "$T/u.gtrace"
printf 'U GPU performance counters are restricted to admin users (NVreg_RestrictProfilingToAdminUsers=1)\n' >"$T/v"
"$W" "$T/u.gtrace" "$T/v" "$T/res" >"$T/o" 2>"$T/e" || fail "unavailable: exit $? $(cat "$T/e")"
"$G" dump --format jsonl --type launch_metric "$T/u.gtrace" >"$T/m.jsonl" || fail "dump launch_metric"
[ -s "$T/m.jsonl" ] && fail "records where counters were unavailable: $(cat "$T/m.jsonl")"
"$PEEK" "$T/u.gtrace" | grep -q '^meta metrics.unavailable=GPU performance counters are restricted to admin users' ||
	fail "META metrics.unavailable"
note "counters unavailable: no record, META metrics.unavailable says why"

cp "$T/t.gtrace" "$T/e.gtrace"
: >"$T/v"
"$W" "$T/e.gtrace" "$T/v" "$T/res" >"$T/o" 2>"$T/e" || fail "empty: exit $?"
cmp -s "$T/t.gtrace" "$T/e.gtrace" || fail "a values file with nothing in it changed the trace"
note "nothing measured: the trace is left byte for byte"

chmod 000 "$T/v" 2>/dev/null
if ! [ -r "$T/v" ]; then
	"$W" "$T/e.gtrace" "$T/v" "$T/res" >"$T/o" 2>"$T/e" && fail "an unreadable values file: exit 0"
	[ "$(wc -l <"$T/e")" -eq 1 ] || fail "an unreadable values file: not one line: $(cat "$T/e")"
	note "an unreadable values file: one line, exit 1"
fi
# A replay trace the H100 wrote before this step left anything out (tests/data/replay/README.md):
# its 112 kernels are the worker's 68 launches and 44 WaitNs the Range Profiler ran between
# passes. The copy leaves those 44 out, keeps every other record, and META counts them; the value
# lands on the worker's first kernel.
H=$(cd "$(dirname "$0")/../data/replay" && pwd)/h100-known_counts-replay-with-waitns.gtrace
cp "$H" "$T/h.gtrace" || fail "the H100 fixture"
printf '1 68 0 0 11\n' >"$T/hres"
printf 'V 1 0 11 dram__bytes_read.sum 5\n' >"$T/hv"
"$W" "$T/h.gtrace" "$T/hv" "$T/hres" >"$T/o" 2>"$T/e" || fail "H100 replay trace: exit $? $(cat "$T/e")"
grep -q '^metrics: 1 values written' "$T/o" || fail "H100 replay trace: $(cat "$T/o")"
ALL=kernel,memcpy,memset,api,sync,nvtx,memory,dropped,process,overhead,clock_sync,clock_sample,graph_launch,metric_sample,launch_metric
"$G" dump --format jsonl --type $ALL "$H" >"$T/h0.jsonl" && "$G" dump --format jsonl --type $ALL "$T/h.gtrace" >"$T/h1.jsonl" || fail "dump"
python3 - "$T/h0.jsonl" "$T/h1.jsonl" <<'PY' || fail "the profiler's kernels left out, nothing else"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
waits = [r for r in a if r["type"] == "kernel" and r["name"] == "WaitNs"]
assert len(waits) == 44 and len([r for r in a if r["type"] == "kernel"]) == 112, len(waits)
kept = [r for r in a if r not in waits]
new = [r for r in b if r not in kept]
assert [r for r in b if r["type"] != "launch_metric"] == [r for r in kept if r["type"] != "launch_metric"]
assert len(new) == 1 and new[0]["type"] == "launch_metric" and new[0]["value"] == 5, new
first = min((r for r in b if r["type"] == "kernel"), key=lambda r: r["start"])
assert new[0]["correlation_id"] == first["correlation_id"] and new[0]["name"] == first["name"], (new, first)
PY
"$PEEK" "$T/h.gtrace" | grep -q '^meta metrics.profiler_kernels=44 kernels the Range Profiler ran between passes (WaitNs), left out' ||
	fail "META metrics.profiler_kernels: $("$PEEK" "$T/h.gtrace" | grep profiler)"
note "an H100 replay trace: the Range Profiler's 44 WaitNs kernels left out and counted in META, nothing else changed"

echo "all replay --metrics trace-writing checks passed"
