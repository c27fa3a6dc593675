#!/bin/sh
# Benchmark of gpuanalyze diff, export and report against summary, run by hand (not by make check):
#   tests/bench/bench_diff_export_report.sh [RECORDS] [RUNS]        defaults: 10000000 3
#
# Writes two synthetic traces of about RECORDS records in each of gt_synth's shapes: "steady"
# (kernel records only, 3 kernels) and "renderer" (per frame: NVTX ranges, copies, a memset, kernels,
# a sync, and an API record for each; about 6 records per kernel). Then times, on each:
#   summary                 the reference (one pass, per-kernel statistics)
#   diff A B                two traces, per kernel; the split-unit comparison reads each again
#   export (chrome)         two passes, JSON to /dev/null
#   export --format csv     two passes, CSV to /dev/null
#   export -z               the JSON, gzip'd (stored blocks: CRC-32 over every byte)
#   report                  its own pass, then split, bandwidth, findings (each reads the trace)
# and prints each command's CPU time (user + sys, the median of RUNS runs) and its ratio to summary's
# on the same trace (diff: to summary of both traces). CPU time rather than wall time because this
# machine is shared; wall time is printed beside it. The target is each command within 3x
# summary.
set -u
records=${1:-10000000}
runs=${2:-3}
cd "$(dirname "$0")/../.." || exit 2
B=${GT_BUILD:-build}
make --no-print-directory -s BUILD="$B" "$B/gpuanalyze" "$B/tools/gt_synth" || {
	echo "bench: cannot build gpuanalyze and gt_synth" >&2; exit 2; }
G="$B/gpuanalyze"
tmp=$(mktemp -d /tmp/gt_bench_der.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# cpu CMD...: "CPU WALL" medians over RUNS runs, in seconds.
cpu() {
	: > "$tmp/c"; : > "$tmp/w"
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%U %S %e' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || {
			echo "bench: '$*' failed: $(head -c 300 "$tmp/err")" >&2; exit 2; }
		awk '{print $1 + $2}' "$tmp/t" >> "$tmp/c"
		awk '{print $3}' "$tmp/t" >> "$tmp/w"
	done
	echo "$(median < "$tmp/c") $(median < "$tmp/w")"
}

echo "== gpuanalyze diff, export, report against summary"
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')   commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "machine:  $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "method:   CPU time (user + sys) and wall time, median of $runs runs; traces in the page cache"
echo
for shape in steady renderer; do
	if [ "$shape" = steady ]; then n=$records; else n=$((records / 6)); fi
	"$B/tools/gt_synth" --shape "$shape" -n "$n" --seed 1 -o "$tmp/a.gtrace" >/dev/null || exit 2
	"$B/tools/gt_synth" --shape "$shape" -n "$n" --seed 2 -o "$tmp/b.gtrace" >/dev/null || exit 2
	recs=$("$G" info --format json "$tmp/a.gtrace" | sed -n 's/.*"records": \([0-9]*\).*/\1/p' | head -n 1)
	echo "$shape: $recs records per trace ($(wc -c < "$tmp/a.gtrace") bytes), $n kernels"
	set -- $(cpu "$G" summary "$tmp/a.gtrace"); s_cpu=$1 s_wall=$2
	set -- $(cpu "$G" summary "$tmp/a.gtrace" "$tmp/b.gtrace"); s2_cpu=$1
	printf '  %-26s %7.2f s CPU %7.2f s wall\n' summary "$s_cpu" "$s_wall"
	row() { # row LABEL REFERENCE-CPU CMD...
		label=$1 ref=$2
		shift 2
		set -- $(cpu "$@")
		printf '  %-26s %7.2f s CPU %7.2f s wall   %5.2fx summary\n' "$label" "$1" "$2" "$(echo "$1 $ref" | awk '{print $1 / $2}')"
	}
	row "diff A B (vs summary A B)" "$s2_cpu" "$G" diff "$tmp/a.gtrace" "$tmp/b.gtrace"
	row "export (chrome)" "$s_cpu" "$G" export -o /dev/null "$tmp/a.gtrace"
	row "export --format csv" "$s_cpu" "$G" export --format csv -o /dev/null "$tmp/a.gtrace"
	row "export -z" "$s_cpu" "$G" export -z -o /dev/null "$tmp/a.gtrace"
	row "report" "$s_cpu" "$G" report "$tmp/a.gtrace"
	echo "  JSON: $("$G" export "$tmp/a.gtrace" | wc -c) bytes"
	echo
done
