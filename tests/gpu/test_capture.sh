#!/bin/bash
# Shadow capture end to end on the GPU: record small captures of every kernel of kernels/ (correct
# and broken variants, and the renderer's composite), replay them on the CPU references: the correct
# kernels pass, the broken ones fail. Keeps the traces (small sizes) as fixtures. Then the capture's
# cost per MB against the pinned D2H bandwidth (goal <= 1.2x that time). About 30 s.
. "$(dirname "$0")/lib.sh"
refs=$B/kernels/refs.so
[ -f "$refs" ] || skip "no $refs"
shadow() { "$B/gputrace" record -q -o "$KEEP/$1.gtrace" -- "${@:3}" > "$KEEP/$1.out" 2> "$WORK/$1.err" ||
	{ echo "  FAIL $1: the program failed"; cat "$WORK/$1.err"; fail=1; }; }
GPUTRACE_SHADOW='*' GPUTRACE_SHADOW_MAX=2 shadow shadow-correct - "$B/kernels/shadow_kernels" --reps 2 --n 20011 --rows 8 --cols 256
GPUTRACE_SHADOW='*' GPUTRACE_SHADOW_MAX=2 shadow shadow-broken - "$B/kernels/shadow_kernels" --broken --reps 2 --n 20011 --rows 8 --cols 256
GPUTRACE_SHADOW=composite GPUTRACE_SHADOW_MAX=2 shadow shadow-composite - "$B/kernels/splat_render" --splats 2048 --width 160 --height 96 --frames 3 --warmup 1
"$GA" shadow "$KEEP/shadow-correct.gtrace" --ref "$refs" > correct.txt; rc=$?
cat correct.txt | sed -n '/^capture  launch/,/^$/p' | sed 's/^/    /'
[ $rc -eq 0 ] && echo "  PASS correct kernels pass" || { echo "  FAIL correct kernels: exit $rc"; fail=1; }
"$GA" shadow "$KEEP/shadow-broken.gtrace" --ref "$refs" > broken.txt; rc=$?
cat broken.txt | sed -n '/^capture  launch/,/^$/p' | sed 's/^/    /'
[ $rc -eq 1 ] && echo "  PASS broken kernels fail" || { echo "  FAIL broken kernels: exit $rc, want 1"; fail=1; }
"$GA" shadow "$KEEP/shadow-composite.gtrace" --ref "$refs" > comp.txt; rc=$?
cat comp.txt | sed -n '/^capture  launch/,/^$/p' | sed 's/^/    /'
[ $rc -eq 0 ] && echo "  PASS composite passes" || { echo "  FAIL composite: exit $rc"; fail=1; }
# The capture's cost per byte, against the machine's own pinned D2H bandwidth.
GPUTRACE_SHADOW=saxpy GPUTRACE_SHADOW_MAX=1 "$B/gputrace" record -q -o big.gtrace -- \
	"$B/kernels/shadow_kernels" --kernel saxpy --n 50000000 --reps 2 > /dev/null 2>&1
"$GA" info big.gtrace > big.info
rm -f big.gtrace
bytes=$(sed -n 's/^ *capture.bytes = //p' big.info)
copy=$(sed -n 's/^ *capture.copy_seconds = //p' big.info)
wait=$(sed -n 's/^ *capture.wait_seconds = //p' big.info)
pin=$(sed -n 's/^ *capture.pin_seconds = //p' big.info)
d2h=$("$B/kernels/bwprobe" --bytes 268435456 --reps 5 | sed -n 's/^peak kind=dtoh_pinned gbps=\([0-9.]*\).*/\1/p')
python3 - "$bytes" "$copy" "$wait" "$pin" "$d2h" <<'PY' || fail=1
import sys
b, copy, wait, pin, d2h = (float(x) for x in sys.argv[1:])
ideal = b / (d2h * 1e9)
r = copy / ideal
print(f"    captured {b/1e6:.1f} MB: copies {copy*1e3:.2f} ms ({b/copy/1e9:.1f} GB/s), waits {wait*1e3:.2f} ms, "
      f"pinning once {pin*1e3:.1f} ms; pinned D2H peak {d2h:.2f} GB/s -> {ideal*1e3:.2f} ms; ratio {r:.3f} (goal <= 1.2)")
print(f"  {'PASS' if r <= 1.2 else 'FAIL'} capture copy time vs pinned D2H")
sys.exit(0 if r <= 1.2 else 1)
PY
exit $fail
