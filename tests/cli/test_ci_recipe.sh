#!/bin/sh
# The CI recipe of tests/data/diff/CI-RECIPE.md (docs/USAGE.md, In CI), end to end on real
# H200 recordings, without a GPU: the stored traces stand in for what `gputrace record` would have
# written. The gate script is extracted from the recipe itself, so the documented script is the
# tested one. Checked: exit statuses (0 for the no-change pair, 1 for the planted 10% slowdown, 1 for
# captures of broken kernels even though nothing is slower, 2 for a recording without kernels and
# for an unreadable one), the JUnit XML (well-formed, with the expected tests and failures, read
# with python3's xml.etree), the Markdown summary, and the artifacts (the trace, the report, its
# figures as well-formed SVG).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
REFS="$build/kernels/refs.so"
S="$root/traces/samples"
D="$root/tests/data/diff"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check the XML"; exit 77; }
T=$(mktemp -d /tmp/gt_ci_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# The script, as the recipe shows it.
sed -n '/<!-- gputrace-gate:begin -->/,/<!-- gputrace-gate:end -->/p' "$D/CI-RECIPE.md" |
	sed -e '1,/^```sh$/d' -e '/^```$/,$d' > "$T/gate.sh"
head -n 1 "$T/gate.sh" | grep -q '^#!/bin/sh' || fail "no gate script in CI-RECIPE.md"
sh -n "$T/gate.sh" || fail "the gate script does not parse"

# gate NAME WANT BASELINE NEW [REFS]: runs the gate with its artifacts in $T/NAME.
gate() {
	name=$1 want=$2
	mkdir -p "$T/$name"
	BASELINE=$3 NEW=$4 REFS=${5:-} SUMMARY="$T/$name/summary.md" OUT="$T/$name/out" GPUANALYZE="$G" \
		sh "$T/gate.sh" >"$T/$name/stdout" 2>"$T/$name/stderr"
	rc=$?
	[ $rc -eq "$want" ] || fail "$name: the gate exits $rc, not $want: $(tail -c 600 "$T/$name/stderr")"
}
# junit FILE TESTS FAILURES: a well-formed JUnit document with these counts.
junit() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "JUnit XML $1"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
tests = sum(int(s.get("tests")) for s in suites)
failures = sum(int(s.get("failures")) for s in suites)
cases = [c for s in suites for c in s.findall("testcase")]
assert tests == len(cases), (tests, len(cases))
want_tests, want_fail = sys.argv[2], int(sys.argv[3])
assert want_tests == "-" or tests == int(want_tests), (tests, want_tests)
assert failures == want_fail == sum(1 for c in cases if c.find("failure") is not None), (failures, want_fail)
PY
}
svg() {
	python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == '{http://www.w3.org/2000/svg}svg', r.tag
assert r.find('{http://www.w3.org/2000/svg}title') is not None" "$1" || fail "not a well-formed SVG: $1"
}

# 1. No change: two real recordings of launch_storm. Passes; the artifacts are there.
gate same 0 "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm-injection.gtrace"
junit "$T/same/out/diff.xml" 4 0
grep -q '^## gpuanalyze diff: no kernel SLOWER (of 4) (threshold 5%)$' "$T/same/summary.md" ||
	fail "same: the summary's heading: $(head -n 1 "$T/same/summary.md")"
cmp -s "$T/same/out/h200-launch_storm-injection.gtrace" "$S/h200-launch_storm-injection.gtrace" ||
	fail "same: the trace is not kept as an artifact"
[ -s "$T/same/out/REPORT.md" ] || fail "same: no report"
grep -q '^## Compared with the baseline$' "$T/same/out/REPORT.md" || fail "same: the report does not compare"
grep -q '^- Not checked: ' "$T/same/out/REPORT.md" || fail "same: correctness must say 'not checked'"
svg "$T/same/out/REPORT-kernels.svg"

# 2. The planted 10% slowdown of tiny_k1: fails, and says which kernel.
gate slow 1 "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
junit "$T/slow/out/diff.xml" 4 1
grep -q '^## gpuanalyze diff: 1 of 4 kernels SLOWER (threshold 5%)$' "$T/slow/summary.md" || fail "slow: summary heading"
grep -q "^| SLOWER | 4997 | 4997 | 0.832 | 0.915 | 1.10x slower |" "$T/slow/summary.md" || fail "slow: summary row (3 launches of each kernel dropped)"
# A higher threshold lets it through.
THRESHOLD=15% gate slow15 0 "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"

# 3. The renderer, frames and all: the kernel and the per-frame kernel time are SLOWER.
gate render 1 "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
junit "$T/render/out/diff.xml" - 2
svg "$T/render/out/REPORT-split.svg"
grep -q 'REPORT-split.svg' "$T/render/out/REPORT.md" || fail "render: the report does not link its split figure"

# 4. Correctness gates first, where captures and references exist.
if [ -f "$REFS" ]; then
	gate correct 0 "$S/h200-shadow-histogram.gtrace" "$S/h200-shadow-histogram.gtrace" "$REFS"
	junit "$T/correct/out/shadow.xml" 4 0
	grep -q '^- PASS: all 4 captured launches match' "$T/correct/out/REPORT.md" || fail "correct: report says no PASS"
	gate broken 1 "$S/h200-shadow_kernels.gtrace" "$S/h200-shadow-broken.gtrace" "$REFS"
	junit "$T/broken/out/shadow.xml" 9 6
	grep -q '^- FAIL: 6 of 9 captured launches fail' "$T/broken/out/REPORT.md" || fail "broken: report says no FAIL"
	grep -q '^- Not compared: correctness FAILED' "$T/broken/out/REPORT.md" || fail "broken: a speedup was stated"
	sed -n '/^## Compared with the baseline$/,/^## Limitations$/p' "$T/broken/out/REPORT.md" |
		grep -Eq 'x (faster|slower)' && fail "broken: the report states a speedup despite failed correctness"
else
	echo "note: no $REFS: the correctness gate is not exercised"
fi

# 5. Unavailable is not passed: a recording without kernels, and an unreadable one.
"$build/tools/gt_synth" --shape steady -n 0 -o "$T/empty.gtrace" >/dev/null 2>&1 || fail "gt_synth"
gate empty 2 "$S/h200-launch_storm.gtrace" "$T/empty.gtrace"
grep -q 'unavailable' "$T/empty/summary.md" || fail "empty: the summary does not say unavailable"
printf 'not a trace\n' > "$T/bad.gtrace"
gate bad 2 "$S/h200-launch_storm.gtrace" "$T/bad.gtrace"
grep -q "cannot open trace" "$T/bad/stderr" || fail "bad: no diagnostic"
exit 0
