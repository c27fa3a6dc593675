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
"$WRITER" write "$T/job" || fail "cannot write the job's traces"
cd "$T/job" || fail "cd $T/job"

# check NAME CMD...: standard output equals expected/NAME, exit status 0; standard error equals
# expected/NAME.err when that exists, else is empty.
check() {
	name=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || fail "'$*' exits $rc: $(cat "$T/err")"
	if [ -f "$EXPECTED/$name.err" ]; then
		cmp -s "$T/err" "$EXPECTED/$name.err" || fail "'$*' stderr: $(cat "$T/err")"
	elif [ -s "$T/err" ]; then
		fail "'$*' wrote to stderr: $(cat "$T/err")"
	fi
	if ! cmp -s "$T/out" "$EXPECTED/$name"; then
		diff -u "$EXPECTED/$name" "$T/out" | head -n 40
		fail "'$*' differs from expected/$name"
	fi
}

# error NAME STATUS MESSAGE CMD...: exits STATUS, prints nothing, says MESSAGE on stderr exactly.
error() {
	want_rc=$2
	want=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "'$*' exits $rc, not $want_rc"
	[ -s "$T/out" ] && fail "'$*' wrote to stdout: $(head -c 200 "$T/out")"
	[ "$(cat "$T/err")" = "$want" ] || fail "'$*' says '$(cat "$T/err")', not '$want'"
}

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

error range 2 "gpuanalyze: no NVTX range named 'nope' in trace 'rank0.gtrace' (top-level ranges: 'step' (6), 'data' (3))" \
	"$G" ranks --range nope rank0.gtrace rank1.gtrace
error missing 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" \
	"$G" ranks rank0.gtrace missing.gtrace
error operands 2 "gpuanalyze: ranks: missing operand FILE... (see 'gpuanalyze ranks --help')" \
	"$G" ranks
exit 0
