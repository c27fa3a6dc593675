#!/bin/sh
# Trace format benchmark, run by hand (not by make check):
#   tests/bench/bench_trace.sh [KERNELS] [RUNS]        defaults: 10000000 5
#
# Writes a synthetic trace of KERNELS kernel records (tests/tools/gt_synth --shape steady: a steady
# loop of three kernels, H200-like durations with ns jitter, latency timestamps on) and reports:
#   - bytes per kernel record on disk (target <= 8), the whole file over the kernel records;
#   - writer throughput, records/s: gt_writer_add of every kernel record plus close (delta
#     encoding, transposition, zstd level 3, write), timed inside gt_synth apart from synthesis;
#   - reader throughput, records/s: gt_count's loop (gt_reader_next and a switch on the type, over
#     every record), timed inside gt_count;
#   - gpuanalyze summary throughput, records/s (file records / wall time of the whole command,
#     start-up included), when build/gpuanalyze has a working summary subcommand;
# then the same file sizes for the demo renderer's shape (copies, API, NVTX, syncs around the
# kernels), which is nearer a real recording. Each figure is the median of RUNS runs; the files
# are read from the page cache (written just before). Prints the machine, compiler and method.
set -u
kernels=${1:-10000000}
runs=${2:-5}
cd "$(dirname "$0")/../.." || exit 2
B=${GT_BUILD:-build}

make --no-print-directory -s BUILD="$B" "$B/tools/gt_synth" "$B/tools/gt_count" || {
	echo "bench_trace: cannot build the tools" >&2; exit 2; }
# gpuanalyze is optional: another developer may be mid-edit; use what builds or what is there.
make --no-print-directory -s BUILD="$B" "$B/gpuanalyze" >/dev/null 2>&1 ||
	echo "bench_trace: note: building $B/gpuanalyze failed; using the existing binary if any"

tmp=$(mktemp -d /tmp/gt_bench.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
field() { tr ' ' '\n' | awk -v k="$1" 'prev == k {print; exit} {prev = $0}'; }

echo "== gputrace trace format benchmark"
echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')   commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "machine:   $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "kernel:    $(uname -sr)"
echo "compiler:  $(${CC:-cc} --version | head -n 1), flags -O2 -g (the project's build)"
echo "zstd:      $(zstd --version 2>/dev/null | sed 's/.*v\([0-9.]*\).*/\1/' || echo ?) (level 3, the writer's default), chunks of 1 MiB raw"
echo "method:    median of $runs runs; one thread; timings inside the tools (CLOCK_MONOTONIC) unless said"
echo

f="$tmp/steady.gtrace"
: > "$tmp/w"; : > "$tmp/r"; : > "$tmp/s"; : > "$tmp/bpk"
for i in $(seq "$runs"); do
	out=$("$B/tools/gt_synth" --shape steady -n "$kernels" --seed "$i" -o "$f" --stats) || exit 1
	echo "$out" | field writer_records_per_s >> "$tmp/w"
	bpk=$(echo "$out" | field bytes_per_kernel)
	bytes=$(echo "$out" | field bytes)
	records=$(echo "$out" | field records)
	out=$("$B/tools/gt_count" --time "$f") || exit 1
	echo "$out" | field records_per_s >> "$tmp/r"
	if [ "$i" -eq 1 ]; then
		echo "steady loop: $kernels kernel records, $records records in the file, $bytes bytes (seed 1)"
	fi
	echo "$bpk" >> "$tmp/bpk"
done
echo "  bytes per kernel record on disk:   $(median < "$tmp/bpk")   (target <= 8; one value per seed)"
printf '  writer throughput:                 %.3g records/s\n' "$(median < "$tmp/w")"
printf '  reader throughput (gt_count loop): %.3g records/s\n' "$(median < "$tmp/r")"

# gpuanalyze summary, if it has one that works on this file.
if [ -x "$B/gpuanalyze" ] && "$B/gpuanalyze" summary "$f" > "$tmp/summary.out" 2> "$tmp/summary.err"; then
	for i in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$B/gpuanalyze" summary "$f" > /dev/null || exit 1
		t1=$(date +%s.%N)
		echo "$records $t0 $t1" | awk '{print $1 / ($3 - $2)}' >> "$tmp/s"
	done
	printf '  gpuanalyze summary throughput:     %.3g records/s (wall time of the command; target >= 1e7)\n' "$(median < "$tmp/s")"
else
	echo "  gpuanalyze summary throughput:     not measured: $B/gpuanalyze summary does not run yet ($(head -c 120 "$tmp/summary.err" 2>/dev/null | head -n 1))"
fi
rm -f "$f"

echo
f="$tmp/renderer.gtrace"
: > "$tmp/rw"; : > "$tmp/rr"; : > "$tmp/bpr"; : > "$tmp/bpk2"
for i in $(seq "$runs"); do
	out=$("$B/tools/gt_synth" -n "$kernels" --seed "$i" -o "$f" --stats) || exit 1
	echo "$out" | field records_per_s >> "$tmp/rw"
	echo "$out" | field bytes_per_record >> "$tmp/bpr"
	echo "$out" | field bytes_per_kernel >> "$tmp/bpk2"
	[ "$i" -eq 1 ] && echo "renderer shape: $kernels kernels, $(echo "$out" | field records) records (copies, memsets, API, syncs, NVTX), $(echo "$out" | field bytes) bytes (seed 1)"
	out=$("$B/tools/gt_count" --time "$f") || exit 1
	echo "$out" | field records_per_s >> "$tmp/rr"
done
echo "  bytes per record on disk:          $(median < "$tmp/bpr")"
echo "  file bytes per kernel:             $(median < "$tmp/bpk2")   (all records, over the kernels)"
printf '  writer throughput:                 %.3g records/s (synthesis included)\n' "$(median < "$tmp/rw")"
printf '  reader throughput (gt_count loop): %.3g records/s\n' "$(median < "$tmp/rr")"
