#!/bin/sh
# Byte-for-byte comparison of two gpuanalyze binaries over a corpus, run by hand (not by make
# check), for a change that must not alter any output:
#   tests/bench/compare_outputs.sh OLD_GPUANALYZE NEW_GPUANALYZE [TRACE...]
#
# The corpus is the traces named, or by default traces/samples/*.gtrace, every tests/data/**/*.gtrace
# and three traces gt_synth writes (the renderer shape, the steady shape, and every record type).
# For each trace both binaries run: info, dump (all types, and each --type alone; csv and json),
# summary, split, bandwidth, findings (text, json, csv where they have it), every stats report in
# text, json and csv, and export as chrome, csv and sqlite (the database compared as `sqlite3
# .dump`), plus a windowed export and a two-trace export. A command line's stdout, stderr and exit
# status must be the same under both. Prints each line that differs and, last, how many command
# lines were compared and how many differed; exits 1 when any did.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_GPUANALYZE NEW_GPUANALYZE [TRACE...]" >&2; exit 2; }
old=$1 new=$2
shift 2
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "compare: '$b' is not an executable" >&2; exit 2; }
done
command -v sqlite3 >/dev/null 2>&1 || { echo "compare: sqlite3 is needed" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
B=${GT_BUILD:-build}
tmp=$(mktemp -d /tmp/gt_compare.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM

if [ $# -eq 0 ]; then
	make --no-print-directory -s BUILD="$B" "$B/tools/gt_synth" || {
		echo "compare: cannot build gt_synth" >&2; exit 2; }
	"$B/tools/gt_synth" -o "$tmp/synth-renderer.gtrace" -n 2000 >/dev/null || exit 2
	"$B/tools/gt_synth" -o "$tmp/synth-steady.gtrace" -n 2000 --shape steady --seed 3 >/dev/null || exit 2
	"$B/tools/gt_synth" -o "$tmp/synth-all.gtrace" -n 500 --all-types --seed 7 >/dev/null || exit 2
	set -- traces/samples/*.gtrace $(find tests/data -name '*.gtrace' | sort) "$tmp"/synth-*.gtrace
fi

lines=0 differ=0
# run BIN TAG ARGS...: the command's stdout, stderr and status into $tmp/TAG.
run() {
	bin=$1 tag=$2
	shift 2
	"$bin" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
	echo "status $?" >>"$tmp/$tag.err"
}
# same ARGS...: runs both binaries on ARGS; counts the line and reports a difference.
same() {
	lines=$((lines + 1))
	run "$old" a "$@"
	run "$new" b "$@"
	if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
		differ=$((differ + 1))
		echo "differs: gpuanalyze $*"
	fi
}
# same_sqlite ARGS...: export --format sqlite by both, the databases compared as SQL text.
same_sqlite() {
	lines=$((lines + 1))
	rm -f "$tmp/a.db" "$tmp/b.db"
	run "$old" a export --format sqlite -o "$tmp/x.db" "$@"
	[ -f "$tmp/x.db" ] && sqlite3 "$tmp/x.db" .dump >>"$tmp/a.out" 2>&1
	rm -f "$tmp/x.db"
	run "$new" b export --format sqlite -o "$tmp/x.db" "$@"
	[ -f "$tmp/x.db" ] && sqlite3 "$tmp/x.db" .dump >>"$tmp/b.out" 2>&1
	rm -f "$tmp/x.db"
	if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
		differ=$((differ + 1))
		echo "differs: gpuanalyze export --format sqlite $*"
	fi
}

types=$("$old" dump --help | sed -n 's/.*only these event types: //p' | tr -d ',')
[ -n "$types" ] || { echo "compare: no --type list in '$old dump --help'" >&2; exit 2; }
reports="cuda_api_sum nvtx_sum nvtx_kern_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum
	cuda_gpu_mem_size_sum kern_launch_sum"

same dump --help
for t in "$@"; do
	for f in text json; do same info -f "$f" "$t"; done
	for f in csv json jsonl; do same dump -f "$f" "$t"; done
	for ty in $types; do same dump --type "$ty" "$t"; done
	same dump -f json --type kernel,nvtx,memory "$t"
	for f in text json csv; do
		same summary -f "$f" "$t"
		same split -f "$f" "$t"
		same bandwidth -f "$f" "$t"
		for r in $reports; do same stats -f "$f" "$r" "$t"; done
	done
	for f in text json; do same findings -f "$f" "$t"; done
	for f in chrome csv; do
		same export --quiet --format "$f" "$t"
		same export --quiet --format "$f" --start 1ms --end 20ms "$t"
	done
	same_sqlite --quiet "$t"
done
for pair in "traces/samples/h200x2-ddp-rank0.gtrace traces/samples/h200x2-ddp-rank1.gtrace" \
	"traces/samples/h200-multi_procs-rank0.gtrace traces/samples/h200-multi_procs-rank1.gtrace"; do
	set -- $pair
	[ -f "$1" ] && [ -f "$2" ] || continue
	for f in chrome csv; do same export --quiet --format "$f" "$1" "$2"; done
	same_sqlite --quiet "$1" "$2"
done
echo "compare: $lines command lines compared, $differ differ"
[ "$differ" -eq 0 ]
