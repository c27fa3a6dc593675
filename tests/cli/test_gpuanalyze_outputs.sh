#!/bin/sh
# gpuanalyze's output, byte for byte, on the synthetic fixture traces: info (text, json), summary
# (text, csv, md, json; one file and two), dump (csv, json, jsonl). The fixtures are written by
# build/tests/test_analyze_cli_fixture and are reproducible to the byte; outputs name the files
# relatively, so the script works in a temporary directory. To accept a deliberate change, run the
# commands below by hand in such a directory and review the diff of tests/cli/expected/.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURE="$build/tests/test_analyze_cli_fixture"
EXPECTED="$here/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURE" ] || fail "no fixture writer at $FIXTURE"
T=$(mktemp -d /tmp/gt_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
. "$root/tests/cli/golden.sh"
"$FIXTURE" write "$T" || fail "cannot write the fixtures"
cd "$T" || fail "cd $T"

# check NAME CMD...: standard output equals expected/NAME, exit status 0; standard error equals
# expected/NAME.err when that exists, else is empty.

check info_small.txt "$G" info small.gtrace
check info_small.json "$G" info --format json small.gtrace
check info_truncated.txt "$G" info truncated.gtrace
check summary_small.txt "$G" summary --warmup 3 small.gtrace
check summary_small.csv "$G" summary --warmup 3 --format csv small.gtrace
check summary_small.md "$G" summary --warmup 3 --format md small.gtrace
check summary_small.json "$G" summary --warmup 3 --format json small.gtrace
check summary_nowarmup.txt "$G" summary --sort name small.gtrace
check summary_two.txt "$G" summary --warmup 1 --kernel 'composite|reduce' small.gtrace truncated.gtrace
check dump_small.csv "$G" dump small.gtrace
check dump_kernels.json "$G" dump --format json --type kernel,dropped small.gtrace
check dump_kernels.jsonl "$G" dump --format jsonl --type kernel,dropped small.gtrace
# JSON's relative times, on a real recording: every time field has its twin NAME_rel_ns (a
# trailing _ns dropped first), equal to the time less the trace's origin (the earliest start or
# timestamp of any event, found here independently), null where the time is 0 (none).
"$G" dump --format jsonl "$root/traces/samples/h200-splat_render.gtrace" >rel.jsonl || fail "dump jsonl of a sample"
python3 - rel.jsonl <<'PY' || fail "dump's relative times"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
firsts = ("start", "timestamp", "cupti_ns")
origin = min(r[k] for r in rows for k in firsts if r.get(k))
n = 0
for r in rows:
    for k, v in r.items():
        if not k.endswith("_rel_ns"):
            continue
        base = k[: -len("_rel_ns")]
        a = r[base] if base in r else r[base + "_ns"]
        assert (v is None) == (a == 0), (k, v, a)
        assert v is None or v == a - origin, (k, v, a, origin)
        n += 1
assert n > 100, n
assert min(r["start_rel_ns"] for r in rows if r.get("start_rel_ns") is not None) >= 0
PY
# -o writes the same bytes as standard output.
"$G" summary --warmup 3 --format csv -o "$T/o.csv" small.gtrace || fail "-o: exit $?"
cmp -s "$T/o.csv" "$EXPECTED/summary_small.csv" || fail "-o output differs from standard output"
exit 0
