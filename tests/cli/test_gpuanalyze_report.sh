#!/bin/sh
# gpuanalyze report on real H200 recordings: every heading of the seeds' template in order, the
# figures written beside the report, well-formed SVG (python3's xml.etree) and linked by names that
# exist; the renderer's 55 frames (5 of its own warm-up, 50 timed) give 50 units after --warmup 5, and the report's
# median kernel time agrees with `gpuanalyze summary`; correctness is "not checked" without
# captures; on standard output there are no figures and the report says so; errors exit 2.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
S="$root/traces/samples"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check the SVG"; exit 77; }
T=$(mktemp -d /tmp/gt_report_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

"$G" report --warmup 5 -o "$T/REPORT.md" "$S/h200-splat_render-timed.gtrace" 2>"$T/err" || fail "report: exit $?: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "report wrote to stderr: $(cat "$T/err")"
prev=0
for h in "# GPU benchmark report: splat_render" "## Hardware" "## Toolkit" "## Clock state" "## Sizes" "## Method" \
	"## Correctness" "## Result" "### Kernels" "### End to end" "### Copy bandwidth" "### Findings" "## Limitations"; do
	line=$(grep -n -x -F -- "$(printf '%s' "$h" | sed 's/_/\\_/g')" "$T/REPORT.md" | head -n 1 | cut -d: -f1)
	[ -n "$line" ] || fail "no heading '$h'"
	[ "$line" -gt "$prev" ] || fail "heading '$h' out of order"
	prev=$line
done
grep -q '^- Not checked: the trace holds no shadow captures' "$T/REPORT.md" || fail "correctness is not 'not checked'"
grep -q 'PASS' "$T/REPORT.md" && fail "a report without captures says PASS"
# The range's name is the trace's, so it is escaped as Markdown text (render\_frame shows render_frame).
grep -q -F -e "- Units of work (end to end): each instance of the NVTX range 'render\\_frame', 50 of them after 5 dropped" \
	"$T/REPORT.md" || fail "units: $(grep -n 'Units of work' "$T/REPORT.md")"
# The median kernel time is summary's.
med=$("$G" summary --warmup 5 --format csv "$S/h200-splat_render-timed.gtrace" | awk -F, '$1 == "kernel" { print $6; exit }')
us=$(python3 -c "print('%.3f' % ($med / 1e3))")
grep -q "^| \`composite(Splat const\*, int, float4\*, int, int)\` | 50 | $us |" "$T/REPORT.md" ||
	fail "the kernel table's median is not summary's ($us us)"
# The figures: beside the report, linked, well-formed SVG.
for f in kernels split; do
	[ -s "$T/REPORT-$f.svg" ] || fail "no REPORT-$f.svg"
	grep -q "](REPORT-$f.svg)" "$T/REPORT.md" || fail "REPORT-$f.svg is not linked"
	python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
assert r.tag == ns + 'svg' and r.find(ns + 'title') is not None and r.find(ns + 'desc') is not None
" "$T/REPORT-$f.svg" || fail "REPORT-$f.svg is not well-formed SVG with a title and a description"
done
[ "$(grep -c '<circle ' "$T/REPORT-kernels.svg")" -eq 50 ] || fail "the kernel figure does not draw the 50 launches"

# On standard output: no figures, and the report says why.
"$G" report "$S/h200-transfers.gtrace" > "$T/stdout.md" || fail "report to stdout: exit $?"
grep -q '^Figures: not written (the report went to standard output' "$T/stdout.md" || fail "no note about figures"
grep -q '](' "$T/stdout.md" && fail "links to figures that were not written"
# Every sample trace makes a report.
for f in "$S"/*.gtrace; do
	"$G" report -o "$T/all.md" "$f" 2>"$T/err" || fail "report $(basename "$f"): exit $?: $(cat "$T/err")"
done

# Errors: 2, one line.
err=$("$G" report "$T/missing.gtrace" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "missing trace: exit $rc"
case $err in "gpuanalyze: cannot open trace '$T/missing.gtrace':"*) ;; *) fail "missing trace: '$err'" ;; esac
err=$("$G" report --shadow "$T/none.so" "$S/h200-shadow-histogram.gtrace" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "missing library: exit $rc"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "missing library: more than one line: $err"
exit 0
