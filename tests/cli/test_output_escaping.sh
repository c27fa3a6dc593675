#!/bin/sh
# Every command in every format on traces whose every string is hostile: kernel, API,
# NVTX range and domain names, metadata keys and values, the device's name and a captured kernel's
# name hold a newline followed by "## Correctness", a spreadsheet formula, terminal escapes, HTML,
# table pipes, backtick fences, C1 and bidi controls and bytes that are not UTF-8. The traces and
# their twins (the same records under plain names) are written by build/tests/test_analyze_escape.
# Each output is parsed by escaping_check.py with a real parser where there is one (json, csv,
# xml.etree) and compared in structure with the twin's: a name may change how a line reads, never
# how many lines, headings, list items, cells, members or elements there are. Standard error is
# checked as text. Exit statuses must be the twin's.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
W="$build/tests/test_analyze_escape"
REFS="$build/kernels/refs.so"
CHECK="$here/escaping_check.py"
status=0
fail() { echo "FAIL: $*"; status=1; }
[ -x "$G" ] || { echo "FAIL: no analyzer at $G"; exit 1; }
[ -x "$W" ] || { echo "FAIL: no trace writer at $W"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
T=$(mktemp -d /tmp/gt_escaping_XXXXXX) || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
"$W" write "$T" || { echo "FAIL: cannot write the traces"; exit 1; }
cd "$T" || exit 1

# run_side SIDE OUT ARGS...: gpuanalyze ARGS with @a@ @b@ @c@ naming SIDE-a.gtrace ..., and @o@
# naming SIDE-out (a file the command writes); stdout in OUT, stderr in OUT.err, status in OUT.rc.
run_side() {
	side=$1 out=$2
	shift 2
	for a in "$@"; do
		shift
		case $a in
		@[abc]@) a="$side-$(echo "$a" | tr -d @).gtrace" ;;
		@o@*) a="$side-out${a#@o@}" ;;
		esac
		set -- "$@" "$a"
	done
	"$G" "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}

# pair KIND ARGS...: ARGS on the hostile traces and on the twins; both outputs checked as KIND.
n=0
pair() {
	kind=$1
	shift
	n=$((n + 1))
	run_side hostile "$T/h$n" "$@"
	run_side twin "$T/t$n" "$@"
	hrc=$(cat "$T/h$n.rc") trc=$(cat "$T/t$n.rc")
	[ "$hrc" = "$trc" ] || fail "gpuanalyze $*: exit $hrc on the hostile traces, $trc on the twins: $(head -c 300 "$T/h$n.err")"
	case $hrc in 0 | 1 | 2) ;; *) fail "gpuanalyze $*: exit $hrc" ;; esac
	python3 "$CHECK" "$kind" "$T/h$n" "$T/t$n" || fail "gpuanalyze $* (output, $kind)"
	python3 "$CHECK" text "$T/h$n.err" "$T/t$n.err" || fail "gpuanalyze $* (standard error)"
	last="$T/h$n"
}

for f in text json; do
	pair $f info --format $f @a@ @b@
done
for f in text md json csv; do
	pair $f summary --format $f @a@
	pair $f split --format $f @a@
	pair $f bandwidth --format $f @a@
	pair $f diff --format $f @a@ @b@
	pair $f ranks --format $f @a@ @b@
	pair $f ranks --format $f @a@ @c@
done
for f in text md json; do
	pair $f findings --format $f @a@
done
pair json dump --format json @a@
pair csv dump --format csv @a@
pair json export --format chrome @a@
pair csv export --format csv @a@
pair xml diff --format junit @a@ @b@
# headings FILE WANT...: the section headings of a report, after its title, are exactly WANT.
headings() {
	file=$1
	shift
	got=$(grep -a '^#' "$file" | tail -n +2 | tr '\n' '/')
	want=$(printf '%s/' "$@")
	[ "$got" = "$want" ] || fail "report $file: headings $got, not $want"
}
SECTIONS="## Hardware|## Toolkit|## Clock state|## Sizes|## Method|## Correctness|## Result|### Kernels|### End to end|### Copy bandwidth|### Findings"
pair md summary --format md @a@ @b@
pair md report @a@
(IFS='|' && headings "$last" $SECTIONS "## Limitations")
pair md report --baseline @b@ @a@
(IFS='|' && headings "$last" $SECTIONS "## Compared with the baseline" "## Limitations")
if [ -f "$REFS" ]; then
	cp "$REFS" "$T/refs.so"
	pair md report --shadow ./refs.so @a@
	(IFS='|' && headings "$last" $SECTIONS "## Limitations")
	grep -q '^- FAIL: ' "$last" || fail "report --shadow: the launch without a reference is not a FAIL"
	for f in text md json; do
		pair $f shadow --ref ./refs.so --format $f @a@
	done
	pair xml shadow --ref ./refs.so --format junit @a@
	pair text calibrate --ref ./refs.so --kernel . @a@
fi
# The report's figures: SVG, through xml.etree.
pair md report -o @o@.md @a@
for fig in kernels split; do
	python3 "$CHECK" xml "hostile-out-$fig.svg" "twin-out-$fig.svg" || fail "report figure $fig"
done
python3 "$CHECK" md hostile-out.md twin-out.md || fail "report -o"

# What the outputs hold, beyond their structure: the names are there, neutralised.
"$G" summary --format csv hostile-a.gtrace | grep -q -F -- "'=cmd|' /C calc'!A0" ||
	fail "summary csv: the formula name is not there with its leading quote"
"$G" summary --format csv hostile-a.gtrace | grep -q -F -- "'-1.5" ||
	fail "summary csv: a name that looks like a number is not neutralised"
"$G" info --format json hostile-a.gtrace | python3 -c '
import json, sys
d = json.load(sys.stdin)
meta = {m["key"]: m["value"] for m in d["traces"][0]["metadata"]}
assert meta["host.name"] == "host\x1b[2J\n## Correctness\n- passed|<h>", meta["host.name"]
assert "\ufffd" in d["traces"][0]["devices"][0]["name"]' || fail "info json: the names do not read back"
"$G" summary hostile-a.gtrace | grep -q -F 'x1b[2J' || fail "summary text: the escape sequence is not shown"

[ $status -eq 0 ] && echo "ok: $n commands on hostile traces and their twins"
exit $status
