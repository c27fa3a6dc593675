#!/bin/sh
# gpuanalyze split, byte for byte, on small synthetic traces whose answers test_analyze_split.c
# works out (NVTX frames, host-sync intervals, the whole process; build/tests/test_analyze_split
# writes them, in microseconds): text, Markdown with warm-up, CSV (the units, and --distribution),
# JSON, --range; the usage and input errors (exit 2, one line); and, on the real sample recordings, that every format runs and
# that the JSON parses. To accept a deliberate change, run the commands below by hand in a
# directory where 'test_analyze_split write .' wrote the traces, and review the diff.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
W="$build/tests/test_analyze_split"
EXPECTED="$here/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$W" ] || fail "no trace writer at $W"
T=$(mktemp -d /tmp/gt_cli_split_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
. "$root/tests/cli/golden.sh"
"$W" write "$T" || fail "cannot write the traces"
cd "$T" || fail "cd $T"


check split_nvtx.txt "$G" split nvtx.gtrace
check split_nvtx_warmup.md "$G" split --format md --warmup 1 nvtx.gtrace
check split_nvtx_inner.txt "$G" split --range inner --units 1 nvtx.gtrace
check split_sync.csv "$G" split --format csv sync.gtrace
check split_sync_distribution.csv "$G" split --format csv --distribution sync.gtrace
check split_process.json "$G" split --format json process.gtrace

error 2 "gpuanalyze: no NVTX range named 'nope' in trace 'nvtx.gtrace' (top-level ranges: 'frame' (3), 'setup' (1))" \
	"$G" split --range nope nvtx.gtrace
error 2 "gpuanalyze: no NVTX range named 'frame' in trace 'sync.gtrace' (it has no NVTX ranges)" \
	"$G" split --range frame sync.gtrace
error 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" "$G" split missing.gtrace
error 2 "gpuanalyze: split: --distribution is for --format csv (text, md and json always show the distribution)" \
	"$G" split --distribution --format json sync.gtrace
error 2 "gpuanalyze: split: option '--warmup' wants a non-negative integer, not 'x' (see 'gpuanalyze split --help')" \
	"$G" split --warmup x nvtx.gtrace

# The sample recordings: every format runs; JSON parses where python3 is at hand.
for f in "$root"/traces/samples/*.gtrace; do
	[ -f "$f" ] || continue
	for fmt in text md csv json; do
		"$G" split --format $fmt "$f" >"$T/out" 2>"$T/err" || fail "split --format $fmt $f exits $?: $(cat "$T/err")"
	done
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/out" || fail "split --format json $f: not JSON"
	fi
done
exit 0
