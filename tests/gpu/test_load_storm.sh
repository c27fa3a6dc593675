#!/bin/bash
# Counts under load, on the GPU machine. Expected run time: about
# 40 s of GPU time (two storms, each run bare for its rate and traced).
#
# kernels/launch_storm launches tiny kernels (<<<1, 32>>>) as fast as the host can:
#   - 16 threads x 8 non-blocking streams each, 2,000,000 launches in all;
#   - 1 thread, 1 stream, 1,000,000 launches: the highest launch rate one host thread reaches.
# Traced with the recorder's defaults (what a user gets), each must leave a complete trace with
# exactly the kernels the program counted ("tally kernels="), and 0 dropped. Where CUPTI drops
# records anyway, the cell still passes only if the trace says how many (kernels + dropped =
# launched) and `gpuanalyze info` says it on its "dropped:" line, before the metadata. The table
# gives the host launch rate (launches per second of the launching loop, all threads) bare and
# traced, and what tracing adds per launch.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/gpu/progs/rel_lib.sh"
[ -x "$STORM" ] || skip "no $STORM"

echo "launch storms: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
table_head
rate_of() { sed -n 's/^rate .*launches_per_s=\([0-9]*\).*/\1/p' "$1" | tail -n 1; }

storm() { # NAME LABEL LAUNCHES THREADS STREAMS
	local name=$1 label=$2 n=$3 th=$4 st=$5 f k d rb rt per
	FLUSH_MS=1000 # the default, as a user runs it
	pair "$name" "" "" "" -- "$STORM" --launches "$n" --threads "$th" --streams "$st"
	rb=$(rate_of "$D/bare.out")
	rt=$(rate_of "$D/with.out")
	per=$(awk -v b="$rb" -v t="$rt" 'BEGIN { if (b > 0 && t > 0) printf "%+.2f", 1e6 / t - 1e6 / b; else print "?" }')
	rates="bare $rb/s, traced $rt/s (${per} us per launch)"
	# stdout holds the rates, which differ from run to run: compare the rest.
	if [ "$(cat "$D/bare.rc")" != 0 ] || [ "$(cat "$D/with.rc")" != 0 ]; then
		row storm "$label" FAIL "status bare $(cat "$D/bare.rc"), traced $(cat "$D/with.rc"): $(tail -n 2 "$D/with.out" "$D/with.err" | tr '\n' ' ')"
		return
	fi
	grep -v '^rate ' "$D/bare.out" >"$D/b"; grep -v '^rate ' "$D/with.out" >"$D/w"
	if ! cmp -s "$D/b" "$D/w"; then row storm "$label" FAIL "stdout differs: $(diff "$D/b" "$D/w" | head -n 3 | tr '\n' ' ')"; return; fi
	if ! cmp -s "$D/bare.err.prog" "$D/with.err.prog"; then row storm "$label" FAIL "stderr differs: $(head -n 3 "$D/with.err" | tr '\n' ' ')"; return; fi
	f=$(traces | head -n 1)
	[ -n "$f" ] || { row storm "$label" FAIL "no trace"; return; }
	k=$(kernels_of "$f"); d=$(dropped_of "$f")
	want=$(tally)
	cp "$f" "$KEEP/$name.gtrace" 2>/dev/null
	if [ "$(complete_of "$f")" != 1 ]; then row storm "$label" FAIL "trace incomplete; $k kernels; $rates"
	elif [ "$k" = "$want" ] && [ "$d" = 0 ]; then row storm "$label" PASS "$k of $want kernels, 0 dropped; $rates"
	elif [ "$d" != 0 ] && [ $((k + d)) = "$want" ] && dropped_first "$f"; then
		row storm "$label" PASS "CUPTI dropped $d, counted: $k + $d = $want, and info says it first ($(dropped_line "$f")); $rates"
	else
		row storm "$label" FAIL "$k kernels + $d dropped, the program launched $want; info: $(dropped_line "$f"); $rates"
	fi
}

storm storm16x8 "16 threads x 8 streams, 2M launches" 2000000 16 8
storm storm1x1 "1 thread, 1 stream, 1M launches (top rate)" 1000000 1 1

echo "storms: $npass passed, $nfail failed, $nskip skipped"
exit $fail
