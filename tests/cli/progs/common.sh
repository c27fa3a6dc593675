# common.sh: helpers for tests/cli/test_preload_*.sh, test_launcher_*.sh and test_gputrace_man.sh.
# Sourced (POSIX sh) from the repository root, as tests/run_tests.sh runs the scripts.
#
# Binaries come from ${GT_BUILD:-build}; the preload and the test programs always from the plain
# build ${GT_PLAIN_BUILD:-build}: a sanitized library cannot be preloaded into an unsanitized
# program, and the test programs stand for the user's own (unsanitized) programs. A test program
# that the build did not make (tests/cli/progs/module.mk not included, or an old build folder) is
# compiled here into the scratch folder.

ROOT=$(pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }
B=$(abs "${GT_BUILD:-build}")
P=$(abs "${GT_PLAIN_BUILD:-build}")
LIB=$P/libgputrace.so
GPUTRACE=$B/gputrace
CUDA_DIR=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_DIR/bin/nvcc

# The programs under test must see a clean slate: no recorder settings from the caller's shell.
unset LD_PRELOAD CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
for v in $(env | sed -n 's/^\(GPUTRACE_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
ulimit -c 0 2>/dev/null # the crashes are on purpose: no core files

T=$(mktemp -d "${TMPDIR:-/tmp}/gt_cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' INT TERM
WD=$T/wd # the programs run here, so that any trace they write can be seen
mkdir -p "$WD"

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
note() { echo "ok: $*"; }

need_lib() { [ -f "$LIB" ] || skip "skipped: $LIB not built (no CUPTI headers?)"; }
need_gputrace() { [ -x "$GPUTRACE" ] || fail "$GPUTRACE not built"; }

# Whether this machine has a CUDA driver (libcuda.so.1) that the dynamic loader finds.
has_driver() {
	ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' && return 0
	for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
		[ -e "$d/libcuda.so.1" ] && return 0
	done
	return 1
}

# prog NAME: prints the path of a test program, building it into $T when the build has none.
# Returns 1 (prints nothing) when it cannot be built here (no nvcc, no NVTX headers).
prog() {
	if [ -e "$P/tests/progs/$1" ]; then
		echo "$P/tests/progs/$1"
		return 0
	fi
	out=$T/progs/$1
	if [ ! -e "$out" ]; then
		mkdir -p "$(dirname "$out")"
		src=$ROOT/tests/cli/progs
		case $1 in
		plain) ${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -pthread -o "$out" "$src/plain.c" ;;
		trace_peek)
			${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -I"$ROOT/traces" -o "$out" \
				"$src/trace_peek.c" "$P/libgttrace.a" -lzstd -lm ;;
		fakecuda/libcuda.so.1)
			[ -f "$CUDA_DIR/include/cupti.h" ] || return 1
			${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -pthread -fPIC -shared \
				-Wl,-soname,libcuda.so.1 -I"$CUDA_DIR/include" -o "$out" "$src/fake_cuda.c" -ldl ;;
		fake_app)
			[ -f "$CUDA_DIR/include/cupti.h" ] || return 1
			${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -pthread -I"$CUDA_DIR/include" -o "$out" \
				"$src/fake_app.c" -ldl ;;
		nvtx_plain)
			[ -f "$CUDA_DIR/include/nvtx3/nvToolsExt.h" ] || return 1
			${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -I"$CUDA_DIR/include" -o "$out" \
				"$src/nvtx_plain.c" -ldl ;;
		cuda_probe)
			[ -x "$NVCC" ] || return 1
			"$NVCC" -std=c++17 -O2 -cudart static -o "$out" "$src/cuda_probe.cu" ;;
		*) return 1 ;;
		esac >"$T/build.log" 2>&1 || { cat "$T/build.log" >&2; return 1; }
	fi
	echo "$out"
}

# run TAG ENVSTRING CMD [ARGS...]: runs CMD in $WD with the space-separated VAR=value assignments
# of ENVSTRING added ("" for none); stdout, stderr and the status go to $T/TAG.out, .err, .rc.
run() {
	run_tag=$1 run_env=$2
	shift 2
	# shellcheck disable=SC2086 # ENVSTRING is split on purpose
	(cd "$WD" && exec env $run_env "$@") >"$T/$run_tag.out" 2>"$T/$run_tag.err"
	echo $? >"$T/$run_tag.rc"
}

# same_as_bare LABEL ENVSTRING CMD [ARGS...]: CMD run bare and with ENVSTRING must give the same
# stdout (byte for byte), the same stderr apart from lines that start with "gputrace:", and the
# same status (a death by signal included). The traced run's files stay in $T/with.*.
same_as_bare() {
	sab_label=$1 sab_env=$2
	shift 2
	run bare "" "$@"
	run with "$sab_env" "$@"
	cmp -s "$T/bare.out" "$T/with.out" ||
		fail "$sab_label: stdout differs: $(diff "$T/bare.out" "$T/with.out" | head -5)"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" ||
		fail "$sab_label: stderr differs apart from gputrace: lines: $(diff "$T/bare.err" "$T/with.err.prog" | head -5)"
	[ "$(cat "$T/bare.rc")" = "$(cat "$T/with.rc")" ] ||
		fail "$sab_label: status $(cat "$T/with.rc") with, $(cat "$T/bare.rc") without"
}

# gt_lines FILE: the number of "gputrace:" lines in FILE.
gt_lines() { grep -c '^gputrace:' "$1"; }

# no_traces LABEL: no trace file appeared in the working folder.
no_traces() {
	set -- "$1" "$WD"/*.gtrace*
	[ -e "$2" ] && fail "$1: a trace was written without a driver: $(ls "$WD")"
	return 0
}
