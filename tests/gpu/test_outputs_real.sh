#!/bin/bash
# The analyzer's outputs on fresh H200 recordings (about 40 s):
#   - `gputrace peak` writes its peaks under $XDG_CACHE_HOME/gputrace/peaks, and gpuanalyze
#     bandwidth reads them from there: synchronous pageable copies are paired with their calls and
#     judged by the call's rate against the measured pageable peak, pinned ones by DMA time against
#     the pinned peak;
#   - a PyTorch run with NVTX ranges: `stats nvtx_kern_sum` attributes kernels to the ranges, and
#     the SQLite export holds as many kernels as `stats cuda_gpu_kern_sum` counts and `info` says.
. "$(dirname "$0")/lib.sh"
python3 -c 'import sqlite3' 2>/dev/null || skip "no python3 with sqlite3 to query the export"
export XDG_CACHE_HOME=$WORK/cache
unset GPUTRACE_PEAKS
"$B/gputrace" peak > peak.out 2> peak.err
rc=$?
peaks=$XDG_CACHE_HOME/gputrace/peaks
if [ $rc -eq 0 ] && grep -q 'kind=htod_pageable' "$peaks" 2>/dev/null; then
	sed 's/^/    /' "$peaks"
	echo "  PASS gputrace peak wrote \$XDG_CACHE_HOME/gputrace/peaks"
else
	echo "  FAIL gputrace peak: exit $rc, peaks file: $(ls -l "$peaks" 2>&1)"; cat peak.err; fail=1
fi

"$B/gputrace" record -q -o "$KEEP/transfers-peaks.gtrace" -- "$B/kernels/transfers" --reps 3 > /dev/null ||
	{ echo "  FAIL transfers did not run"; fail=1; }
"$GA" bandwidth --format csv "$KEEP/transfers-peaks.gtrace" > bw.csv
check "bandwidth: pageable copies by their call against the pageable peak, pinned by DMA" python3 -c '
import csv, sys
rows = list(csv.DictReader(open("bw.csv")))
bad = []
for r in rows:
    if r["copy_kind"] not in ("HtoD", "DtoH"):
        continue
    d = r["copy_kind"].lower()
    want = (d + "_pageable", "call") if r["memory"] == "pageable" else (d + "_pinned", "dma") if r["memory"] == "pinned" else None
    if want is None:
        continue
    got = (r["measured_kind"], r["measured_rate"])
    print(r["copy_kind"], r["memory"], r["size"], "count", r["count"], "calls", r["calls"],
          "DMA", round(float(r["median_gbps"]), 2), "call", r["call_median_gbps"][:6], got, r["measured_pct"][:5])
    if got != want:
        bad.append("%s %s %s: judged %s, want %s" % (r["copy_kind"], r["memory"], r["size"], got, want))
    if r["memory"] == "pageable" and r["calls"] != r["count"]:
        bad.append("%s pageable %s: %s of %s copies paired with a call" % (r["copy_kind"], r["size"], r["calls"], r["count"]))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad or not rows else 0)'

"$B/gputrace" record -q -o "$KEEP/torch_nvtx.gtrace" -- python3 "$REPO/tests/gpu/torch_workload.py" --steps 20 --nvtx > /dev/null ||
	{ echo "  FAIL the PyTorch workload did not run"; fail=1; }
"$GA" stats nvtx_kern_sum --format csv "$KEEP/torch_nvtx.gtrace" > nk.csv
check "stats nvtx_kern_sum: kernels attributed to NVTX ranges of a PyTorch run" python3 -c '
import csv, sys
rows = list(csv.DictReader(open("nk.csv")))
for r in rows[:5]:
    print(r["range"], r["nvtx_inst"], r["kern_inst"], r["med_ns"], r["kernel_demangled"][:60])
print(len(rows), "rows")
sys.exit(0 if rows and all(int(r["kern_inst"]) > 0 for r in rows) else 1)'
"$GA" export --format sqlite -o torch.sqlite "$KEEP/torch_nvtx.gtrace" || { echo "  FAIL export --format sqlite"; fail=1; }
sql=$(python3 -c 'import sqlite3; print(sqlite3.connect("torch.sqlite").execute("select count(*) from kernels").fetchone()[0])')
stats=$("$GA" stats cuda_gpu_kern_sum --format csv "$KEEP/torch_nvtx.gtrace" | python3 -c '
import csv, sys
print(sum(int(r["instances"]) for r in csv.DictReader(sys.stdin)))')
info=$("$GA" dump --type kernel --format csv "$KEEP/torch_nvtx.gtrace" | tail -n +2 | wc -l)
if [ -n "$sql" ] && [ "$sql" -gt 0 ] && [ "$sql" = "$stats" ] && [ "$sql" = "$info" ]; then
	echo "  PASS sqlite export: $sql kernels, as stats and dump count"
else
	echo "  FAIL sqlite export: $sql kernels in SQL, $stats in stats, $info in dump"; fail=1
fi
exit $fail
