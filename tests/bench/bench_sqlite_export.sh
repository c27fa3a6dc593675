#!/bin/sh
# Size and speed of `gpuanalyze export --format sqlite`, two binaries side by side, run by hand (not
# by make check):
#   tests/bench/bench_sqlite_export.sh OLD_GPUANALYZE NEW_GPUANALYZE [KERNELS] [RUNS]
#                                                                     defaults: 10000000 3
#
# The sibling of bench_ab_analyzer.sh for the one figure it does not give: bytes of database per
# record and records per second. Writes two synthetic traces with gt_synth: the steady shape
# (KERNELS kernel records and nothing else) and the renderer shape (about as many records, a sixth
# of them kernels, with their API calls, copies, memsets, syncs and NVTX ranges), exports each with
# both binaries RUNS times, interleaved (old, new, old, new, ...) so that a machine getting busier
# slows both alike, and prints per shape and binary: records, the database's bytes, bytes per
# record, and records per second of CPU time (user + sys, the median run; the export is one
# thread, so this is the rate on one core) and of wall time. CPU time is the fair figure on a shared
# machine; the wall time also holds the disk's.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUANALYZE NEW_GPUANALYZE [KERNELS] [RUNS]" >&2; exit 2; }
old=$1 new=$2
kernels=${3:-10000000}
runs=${4:-3}
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "bench: '$b' is not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/../.." || exit 2
B=${GT_BUILD:-build}
make --no-print-directory -s BUILD="$B" "$B/tools/gt_synth" || { echo "bench: cannot build gt_synth" >&2; exit 2; }
tmp=$(mktemp -d /tmp/gt_bench_sqlite.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

"$B/tools/gt_synth" -o "$tmp/steady.gtrace" -n "$kernels" --shape steady >/dev/null || exit 2
"$B/tools/gt_synth" -o "$tmp/renderer.gtrace" -n $((kernels / 6)) --shape renderer >/dev/null || exit 2

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# once BIN TRACE TAG: one export; appends its CPU and wall seconds to $tmp/TAG.cpu and .wall and
# keeps the database's size in $tmp/TAG.bytes.
once() {
	rm -f "$tmp/x.db"
	/usr/bin/time -f '%U %S %e' -o "$tmp/t" "$1" export --quiet --format sqlite -o "$tmp/x.db" "$2" \
		2>"$tmp/err" || { echo "bench: $1 export $2 failed: $(head -c 300 "$tmp/err")" >&2; exit 2; }
	awk '{print $1 + $2}' "$tmp/t" >>"$tmp/$3.cpu"
	awk '{print $3}' "$tmp/t" >>"$tmp/$3.wall"
	wc -c <"$tmp/x.db" >"$tmp/$3.bytes"
}

echo "bench_sqlite_export: $runs runs each, interleaved; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $old"
echo "new: $new"
printf "%-9s %-4s %10s %14s %10s %14s %14s\n" shape bin records bytes bytes/rec "rec/s (CPU)" "rec/s (wall)"
for shape in steady renderer; do
	tr=$tmp/$shape.gtrace
	records=$("$new" info "$tr" | sed -n 's/^ *records: *\([0-9]*\).*/\1/p')
	[ -n "$records" ] || { echo "bench: cannot count the records of $tr" >&2; exit 2; }
	: >"$tmp/old.cpu"; : >"$tmp/old.wall"; : >"$tmp/new.cpu"; : >"$tmp/new.wall"
	for i in $(seq "$runs"); do
		once "$old" "$tr" old
		once "$new" "$tr" new
	done
	for bin in old new; do
		c=$(median <"$tmp/$bin.cpu") w=$(median <"$tmp/$bin.wall") bytes=$(cat "$tmp/$bin.bytes")
		awk -v s="$shape" -v b="$bin" -v r="$records" -v by="$bytes" -v c="$c" -v w="$w" 'BEGIN {
			printf "%-9s %-4s %10d %14d %10.1f %14.0f %14.0f\n", s, b, r, by, by / r,
			       (c > 0 ? r / c : 0), (w > 0 ? r / w : 0) }'
	done
done
