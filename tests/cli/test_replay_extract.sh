#!/bin/sh
# `gputrace replay --extract ID -o DIR TRACE`: one captured launch written out as a standalone
# reproducer. No GPU needed:
#   - capture 1 of a sample recorded on an H200 gives module.cubin (an ELF, the image's size),
#     params.bin, buffer<K>.before/.after.bin of the allocations' sizes, repro.c, Makefile, README.md;
#   - repro.c compiles with `cc -std=c11 -Wall -Wextra -Werror -O2` where cuda.h is found, and the
#     program, run where no CUDA driver is, exits 77 with one line saying "unavailable";
#   - an unknown capture id, a capture that is not replayable, an unreadable trace, and a non-empty
#     DIR without --force each exit 2 with one "gputrace replay:" line and write nothing; --force replaces the
#     reproducer's files and leaves the others;
#   - a kernel name hostile to C and Markdown (quotes, backslash, trigraph, comment end, newline,
#     backticks, HTML, a byte over 127) lands in repro.c as a string literal whose value is that
#     name, and in README.md inside one code span on one line;
#   - real workloads: a 412-byte CUTLASS-style mangled template name, PyTorch's 89-byte fill
#     kernel name (the fixtures hold no PyTorch capture) and a kernel of 40 parameters
#     (and 300 in a second trace) give folders that build with their own Makefile, and the
#     programs exit 77 where no CUDA driver is; so do the first and last capture of every sample
#     trace. With GT_TIER=all (the slow tier), every capture of every fixture trace that holds
#     captures (traces/samples, tests/data/bad, tests/fuzz/corpus): each builds and exits 77, or
#     is refused with exit 2 and one line. Builds run two at a time.
. tests/cli/progs/common.sh
need_gputrace
SAMPLE=traces/samples/h200-shadow-correct.gtrace
CC=${CC:-cc}
passed=0

ok() { note "$*"; passed=$((passed + 1)); }

# extract TAG ARGS...: runs `gputrace replay ARGS...`; output in $T/TAG.out, .err, status in $rc.
extract() {
	tag=$1
	shift
	"$GPUTRACE" replay "$@" >"$T/$tag.out" 2>"$T/$tag.err"
	rc=$?
}

# refused LABEL: the last extract exited 2 with exactly one "gputrace replay:" line on stderr.
refused() {
	[ $rc = 2 ] || fail "$1: exit $rc, expected 2: $(cat "$T/$tag.err")"
	[ -s "$T/$tag.out" ] && fail "$1: wrote to stdout: $(cat "$T/$tag.out")"
	n=$(wc -l <"$T/$tag.err")
	[ "$n" -eq 1 ] || fail "$1: $n lines on stderr, expected 1: $(cat "$T/$tag.err")"
	grep -q '^gputrace replay: ' "$T/$tag.err" || fail "$1: not a 'gputrace replay:' line: $(cat "$T/$tag.err")"
	ok "$1: $(cat "$T/$tag.err")"
}

size() { wc -c <"$1" | tr -d ' '; }

# ---- a sample capture ---------------------------------------------------------------------------
d=$T/x1
extract x1 --extract 1 -o "$d" "$SAMPLE"
[ $rc = 0 ] || fail "extract 1: exit $rc: $(cat "$T/x1.err")"
for f in module.cubin params.bin repro.c Makefile README.md buffer0.before.bin buffer0.after.bin \
	buffer1.before.bin buffer1.after.bin; do
	[ -s "$d/$f" ] || fail "extract 1: $f missing or empty"
done
[ -e "$d/buffer2.before.bin" ] && fail "extract 1: a third buffer for a kernel of two pointers"
[ "$(head -c 4 "$d/module.cubin" | od -An -c | tr -d ' ')" = '177ELF' ] ||
	fail "module.cubin is not an ELF image"
# saxpy(int n, float a, const float *x, float *y): 4 + 4 + 8 + 8 bytes of parameters.
[ "$(size "$d/params.bin")" = 24 ] || fail "params.bin: $(size "$d/params.bin") bytes, expected 24"
# Each allocation's size as repro.c states it, before and after alike.
for k in 0 1; do
	[ "$(size "$d/buffer$k.before.bin")" = "$(size "$d/buffer$k.after.bin")" ] ||
		fail "buffer$k: before and after differ in size"
	grep -q "{ $(size "$d/buffer$k.before.bin")ull, [01] }, /\* buffer$k:" "$d/repro.c" ||
		fail "repro.c does not state buffer$k's size"
done
cmp -s "$d/buffer0.before.bin" "$d/buffer0.after.bin" || fail "buffer0 (saxpy's x) changed?"
cmp -s "$d/buffer1.before.bin" "$d/buffer1.after.bin" && fail "buffer1 (saxpy's y) did not change?"
grep -q '{ 80896ull, 0 }, /\* buffer0' "$d/repro.c" && grep -q '{ 80896ull, 1 }, /\* buffer1' "$d/repro.c" ||
	fail "repro.c's changed flags are not x: 0, y: 1"
grep -q '^	"_Z5saxpyifPKfPf";$' "$d/repro.c" && grep -q '^#define REPRO_KERNEL repro_kernel$' "$d/repro.c" ||
	fail "repro.c does not name saxpy"
grep -q '^#define REPRO_SM 90$' "$d/repro.c" || fail "repro.c does not say sm_90"
grep -q 'sm_90 only' "$d/README.md" || fail "README.md does not say the cubin is sm_90 only"
grep -q 'NVIDIA H200' "$d/README.md" || fail "README.md does not name the device"
grep -q 'Textures and surfaces are not captured' "$d/README.md" || fail "README.md lacks its limits"
ok "extract 1: the files, sizes and tables"

if [ -f "$CUDA_DIR/include/cuda.h" ]; then
	$CC -std=c11 -Wall -Wextra -Werror -O2 -I"$CUDA_DIR/include" "$d/repro.c" -o "$d/repro" -ldl \
		>"$T/cc.log" 2>&1 || fail "repro.c does not compile cleanly: $(head -20 "$T/cc.log")"
	ok "repro.c compiles with -std=c11 -Wall -Wextra -Werror"
	if has_driver; then
		note "skip: a CUDA driver is installed here, so the no-driver run is not checked"
	else
		(cd "$d" && ./repro -n 3) >"$T/repro.out" 2>&1
		rc=$?
		[ $rc = 77 ] || fail "./repro without a driver: exit $rc, expected 77: $(cat "$T/repro.out")"
		[ "$(wc -l <"$T/repro.out")" -eq 1 ] || fail "./repro without a driver: not one line: $(cat "$T/repro.out")"
		grep -q '^repro: unavailable: no CUDA driver' "$T/repro.out" ||
			fail "./repro without a driver: $(cat "$T/repro.out")"
		ok "./repro without a driver: exit 77, $(cat "$T/repro.out")"
	fi
else
	note "skip: no cuda.h under $CUDA_DIR/include: repro.c not compiled"
fi

# ---- refusals -------------------------------------------------------------------------------------
extract none --extract 99 -o "$T/none" "$SAMPLE"
refused "an unknown capture id"
grep -q '8 captures, ids 1 to 8' "$T/none.err" || fail "the unknown id's line does not give the range"
[ -e "$T/none" ] && fail "an unknown capture id created its directory"

extract unreadable --extract 1 -o "$T/unr" "$T/no-such.gtrace"
refused "an unreadable trace"

mkdir "$T/full"
echo mine >"$T/full/notes.txt"
echo mine >"$T/full/README.md"
extract full --extract 1 -o "$T/full" "$SAMPLE"
refused "a non-empty directory without --force"
[ "$(ls "$T/full" | wc -l)" -eq 2 ] && [ "$(cat "$T/full/README.md")" = mine ] ||
	fail "a refused extract changed the directory: $(ls "$T/full")"
extract forced --extract 1 -o "$T/full" --force "$SAMPLE"
[ $rc = 0 ] || fail "-f: exit $rc: $(cat "$T/forced.err")"
[ "$(cat "$T/full/notes.txt")" = mine ] || fail "-f touched a file that is not the reproducer's"
cmp -s "$T/full/README.md" "$d/README.md" || fail "-f did not replace README.md"
cmp -s "$T/full/repro.c" "$d/repro.c" || fail "-f wrote another repro.c"
ls -A "$T/full" | grep -q '^\.' && fail "temporary files left behind: $(ls -A "$T/full")"
ok "-f replaces the reproducer's files, and only those"

# ---- a hostile kernel name ----------------------------------------------------------------------
$CC -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I. -o "$T/extract_synth" \
	tests/cli/progs/extract_synth.c "$P/libgttrace.a" -lzstd -lm >"$T/cc.log" 2>&1 ||
	fail "extract_synth does not build: $(head -5 "$T/cc.log")"
name=$(printf '_Z4evil"\\n*/??=/*`` <b>x</b> | [a](b) # $(id) %%s \377\nNEXTLINE')
printf '%s' "$name" >"$T/name"
"$T/extract_synth" "$T/hostile.gtrace" "$d/module.cubin" "$name" || fail "extract_synth failed"
h=$T/hostile
extract hostile --extract 1 -o "$h" "$T/hostile.gtrace"
[ $rc = 0 ] || fail "hostile name: exit $rc: $(cat "$T/hostile.err")"
[ "$(size "$h/params.bin")" = 20 ] && [ "$(size "$h/buffer0.before.bin")" = 64 ] &&
	[ "$(size "$h/buffer1.before.bin")" = 32 ] || fail "hostile name: wrong file sizes"
grep -q '{ 8, 1, 16ull }' "$h/repro.c" || fail "hostile name: the pointer 16 bytes into buffer1 is not patched so"
# The literal's value: the generated block alone, compiled with a main that prints REPRO_KERNEL.
sed -n '1,/^\/\* ---- The fixed part/p' "$h/repro.c" >"$T/gen.h"
printf '#include <stdio.h>\n#include "gen.h"\nint main(void) { fputs(REPRO_KERNEL, stdout); (void)repro_grid; (void)repro_block; (void)repro_cluster; (void)repro_param_offset; (void)repro_buffer; (void)repro_patch; return 0; }\n' >"$T/lit.c"
$CC -std=c11 -Wall -Wextra -Werror -I"$T" -o "$T/lit" "$T/lit.c" >"$T/cc.log" 2>&1 ||
	fail "hostile name: the generated block does not compile: $(head -10 "$T/cc.log")"
"$T/lit" >"$T/lit.out" || fail "hostile name: the literal program failed"
cmp -s "$T/lit.out" "$T/name" || fail "hostile name: REPRO_KERNEL is not the name: $(od -c "$T/lit.out" | head -3)"
if [ -f "$CUDA_DIR/include/cuda.h" ]; then
	$CC -std=c11 -Wall -Wextra -Werror -O2 -I"$CUDA_DIR/include" "$h/repro.c" -o "$h/repro" -ldl \
		>"$T/cc.log" 2>&1 || fail "hostile name: repro.c does not compile: $(head -10 "$T/cc.log")"
fi
# README.md: the name on one line, in one code span whose fence is longer than its backtick runs.
grep -q '^NEXTLINE' "$h/README.md" && fail "hostile name: the newline reached README.md"
line=$(grep -n 'evil' "$h/README.md")
[ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ] || fail "hostile name: on more than one README line"
printf '%s\n' "$line" | grep -qF '``` _Z4evil"\n*/??=/*`` <b>x</b> | [a](b) # $(id) %s \xFF\x0ANEXTLINE ```' ||
	fail "hostile name: not in one code span: $line"
[ "$(grep -c '<b>' "$h/README.md")" -eq 1 ] || fail "hostile name: HTML outside the code span"
ok "a hostile kernel name: a C literal of that value, one Markdown code span"

extract toolarge --extract 2 -o "$T/x2" "$T/hostile.gtrace"
refused "a pointer over the capture's cap"
grep -q 'not replayable: parameter 0' "$T/toolarge.err" || fail "the cap refusal does not name the parameter"
[ -e "$T/x2" ] && fail "a refused capture created its directory"
extract noafter --extract 3 -o "$T/x3" "$T/hostile.gtrace"
refused "a pointer whose after copy is missing"
grep -q 'copies are missing' "$T/noafter.err" || fail "the missing-copy refusal does not say so"

extract noimage --extract 5 -o "$T/x5" "$T/hostile.gtrace"
refused "a capture without its module image"
grep -q 'module image is not in the trace' "$T/noimage.err" || fail "the missing image refusal does not say so"

extract struct --extract 4 -o "$T/x4" "$T/hostile.gtrace"
[ $rc = 0 ] || fail "a by-value struct: exit $rc: $(cat "$T/struct.err")"
grep -q 'by-value struct' "$T/x4/README.md" && grep -q 'stale' "$T/x4/README.md" ||
	fail "a by-value struct: README.md does not say its pointers are stale"
grep -q 'by-value structs' "$T/x4/repro.c" || fail "a by-value struct: repro.c does not say so"
grep -q '{ 16, 0, 8ull }' "$T/x4/repro.c" || fail "a by-value struct: the pointer after it is not patched"
ok "a by-value struct is written, and flagged stale"

# ---- real workloads: long names, many parameters, every sample ---------------------------------
# buildable LIST: builds each folder named in the file LIST with its own Makefile, two at a time,
# then runs each program where no driver is: exit 77 and one "unavailable" line.
buildable() {
	if [ ! -f "$CUDA_DIR/include/cuda.h" ]; then
		note "skip: no cuda.h under $CUDA_DIR/include: $(wc -l <"$1") reproducers not built"
		return
	fi
	xargs -P 2 -I{} sh -c 'make -s -C "$1" CUDA_HOME="$2" >"$1/make.log" 2>&1 || echo "$1" >>"$3"' \
		sh {} "$CUDA_DIR" "$T/unbuilt" <"$1"
	[ -s "$T/unbuilt" ] && fail "these reproducers do not build with their Makefile: $(cat "$T/unbuilt"):
$(head -20 "$(head -1 "$T/unbuilt")/make.log")"
	has_driver && return
	while read -r dir; do
		(cd "$dir" && ./repro -n 1) >"$T/run.out" 2>&1
		rc=$?
		[ $rc = 77 ] && [ "$(wc -l <"$T/run.out")" -eq 1 ] && grep -q '^repro: unavailable' "$T/run.out" ||
			fail "$dir: ./repro without a driver: exit $rc: $(cat "$T/run.out")"
	done <"$1"
}

long=_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelinedINS1_9GemmShapeILi128ELi128ELi8EEENS_9transform11threadblock22PredicatedTileIteratorINS_11MatrixShapeILi128ELi8EEEfNS_6layout8RowMajorELi1ENS8_30PitchLinearStripminedThreadMapINSD_16PitchLinearShapeILi8ELi128EEELi256ELi1EEELi1EEENS9_19RegularTileIteratorISC_fNSD_11ColumnMajorELi1ENS8_4warp30VoltaTensorOpMultiplicandCongruousILi32ELi32EEEEE
"$T/extract_synth" "$T/long.gtrace" "$d/module.cubin" "$long" 40 || fail "extract_synth (long name) failed"
"$T/extract_synth" "$T/many.gtrace" "$d/module.cubin" "$long$long" 300 || fail "extract_synth (300 parameters) failed"
: >"$T/dirs"
for id in 1 4 6; do
	extract long$id --extract $id -o "$T/long$id" "$T/long.gtrace"
	[ $rc = 0 ] || fail "long name, capture $id: exit $rc: $(cat "$T/long$id.err")"
	echo "$T/long$id" >>"$T/dirs"
done
# PyTorch's fill kernel, as CUDA 13's libtorch_cuda names it (89 bytes).
torch=_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_
"$T/extract_synth" "$T/torch.gtrace" "$d/module.cubin" "$torch" || fail "extract_synth (PyTorch name) failed"
extract torch --extract 1 -o "$T/torch" "$T/torch.gtrace"
[ $rc = 0 ] || fail "a PyTorch name: exit $rc: $(cat "$T/torch.err")"
echo "$T/torch" >>"$T/dirs"
extract many --extract 6 -o "$T/many" "$T/many.gtrace"
[ $rc = 0 ] || fail "300 parameters: exit $rc: $(cat "$T/many.err")"
echo "$T/many" >>"$T/dirs"
# The literal's value is the whole name, and every parameter has its offset.
sed -n '1,/^\/\* ---- The fixed part/p' "$T/long1/repro.c" >"$T/gen.h"
$CC -std=c11 -Wall -Wextra -Werror -I"$T" -o "$T/lit" "$T/lit.c" >"$T/cc.log" 2>&1 ||
	fail "long name: the generated block does not compile: $(head -10 "$T/cc.log")"
[ "$("$T/lit")" = "$long" ] || fail "long name: REPRO_KERNEL is not the ${#long}-byte name"
grep -q '^#define REPRO_NPARAMS 300$' "$T/many/repro.c" && grep -q ', 2392,$' "$T/many/repro.c" ||
	fail "300 parameters: the offset table is not complete"
grep -q '{ 2368, 0, 0ull }, /\* parameter 296 \*/' "$T/many/repro.c" || fail "300 parameters: parameter 296 not patched"

# The first and last capture of every sample trace that holds some (a slow tier: every capture of
# every fixture).
for f in traces/samples/*.gtrace; do
	"$GPUTRACE" replay --list "$f" >"$T/l" 2>/dev/null || continue
	ids=$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 }' "$T/l")
	[ -n "$ids" ] || continue
	[ "${GT_TIER:-}" = all ] || ids=$(printf '%s\n' "$ids" | sed -n '1p;$p' | uniq)
	for id in $ids; do
		out=$T/sample-$(basename "$f" .gtrace)-$id
		extract sample --extract "$id" -o "$out" "$f"
		[ $rc = 0 ] || fail "$f capture $id: exit $rc: $(cat "$T/sample.err")"
		echo "$out" >>"$T/dirs"
	done
done
if [ "${GT_TIER:-}" = all ]; then
	for f in tests/data/bad/*.gtrace tests/fuzz/corpus/*/*.gtrace; do
		"$GPUTRACE" replay --list "$f" >"$T/l" 2>/dev/null || continue
		for id in $(awk 'NR > 1 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 }' "$T/l"); do
			out=$T/fixture-$(basename "$f" .gtrace)-$id
			extract fixture --extract "$id" -o "$out" "$f"
			if [ $rc = 0 ]; then
				echo "$out" >>"$T/dirs"
			else
				refused "$f capture $id, not replayable"
			fi
		done
	done
fi
buildable "$T/dirs"
ok "$(wc -l <"$T/dirs") reproducers (a ${#long}-byte name, PyTorch's, 40 and 300 parameters, samples${GT_TIER:+, tier $GT_TIER}) build with their Makefile and exit 77 without a driver"

echo "$passed passed, 0 failed"
exit 0
