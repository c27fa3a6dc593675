#!/bin/sh
# Shadow replay of captures recorded on the H200 (traces/samples/h200-shadow-*.gtrace), with no GPU:
# the correct kernels (saxpy, reduce_sum, histogram, softmax_rows, the renderer's composite) pass; every deliberately broken kernel fails, at the element where
# its defect shows (kernels/shadow_kernels.h): saxpy_nobounds first at y[n] (n = 100003, the
# program's default), softmax_rows_badmask at out[1000] (row 1, column 0 with 1000 columns: the fully
# masked row comes out NaN), reduce_sum_nosync (a real race) in its first, 98-block launch.
build=${GT_BUILD:-build}
ga=$build/gpuanalyze
refs=$build/kernels/refs.so
[ -f "$refs" ] || { echo "skipped: no $refs"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3 to read the JSON"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in histogram correct composite; do
	"$ga" shadow "traces/samples/h200-shadow-$t.gtrace" --ref "$refs" > "$tmp/ok.txt"
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: correct captures ($t): exit $rc"; cat "$tmp/ok.txt"; exit 1; }
	grep -q ' fail ' "$tmp/ok.txt" && { echo "FAIL: a correct capture ($t) failed"; exit 1; }
done

"$ga" shadow traces/samples/h200-shadow-broken.gtrace --ref "$refs" --format json > "$tmp/broken.json"
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: broken kernels: exit $rc, want 1"; exit 1; }
python3 - "$tmp/broken.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
by = {}
for l in d["launches"]:
    by.setdefault(l["name"], []).append(l)
def out0(l):
    return l["outputs"][0]
for l in by.get("saxpy_nobounds", []):
    o = out0(l)
    if l["verdict"] != "fail" or o["first_mismatch"] != 100003 or o["worst"]["index"] < 100003:
        bad.append(f"saxpy_nobounds launch {l['launch_index']}: {l['verdict']}, first {o['first_mismatch']}")
for l in by.get("softmax_rows_badmask", []):
    o = out0(l)
    if l["verdict"] != "fail" or o["worst"]["index"] != 1000 or not o["worst"]["nonfinite"]:
        bad.append(f"softmax_rows_badmask launch {l['launch_index']}: {l['verdict']}, worst {o['worst']}")
first = [l for l in by.get("reduce_sum_nosync", []) if l["launch_index"] == 0]
if not first or first[0]["verdict"] != "fail":
    bad.append("reduce_sum_nosync launch 0 did not fail")
for l in by.get("histogram", []):
    if l["verdict"] != "pass":
        bad.append(f"histogram launch {l['launch_index']}: {l['verdict']}")
for name in ("saxpy_nobounds", "softmax_rows_badmask", "reduce_sum_nosync", "histogram"):
    if name not in by:
        bad.append(f"no captures of {name}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "ok: H200 captures: the correct kernels pass; saxpy_nobounds fails at y[100003], softmax_rows_badmask at out[1000] (NaN), reduce_sum_nosync in its 98-block launch"
