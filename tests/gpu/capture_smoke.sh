#!/bin/bash
# Shadow capture on the GPU machine, in one run: records the kernels/ programs with GPUTRACE_SHADOW
# set and prints, per trace, what was captured (the capture.* metadata, record counts, and the
# per-launch replay when the reference library is built), then CHECK lines that compare the counts
# with what the capture rules predict for these programs. Run from the repository root on the
# device, with the build folder carried:
#     bash tests/gpu/capture_smoke.sh
# Traces and logs go to $OUT (the device tool's folder) or /tmp/gt-capture; the large trace of the
# overhead run is deleted after it is read. Exit 0 when every CHECK held, 1 when one did not, 77
# when there is no GPU or no build.
#
# Expected counts follow from the rules in cupti/capture_select.h (per kernel: launches 0, 1, 2, 4,
# 8, ... up to GPUTRACE_SHADOW_MAX) and the launches of the programs (kernels/shadow_kernels.h):
# per repetition one launch of saxpy, histogram and softmax_rows and two of reduce_sum.
set -u
repo=$(pwd)
B=${GT_BUILD:-$repo/build}
case $B in /*) ;; *) B=$repo/$B ;; esac
out=${OUT:-/tmp/gt-capture}
mkdir -p "$out"
for f in "$B/gputrace" "$B/libgputrace.so" "$B/gpuanalyze" "$B/kernels/shadow_kernels" "$B/kernels/splat_render"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "no $f: build first (make)"; exit 77; }
done
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no GPU here (nvidia-smi -L failed)"
	exit 77
fi
refs=$B/kernels/refs.so
work=$(mktemp -d)
cd "$work" || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
failed=0

# record NAME ENV... -- PROGRAM ARGS...: records NAME.gtrace with the given environment.
record() {
	local name=$1; shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	local t0 t1
	t0=$(date +%s.%N)
	env "${envs[@]}" "$B/gputrace" record -o "$name.gtrace" -- "$@" > "$out/$name.out" 2> "$out/$name.err"
	local rc=$?
	t1=$(date +%s.%N)
	printf '\n== %s rc=%d wall=%.2fs  [%s] %s\n' "$name" $rc "$(echo "$t1 - $t0" | bc)" "${envs[*]}" "$*"
	grep -h -E 'gputrace:|error|Error|FAIL' "$out/$name.out" "$out/$name.err" | head -8
}

# show NAME: what the trace says about its captures.
show() {
	local f=$1.gtrace
	[ -f "$f" ] || { echo "  (no trace)"; return; }
	"$B/gpuanalyze" info "$f" > "$out/$1.info" 2>&1
	grep -E '^ *(capture\.|trace\.shadow)|^ *(blob|capture|overhead|dropped|memcpy|sync) +[0-9]|dropped:' "$out/$1.info" |
		sed 's/^ */  /'
}

# replay NAME: the per-launch verdicts, when the references are built.
replay() {
	[ -f "$refs" ] || { echo "  (no $refs: replay skipped)"; return; }
	"$B/gpuanalyze" shadow --ref "$refs" "$1.gtrace" > "$out/$1.shadow" 2>&1
	echo "  gpuanalyze shadow: exit $?"
	head -60 "$out/$1.shadow" | sed 's/^/    /'
}

meta() { sed -n "s/^ *$2 = //p" "$out/$1.info" | head -1; }

# check NAME KEY EXPECTED [WHY]
check() {
	local got
	got=$(meta "$1" "$2")
	if [ "$got" = "$3" ]; then
		echo "CHECK ok   $1: $2 = $3"
	else
		echo "CHECK FAIL $1: $2 = '${got}', expected '$3'${4:+ ($4)}"
		failed=1
	fi
}

# check_has NAME KEY SUBSTRING
check_has() {
	local got
	got=$(meta "$1" "$2")
	case $got in
	*"$3"*) echo "CHECK ok   $1: $2 has '$3'" ;;
	*) echo "CHECK FAIL $1: $2 = '${got}', expected it to contain '$3'"; failed=1 ;;
	esac
}

# 1. The correct kernels, 4 repetitions: 3 captures each (launches 0, 1, 2), all complete.
record ok GPUTRACE_SHADOW='/^(saxpy|reduce_sum|histogram|softmax_rows)$/' -- \
	"$B/kernels/shadow_kernels" --reps 4
show ok
replay ok
check ok capture.launches 12
check ok capture.incomplete 0
check ok capture.selected_launches 20 "4 + 8 + 4 + 4 launches"
check ok capture.skipped 0
check_has ok capture.kernel._Z5saxpyifPKfPf "launches=4 captured=3 incomplete=0"
check_has ok capture.kernel._Z10reduce_sumPKfPfi "launches=8 captured=3"
check_has ok capture.kernel._Z5saxpyifPKfPf "layout=nv.info=driver"
check ok capture.cubins_kept 1

# 2. The same with every module loaded at start (no lazy loading): the cubin must still be found.
record eager CUDA_MODULE_LOADING=EAGER GPUTRACE_SHADOW='saxpy' -- \
	"$B/kernels/shadow_kernels" --kernel saxpy --reps 2
show eager
check eager capture.launches 2
check_has eager capture.kernel._Z5saxpyifPKfPf "layout=nv.info=driver"

# 3. The broken variants, everything selected: 2 + 3 + 2 + 2 captures (reduce_sum_nosync runs
#    twice per repetition); the replay must fail them (histogram passes).
record broken GPUTRACE_SHADOW='*' -- "$B/kernels/shadow_kernels" --broken --reps 2
show broken
replay broken
check broken capture.launches 9
check broken capture.incomplete 0

# 4. The renderer's compositing kernel, by its bare name: 1 warm-up + 5 frames -> 3 captures.
record splat GPUTRACE_SHADOW=composite -- "$B/kernels/splat_render" --frames 5 --warmup 1
show splat
replay splat
check splat capture.launches 3
check_has splat capture.kernel._Z9compositePK5SplatiP6float4ii "launches=6 captured=3 incomplete=0"

# 5. Spread over a long run: 40 launches, cap 8 -> launches 0 1 2 4 8 16 32 (7 captures).
record spread GPUTRACE_SHADOW=saxpy GPUTRACE_SHADOW_MAX=8 -- \
	"$B/kernels/shadow_kernels" --kernel saxpy --reps 40
show spread
check_has spread capture.kernel._Z5saxpyifPKfPf "launches=40 captured=7"

# 6. The byte cap: x and y are 400 KB each, 1.6 MB per capture; a 1 MB budget takes none, and
#    every launch is counted as skipped (the turn passes on each time).
record bytecap GPUTRACE_SHADOW=saxpy GPUTRACE_SHADOW_BYTES=1000000 -- \
	"$B/kernels/shadow_kernels" --kernel saxpy --reps 3
show bytecap
check bytecap capture.launches 0
check bytecap capture.skipped.byte_cap 3

# 7. Overhead per byte against the pinned D2H bandwidth: saxpy on 50M floats (x and y 200 MB each,
#    800 MB copied in one capture), and bwprobe's D2H on the same size.
record overhead GPUTRACE_SHADOW=saxpy GPUTRACE_SHADOW_MAX=1 -- \
	"$B/kernels/shadow_kernels" --kernel saxpy --n 50000000 --reps 2
show overhead
check overhead capture.launches 1
check overhead capture.bytes 800002048 "4 copies of 50,000,128 floats (n padded to the block)"
bytes=$(meta overhead capture.bytes)
copy=$(meta overhead capture.copy_seconds)
total=$(meta overhead capture.seconds)
if [ -n "$bytes" ] && [ -n "$copy" ]; then
	echo "  copies: $(echo "scale=2; $bytes / 1000000000 / $copy" | bc) GB/s ($bytes bytes in $copy s; capture total $total s incl. waits and pinning)"
fi
rm -f overhead.gtrace
if [ -x "$B/kernels/bwprobe" ]; then
	"$B/kernels/bwprobe" --bytes 200M --reps 5 2>&1 | grep -E 'dtoh_pinned|dtoh_pageable' | sed 's/^/  bwprobe: /'
fi

tar czf "$out/capture-traces.tgz" ./*.gtrace 2>/dev/null
echo
ls -la "$out" | tail -n +2 | awk '{print "  " $5, $9}'
[ "$failed" -eq 0 ] && echo "all CHECKs held" || echo "some CHECK failed"
exit $failed
