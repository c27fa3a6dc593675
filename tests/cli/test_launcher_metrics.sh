#!/bin/sh
# GPUTRACE_METRICS as `gputrace record` takes it: a word that is neither a counter set nor a CUPTI
# metric name is a usage error, said in one line before the program starts (status 2, the program
# never runs); sets and well-formed metric names pass to the recorder, and the program runs. What
# the GPU then offers is the recorder's business (tests/gpu/test_metrics.sh). The launcher is
# GT_BUILD's (the sanitizer pass checks it too); the library it preloads the plain build's (--lib).
. tests/cli/progs/common.sh
need_gputrace
need_lib
cd "$WD" || fail "cd $WD"
for bad in bogus memory,Compute 'dram__bytes;x' 'memory,dram__'; do
	rm -f ran
	GPUTRACE_METRICS=$bad "$GPUTRACE" record --lib "$LIB" -o t.gtrace -- sh -c ': > ran' >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "GPUTRACE_METRICS='$bad': status $rc, not 2"
	[ ! -e ran ] || fail "GPUTRACE_METRICS='$bad': the program ran"
	[ "$(wc -l <err)" = 1 ] || fail "GPUTRACE_METRICS='$bad': $(wc -l <err) lines: $(cat err)"
	grep -q "^gputrace: record: GPUTRACE_METRICS: .* is neither a metric set (memory, compute) nor a CUPTI metric name$" err ||
		fail "GPUTRACE_METRICS='$bad': $(cat err)"
done
note "unknown sets and malformed names: status 2, one line, the program not run"
for good in memory compute memory,compute dram__bytes_read.sum,lts__t_sectors.sum; do
	rm -f ran
	GPUTRACE_METRICS=$good "$GPUTRACE" record --lib "$LIB" -o t.gtrace -- sh -c ': > ran' >out 2>err
	[ -e ran ] || fail "GPUTRACE_METRICS='$good': the program did not run: $(cat err)"
	grep -q "GPUTRACE_METRICS" err && fail "GPUTRACE_METRICS='$good' refused: $(cat err)"
	rm -f t*.gtrace
done
note "sets and metric names: the program runs"
