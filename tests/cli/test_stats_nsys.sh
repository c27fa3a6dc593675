#!/bin/sh
# gpuanalyze stats as Nsight Systems users call it: the nsys reports that stats_nsys.h computes
# (cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_trace, cuda_kern_exec_sum, cuda_api_gpu_sum,
# nvtx_pushpop_sum, nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_gpu_proj_sum) checked by stats_nsys_check.py against its own computation
# over `gpuanalyze dump --format jsonl`, on the synthetic trace of test_analyze_stats (nested
# ranges, two threads, graph kernels, bad timestamps, the recorder's own copies; header titles
# checked too), on its deep one (ranges nested past the 16 levels RangeStack shows) and on every sample recording of traces/samples; then nsys's grammar: the default
# set without a report, -r/--report A,B over several files (each file's reports in turn), the older
# REPORT FILE form giving the same bytes as -r, every new report in every format, and the errors.
# Needs python3; exits 77 without it.
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
CHECK="$root/tests/cli/stats_nsys_check.py"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check the reports"; exit 77; }
T=$(mktemp -d /tmp/gt_cli_stats_nsys_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$build/tests/test_analyze_stats" write "$T" || fail "cannot write the synthetic traces"
S="$T/stats.gtrace"
NEW="cuda_gpu_trace cuda_api_trace cuda_kern_exec_trace cuda_kern_exec_sum cuda_api_gpu_sum nvtx_pushpop_sum nvtx_pushpop_trace
	nvtx_gpu_proj_trace nvtx_gpu_proj_sum"

# Every new report against the independent computation; the samples two at a time.
python3 "$CHECK" "$G" "$S" headers >"$T/check" 2>&1 || fail "the synthetic trace: $(head -n 20 "$T/check")"
# deep.gtrace nests ranges deeper than GT_NSYS_STACK_MAX: the tree's levels and parents past two.
python3 "$CHECK" "$G" "$T/deep.gtrace" >"$T/check" 2>&1 || fail "the deep trace: $(head -n 20 "$T/check")"
for rep in $NEW; do
	n=$("$G" stats -r "$rep" --format csv "$S" | wc -l)
	[ "$n" -gt 1 ] || fail "stats -r $rep of the synthetic trace has no rows: the check compared empty sets"
done
i=0
for f in "$root"/traces/samples/*.gtrace; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	python3 "$CHECK" "$G" "$f" >"$T/check.$i" 2>&1 || echo "$f" >>"$T/failed" &
	[ $((i % 2)) -eq 0 ] && wait
done
wait
[ -s "$T/failed" ] && fail "disagrees with the check: $(cat "$T/check".* | head -n 20)"
echo "$i sample traces and the synthetic one checked"

# The default set (nsys's, less what a trace cannot feed), in order, in JSON an array.
python3 - "$G" "$S" <<'PY' || fail "stats FILE: not nsys's default set"
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "stats", "--format", "json", sys.argv[2]], check=True,
                              capture_output=True, text=True).stdout)
got = [r["report"] for r in d]
want = ["nvtx_sum", "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"]
assert got == want, got
PY
# -r A,B over two files: each file's reports in turn; --report is the same; text heads each file.
A="$root/traces/samples/h200-transfers.gtrace"
[ -f "$A" ] || A="$T/deep.gtrace"
python3 - "$G" "$S" "$A" <<'PY' || fail "stats -r A,B FILE FILE: not each file's reports in turn"
import json, subprocess, sys
g, s, a = sys.argv[1:]
out = lambda *x: subprocess.run([g, "stats", *x], check=True, capture_output=True, text=True).stdout
d = json.loads(out("-r", "cuda_gpu_trace,nvtx_sum", "--format", "json", s, a))
got = [(r["report"], r["trace"]["path"]) for r in d]
want = [("cuda_gpu_trace", s), ("nvtx_sum", s), ("cuda_gpu_trace", a), ("nvtx_sum", a)]
assert got == want, got
assert out("--report", "cuda_gpu_trace,nvtx_sum", "--format", "json", s, a) == out("-r", "cuda_gpu_trace,nvtx_sum", "--format", "json", s, a)
text = out("-r", "nvtx_sum", s, a).splitlines()
heads = [i for i, l in enumerate(text) if l in (s, a)]
assert [text[i] for i in heads] == [s, a] and heads[0] == 1, heads
PY
# The older form, REPORT FILE, gives what -r gives, byte for byte, for old and new names; every new
# report's JSON says which report it is, and its Markdown heads its table with the name.
for rep in cuda_api_sum kern_launch_sum cuda_gpu_trace nvtx_pushpop_trace; do
	for fmt in text json; do
		"$G" stats "$rep" --format $fmt "$S" >"$T/old" 2>&1 || fail "stats $rep --format $fmt exits $?"
		"$G" stats -r "$rep" --format $fmt "$S" >"$T/new" 2>&1 || fail "stats -r $rep --format $fmt exits $?"
		cmp -s "$T/old" "$T/new" || fail "stats $rep and stats -r $rep differ ($fmt)"
	done
done
for rep in $NEW; do
	"$G" stats -r "$rep" --format json "$S" >"$T/new" || fail "stats -r $rep --format json exits $?"
	python3 -c 'import json,sys; d = json.load(open(sys.argv[2])); assert d["report"] == sys.argv[1], d["report"]' \
		"$rep" "$T/new" || fail "stats -r $rep --format json: not the report's JSON"
	"$G" stats -r "$rep" --format md "$S" | grep -q "^## $rep\$" || fail "stats -r $rep --format md: no heading"
done

. "$root/tests/cli/golden.sh"
error 2 "gpuanalyze: stats: unknown report 'cuda_gpu' (cuda_api_sum, nvtx_sum, nvtx_kern_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, kern_launch_sum, cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_trace, cuda_kern_exec_sum, cuda_api_gpu_sum, nvtx_pushpop_sum, nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_gpu_proj_sum or gpu_metrics_sum)" \
	"$G" stats -r nvtx_sum,cuda_gpu "$S"
error 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" \
	"$G" stats -r nvtx_sum,cuda_api_trace "$S" missing.gtrace
error 2 "gpuanalyze: stats: too few operands (wants a FILE after the report) (see 'gpuanalyze stats --help')" \
	"$G" stats cuda_gpu_trace
exit 0
