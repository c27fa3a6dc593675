#!/bin/sh
# split's paths for units that overlap records many times over give the numbers of the plain ones.
# Past a budget of looked-at records split counts kernels and takes launch medians from indexes, and
# units that overlap each other take their times from unions, not from the sweeps and cursors
# (analyze/engines/split.c, "units that overlap each other"). Warm-up decides which path a unit takes
# without a switch for tests: with most units dropped as warm-up the few left stay on the plain
# paths, with none dropped the same units come late, after the budget is spent. Their rows must be
# the same, byte for byte:
#   - overlap: 2000 kernels spanning 2000 ranges side by side (indexes, after the first ~50 units,
#     against the sweep; cursors in both);
#   - samestart --range step: 3000 ranges nested from one start, kernels inside (indexes and
#     unions against the sweep and unions with 10 units left, and against the sweep and cursors
#     with one);
#   - deep --range step: 3000 ranges nested 3000 deep, likewise.
# In the sanitizer pass too: it runs the indexes, wavelet matrices and unions under ASan/UBSan.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
H="$build/tools/gt_hostile"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$H" ] || fail "no trace writer at $H"
T=$(mktemp -d /tmp/gt_cli_split_paths_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# same TRACE FROM [ARGS...]: the unit rows from index FROM on, with FROM units dropped as warm-up
# and with none dropped.
same() {
	f=$1 from=$2
	shift 2
	"$G" split --format csv --warmup "$from" "$@" "$f" > "$T/few.csv" || fail "split --warmup $from $* $f"
	"$G" split --format csv "$@" "$f" > "$T/all.csv" || fail "split $* $f"
	tail -n +2 "$T/few.csv" > "$T/a"
	awk -F, -v from="$from" 'NR > 1 && $1 >= from' "$T/all.csv" > "$T/b"
	[ -s "$T/a" ] || fail "no units from $from in $f"
	cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head -6; fail "$f $*: units from $from differ between the paths"; }
}

"$H" -o "$T/overlap.gtrace" --shape overlap -n 2000 || fail "gt_hostile overlap"
same "$T/overlap.gtrace" 1990
for s in samestart deep; do
	"$H" -o "$T/$s.gtrace" --shape $s -n 3000 || fail "gt_hostile $s"
	same "$T/$s.gtrace" 2990 --range step
	same "$T/$s.gtrace" 2999 --range step
done
# the medians are of many values, and not all the same (else the check proves little)
awk -F, 'NR > 1 { m[$16] = 1 } END { n = 0; for (k in m) n++; exit n < 2 }' "$T/all.csv" ||
	fail "the launch medians of the deep trace are all alike"
echo "ok: split's paths agree"
