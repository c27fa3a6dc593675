#!/bin/sh
# gpuanalyze ranks, byte for byte, on a synthetic three-rank job (tests/data/ranks/README.md says
# what it holds and why each number is what it is): text, md, json, csv; ranks given in any order
# print the same; a rank without clock pairings is said to be not aligned; traces without ranks are
# taken in the order given; errors exit 2 with one line. The traces are written by
# build/tests/test_analyze_ranks and are reproducible to the byte; outputs name them relatively, so
# the script works in a temporary directory. To accept a deliberate change, run the commands below
# by hand in such a directory and review the diff of tests/data/ranks/expected/.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
WRITER="$build/tests/test_analyze_ranks"
EXPECTED="$root/tests/data/ranks/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$WRITER" ] || fail "no fixture writer at $WRITER"
T=$(mktemp -d /tmp/gt_ranks_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
. "$root/tests/cli/golden.sh"
"$WRITER" write "$T/job" || fail "cannot write the job's traces"
cd "$T/job" || fail "cd $T/job"

# check NAME CMD...: standard output equals expected/NAME, exit status 0; standard error equals
# expected/NAME.err when that exists, else is empty.


check ranks_job.txt "$G" ranks rank2.gtrace rank0.gtrace rank1.gtrace
check ranks_job.txt "$G" ranks rank0.gtrace rank1.gtrace rank2.gtrace
check ranks_job.md "$G" ranks --format md --steps 3 rank1.gtrace rank0.gtrace rank2.gtrace
check ranks_job.json "$G" ranks --format json rank0.gtrace rank1.gtrace rank2.gtrace
check ranks_job.csv "$G" ranks --format csv rank0.gtrace rank1.gtrace rank2.gtrace
check ranks_warmup.txt "$G" ranks --warmup 2 --range step rank0.gtrace rank1.gtrace rank2.gtrace
check ranks_noclock.txt "$G" ranks rank0.gtrace rank1-noclock.gtrace rank2.gtrace
check ranks_onepair.txt "$G" ranks rank0.gtrace rank1-onepair.gtrace rank2.gtrace
check ranks_anon.txt "$G" ranks anon-b.gtrace anon-a.gtrace
check ranks_twice.txt "$G" ranks rank0.gtrace rank0.gtrace

# Many traces of one process identity: one warning per identity, not one per pair of them.
"$G" ranks rank0.gtrace rank1.gtrace rank0.gtrace rank0.gtrace rank1.gtrace rank0.gtrace rank0.gtrace \
	> /dev/null 2> "$T/many.err" || fail "ranks over repeated traces: exit $?"
[ "$(wc -l < "$T/many.err")" -eq 2 ] || fail "ranks warned $(wc -l < "$T/many.err") times for two identities: $(cat "$T/many.err")"
grep -qxF "gpuanalyze: warning: rank0.gtrace, rank0.gtrace and 3 more come from the same process (host node-a, pid 1000): the same trace given 5 times?" \
	"$T/many.err" || fail "the five-times warning: $(cat "$T/many.err")"

# The JSON is one valid document whose straggler is rank 2, as the fixture was built.
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "ranks", d["command"]
assert [r["rank"] for r in d["ranks"]] == [0, 1, 2]
assert d["steps_from"]["most_slowest_rank"] == 2
assert d["steps_from"]["most_waited_for_rank"] == 2
assert len(d["step_ranks"]) == 6 * 3
' "$EXPECTED/ranks_job.json" || fail "ranks_job.json is not what the fixture implies"
fi

# -o writes the same bytes as standard output.
"$G" ranks --format csv -o "$T/o.csv" rank0.gtrace rank1.gtrace rank2.gtrace || fail "-o: exit $?"
cmp -s "$T/o.csv" "$EXPECTED/ranks_job.csv" || fail "-o output differs from standard output"

error 2 "gpuanalyze: no NVTX range named 'nope' in trace 'rank0.gtrace' (top-level ranges: 'step' (6), 'data' (3))" \
	"$G" ranks --range nope rank0.gtrace rank1.gtrace
error 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" \
	"$G" ranks rank0.gtrace missing.gtrace
error 2 "gpuanalyze: ranks: missing operand FILE... (see 'gpuanalyze ranks --help')" \
	"$G" ranks
exit 0
