#!/bin/sh
# gpuanalyze shadow on synthetic saxpy captures (written by build/tests/test_shadow --write-fixtures)
# with the references of build/kernels/refs.so: verdicts and exit statuses (0 all passed, 1 any
# failure or launch not checked, 2 usage or input error), the worst element and the first mismatch,
# "no reference" not counted as passed, every format (text and json byte for byte against
# tests/data/shadow/expected/, md, and junit checked as well-formed XML with python3's xml.etree),
# --kernel, -o, and the one-line errors for a --ref that is missing, not a library, of another ABI.
# Also compiles the example of gputrace-ref(3) and replays with it, so the man page cannot rot.
# To accept a deliberate change of the outputs: run the commands below by hand in a temporary
# directory and review the diff of tests/data/shadow/expected/.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURES="$build/tests/test_shadow"
REFS="$build/kernels/refs.so"
EXPECTED="$root/tests/data/shadow/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURES" ] || fail "no fixture writer at $FIXTURES"
[ -f "$REFS" ] || fail "no $REFS: the top Makefile must include kernels/refs/module.mk"
T=$(mktemp -d /tmp/gt_shadow_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$FIXTURES" --write-fixtures "$T" || fail "cannot write the fixtures"
cp "$REFS" "$T/refs.so" || fail "cp $REFS"
cd "$T" || fail "cd $T"

# run WANT CMD...: runs CMD, output in $T/out and $T/err, and checks its exit status.
run() {
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exits $rc, not $want: $(head -c 400 "$T/err")"
}
same() { # same EXPECTED-NAME: $T/out equals the expected file (GT_ACCEPT_GOLDEN=1: golden.sh's rule)
	[ "${GT_ACCEPT_GOLDEN:-}" = 1 ] && ! cmp -s "$T/out" "$EXPECTED/$1" && cp "$T/out" "$EXPECTED/$1" &&
		echo "accepted: $EXPECTED/$1"
	cmp -s "$T/out" "$EXPECTED/$1" || { diff -u "$EXPECTED/$1" "$T/out" | head -n 40; fail "output differs from expected/$1"; }
}
has() { grep -Fq -- "$1" "$T/out" || fail "no '$1' in the output of the last command: $(head -c 600 "$T/out")"; }
json() { # json PYTHON-EXPRESSION: evaluated with d = the JSON output; must be true
	python3 -c "import json,sys; d=json.load(open('$T/out')); sys.exit(0 if ($1) else 1)" ||
		fail "json: $1 is false"
}
one_line_error() { # one_line_error TEXT: stderr is exactly one line, holding TEXT
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$T/err")"
	grep -Fq -- "$1" "$T/err" || fail "stderr lacks '$1': $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "output on a usage error: $(head -c 200 "$T/out")"
}

# Correct launches: exit 0; the reference is found by the name without its parameter list. A
# --ref without a slash is a file in the current directory.
run 0 "$G" shadow saxpy_ok.gtrace --ref refs.so
has "result: PASS: 2 launches: 2 passed, 0 failed, 0 errors, 0 incomplete, 0 without a reference"
has "trace: synthetic (test_shadow: synthetic saxpy captures): not recorded on a GPU"
[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"

# A planted error at y[517]: exit 1, found, named: text and json byte for byte.
run 1 "$G" shadow saxpy_planted.gtrace --ref refs.so
same saxpy_planted.txt
run 1 "$G" shadow saxpy_planted.gtrace --ref refs.so --format json
same saxpy_planted.json
json "d['launches'][0]['verdict'] == 'fail' and d['launches'][0]['outputs'][0]['worst']['index'] == 517"
json "d['launches'][0]['outputs'][0]['first_mismatch'] == 517 and d['launches'][0]['outputs'][0]['mismatches'] == 1"
json "d['passed'] is False and d['counts']['fail'] == 1"

# A write past n (saxpy_nobounds, checked with saxpy's reference): the first error at y[n].
run 1 "$G" shadow saxpy_nobounds.gtrace --ref refs.so --format json
json "d['launches'][0]['reference'] == 'saxpy_nobounds' and d['launches'][0]['name'] == 'saxpy_nobounds'"
json "d['launches'][0]['outputs'][0]['first_mismatch'] == 1000 and d['launches'][0]['outputs'][0]['worst']['index'] == 1000"
json "d['launches'][0]['outputs'][0]['worst']['gpu'] == 1237.0 and d['launches'][0]['outputs'][0]['worst']['ref'] == 1234.5"
json "d['launches'][0]['outputs'][0]['mismatches'] == 24"

# An input the kernel changed: fail, outside the declared outputs.
run 1 "$G" shadow saxpy_input_changed.gtrace --ref refs.so
has "parameter 2's allocation, outside the declared outputs:"
has "changed, the first at byte 12"

# No reference: listed, never counted as passed (exit 1); md and junit say so too.
run 1 "$G" shadow saxpy_noref.gtrace --ref refs.so --format md
same saxpy_noref.md
run 1 "$G" shadow saxpy_noref.gtrace --ref refs.so --format junit -o noref.xml
[ ! -s "$T/out" ] || fail "-o: output on stdout"
python3 - "$T/noref.xml" <<'PY' || fail "junit: saxpy_noref"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
s = root.find("testsuite")
assert s.get("tests") == "2" and s.get("failures") == "0" and s.get("skipped") == "1", s.attrib
cases = s.findall("testcase")
assert [c.get("name") for c in cases] == ["saxpy launch 0 (capture 1)", "unknown launch 0 (capture 2)"], cases
assert cases[0].find("skipped") is None and cases[0].find("failure") is None
assert cases[1].find("skipped").get("message").startswith("no reference"), cases[1].find("skipped").attrib
props = {p.get("name"): p.get("value") for p in s.find("properties")}
assert props["references"] == "refs.so" and props["synthetic"].startswith("test_shadow"), props
PY
# Failures and errors in JUnit: well-formed, with the worst element in the body.
run 1 "$G" shadow saxpy_nobounds.gtrace --ref refs.so --format junit
python3 - "$T/out" <<'PY' || fail "junit: saxpy_nobounds"
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("failures") == "1" and s.get("errors") == "0", s.attrib
f = s.find("testcase").find("failure")
assert f.get("message").startswith("fail: y: 24 of 1024 elements outside ulps 1, first at [1000]"), f.get("message")
assert "worst [1000]: GPU 1237 (0x449aa000), reference 1234.5 (0x449a5000)" in f.text, f.text
PY
run 1 "$G" shadow saxpy_missing_blob.gtrace --ref refs.so --format junit
python3 - "$T/out" <<'PY' || fail "junit: saxpy_missing_blob"
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("errors") == "1", s.attrib
assert "is not in the trace" in s.find("testcase").find("error").get("message")
PY

# Not fully captured: incomplete, not passed.
run 1 "$G" shadow saxpy_incomplete.gtrace --ref refs.so
has "incomplete: parameter 3: over the capture's byte cap, not copied"
has "0 passed, 0 failed, 0 errors, 1 incomplete"

# --kernel: only the selected captures are replayed and reported.
run 0 "$G" shadow saxpy_noref.gtrace --ref refs.so --kernel '^saxpy' --format json
json "len(d['launches']) == 1 and d['captures'] == 2 and d['selected'] == 1 and d['passed'] is True"

# Usage and input errors: exit 2, one line, nothing on stdout.
run 2 "$G" shadow saxpy_ok.gtrace
one_line_error "gpuanalyze: shadow: option '--ref' is required"
echo "not a library" > notalib.so
run 2 "$G" shadow saxpy_ok.gtrace --ref notalib.so
one_line_error "gpuanalyze: cannot load reference library 'notalib.so': not a loadable library:"
run 2 "$G" shadow saxpy_ok.gtrace --ref "$build/tests/shadow/badabi.so"
one_line_error "built for reference ABI 2; this gpuanalyze reads ABI 1"
run 2 "$G" shadow saxpy_ok.gtrace --ref nosuch.so
one_line_error "gpuanalyze: cannot load reference library 'nosuch.so': not a loadable library:"
run 2 "$G" shadow no_captures.gtrace --ref refs.so
one_line_error "gpuanalyze: shadow: 'no_captures.gtrace' holds no captured launches"
run 2 "$G" shadow saxpy_ok.gtrace --ref refs.so --kernel nomatch
one_line_error "no captured launch in 'saxpy_ok.gtrace' is of a kernel matching --kernel 'nomatch'"
run 2 "$G" shadow nosuch.gtrace --ref refs.so
one_line_error "gpuanalyze: cannot open trace 'nosuch.gtrace':"
run 2 "$G" shadow refs.so --ref refs.so
one_line_error "gpuanalyze: cannot open trace 'refs.so': not a gputrace file"
run 2 "$G" shadow saxpy_ok.gtrace --ref refs.so --format xml
one_line_error "option '--format' wants one of text|md|json|junit"

# A reference whose work grows faster than its input (the composite of splats that each cover the
# whole image: pixels x splats) is stopped at its CPU cap (GPUTRACE_SHADOW_CPU, 1 s here), and the
# launch is an error that says so; the analyzer itself takes little more than the cap. A cap that
# is not a whole number from 1 to 86400 is the default one (10 s plus 1 s per MiB captured).
GPUTRACE_SHADOW_CPU=1 run 1 "$G" shadow composite_wide.gtrace --ref refs.so --format json
json "d['launches'][0]['verdict'] == 'error' and 'stopped after 1 s of CPU' in d['launches'][0]['why']"
GPUTRACE_SHADOW_CPU=1 run 1 "$G" shadow composite_wide.gtrace --ref refs.so
grep -q "error: the reference was stopped: stopped after 1 s of CPU, its cap (10 s plus 1 s per MiB of the launch's captured memory, or GPUTRACE_SHADOW_CPU): not checked" out ||
	fail "the stopped reference is not said: $(grep error: out)"

# The example of gputrace-ref(3), compiled from the man page as printed, replays the planted trace.
if command -v cc >/dev/null 2>&1; then
	sed -n '/^#include <gputrace_ref.h>/,/^\.fi/p' "$root/man/gputrace-ref.3" | sed '$d' | sed 's/\\-/-/g' > example.c
	cc -std=c99 -Wall -Wextra -Werror -O2 -fPIC -shared -I"$root/analyze/shadow" -o example.so example.c -lm ||
		fail "the example of gputrace-ref(3) does not compile"
	run 1 "$G" shadow saxpy_planted.gtrace --ref ./example.so --format json
	json "d['references']['name'] == 'my references' and d['launches'][0]['outputs'][0]['worst']['index'] == 517"
	run 0 "$G" shadow saxpy_ok.gtrace --ref ./example.so
fi
exit 0
