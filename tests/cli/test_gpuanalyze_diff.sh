#!/bin/sh
# gpuanalyze diff on the A/B fixtures of tests/data/diff (made from real H200 recordings; README
# there): the no-change pair is SAME everywhere and exits 0; the planted 10% slowdowns are SLOWER,
# 1.10x, and exit 1, the untouched kernels SAME; reversed, the slowdown is FASTER and exits 0; a
# trace against itself is SAME with p = 1; the renderer's frames (NVTX split units) are compared
# too. JUnit XML is well-formed with the right counts (python3's xml.etree), Markdown starts with
# its heading, JSON parses and carries the verdicts, and the same seed gives the same output.
# The slowed fixtures are regenerated with build/tools/gt_retime and must hold the same kernels.
# Several runs per side pool: counts add up, verdicts of duplicated runs stay, other devices warn.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
RETIME="$build/tools/gt_retime"
S="$root/traces/samples"
D="$root/tests/data/diff"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: cannot check JSON and XML"; exit 77; }
T=$(mktemp -d /tmp/gt_diff_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# run WANT ARGS...: gpuanalyze diff ARGS, output in $T/out, stderr in $T/err, exit status WANT.
run() {
	want=$1
	shift
	"$G" diff "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "'diff $*' exits $rc, not $want: $(head -c 600 "$T/err") $(head -c 600 "$T/out")"
}
json() { # json PYTHON-EXPRESSION on d = the JSON output
	python3 -c "import json,sys; d=json.load(open('$T/out')); k={r['name']: r for r in d['kernels']}; sys.exit(0 if ($1) else 1)" ||
		fail "json: $1 is false"
}

# No change: two real recordings of launch_storm.
run 0 --format json "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm-injection.gtrace"
json "len(d['kernels']) == 4 and all(r['verdict'] == 'SAME' for r in d['kernels'])"
json "d['exit_status'] == 0 and d['counts']['SLOWER'] == 0"
json "all(r['n_base'] == 5000 and r['n_new'] == 250 for r in d['kernels'])"

# Planted 10% slowdown of tiny_k1.
run 1 --format json "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
json "k['_Z7tiny_k1Pji']['verdict'] == 'SLOWER' and k['_Z7tiny_k1Pji']['change'] == '1.10x slower'"
json "abs(k['_Z7tiny_k1Pji']['speedup'] - 1 / 1.1) < 0.005 and k['_Z7tiny_k1Pji']['ci_high'] < 1 / 1.05"
json "all(r['verdict'] == 'SAME' for n, r in k.items() if n != '_Z7tiny_k1Pji')"
json "d['exit_status'] == 1 and d['new']['synthetic'] and not d['base']['synthetic']"
# The text says it, and names the rule.
run 1 "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
grep -Eq '^SLOWER +5000 +5000 +0\.832 +0\.915 +1\.10x slower ' "$T/out" || fail "text row of tiny_k1: $(cat "$T/out")"
grep -q "is SYNTHETIC" "$T/out" || fail "the retimed trace is not called synthetic"
grep -q "^verdict at threshold 5%: SLOWER when the whole CI of new/old is above 1.05 and p < 0.05" "$T/out" ||
	fail "the rule is not stated"
# Reversed: the same change is FASTER, and FASTER does not fail.
run 0 --format json "$D/launch_storm-k1-slow10.gtrace" "$S/h200-launch_storm.gtrace"
json "k['_Z7tiny_k1Pji']['verdict'] == 'FASTER' and k['_Z7tiny_k1Pji']['change'] == '1.10x faster'"
# A 15% threshold: no longer SLOWER.
run 0 --threshold 15% --format json "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
json "k['_Z7tiny_k1Pji']['verdict'] != 'SLOWER'"
# A trace against itself: p = 1 and the speedup 1 everywhere, every interval holds 1, nothing SLOWER
# or FASTER (the bootstrap still resamples each side, so a kernel whose launches spread widely,
# such as torch's 1 us fill kernel, is UNCLEAR rather than SAME: that is its spread, not a change).
run 0 --format json "$S/h200-torch_mlp.gtrace" "$S/h200-torch_mlp.gtrace"
json "all(r['p_value'] == 1 and r['speedup'] == 1 and r['ci_low'] <= 1 <= r['ci_high'] for r in d['kernels'])"
json "all(r['verdict'] in ('SAME', 'UNCLEAR') for r in d['kernels']) and d['counts']['SAME'] >= 10"

# The renderer: 13 frames, composite slowed by 10%; per frame the kernel time too.
run 1 --format json "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
json "k['_Z9compositePK5SplatiP6float4ii']['verdict'] == 'SLOWER'"
json "d['split_units']['compared'] and d['split_units']['range'] == 'render_frame'"
json "{r['name']: r['verdict'] for r in d['units']}['render_frame: kernel'] == 'SLOWER'"
json "{r['name']: r['verdict'] for r in d['units']}['render_frame: wall'] == 'SAME'"
# --no-units: kernels only.
run 1 --no-units --format json "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
json "not d['split_units']['compared'] and d['units'] == [] and 'no-units' in d['split_units']['note']"
# With 3 warm-up frames dropped: 10 per side, still SLOWER.
run 1 --warmup 3 --format json "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
json "k['_Z9compositePK5SplatiP6float4ii']['n_base'] == 10 and d['split_units']['units_base'] == 10"
# Too few for the default minimum: UNCLEAR, and --strict fails on it.
run 0 --warmup 5 --format json "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
json "k['_Z9compositePK5SplatiP6float4ii']['verdict'] == 'UNCLEAR' and 'too few samples' in k['_Z9compositePK5SplatiP6float4ii']['why']"
run 1 --strict --warmup 5 "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"

# JUnit: well-formed, one test case per kernel and unit quantity, SLOWER as failures.
run 1 --format junit -o "$T/diff.xml" "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
python3 - "$T/diff.xml" <<'PY' || fail "JUnit XML"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suite = root.find("testsuite")
cases = suite.findall("testcase")
fails = [c for c in cases if c.find("failure") is not None]
assert int(suite.get("tests")) == len(cases) == 6, (suite.get("tests"), len(cases))
assert int(suite.get("failures")) == len(fails) == 2, suite.get("failures")
names = sorted(c.get("name") for c in fails)
assert names == ["composite(Splat const*, int, float4*, int, int)", "render_frame: kernel"], names
assert fails[0].find("failure").get("message").startswith("SLOWER 1.10x slower")
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
assert props["threshold"] == "5%" and "seed 1" in props["bootstrap"], props
PY
# Markdown for a CI job summary.
run 1 --format md "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
[ "$(head -n 1 "$T/out")" = "## gpuanalyze diff: 1 of 4 kernels SLOWER (threshold 5%)" ] ||
	fail "markdown heading: $(head -n 1 "$T/out")"
grep -q '^| SLOWER | 5000 | 5000 | 0.832 | 0.915 | 1.10x slower |' "$T/out" || fail "markdown row"
# CSV: a row per kernel and per unit quantity, with the header.
run 1 --format csv "$S/h200-splat_render.gtrace" "$D/splat_render-slow10.gtrace"
[ "$(head -n 1 "$T/out" | cut -d, -f1-5)" = "kind,side,verdict,n_base,n_new" ] || fail "csv header"
[ "$(grep -c '^split_unit,both,' "$T/out")" -eq 5 ] || fail "csv: unit rows"
# The same seed, the same output; another seed, other intervals (the verdicts stay).
run 0 --seed 7 --format json "$S/h200-torch_mlp.gtrace" "$S/h200-torch_collide.gtrace"
cp "$T/out" "$T/seed7"
run 0 --seed 7 --format json "$S/h200-torch_mlp.gtrace" "$S/h200-torch_collide.gtrace"
cmp -s "$T/out" "$T/seed7" || fail "the same seed gave different output"

# Usage and input errors: 2, one line on stderr.
run 2 "$S/h200-splat_render.gtrace"
run 2 --threshold x "$S/h200-splat_render.gtrace" "$S/h200-splat_render.gtrace"
[ "$(wc -l < "$T/err")" -eq 1 ] || fail "bad threshold: not one line"
# A threshold without its unit: 0.05 could be 5% or 0.05%, so it is refused, with how to write each.
run 2 --threshold 0.05 "$S/h200-splat_render.gtrace" "$S/h200-splat_render.gtrace"
[ "$(cat "$T/err")" = "gpuanalyze: diff: option '--threshold' wants its unit: '5%' if '0.05' is a fraction, '0.05%' if it is in percent (see 'gpuanalyze diff --help')" ] ||
	fail "bare threshold: '$(cat "$T/err")'"
run 2 "$S/h200-splat_render.gtrace" "$T/missing.gtrace"
grep -q "^gpuanalyze: cannot open trace '$T/missing.gtrace'" "$T/err" || fail "missing trace: $(cat "$T/err")"

# Pooling several runs per side (BASE... -- NEW...). Two copies of one trace per side: every count
# doubles, the verdicts stay those of the one-run diff, and the output says how many runs it pooled.
run 1 --format json "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
cp "$T/out" "$T/one.json"
run 1 --format json "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm.gtrace" -- \
	"$D/launch_storm-k1-slow10.gtrace" "$D/launch_storm-k1-slow10.gtrace"
python3 - "$T/one.json" "$T/out" <<'PY' || fail "pooling two copies per side"
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
k1 = {r['name']: r for r in one['kernels']}
k2 = {r['name']: r for r in two['kernels']}
assert k1.keys() == k2.keys() and len(k1) == 4, (k1.keys(), k2.keys())
for n in k1:
    assert k2[n]['verdict'] == k1[n]['verdict'], (n, k1[n]['verdict'], k2[n]['verdict'])
    assert k2[n]['n_base'] == 2 * k1[n]['n_base'] and k2[n]['n_new'] == 2 * k1[n]['n_new'], n
    assert k2[n]['median_base_ns'] == k1[n]['median_base_ns'] and k2[n]['median_new_ns'] == k1[n]['median_new_ns'], n
assert two['counts'] == one['counts'] and two['exit_status'] == one['exit_status'] == 1
assert two['base']['runs'] == 2 and two['new']['runs'] == 2, two['base']
assert two['base']['kernel_records'] == 2 * one['base']['kernel_records']
assert 'runs' not in one['base'] and two['base']['runs_differ'] is None
PY
run 1 "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm.gtrace" -- "$D/launch_storm-k1-slow10.gtrace"
grep -q '^BASE: 2 runs pooled (40000 kernel records, 4 kernels over all)$' "$T/out" || fail "text: runs pooled: $(head -5 "$T/out")"
grep -q "^BASE run 2 of 2: $S/h200-launch_storm.gtrace\$" "$T/out" || fail "text: the runs are not named"
grep -Eq '^SLOWER +10000 +5000 ' "$T/out" || fail "text: pooled row of tiny_k1"
[ -s "$T/err" ] && fail "runs of one setup warn: $(cat "$T/err")"
# Different runs: the union of their launches, kernel by kernel, each run's warm-up dropped on its
# own; n of each kernel is the sum of its n in each run alone.
for f in h200-launch_storm h200-launch_storm-injection; do
	run 0 --warmup 3 --format json "$S/$f.gtrace" "$S/$f.gtrace"
	cp "$T/out" "$T/$f.json"
done
run 0 --warmup 3 --format json "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm-injection.gtrace" -- \
	"$S/h200-launch_storm-injection.gtrace"
python3 - "$T/h200-launch_storm.json" "$T/h200-launch_storm-injection.json" "$T/out" <<'PY' || fail "pooling different runs"
import json, sys
a, b, p = (json.load(open(f)) for f in sys.argv[1:4])
ka, kb, kp = ({r['name']: r for r in d['kernels']} for d in (a, b, p))
assert kp.keys() == ka.keys() | kb.keys(), kp.keys()
for n in kp:
    want = ka.get(n, {}).get('n_base', 0) + kb.get(n, {}).get('n_base', 0)
    assert kp[n]['n_base'] == want, (n, kp[n]['n_base'], want)
    assert kp[n]['n_new'] == kb[n]['n_new'], n
    assert kp[n]['warmup_dropped_base'] == ka[n]['warmup_dropped_base'] + kb[n]['warmup_dropped_base'], n
assert p['base']['runs'] == 2 and 'runs' not in p['new']
assert p['base']['kernel_records'] == a['base']['kernel_records'] + b['base']['kernel_records']
PY
# Split units pool too: 13 frames per run.
run 1 --format json "$S/h200-splat_render.gtrace" "$S/h200-splat_render.gtrace" -- "$D/splat_render-slow10.gtrace"
json "d['split_units']['units_base'] == 26 and d['split_units']['units_new'] == 13"
json "{r['name']: r['verdict'] for r in d['units']}['render_frame: kernel'] == 'SLOWER'"
# Runs of one side from another device model: pooled, with a warning (one line) and a WARNING line.
if [ -x "$build/tools/gt_synth" ]; then
	"$build/tools/gt_synth" -o "$T/synth.gtrace" --shape steady -n 3000 || fail "gt_synth"
	run 0 "$S/h200-launch_storm.gtrace" "$T/synth.gtrace" -- "$S/h200-launch_storm.gtrace"
	[ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "^gpuanalyze: warning: diff: the BASE runs differ in gputrace version or device: .*NVIDIA H200 (synthetic)" "$T/err" ||
		fail "no warning for runs of other devices: $(cat "$T/err")"
	grep -q "^WARNING: the BASE runs differ in gputrace version or device: " "$T/out" || fail "no WARNING line"
fi
# A missing trace among several: one line, 2; several traces without '--': one line, 2.
run 2 "$S/h200-launch_storm.gtrace" "$T/missing.gtrace" -- "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm.gtrace"
[ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "^gpuanalyze: cannot open trace '$T/missing.gtrace'" "$T/err" ||
	fail "missing trace among several: $(cat "$T/err")"
run 2 "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm.gtrace" "$S/h200-launch_storm.gtrace"
[ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "no '--' between them" "$T/err" || fail "three traces without '--': $(cat "$T/err")"
# A leading '--' only ends the options: diff -- BASE NEW is diff BASE NEW.
run 1 --format json -- "$S/h200-launch_storm.gtrace" "$D/launch_storm-k1-slow10.gtrace"
cmp -s "$T/out" "$T/one.json" || fail "'diff -- BASE NEW' differs from 'diff BASE NEW'"

# The fixtures are what gt_retime makes from the samples.
if [ -x "$RETIME" ]; then
	"$RETIME" -i "$S/h200-launch_storm.gtrace" -o "$T/k1.gtrace" --kernel tiny_k1 --factor 1.10 2>/dev/null ||
		fail "gt_retime failed"
	"$RETIME" -i "$S/h200-splat_render.gtrace" -o "$T/sr.gtrace" --kernel composite --factor 1.10 2>/dev/null ||
		fail "gt_retime failed"
	for pair in "k1.gtrace launch_storm-k1-slow10.gtrace" "sr.gtrace splat_render-slow10.gtrace"; do
		set -- $pair
		"$G" dump --type kernel "$T/$1" > "$T/a.csv" || fail "dump $1"
		"$G" dump --type kernel "$D/$2" > "$T/b.csv" || fail "dump $2"
		cmp -s "$T/a.csv" "$T/b.csv" || fail "$2 is not what gt_retime makes from its sample"
	done
fi
exit 0
