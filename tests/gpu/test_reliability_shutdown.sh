#!/bin/bash
# Shutdown and the known CUPTI pitfalls, on the GPU machine. Expected run time: about 60 s of GPU time. Every run is bounded by timeout(1), so a
# hang is a FAIL, never a stuck batch.
#
# With tests/gpu/progs/rel_cuda, each cell run bare and under LD_PRELOAD=libgputrace.so
# (GPUTRACE_FLUSH_MS=100), compared (stdout, stderr apart from "gputrace:" lines, status):
#   - exit while a kernel still runs (a 2 s spinning kernel, no synchronise): from main, and by
#     exit(3) from a second thread: no hang (the traced run takes at most 5 s more than the bare
#     one), a readable complete trace;
#   - exit from a second thread after the work: every kernel in the trace;
#   - CUDA torn down before the recorder's exit hook (cudaDeviceReset, then return), and a new
#     context after the reset: no crash, every kernel in the trace;
#   - cudaProfilerStop / cudaProfilerStart in the middle: no crash; what CUPTI records of the
#     kernels launched while "stopped" is reported (the trace must hold at least the others);
#   - a CUDA graph of one kernel replayed 1,000,000 times: every kernel in the trace, and the memory
#     the preload adds (VmHWM traced - bare) under 512 MiB (activity buffers waiting for the writer;
#     nothing is kept per launch);
#   - a buffer request that cannot be met: GPUTRACE_BUFFERS_MAX=4, GPUTRACE_BUFFER_KB=64 and a storm
#     of 500,000 launches from 16 threads: the program unharmed, and every kernel either in the
#     trace or counted as dropped (kernels + dropped = launched, said first by gpuanalyze info).
# A flush that never returns is tested without a GPU (tests/cli/test_reliability_exit.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/gpu/progs/rel_lib.sh"
K=2000
TMO=60

echo "shutdown and CUPTI pitfalls: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
table_head
# ---- exit while kernels still run ---------------------------------------------------------------
for mode in nosync nosync-thread; do
	label="exit with a kernel running ($mode)"
	pair "sd-$mode" "" "" "" -- "$RC" "$mode" --kernels $K --spin-ms 2000
	traced_ms=$MS
	b=$BMS
	f=$(traces | head -n 1)
	if [ -n "$SAME" ]; then row cuda "$label" FAIL "$SAME"
	elif [ "$traced_ms" -gt $((b + 5000)) ]; then row cuda "$label" FAIL "traced run took $traced_ms ms, bare $b ms"
	elif [ -z "$f" ] || [ "$(complete_of "$f")" != 1 ]; then row cuda "$label" FAIL "trace ${f:-missing}, complete $(complete_of "$f")"
	else
		k=$(kernels_of "$f")
		if [ "$k" -lt $K ]; then row cuda "$label" FAIL "$k kernels, at least the $K finished before the exit expected"
		else row cuda "$label" PASS "no hang: $traced_ms ms traced, $b ms bare; $k of $((K + 1)) kernels (the running one $([ "$k" -gt $K ] && echo recorded || echo 'not recorded'))"; fi
	fi
done

pair sd-thread-exit "" "" "" -- "$RC" thread-exit --kernels $K
why=$(check_all "$(traces | head -n 1)" "$(tally)")
if [ -n "$SAME$why" ]; then row cuda "exit(3) from a second thread" FAIL "$SAME$why"
else row cuda "exit(3) from a second thread" PASS "all $(tally) kernels, complete"; fi

# ---- CUDA torn down first -----------------------------------------------------------------------
pair sd-reset "" "" "" -- "$RC" reset --kernels $K
why=$(check_all "$(traces | head -n 1)" "$(tally)")
if [ -n "$SAME$why" ]; then row cuda "cudaDeviceReset, then exit" FAIL "$SAME$why"
else row cuda "cudaDeviceReset, then exit" PASS "all $(tally) kernels, complete (${MS} ms)"; fi

pair sd-reset-launch "" "" "" -- "$RC" reset-launch --kernels $K
why=$(check_all "$(traces | head -n 1)" "$(tally)")
if [ -n "$SAME$why" ]; then row cuda "cudaDeviceReset, a new context, exit" FAIL "$SAME$why"
else row cuda "cudaDeviceReset, a new context, exit" PASS "all $(tally) kernels of both contexts, complete"; fi

pair sd-profiler "" "" "" -- "$RC" profiler --kernels $K
f=$(traces | head -n 1)
if [ -n "$SAME" ]; then row cuda "cudaProfilerStop / Start" FAIL "$SAME"
elif [ -z "$f" ] || [ "$(complete_of "$f")" != 1 ]; then row cuda "cudaProfilerStop / Start" FAIL "trace ${f:-missing}, incomplete"
else
	k=$(kernels_of "$f")
	if [ "$k" -lt $((2 * K)) ] || [ "$k" -gt $((3 * K)) ]; then
		row cuda "cudaProfilerStop / Start" FAIL "$k kernels; $((2 * K)) launched while profiling, $K while stopped"
	else
		row cuda "cudaProfilerStop / Start" PASS "$k kernels: the $((2 * K)) launched while profiling, and $((k - 2 * K)) of the $K launched while stopped"
	fi
fi

# ---- a graph replayed a million times -------------------------------------------------------------
pair sd-graph "" "" "" -- "$RC" graph --replays 1000000 --rss-file rss.txt
f=$(traces | head -n 1)
hb=$(sed -n 's/^vmhwm_kb=//p' "$D/bare/rss.txt" 2>/dev/null)
ht=$(sed -n 's/^vmhwm_kb=//p' "$D/with/rss.txt" 2>/dev/null)
# vmhwm is printed on stdout too and differs between runs: compare the rest.
grep -v '^vmhwm_kb=' "$D/bare.out" >"$D/b"; grep -v '^vmhwm_kb=' "$D/with.out" >"$D/w"
if [ "$(cat "$D/bare.rc")" != 0 ] || [ "$(cat "$D/with.rc")" != 0 ] || ! cmp -s "$D/b" "$D/w"; then
	row cuda "graph replayed 1,000,000 times" FAIL "status $(cat "$D/bare.rc")/$(cat "$D/with.rc") or output differs: $(diff "$D/b" "$D/w" | head -n 3 | tr '\n' ' ')"
else
	why=$(check_all "$f" "$(tally)")
	added=$(( (${ht:-0} - ${hb:-0}) / 1024 ))
	if [ -n "$why" ]; then row cuda "graph replayed 1,000,000 times" FAIL "$why"
	elif [ -z "$hb" ] || [ -z "$ht" ] || [ "$added" -gt 512 ]; then row cuda "graph replayed 1,000,000 times" FAIL "memory added ${added} MiB (VmHWM $ht kB traced, $hb kB bare)"
	else row cuda "graph replayed 1,000,000 times" PASS "all $(tally) kernels; the preload added ${added} MiB (VmHWM) (${MS} ms)"; fi
fi

# ---- buffers that cannot be had ---------------------------------------------------------------------
if [ -x "$STORM" ]; then
	# Kernel records only, so that the records CUPTI drops are all kernels: kernels + dropped =
	# launched exactly (with API records on, CUPTI drops those too and the count covers both).
	pair sd-buffers "" "" "GPUTRACE_BUFFERS_MAX=4 GPUTRACE_BUFFER_KB=64 GPUTRACE_ACTIVITIES=kernel" -- "$STORM" --launches 500000 --threads 16 --streams 8
	f=$(traces | head -n 1)
	grep -v '^rate ' "$D/bare.out" >"$D/b"; grep -v '^rate ' "$D/with.out" >"$D/w"
	if [ "$(cat "$D/bare.rc")" != 0 ] || [ "$(cat "$D/with.rc")" != 0 ] || ! cmp -s "$D/b" "$D/w"; then
		row storm "4 buffers of 64 KiB, 500k launches" FAIL "status $(cat "$D/bare.rc")/$(cat "$D/with.rc") or output differs"
	elif [ -z "$f" ] || [ "$(complete_of "$f")" != 1 ]; then
		row storm "4 buffers of 64 KiB, 500k launches" FAIL "trace ${f:-missing}, incomplete"
	else
		k=$(kernels_of "$f"); d=$(dropped_of "$f"); want=$(tally); ref=$(meta_of "$f" tracing.buffers_refused)
		detail="$k kernels + $d dropped of $want launched; buffers refused: ${ref:-?}; info: $(dropped_line "$f")"
		if [ "$k" = "$want" ] && [ "$d" = 0 ]; then row storm "4 buffers of 64 KiB, 500k launches" PASS "nothing lost: $detail"
		elif [ $((k + d)) = "$want" ] && dropped_first "$f"; then row storm "4 buffers of 64 KiB, 500k launches" PASS "loss counted exactly: $detail"
		else row storm "4 buffers of 64 KiB, 500k launches" FAIL "loss not counted exactly: $detail"; fi
	fi
else
	row storm "4 buffers of 64 KiB, 500k launches" SKIP "no $STORM"
fi

echo "shutdown: $npass passed, $nfail failed, $nskip skipped"
exit $fail
