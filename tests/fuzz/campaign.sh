#!/bin/sh
# A long structured fuzzing campaign on a machine with many cores (millions of
# executions of fuzz_structured, more than make check's seconds can give).
#
#   tests/fuzz/campaign.sh build DIR
#       here, with clang: builds fuzz_structured twice into DIR, with ASan+UBSan (asan/) and with
#       UBSan alone (ubsan/, still catching undefined behaviour, aborts, glibc's heap checks and
#       hangs, not ASan's out-of-bounds reads). The UBSan build is the throughput build: it also
#       leaves out libFuzzer's comparison tracing (trace-cmp), which took 45% of an execution in
#       the record decoder's loops (perf, 2026-12-02) and which a generator of valid traces needs
#       least, and its runs turn off entropic scheduling (another 20% in the fuzzer's own
#       bookkeeping): 384 executions/s per core against 135 with both. The ASan build keeps both,
#       so the campaign also mutates towards compared values. The hostile reference library
#       beside each, and DIR/corpus from the seeds and the working corpus of earlier runs (and the
#       folders CAMPAIGN_CORPUS names: an earlier campaign's OUT/corpus-KIND). DIR holds
#       only what a `run` needs, so it can travel to another machine (x86-64, same glibc or newer).
#   tests/fuzz/campaign.sh run DIR SECONDS [ASAN_JOBS [UBSAN_JOBS]]
#       anywhere: both builds at once for SECONDS, in ASAN_JOBS and UBSAN_JOBS fuzzing processes
#       (default: a third and the rest of the CPUs but one; 0 leaves a build out). A process
#       that finds something stops, the others go on; findings land in OUT/crashes-KIND/ (OUT:
#       $OUT, else DIR/out), the logs in OUT/logs-KIND/. Prints one line per build (executions,
#       summed rate, findings, slow units: inputs over 10 s of wall time, noted but not failures)
#       and the total; exit 1 when anything was found.
set -u
cd "$(dirname "$0")/../.." || exit 2
mode=${1:-}
dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { sed -n '2,23p' "$0"; exit 2; }

case $mode in
build)
	mkdir -p "$dir/asan" "$dir/ubsan" "$dir/corpus" || exit 2
	for kind in asan ubsan; do
		if [ $kind = ubsan ]; then
			san="-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -fno-sanitize-coverage=trace-cmp"
		else
			san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
		fi
		FUZZ_SAN=$san FUZZ_BUILD=build/fuzz-campaign-$kind sh tests/fuzz/run_all.sh --strict --runs 1 \
			structured >"$dir/$kind/build.log" 2>&1
		b=build/fuzz-campaign-$kind
		[ -x "$b/fuzz_structured" ] || { echo "campaign.sh: $kind build failed, see $dir/$kind/build.log" >&2; exit 2; }
		cp "$b/fuzz_structured" "$b/hostile_refs.so" "$dir/$kind/" || exit 2
	done
	# The corpus: seeds and whatever earlier runs found, merged down to what adds coverage.
	rm -rf "$dir/corpus"
	mkdir -p "$dir/corpus" || exit 2
	"$dir/ubsan/fuzz_structured" -merge=1 "$dir/corpus" tests/fuzz/corpus/structured \
		$(ls -d build/fuzz-analyze/corpus/structured build/fuzz-campaign-*/corpus/structured 2>/dev/null) \
		${CAMPAIGN_CORPUS:-} \
		>"$dir/merge.log" 2>&1 || { echo "campaign.sh: corpus merge failed, see $dir/merge.log" >&2; exit 2; }
	echo "campaign.sh: $dir: $(ls "$dir/corpus" | wc -l) corpus inputs, $(du -sh "$dir" | cut -f1) in all"
	;;
run)
	secs=${3:-600}
	cpus=$(nproc 2>/dev/null || echo 2)
	aj=${4:-$(( (cpus - 1) / 3 ))}
	[ -n "${4:-}" ] || [ "$aj" -ge 1 ] || aj=1
	uj=${5:-$(( cpus - 1 - aj ))}
	[ -n "${5:-}" ] || [ "$uj" -ge 1 ] || uj=1
	out=${OUT:-$dir/out}
	mkdir -p "$out" || exit 2
	adir=$(cd "$dir" && pwd) || exit 2
	out=$(cd "$out" && pwd) || exit 2
	for kind in asan ubsan; do
		j=$aj
		sched=""
		[ $kind = ubsan ] && j=$uj && sched="-entropic=0"
		[ "$j" -ge 1 ] || continue
		mkdir -p "$out/crashes-$kind" "$out/corpus-$kind" "$out/logs-$kind"
		# J independent fuzzing loops (-jobs/-workers; fork mode's short jobs replay their seeds
		# each time and ran 5 times fewer inputs here), sharing the corpus they grow in corpus-KIND.
		(cd "$out/logs-$kind" && exec "$adir/$kind/fuzz_structured" $sched -jobs="$j" -workers="$j" \
			-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=2048 -print_final_stats=1 \
			-artifact_prefix="$out/crashes-$kind/" "$out/corpus-$kind" "$adir/corpus" \
			>"$out/$kind.log" 2>&1) &
		echo "campaign.sh: $kind: $j workers for ${secs}s (logs in $out/logs-$kind)"
	done
	wait
	status=0
	total=0
	printf '%-6s %12s %9s %9s %6s\n' build executions exec/s findings slow
	for kind in asan ubsan; do
		[ -d "$out/crashes-$kind" ] || continue
		execs=$(cat "$out/logs-$kind"/fuzz-*.log 2>/dev/null |
			sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
		rate=$(cat "$out/logs-$kind"/fuzz-*.log 2>/dev/null |
			sed -n 's/^stat::average_exec_per_sec: *//p' | awk '{s+=$1} END {print s+0}')
		# Findings: crashes, leaks, timeouts (-timeout=10), out-of-memory. A slow-unit-* file is
		# libFuzzer's note of an input that took over 10 s of wall time, not a failure: at nice 19
		# beside a busy machine a 1 s input can take that long; time it alone before calling it one.
		found=$(find "$out/crashes-$kind" -type f ! -name 'slow-unit-*' | wc -l)
		slow=$(find "$out/crashes-$kind" -type f -name 'slow-unit-*' | wc -l)
		printf '%-6s %12s %9s %9s %6s\n' $kind "$execs" "$rate" "$found" "$slow"
		total=$((total + execs))
		[ "$found" -gt 0 ] && status=1
	done
	echo "total: $total structured executions in ${secs}s on $cpus CPUs"
	# Per target (fuzz_structured's "target_runs KIND NAME COUNT" lines at each process's exit).
	cat "$out"/logs-*/fuzz-*.log 2>/dev/null | sed -n 's/^target_runs //p' |
		awk '{n = $NF; $NF = ""; s[$0] += n} END {for (k in s) printf "  %-34s %10d\n", k, s[k]}' | sort
	exit $status
	;;
*)
	sed -n '2,23p' "$0"
	exit 2
	;;
esac
