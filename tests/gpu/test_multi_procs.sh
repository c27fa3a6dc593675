#!/bin/sh
# Several processes on ONE GPU, as a launcher starts ranks (runs on the single-H200 machine):
#  1. two splat_render processes at once, RANK=0 and RANK=1, each recorded through the output pattern
#     %r: two traces, never one file and no numbered collision file; each trace's counts equal its
#     program's tally; `gpuanalyze ranks` on both (given in reverse order): ranks from META
#     process.rank (read from RANK), different pids, both clocks aligned by a fit, frames (NVTX
#     render_frame) matched one for one, and rank 1, given four times the splats, the slowest in most
#     frames, and no peer copies;
#  2. two launch_storm processes without any rank variable, through %p: two files (one per pid), and
#     `gpuanalyze ranks` takes them in the order given and says why.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "no python3 for the checks"
F=20
K=3
# The ranks must not inherit a launcher's rank variables from whoever runs this script.
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK MV2_COMM_WORLD_RANK SLURM_PROCID RANK
rm -f "$KEEP"/multi_procs-*.gtrace "$KEEP"/multi_pid-*.gtrace

# ---- 1. RANK=0 and RANK=1 through %r ----
RANK=0 "$B/gputrace" record -q -o "$KEEP/multi_procs-%r.gtrace" -- \
	"$B/kernels/splat_render" --splats 16384 --frames $F --warmup $K > "$KEEP/multi_procs-0.out" 2> r0.err &
p0=$!
RANK=1 "$B/gputrace" record -q -o "$KEEP/multi_procs-%r.gtrace" -- \
	"$B/kernels/splat_render" --splats 65536 --frames $F --warmup $K > "$KEEP/multi_procs-1.out" 2> r1.err &
p1=$!
wait $p0
rc0=$?
wait $p1
rc1=$?
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { echo "  FAIL the two ranks exited $rc0 and $rc1"; cat r0.err r1.err; exit 1; }
files=$(cd "$KEEP" && ls multi_procs-*.gtrace | tr '\n' ' ')
if [ "$files" = "multi_procs-0.gtrace multi_procs-1.gtrace " ]; then
	echo "  PASS one trace per rank: $files"
else
	echo "  FAIL traces written: '$files' (want multi_procs-0.gtrace and multi_procs-1.gtrace)"
	fail=1
fi
for r in 0 1; do
	[ -f "$KEEP/multi_procs-$r.gtrace" ] || continue
	"$GA" dump "$KEEP/multi_procs-$r.gtrace" --type kernel,memcpy,memset --format csv > "r$r.csv"
	check "rank $r counts" python3 "$REPO/tests/gpu/check_counts.py" "$KEEP/multi_procs-$r.out" "r$r.csv"
done
"$GA" ranks "$KEEP/multi_procs-1.gtrace" "$KEEP/multi_procs-0.gtrace" > "$KEEP/multi_procs-ranks.txt" 2>&1
cat "$KEEP/multi_procs-ranks.txt"
"$GA" ranks --format json "$KEEP/multi_procs-1.gtrace" "$KEEP/multi_procs-0.gtrace" > ranks.json 2> ranks.err ||
	{ echo "  FAIL gpuanalyze ranks: $(cat ranks.err)"; exit 1; }
check "ranks: metadata, alignment, frames, straggler" python3 - ranks.json $((F + K)) <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
frames = int(sys.argv[2])
bad = []
def want(cond, what):
    print(("  ok  " if cond else "  BAD ") + what)
    if not cond:
        bad.append(what)
ranks = d["ranks"]
want([r["rank"] for r in ranks] == [0, 1], f"ranks 0 and 1, in order: {[r['rank'] for r in ranks]}")
want(d["rank_source"] == "meta", f"ranks from META process.rank: {d['rank_source']}")
want(all(r["rank_from"] == "RANK" for r in ranks), "process.rank_from is RANK for both")
want(ranks[0]["pid"] != ranks[1]["pid"], f"two processes: pids {ranks[0]['pid']} and {ranks[1]['pid']}")
want(d["one_host"], "one host")
for r in ranks:
    want(r["alignment"] == "fit", f"rank {r['rank']} aligned by a fit: {r['alignment']}")
    u = r["uncertainty_ns"]
    want(u is not None and u < 1e6, f"rank {r['rank']} alignment uncertainty {u} ns < 1 ms")
    print(f"      rank {r['rank']}: drift {r['drift_ppm']} ppm, offset change {r['offset_change_ns']} ns, "
          f"realtime adjusted {r['realtime_adjust_ns']} ns, start {r['start_ns']} ns")
starts = [r["start_ns"] for r in ranks]
want(None not in starts and abs(starts[0] - starts[1]) < 5e9, f"the two recordings overlap in time: starts {starts}")
s = d["steps_from"]
want(s["mode"] == "nvtx" and s["range"] == "render_frame", f"steps are NVTX render_frame: {s['mode']} {s['range']}")
want(s["compared"] == frames, f"{frames} frames matched: {s['compared']}")
want(s["most_slowest_rank"] == 1, f"rank 1 (4x splats) slowest most often: {s['most_slowest_rank']}")
slow = {x["rank"]: x["slowest_steps"] for x in d["stragglers"]}
# Two processes share one GPU: time slicing lets the lighter one lag at times (measured on the
# H200: rank 1 slowest in 18 of 23 frames, 78%). Most frames, not nearly all.
want(slow.get(1, 0) >= 0.6 * frames, f"rank 1 slowest in >= 60% of frames: {slow}")
comp = {k["rank"]: k["launches"] for k in d["kernels_per_rank"] if k["name"].startswith("_Z9composite")}
want(comp == {0: frames, 1: frames}, f"composite launched {frames} times on each rank: {comp}")
want(d["peer_copies"] == [], "no peer copies")
sys.exit(1 if bad else 0)
EOF

# ---- 2. no rank variable, through %p ----
for i in 1 2; do
	"$B/gputrace" record -q -o "$KEEP/multi_pid-%p.gtrace" -- "$B/kernels/launch_storm" --launches 2000 \
		> "pid$i.out" 2> "pid$i.err" &
	eval "q$i=\$!"
done
wait $q1
wait $q2
n=$(ls "$KEEP"/multi_pid-*.gtrace 2>/dev/null | wc -l)
if [ "$n" -eq 2 ]; then
	echo "  PASS %p: two processes, two traces"
else
	echo "  FAIL %p: $n traces for two processes"
	fail=1
fi
"$GA" ranks --format json "$KEEP"/multi_pid-*.gtrace > pid.json 2> pid.err || { echo "  FAIL ranks: $(cat pid.err)"; exit 1; }
check "ranks without a rank variable: the order given" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["rank_source_text"])
sys.exit(0 if d["rank_source"] == "order" and [r["rank"] for r in d["ranks"]] == [0, 1] else 1)
' pid.json
exit $fail
