#!/bin/sh
# A long structured fuzzing campaign on a machine with many cores (issue 11: millions of
# executions of fuzz_structured, more than make check's seconds can give).
#
#   tests/fuzz/campaign.sh build DIR
#       here, with clang: builds fuzz_structured twice into DIR, with ASan+UBSan (asan/) and with
#       UBSan alone (ubsan/, about 3 times as fast, still catching undefined behaviour, aborts,
#       glibc's heap checks and hangs, not ASan's out-of-bounds reads), the hostile reference library
#       beside each, and DIR/corpus from the seeds and the working corpus of earlier runs. DIR holds
#       only what a `run` needs, so it can travel to another machine (x86-64, same glibc or newer).
#   tests/fuzz/campaign.sh run DIR SECONDS [ASAN_JOBS [UBSAN_JOBS]]
#       anywhere: both builds at once for SECONDS, in ASAN_JOBS and UBSAN_JOBS fuzzing processes
#       (default: a third and the rest of the CPUs but one). A process that finds something stops,
#       the others go on; findings land in OUT/crashes-KIND/ (OUT: $OUT, else DIR/out), the logs
#       in OUT/logs-KIND/. Prints one line per build (executions, summed rate, findings) and the
#       total; exit 1 when anything was found.
set -u
cd "$(dirname "$0")/../.." || exit 2
mode=${1:-}
dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { sed -n '2,17p' "$0"; exit 2; }

case $mode in
build)
	mkdir -p "$dir/asan" "$dir/ubsan" "$dir/corpus" || exit 2
	for kind in asan ubsan; do
		if [ $kind = ubsan ]; then
			san="-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
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
		>"$dir/merge.log" 2>&1 || { echo "campaign.sh: corpus merge failed, see $dir/merge.log" >&2; exit 2; }
	echo "campaign.sh: $dir: $(ls "$dir/corpus" | wc -l) corpus inputs, $(du -sh "$dir" | cut -f1) in all"
	;;
run)
	secs=${3:-600}
	cpus=$(nproc 2>/dev/null || echo 2)
	aj=${4:-$(( (cpus - 1) / 3 ))}
	[ "$aj" -ge 1 ] || aj=1
	uj=${5:-$(( cpus - 1 - aj ))}
	[ "$uj" -ge 1 ] || uj=1
	out=${OUT:-$dir/out}
	mkdir -p "$out" || exit 2
	adir=$(cd "$dir" && pwd) || exit 2
	out=$(cd "$out" && pwd) || exit 2
	for kind in asan ubsan; do
		j=$aj
		[ $kind = ubsan ] && j=$uj
		mkdir -p "$out/crashes-$kind" "$out/corpus-$kind" "$out/logs-$kind"
		# J independent fuzzing loops (-jobs/-workers; fork mode's short jobs replay their seeds
		# each time and ran 5 times fewer inputs here), sharing the corpus they grow in corpus-KIND.
		(cd "$out/logs-$kind" && exec "$adir/$kind/fuzz_structured" -jobs="$j" -workers="$j" \
			-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=2048 -print_final_stats=1 \
			-artifact_prefix="$out/crashes-$kind/" "$out/corpus-$kind" "$adir/corpus" \
			>"$out/$kind.log" 2>&1) &
		echo "campaign.sh: $kind: $j workers for ${secs}s (logs in $out/logs-$kind)"
	done
	wait
	status=0
	total=0
	printf '%-6s %12s %9s %9s\n' build executions exec/s findings
	for kind in asan ubsan; do
		execs=$(cat "$out/logs-$kind"/fuzz-*.log 2>/dev/null |
			sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
		rate=$(cat "$out/logs-$kind"/fuzz-*.log 2>/dev/null |
			sed -n 's/^stat::average_exec_per_sec: *//p' | awk '{s+=$1} END {print s+0}')
		found=$(find "$out/crashes-$kind" -type f | wc -l)
		printf '%-6s %12s %9s %9s\n' $kind "$execs" "$rate" "$found"
		total=$((total + execs))
		[ "$found" -gt 0 ] && status=1
	done
	echo "total: $total structured executions in ${secs}s on $cpus CPUs"
	exit $status
	;;
*)
	sed -n '2,17p' "$0"
	exit 2
	;;
esac
