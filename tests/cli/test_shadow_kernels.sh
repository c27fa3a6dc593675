#!/bin/sh
# gpuanalyze shadow and calibrate with build/kernels/refs.so on synthetic captures of the kernels in
# kernels/ (written by build/tests/test_shadow_refs --write-fixtures: the programs' inputs, float
# emulations in place of the GPU): the correct kernels pass (exit 0); every broken variant fails with
# its documented first error (saxpy_nobounds at y[n], reduce_sum_nosync at the stale block,
# softmax_rows_badmask at out[cols], NaN where 0 is declared); calibrate on the histogram states its
# conditions, proposes worst x margin, and counts what each rule accepts, in text, md and json; its
# usage errors exit 2 with one line. Replace with captures recorded on a GPU once they exist.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURES="$build/tests/test_shadow_refs"
REFS="$build/kernels/refs.so"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURES" ] || fail "no fixture writer at $FIXTURES"
[ -f "$REFS" ] || fail "no $REFS: the top Makefile must include kernels/refs/module.mk"
T=$(mktemp -d /tmp/gt_shadow_kernels_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$FIXTURES" --write-fixtures "$T" || fail "cannot write the fixtures"
cd "$T" || fail "cd $T"

run() {
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exits $rc, not $want: $(head -c 400 "$T/err")"
}
has() { grep -Fq -- "$1" "$T/out" || fail "no '$1' in the output: $(head -c 600 "$T/out")"; }
json() {
	python3 -c "import json,sys; d=json.load(open('$T/out')); sys.exit(0 if ($1) else 1)" ||
		fail "json: $1 is false"
}

# The correct kernels: saxpy, reduce_sum (two levels), histogram, softmax_rows, composite.
run 0 "$G" shadow kernels.gtrace --ref "$REFS" --format json
json "[l['name'] for l in d['launches']] == ['saxpy', 'reduce_sum', 'reduce_sum', 'histogram', 'softmax_rows', 'composite']"
json "all(l['verdict'] == 'pass' for l in d['launches']) and d['passed'] is True"

# The broken variants, each caught where its first error is documented to show.
run 1 "$G" shadow kernels_broken.gtrace --ref "$REFS" --format json
json "d['counts'] == {'pass': 2, 'fail': 3, 'error': 0, 'incomplete': 0, 'no_reference': 0}"
python3 - "$T/out" <<'PY' || fail "broken variants"
import json, sys
d = json.load(open(sys.argv[1]))
by = {}
for l in d["launches"]:
    by.setdefault(l["name"], []).append(l)
nb = by["saxpy_nobounds"][0]["outputs"][0]
assert nb["first_mismatch"] == 20011 and nb["worst"]["index"] == 20011, nb
assert nb["worst"]["gpu"] == 1236.0 and nb["worst"]["ref"] == 1234.5, nb["worst"]
ns = by["reduce_sum_nosync"]
assert ns[0]["verdict"] == "fail" and ns[0]["outputs"][0]["first_mismatch"] == 3, ns[0]
assert ns[0]["outputs"][0]["mismatches"] == 1 and ns[1]["verdict"] == "pass", ns
bm = by["softmax_rows_badmask"][0]["outputs"][0]
assert bm["first_mismatch"] == 1000 and bm["worst"]["index"] == 1000, bm
assert bm["worst"]["nonfinite"] is True and bm["worst"]["gpu"] is None and bm["worst"]["ref"] == 0, bm["worst"]
assert bm["mismatches"] == 2000, bm["mismatches"]
assert by["histogram"][0]["verdict"] == "pass"
PY

# calibrate on the histogram: two launches, eight orders each.
run 0 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram
has "calibration of histogram(float const*, int, float, float, int, float*)"
has "correct results: the GPU's outputs of 2 captured launches"
has "order 2: float, blocks of 256 interleaved thread-major"
has "proposed bound:"
has "x margin 4, rounded up"
has "e log-uniform in [1e-06, 0.1], seed 7"
has "flat 1% relative"
has "declared: ulps 144"
run 0 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram --format json --margin 2 --seed 11 --plant-fraction 0.5
python3 - "$T/out" <<'PY' || fail "calibrate json"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["launches"] == 2 and len(d["orders"]) == 8 and d["margin"] == 2, d
assert d["plant"] == {"fraction": 0.5, "min": 1e-06, "max": 0.1, "seed": 11,
                      "distribution": "relative error log-uniform in [min, max], random sign"}, d["plant"]
o = d["outputs"][0]
assert o["name"] == "counts_weighted" and len(o["sources"]) == 18, o["name"]
assert o["bound_ulps"] == math.ceil(o["worst_ulps"] * 2), (o["bound_ulps"], o["worst_ulps"])
assert max(s["worst_ulps"] for s in o["sources"]) == o["worst_ulps"]
rules = {r["rule"]: r for r in o["rules"]}
assert rules["calibrated"]["tolerance"]["ulps"] == o["bound_ulps"]
assert rules["calibrated"]["rejects_correct"] == 0 and rules["declared"]["rejects_correct"] == 0
assert rules["rel_1pct"]["accepts_wrong"] > rules["calibrated"]["accepts_wrong"], rules
assert sum(b["planted"] for b in o["by_error_size"]) == o["planted"]
assert abs(o["planted"] + o["rounded_back"] - 0.5 * o["eligible"]) <= len(o["sources"]), o
PY
run 0 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram --format md
has "# Calibration: \`histogram(float const*, int, float, float, int, float*)\`"
has "| flat 1% relative |"

# Usage and input errors: exit 2, one line.
err1() {
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$T/err")"
	grep -Fq -- "$1" "$T/err" || fail "stderr lacks '$1': $(cat "$T/err")"
}
run 2 "$G" calibrate histogram.gtrace --ref "$REFS"
err1 "gpuanalyze: calibrate: option '--kernel' is required"
run 2 "$G" calibrate histogram.gtrace --kernel histogram
err1 "gpuanalyze: calibrate: option '--ref' is required"
run 2 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram --margin -1
err1 "option '--margin' wants a number in (0, 1e+06], not '-1'"
run 2 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram --plant-fraction 1.5
err1 "option '--plant-fraction' wants a number in (0, 1], not '1.5'"
run 2 "$G" calibrate histogram.gtrace --ref "$REFS" --kernel histogram --plant-min 0.5 --plant-max 0.1
err1 "--plant-min 0.5 is above --plant-max 0.1"
run 2 "$G" calibrate kernels.gtrace --ref "$REFS" --kernel 'saxpy|histogram'
err1 "selects captures of several kernels"
run 2 "$G" calibrate kernels.gtrace --ref "$REFS" --kernel nomatch
err1 "no captured launch is selected"
exit 0
