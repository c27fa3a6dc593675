#!/bin/bash
# A long run, on the GPU machine. Expected run time: about 85 s of GPU time
# (a 5 s bare run, a 10 s and a 60 s traced run; kept under 120 s on purpose: the issue's "several
# minutes" is scaled down to fit the session's GPU budget, and the checks are about trends that a
# minute shows).
#
# tests/gpu/progs/rel_cuda long: 8 host threads, each with its own stream, launch tiny kernels as
# fast as they can for D seconds and print, every second, the launches so far and the process's
# VmRSS and VmHWM (/proc/self/status, read from inside the program); at the end its launch rate,
# its tally and its VmHWM. Checked, with the recorder's defaults:
#   - every kernel is in the trace (kernels = tally), the trace complete, 0 dropped; or, where CUPTI
#     dropped records, every kernel in the trace or counted (kernels + dropped = tally, said first
#     by gpuanalyze info);
#   - memory stays bounded: the peak the preload adds (VmHWM traced - VmHWM of the bare run) must
#     stay under what GPUTRACE_BUFFERS_MAX x GPUTRACE_BUFFER_KB allows (1 GiB) plus 256 MiB, however
#     many records go through; the resident size a quarter of the way in and at the end is reported
#     (flat: the writer keeps up; growing: activity buffers wait for it, up to that cap);
#   - the trace grows in proportion to the records: bytes per record of the 60 s trace within 25%
#     of the 10 s trace's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/gpu/progs/rel_lib.sh"
LONG=${GT_LONG_SECONDS:-60}
THREADS=8
TMO=$((LONG + 120))

echo "long run: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
table_head
hwm() { sed -n 's/^vmhwm_kb=\([0-9]*\)/\1/p' "$1" | tail -n 1; }
rate() { sed -n 's/^rate launches_per_s=\([0-9]*\).*/\1/p' "$1"; }
file_bytes() { ginfo "$1" | sed -n 's/^  file: *\([0-9]*\) bytes.*/\1/p'; }
records_of() { ginfo "$1" | sed -n 's/^  records: *\([0-9]*\),.*/\1/p'; }

# The bare run: the program's own peak without the recorder.
run_long() { # DIR SECONDS PRELOAD(0|1)
	mkdir -p "$1"
	if [ "$3" = 1 ]; then
		(cd "$1" && exec timeout "$TMO" env LD_PRELOAD="$LIB" "$RC" long --seconds "$2" --threads $THREADS) \
			>"$1/out" 2>"$1/err" </dev/null
	else
		(cd "$1" && exec timeout "$TMO" "$RC" long --seconds "$2" --threads $THREADS) >"$1/out" 2>"$1/err" </dev/null
	fi
	echo $? >"$1/rc"
}
run_long "$WORK/bare" 5 0
run_long "$WORK/short" 10 1
run_long "$WORK/long" "$LONG" 1
for r in bare short long; do
	if [ "$(cat "$WORK/$r/rc")" != 0 ]; then
		row cuda "long run ($r)" FAIL "status $(cat "$WORK/$r/rc"): $(tail -n 3 "$WORK/$r/out" "$WORK/$r/err" | tr '\n' ' ')"
		echo "long: $npass passed, $nfail failed"
		exit 1
	fi
done
fs=$(ls "$WORK"/short/*.gtrace | head -n 1)
fl=$(ls "$WORK"/long/*.gtrace | head -n 1)
D=$WORK/long # for tally()
sed -n 's/^tally kernels=\([0-9]*\)/tally kernels=\1/p' "$WORK/long/out" >"$WORK/long/tally"
want=$(sed -n 's/^tally kernels=//p' "$WORK/long/out")
wants=$(sed -n 's/^tally kernels=//p' "$WORK/short/out")

# Counts: every kernel in the trace; or, where CUPTI dropped records (the writer fell behind for
# long enough to fill the pool), every kernel in the trace or counted as dropped, said first by info.
counts() { # LABEL FILE WANT RUN
	local k d rates
	rates="$(rate "$WORK/$4/out") launches/s traced, $(rate "$WORK/bare/out")/s bare"
	k=$(kernels_of "$2"); d=$(dropped_of "$2")
	if [ "$(complete_of "$2")" != 1 ]; then row cuda "$1" FAIL "trace incomplete ($k kernels)"
	elif [ "$k" = "$3" ] && [ "$d" = 0 ]; then row cuda "$1" PASS "$k of $3 kernels, complete, 0 dropped; $rates"
	elif [ "$d" != 0 ] && [ $((k + d)) = "$3" ] && dropped_first "$2"; then
		row cuda "$1" PASS "CUPTI dropped $d, counted exactly ($k + $d = $3; info: $(dropped_line "$2")); $rates"
	else row cuda "$1" FAIL "$k kernels + $d dropped, $3 launched; info: $(dropped_line "$2")"; fi
}
counts "${LONG} s, $THREADS threads: counts" "$fl" "$want" long
counts "10 s, $THREADS threads: counts" "$fs" "$wants" short

# Memory.
q=$((LONG / 4))
[ $q -ge 1 ] || q=1
rss_q=$(sed -n "s/^rss s=$q launched=[0-9]* vmrss_kb=\([0-9]*\).*/\1/p" "$WORK/long/out")
rss_end=$(sed -n 's/^rss s=[0-9]* launched=[0-9]* vmrss_kb=\([0-9]*\).*/\1/p' "$WORK/long/out" | tail -n 1)
hb=$(hwm "$WORK/bare/out"); hl=$(hwm "$WORK/long/out")
added_mib=$(awk -v a="$hl" -v b="$hb" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
growth_mib=$(awk -v a="$rss_end" -v b="$rss_q" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
detail="peak added by the preload ${added_mib} MiB (VmHWM $((hl / 1024)) MiB traced, $((hb / 1024)) MiB bare); RSS at ${q} s $((rss_q / 1024)) MiB, at the end $((rss_end / 1024)) MiB (${growth_mib} MiB)"
if [ -z "$rss_q" ] || [ -z "$rss_end" ] || [ -z "$hb" ] || [ -z "$hl" ]; then
	row cuda "memory bounded over ${LONG} s" FAIL "no rss lines"
elif [ $((hl - hb)) -gt $(((1024 + 256) * 1024)) ]; then row cuda "memory bounded over ${LONG} s" FAIL "$detail"
elif [ $((rss_end - rss_q)) -gt $((64 * 1024)) ]; then
	# Growth within the cap: activity buffers waiting for the writer (it is behind the launch rate),
	# which the pool bounds; said, not failed. Growth past the cap fails above.
	row cuda "memory bounded over ${LONG} s" PASS "$detail; the writer fell behind: buffers waiting (pool misses $(meta_of "$fl" tracing.buffer_pool_misses), cap 1 GiB)"
else row cuda "memory bounded over ${LONG} s" PASS "$detail"; fi
awk '/^rss /' "$WORK/long/out" | sed 's/^/    /' | awk 'NR % 10 == 1'

# Trace size.
bs=$(file_bytes "$fs"); rs=$(records_of "$fs"); bl=$(file_bytes "$fl"); rl=$(records_of "$fl")
bpr_s=$(awk -v b="$bs" -v r="$rs" 'BEGIN { printf "%.2f", r ? b / r : 0 }')
bpr_l=$(awk -v b="$bl" -v r="$rl" 'BEGIN { printf "%.2f", r ? b / r : 0 }')
ok=$(awk -v s="$bpr_s" -v l="$bpr_l" 'BEGIN { ok = 0; if (s > 0 && l / s <= 1.25 && l / s >= 0.8) ok = 1; print ok }')
detail="10 s: $bs bytes / $rs records = $bpr_s B/record; ${LONG} s: $bl bytes / $rl records = $bpr_l B/record ($((bl / 1048576)) MiB for $want kernels)"
if [ "$ok" = 1 ]; then row cuda "trace size proportional to records" PASS "$detail"
else row cuda "trace size proportional to records" FAIL "$detail"; fi
cp "$fs" "$KEEP/long-10s.gtrace" 2>/dev/null

echo "long: $npass passed, $nfail failed, $nskip skipped"
exit $fail
