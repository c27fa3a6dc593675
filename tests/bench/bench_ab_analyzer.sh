#!/bin/sh
# A/B benchmark of two gpuanalyze binaries on the same traces, run by hand (not by make check):
#   tests/bench/bench_ab_analyzer.sh OLD_GPUANALYZE NEW_GPUANALYZE [RECORDS] [RUNS]
#                                                                  defaults: 2000000 5
#
# For a change that must leave the analyzer no slower (such as the redesign in which commands fill a
# document that a renderer prints). Writes two synthetic traces of about RECORDS records with
# gt_synth (the "renderer" shape: NVTX ranges, copies, memsets, kernels, syncs and their API
# records) and times each command in text and in JSON with both binaries, the runs interleaved
# (old, new, old, new, ...) so that a machine getting busier slows both alike. Prints each
# command's CPU time (user + sys; the median of RUNS runs) for old and new and the ratio new/old.
# CPU time rather than wall time because the machines are shared. Output goes to /dev/null except
# for dump, whose JSON Lines are written to a file (the renderer's cost is what is measured), and
# export, whose chrome, csv and sqlite outputs are written to files (sqlite writes only to one).
# bench_sqlite_export.sh gives the SQLite export's bytes per record and records per second.
# ONLY="summary diff" times only the commands named (to repeat a noisy one with more runs).
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUANALYZE NEW_GPUANALYZE [RECORDS] [RUNS]" >&2; exit 2; }
old=$1 new=$2
records=${3:-2000000}
runs=${4:-5}
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "bench: '$b' is not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/../.." || exit 2
B=${GT_BUILD:-build}
make --no-print-directory -s BUILD="$B" "$B/tools/gt_synth" || {
	echo "bench: cannot build gt_synth" >&2; exit 2; }
tmp=$(mktemp -d /tmp/gt_bench_ab.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

n=$((records / 6)) # the renderer shape writes about 6 records per kernel
"$B/tools/gt_synth" -o "$tmp/a.gtrace" -n "$n" --shape renderer >/dev/null || exit 2
"$B/tools/gt_synth" -o "$tmp/b.gtrace" -n "$n" --shape renderer --seed 2 >/dev/null || exit 2
a=$tmp/a.gtrace b=$tmp/b.gtrace

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# once BIN ARGS...: the CPU seconds of one run, appended to $tmp/BIN's list.
once() {
	bin=$1; shift
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$bin" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -le 1 ] || { echo "bench: '$bin $*' exited $rc: $(head -c 300 "$tmp/err")" >&2; exit 2; }
	awk '{print $1 + $2}' "$tmp/t"
}
# ab LABEL ARGS...: one line: label, old and new medians, ratio.
ab() {
	label=$1; shift
	if [ -n "${ONLY:-}" ]; then
		case " $ONLY " in *" ${label%% *} "*) ;; *) return 0 ;; esac
	fi
	: > "$tmp/o"; : > "$tmp/n"
	for i in $(seq "$runs"); do
		once "$old" "$@" >> "$tmp/o" || exit 2
		once "$new" "$@" >> "$tmp/n" || exit 2
	done
	mo=$(median < "$tmp/o") mn=$(median < "$tmp/n")
	awk -v l="$label" -v o="$mo" -v n="$mn" 'BEGIN {
		printf "%-40s %9.3f %9.3f %7.3f\n", l, o, n, (o > 0 ? n / o : 0) }'
}

echo "bench_ab_analyzer: $(wc -c < "$a") + $(wc -c < "$b") bytes of trace, $runs runs each, interleaved"
echo "old: $old"
echo "new: $new"
printf "%-40s %9s %9s %7s\n" "command" "old s" "new s" "new/old"
for f in text json; do
	ab "summary --format $f" summary --format "$f" "$a"
	ab "stats cuda_gpu_kern_sum --format $f" stats --format "$f" cuda_gpu_kern_sum "$a"
	ab "stats nvtx_kern_sum --format $f" stats --format "$f" nvtx_kern_sum "$a"
	ab "split --format $f" split --format "$f" "$a"
	ab "findings --format $f" findings --format "$f" "$a"
	ab "bandwidth --format $f" bandwidth --format "$f" "$a"
	ab "diff --format $f" diff --format "$f" "$a" "$b"
	ab "info --format $f" info --format "$f" "$a"
done
ab "dump --format jsonl" dump --format jsonl -o "$tmp/dump.jsonl" "$a"
ab "report" report -o "$tmp/report.md" "$a"
ab "export chrome" export --quiet --format chrome -o "$tmp/x.json" "$a"
ab "export csv" export --quiet --format csv -o "$tmp/x.csv" "$a"
ab "export sqlite" export --quiet --format sqlite -o "$tmp/x.db" "$a"
