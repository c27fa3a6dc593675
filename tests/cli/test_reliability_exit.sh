#!/bin/sh
# Known CUPTI pitfalls at the edges of the recorder's life, without a GPU: the stand-in driver of
# tests/cli/progs/fake_cuda.c, with a thin shim in front of its CUPTI half (built here from the
# source below) that can make CUPTI misbehave the way users of other CUPTI tools have seen it do.
# Checked against gputrace(1) (GPUTRACE_EXIT_TIMEOUT_MS, GPUTRACE_BUFFERS_MAX, SIGNALS AND EXIT):
# - a flush that never returns (the shim blocks CUPTI's final, forced flush; then every flush):
#   for every ending that runs the recorder's code (return, exit, exit from a thread, abort, a
#   real SIGSEGV, SIGTERM) the program ends within GPUTRACE_EXIT_TIMEOUT_MS plus a margin, with its
#   own output and status, one "gputrace:" line says the trace ends at its last flush, and the
#   trace holds everything flushed before (or, when even the first flush hangs, is a readable
#   file that says nothing was flushed);
# - a buffer request that cannot be met (GPUTRACE_BUFFERS_MAX=4, 64 KiB buffers, a writer slowed
#   down by the shim and a burst of 40000 records): CUPTI is refused cleanly, the program is
#   unharmed, the trace is complete and counts the refusals (META tracing.buffers_refused and a
#   DROPPED record of reason buffer-lost), and `gpuanalyze findings` reports records lost;
# - records CUPTI itself dropped: in the trace, in the tally line, and on `gpuanalyze info`'s
#   "dropped:" line, which comes before the metadata and the devices.
. tests/cli/progs/common.sh
need_lib
FAKELIB=$(prog fakecuda/libcuda.so.1) || skip "skipped: no CUPTI headers under $CUDA_DIR to build the fake driver"
APP=$(prog fake_app) || fail "cannot build fake_app"
PEEK=$(prog trace_peek) || fail "cannot build trace_peek"
GA=$B/gpuanalyze
FAKEDIR=$(dirname "$FAKELIB")

# ---- the shim: CUPTI's flush and record reader, with knobs --------------------------------------
# SHIM_FLUSH_BLOCK=forced: cuptiActivityFlushAll never returns when asked for a forced flush (the
# recorder's final one); =all: never returns at all. SHIM_SLOW_READ_US=N: each
# cuptiActivityGetNextRecord (the recorder's writer thread reading a buffer) takes N us more.
# Everything else is the fake's: the shim needs libcuda.so.1 (the fake), so dlsym on the shim's
# handle finds the fake's other functions behind it.
cat >"$T/shim.c" <<'EOF'
#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define EXPORT __attribute__((visibility("default")))
EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag);
EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec);
static void *fake(const char *name)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, name) : NULL;
	if (!f)
		abort();
	return f;
}
CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	const char *m = getenv("SHIM_FLUSH_BLOCK");
	if (m && (!strcmp(m, "all") || (!strcmp(m, "forced") && (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED))))
		for (;;)
			pause();
	return ((CUptiResult (*)(uint32_t))fake("cuptiActivityFlushAll"))(flag);
}
CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec)
{
	const char *us = getenv("SHIM_SLOW_READ_US");
	if (us && *us) {
		struct timespec ts = { 0, atol(us) * 1000L };
		nanosleep(&ts, NULL);
	}
	return ((CUptiResult (*)(uint8_t *, size_t, CUpti_Activity **))fake("cuptiActivityGetNextRecord"))(
		buffer, valid, rec);
}
EOF
SHIM=$T/libshim.so
${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -fPIC -shared -I"$CUDA_DIR/include" -o "$SHIM" "$T/shim.c" \
	-Wl,--no-as-needed -L"$FAKEDIR" -l:libcuda.so.1 -Wl,-rpath,"$FAKEDIR" -ldl >"$T/shim.log" 2>&1 ||
	fail "cannot build the CUPTI shim: $(cat "$T/shim.log")"
SHIMMED="LD_LIBRARY_PATH=$FAKEDIR GPUTRACE_CUPTI_PATH=$SHIM"

# shim_run TAG EXTRA-ENV ARGS...: fake_app ARGS with the shim, in a clean $WD; the wall time in
# milliseconds goes to $T/TAG.ms.
shim_run() {
	sr_tag=$1 sr_env=$2
	shift 2
	rm -rf "$WD" && mkdir -p "$WD"
	t0=$(date +%s%N)
	run "$sr_tag" "$SHIMMED $sr_env" "$APP" "$@"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$T/$sr_tag.ms"
}
compare() { # LABEL: bare and traced runs agree (stdout, stderr apart from gputrace: lines, status)
	cmp -s "$T/bare.out" "$T/with.out" || fail "$1: stdout differs: $(diff "$T/bare.out" "$T/with.out")"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" || fail "$1: stderr differs: $(cat "$T/with.err")"
	[ "$(cat "$T/bare.rc")" = "$(cat "$T/with.rc")" ] ||
		fail "$1: status $(cat "$T/with.rc") traced, $(cat "$T/bare.rc") bare"
}
only_trace() {
	set -- "$1" "$WD"/*.gtrace*
	[ $# = 2 ] && [ -f "$2" ] || fail "$1: expected one trace, found: $(ls "$WD")"
	echo "$2"
}
peek() { "$PEEK" "$1" >"$T/peek" 2>&1 || fail "cannot read $1: $(cat "$T/peek")"; }
has() { grep -qxF "$1" "$T/peek" || fail "$2: the trace lacks '$1': $(grep -v '^meta [hpt][or]' "$T/peek")"; }
val() { sed -n "s/^$1 //p" "$T/peek"; }

# ---- a final flush that never returns ---------------------------------------------------------
# 100 kernels and 100 copies are flushed (fake_app waits for a periodic flush to take them, then
# 100 ms), 50 more kernels follow, then the ending; CUPTI's forced flush at the end never returns.
LIMIT=300
MARGIN=4000 # ms: the program's own run, the loader, a loaded CI machine
for pair in "return 3" "exit 3" "thread-exit 3" "abort 134" "segv 139" "sigterm 143"; do
	set -- $pair
	how=$1
	shim_run bare "" "$how" 3 100 100 50
	shim_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 GPUTRACE_EXIT_TIMEOUT_MS=$LIMIT SHIM_FLUSH_BLOCK=forced" \
		"$how" 3 100 100 50
	compare "hung flush, $how"
	[ "$(cat "$T/with.rc")" = "$2" ] || fail "hung flush, $how: status $(cat "$T/with.rc"), expected $2"
	ms=$(cat "$T/with.ms")
	[ "$ms" -ge $LIMIT ] || fail "hung flush, $how: ended after $ms ms, before the $LIMIT ms it should have waited"
	[ "$ms" -lt $((LIMIT + MARGIN)) ] || fail "hung flush, $how: took $ms ms (limit $LIMIT ms)"
	[ "$(gt_lines "$T/with.err")" = 1 ] || fail "hung flush, $how: expected one gputrace: line: $(cat "$T/with.err")"
	case $how in
	abort|segv|sigterm) want="^gputrace: the trace could not be finished in time; it ends at its last flush$" ;;
	*) want="^gputrace: the trace '.*' could not be finished within $LIMIT ms; it ends at its last flush$" ;;
	esac
	grep -q "$want" "$T/with.err" || fail "hung flush, $how: line: $(cat "$T/with.err")"
	peek "$(only_trace "hung flush, $how")"
	has "complete 0" "hung flush, $how"
	k=$(val kernels)
	[ "$k" -ge 100 ] && [ "$k" -le 150 ] || fail "hung flush, $how: $k kernels, expected the 100 flushed (at most 150)"
	has "memcpys 100" "hung flush, $how"
	has "device Fake GPU (gputrace tests)" "hung flush, $how"
	note "final flush hangs, ending '$how': status $(cat "$T/with.rc"), ended after $ms ms (limit $LIMIT), $k of 150 kernels kept"
done

# Every flush hangs, the first periodic one included: nothing reaches the file but its header.
shim_run bare "" exit 5 100 0 50
shim_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 GPUTRACE_EXIT_TIMEOUT_MS=$LIMIT SHIM_FLUSH_BLOCK=all" \
	exit 5 100 0 50
compare "every flush hangs"
ms=$(cat "$T/with.ms")
[ "$ms" -lt $((LIMIT + MARGIN)) ] || fail "every flush hangs: took $ms ms"
grep -q "^gputrace: the trace '.*' could not be finished within $LIMIT ms; it ends at its last flush$" \
	"$T/with.err" || fail "every flush hangs: line: $(cat "$T/with.err")"
peek "$(only_trace "every flush hangs")"
has "complete 0" "every flush hangs"
has "kernels 0" "every flush hangs"
"$GA" info "$(only_trace "every flush hangs")" >"$T/info" 2>&1 || fail "every flush hangs: gpuanalyze info failed: $(cat "$T/info")"
grep -q 'end: *INCOMPLETE' "$T/info" || fail "every flush hangs: info does not say the trace is incomplete: $(cat "$T/info")"
note "every flush hangs: status 5 after $ms ms, a readable trace that says it is incomplete"

# The default limit is bounded too (10 s): a program is never held longer than that.
shim_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 SHIM_FLUSH_BLOCK=forced" return 0 10 0 0
ms=$(cat "$T/with.ms")
[ "$ms" -ge 10000 ] && [ "$ms" -lt $((10000 + MARGIN)) ] || fail "default exit timeout: took $ms ms, expected 10000 .. $((10000 + MARGIN))"
grep -q "could not be finished within 10000 ms" "$T/with.err" || fail "default exit timeout: line: $(cat "$T/with.err")"
note "default GPUTRACE_EXIT_TIMEOUT_MS: the hung flush held the program $ms ms"

# ---- buffer requests that cannot be met -------------------------------------------------------
# 4 buffers of 64 KiB at most, a writer that takes 200 us per record, and a burst of 20000 kernels
# and 20000 copies: CUPTI's requests are refused while the 4 buffers wait for the writer.
shim_run bare "" return 0 20000 0 0
shim_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 GPUTRACE_BUFFERS_MAX=4 GPUTRACE_BUFFER_KB=64 SHIM_SLOW_READ_US=200" \
	return 0 20000 0 0
compare "buffers refused"
tr=$(only_trace "buffers refused")
peek "$tr"
has "complete 1" "buffers refused"
refused=$(sed -n 's/^meta tracing.buffers_refused=//p' "$T/peek")
[ -n "$refused" ] && [ "$refused" -gt 0 ] || fail "buffers refused: META tracing.buffers_refused is '$refused'"
grep -q '^dropped 2 ' "$T/peek" || fail "buffers refused: no DROPPED record of reason buffer-lost"
k=$(val kernels)
[ "$k" -lt 20000 ] || fail "buffers refused: all 20000 kernels kept: the test did not exhaust the pool"
has "meta trace.buffer_bytes=65536" "buffers refused"
"$GA" findings "$tr" >"$T/findings" 2>&1
grep -q 'records-lost' "$T/findings" ||
	fail "buffers refused: gpuanalyze findings does not report the loss: $(head -20 "$T/findings")"
note "buffer requests refused ($refused times): program unharmed, $k of 20000 kernels kept, the trace and findings say records were lost"
# What the closing line and `gpuanalyze info` say about it: CUPTI does not say how many records a
# refused request cost, so the trace holds a DROPPED record of count 0, and neither the tally nor
# info may read that as "0 dropped" and stop there.
"$GA" info "$tr" >"$T/info" 2>&1 || fail "buffers refused: gpuanalyze info failed: $(cat "$T/info")"
grep -q "dropped, and more lost (CUPTI's buffer requests refused: the number is unknown)$" "$T/with.err" ||
	fail "buffers refused: the tally does not say records were lost: $(grep 'trace written' "$T/with.err")"
grep -q '^  LOST:     records lost in 1 place(s), how many unknown: buffer lost (CUPTI.s buffer requests refused' "$T/info" ||
	fail "buffers refused: gpuanalyze info does not say records were lost: $(grep -A1 dropped: "$T/info")"
note "buffers refused: the tally and gpuanalyze info say records were lost, number unknown"

# ---- records CUPTI dropped: the trace says how many, and info says it first ---------------------
shim_run with "LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50 FAKE_CUPTI_DROP=7" return 0 100 0 50
tr=$(only_trace "cupti drops")
peek "$tr"
has "dropped 1 7" "cupti drops"
grep -q ', 7 dropped$' "$T/with.err" || fail "cupti drops: the tally does not say 7 dropped: $(cat "$T/with.err")"
"$GA" info "$tr" >"$T/info" 2>&1 || fail "cupti drops: gpuanalyze info failed: $(cat "$T/info")"
dl=$(grep -n '^  dropped: *7 dropped' "$T/info" | cut -d: -f1)
ml=$(grep -n '^  metadata:' "$T/info" | cut -d: -f1)
[ -n "$dl" ] || fail "cupti drops: info has no 'dropped: 7 dropped' line: $(cat "$T/info")"
[ -n "$ml" ] && [ "$dl" -lt "$ml" ] || fail "cupti drops: info's dropped line (line $dl) is not before the metadata (line $ml)"
note "records CUPTI dropped: 7 in the trace, the tally, and info's line $dl (before the metadata)"
exit 0
