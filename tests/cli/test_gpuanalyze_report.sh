#!/bin/sh
# gpuanalyze report on real H200 recordings: every heading of the seeds' template in order, the
# figures written beside the report, well-formed SVG (python3's xml.etree) and linked by names that
# exist; the renderer's 55 frames (5 of its own warm-up, 50 timed) give 50 units after --warmup 5, and the report's
# median kernel time agrees with `gpuanalyze summary`; correctness is "not checked" without
# captures; on standard output there are no figures and the report says so; errors exit 2;
# -o /dev/stdout (or a FIFO, a device node, a symbolic link) writes the report there and no figure
# beside it (one warning line, the report says why: no /dev/stdout-kernels.svg); a FIFO or a
# symbolic link at a figure's name is left alone (one line, exit 2); a newline in a path named by a
# message is shown as \n (one line); the kernel figure's labels are unique and its axis covers the
# slowest launch; stderr that is not a terminal gets no progress line.
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
# -o /dev/stdout: the report on standard output, no figure beside it (/dev/stdout-kernels.svg).
TR="$S/h200-splat_render-timed.gtrace"
for bad in /dev/stdout-kernels.svg /dev/stdout-split.svg; do
	[ -e "$bad" ] && fail "$bad exists before the test: remove it first"
done
"$G" report --warmup 5 -o /dev/stdout "$TR" >"$T/stdout.md" 2>"$T/stdout.err"; rc=$?
for bad in /dev/stdout-kernels.svg /dev/stdout-split.svg /proc/self/fd/1-kernels.svg; do
	[ -e "$bad" ] && { rm -f "$bad"; fail "-o /dev/stdout: $bad was created"; }
done
[ $rc -eq 0 ] || fail "-o /dev/stdout: exit $rc: $(cat "$T/stdout.err")"
[ "$(cat "$T/stdout.err")" = "gpuanalyze: warning: report: '/dev/stdout' is not a regular file: no figures are written beside it" ] ||
	fail "-o /dev/stdout: stderr: $(cat "$T/stdout.err")"
grep -q '^Figures: not written (the report.s -o path is not a regular file, and figures go only beside one)$' "$T/stdout.md" ||
	fail "-o /dev/stdout: the report does not say why there are no figures"
grep -q '^## Hardware$' "$T/stdout.md" || fail "-o /dev/stdout: no report on standard output"
# The same through a link of our own, and into a FIFO that someone reads.
ln -s /proc/self/fd/1 "$T/out.md"
"$G" report --warmup 5 -o "$T/out.md" "$TR" >"$T/link.md" 2>"$T/link.err" || fail "-o link: exit $?"
[ -e "$T/out-kernels.svg" ] && fail "-o a link to /proc/self/fd/1: a figure was written beside it"
[ "$(wc -l <"$T/link.err")" -eq 1 ] || fail "-o link: $(cat "$T/link.err")"
mkfifo "$T/pipe.md" || fail "mkfifo"
timeout 60 cat "$T/pipe.md" >"$T/pipe.out" &
catpid=$!
timeout 60 "$G" report --warmup 5 -o "$T/pipe.md" "$TR" 2>"$T/pipe.err"; rc=$?
wait $catpid
[ $rc -eq 0 ] || fail "-o FIFO: exit $rc: $(cat "$T/pipe.err")"
grep -q '^## Hardware$' "$T/pipe.out" || fail "-o FIFO: the report did not come through the FIFO"
[ -p "$T/pipe.md" ] || fail "-o FIFO: the FIFO was replaced"
[ -e "$T/pipe-kernels.svg" ] && fail "-o FIFO: a figure was written beside it"
echo "ok: -o /dev/stdout, a link to /proc/self/fd/1, a FIFO: the report there, no figure beside it, one line"

# A figure's name taken by a FIFO or a symbolic link: left alone, one line, exit 2.
mkdir "$T/f" && mkfifo "$T/f/R-kernels.svg" || fail "mkfifo"
err=$("$G" report --warmup 5 -o "$T/f/R.md" "$TR" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "FIFO at a figure's name: exit $rc: $err"
[ "$err" = "gpuanalyze: cannot write '$T/f/R-kernels.svg': it is a FIFO, which a figure never replaces" ] ||
	fail "FIFO at a figure's name: '$err'"
[ -p "$T/f/R-kernels.svg" ] || fail "FIFO at a figure's name: replaced"
printf 'keep\n' >"$T/f/victim"
rm "$T/f/R-kernels.svg" && ln -s victim "$T/f/R-kernels.svg"
err=$("$G" report --warmup 5 -o "$T/f/R.md" "$TR" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "link at a figure's name: exit $rc: $err"
[ "$(cat "$T/f/victim")" = keep ] || fail "link at a figure's name: its target was written"
[ -L "$T/f/R-kernels.svg" ] || fail "link at a figure's name: replaced"
echo "ok: a FIFO or a symbolic link at a figure's name: left alone, one line, exit 2"

# A newline in a path that a message names: one line, shown as \n.
nl='
'
err=$("$G" report "$T/no${nl}such.gtrace" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "newline in a path: exit $rc"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "newline in a path: more than one line: $err"
case $err in "gpuanalyze: cannot open trace '$T/no\\nsuch.gtrace':"*) ;; *) fail "newline in a path: '$err'" ;; esac
echo "ok: a newline in a path: one line, the newline shown as a visible escape"

# The kernel figure of a PyTorch recording whose cuBLAS and reduce kernels have long names that
# differ only in the middle: every row's label is its own, and the axis has a tick at or beyond the
# slowest launch (342 us here; summary's max over all kernels).
"$G" report -o "$T/C.md" "$S/h200-torch_collide.gtrace" 2>"$T/err" || fail "torch_collide: exit $?"
[ ! -s "$T/err" ] || fail "torch_collide: report wrote to stderr: $(cat "$T/err")"
max_ns=$("$G" summary --format csv "$S/h200-torch_collide.gtrace" | awk -F, '$1 == "kernel" && $14 > m { m = $14 } END { print m }')
python3 -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
texts = ET.parse(sys.argv[1]).getroot().iter(ns + "text")
labels, ticks = [], []
for t in texts:
    if t.get("text-anchor") == "end":
        labels.append(t.text)
    elif t.get("text-anchor") == "middle" and t.get("fill") and t.text:
        v, unit = t.text.split()
        ticks.append(float(v) * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[unit])
if len(labels) < 8:
    sys.exit("%d rows: the figure should show 8 kernels" % len(labels))
if len(set(labels)) != len(labels):
    sys.exit("labels repeat: %r" % sorted(l for l in labels if labels.count(l) > 1))
if max(ticks) * 1e3 < float(sys.argv[2]):
    sys.exit("last tick %g us, slowest launch %g us" % (max(ticks), float(sys.argv[2]) / 1e3))' \
	"$T/C-kernels.svg" "$max_ns" || fail "torch_collide's kernel figure"
exit 0
