#!/bin/bash
# The traced program, on the GPU machine. Expected run time: about
# 2.5 minutes of GPU time (about 45 cells, each run bare and traced; the PyTorch cells take most).
#
# Programs: the plain C program of tests/cli/progs (plain), the nvcc-built CUDA program
# tests/gpu/progs/rel_cuda.cu (cuda), python3 + PyTorch (tests/gpu/progs/rel_torch.py; only where
# PyTorch matters: a plain run and torch.profiler as a second CUPTI client).
# Conditions: no GPU (CUDA_VISIBLE_DEVICES set empty); no driver and no libcupti (as root, in a
# private mount namespace, /dev/null bind-mounted over every libcuda.so / libcupti.so that
# `ldconfig -p` and the CUDA folders name, so that dlopen fails); an output folder that cannot be
# written (its parent is a regular file; a read-only bind mount); the output file already there;
# another CUPTI client (torch.profiler started before CUDA is initialised and after; a preloaded
# CUPTI tool, tests/gpu/cupti_floor.c, for the CUDA program); fork then CUDA in the child; exec of
# another CUDA program; 16 threads launching on 8 shared streams; the endings return, exit, _exit,
# abort, SIGSEGV, SIGTERM, SIGKILL.
# Each cell runs the program bare and with LD_PRELOAD=libgputrace.so (GPUTRACE_FLUSH_MS=100) and
# passes when stdout, stderr apart from "gputrace:" lines and the exit status are the same, and the
# trace holds what the condition allows: every kernel the program counted (its "tally" line), a
# complete trace and nothing dropped; for _exit and SIGKILL every kernel flushed before the end (the
# program waits 5 flush periods first); or no trace / an empty one whose metadata (tracing.off) says
# why, with one "gputrace:" line. Last, what a SIGKILL loses when nothing waits for a flush: the
# program launches in a loop, prints its count every 100 ms, and is killed; the trace is compared
# with the last count it printed (default GPUTRACE_FLUSH_MS=1000, and 100).
# One table row per cell; exit 1 if any cell failed, 77 without a GPU.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/gpu/progs/rel_lib.sh"
K=2000      # kernels per run
SETTLE=500  # ms: five flush periods

echo "reliability matrix: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
table_head

# ---- helpers for the verdicts ---------------------------------------------------------------
# verdict_all PROG COND [WANT]: the comparison, then one complete trace with every kernel.
verdict_all() {
	local want=${3:-$(tally)} why
	if [ -n "$SAME" ]; then row "$1" "$2" FAIL "$SAME"; return; fi
	[ "$(ntraces)" = 1 ] || { row "$1" "$2" FAIL "$(ntraces) traces: $(ls "$D/with" | tr '\n' ' ')"; return; }
	why=$(check_all "$(traces)" "$want")
	if [ -n "$why" ]; then row "$1" "$2" FAIL "$why"; return; fi
	row "$1" "$2" PASS "status $(cat "$D/with.rc"), $want of $want kernels, complete, 0 dropped (${MS} ms)"
}
# verdict_flushed PROG COND: the trace ends at its last flush, and holds every kernel flushed.
verdict_flushed() {
	local f k want
	want=$(tally)
	if [ -n "$SAME" ]; then row "$1" "$2" FAIL "$SAME"; return; fi
	[ "$(ntraces)" = 1 ] || { row "$1" "$2" FAIL "$(ntraces) traces"; return; }
	f=$(traces); k=$(kernels_of "$f")
	[ "$(complete_of "$f")" = 0 ] || { row "$1" "$2" FAIL "the trace claims to be complete"; return; }
	[ "$k" = "$want" ] || { row "$1" "$2" FAIL "$k kernels, the $want flushed before the end expected"; return; }
	row "$1" "$2" PASS "status $(cat "$D/with.rc"), cut at its last flush: $k of $want kernels (all flushed), incomplete as it should be"
}
# verdict_none PROG COND LINES: no trace, LINES "gputrace:" lines.
verdict_none() {
	if [ -n "$SAME" ]; then row "$1" "$2" FAIL "$SAME"; return; fi
	[ "$(ntraces)" = 0 ] || { row "$1" "$2" FAIL "a trace was written: $(ls "$D/with")"; return; }
	[ "$(gt_n)" = "$3" ] || { row "$1" "$2" FAIL "$(gt_n) gputrace: lines, expected $3: $(gt_err | head -n 2 | tr '\n' ' ')"; return; }
	row "$1" "$2" PASS "status $(cat "$D/with.rc"), no trace, $3 line(s)${4:+: $4}"
}
# verdict_off PROG COND TEXT: one line, one empty trace whose tracing.off holds TEXT.
verdict_off() {
	local f off
	if [ -n "$SAME" ]; then row "$1" "$2" FAIL "$SAME"; return; fi
	[ "$(ntraces)" = 1 ] || { row "$1" "$2" FAIL "$(ntraces) traces, expected one that says why it is empty"; return; }
	f=$(traces); off=$(meta_of "$f" tracing.off)
	case $off in *"$3"*) ;; *) row "$1" "$2" FAIL "tracing.off is '$off'"; return ;; esac
	[ "$(kernels_of "$f")" = 0 ] || { row "$1" "$2" FAIL "$(kernels_of "$f") kernels in a trace that says tracing is off"; return; }
	[ "$(gt_n)" = 1 ] || { row "$1" "$2" FAIL "$(gt_n) gputrace: lines: $(gt_err | tr '\n' ' ')"; return; }
	row "$1" "$2" PASS "status $(cat "$D/with.rc"), an empty trace that says why (tracing.off: $(printf '%.60s' "$off")), one line"
}

# ---- library masks for "no driver" and "no libcupti" -----------------------------------------------
# Every file the dynamic loader or the recorder could open for the library: what ldconfig -p
# names, and the CUDA folders' copies, resolved to real files (a bind mount over the target hides
# it behind every link).
lib_files() {
	{
		ldconfig -p 2>/dev/null | awk -v p="$1" 'index($1, p) == 1 { print $NF }'
		for d in ${CUDA_HOME:-/usr/local/cuda}/lib64 /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 \
		         $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
			ls "$d"/"$1"* 2>/dev/null
		done
	} | while read -r f; do [ -e "$f" ] && readlink -f "$f"; done | sort -u
}
cat >"$WORK/mask.sh" <<'EOF'
# mask.sh FILE... -- CMD...: in a private mount namespace (run under unshare -m), /dev/null over
# each FILE, then CMD.
while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 125; shift; done
shift
exec "$@"
EOF
cat >"$WORK/ro.sh" <<'EOF'
# ro.sh DIR -- CMD...: in a private mount namespace, DIR bind-mounted read-only over itself, then CMD.
mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" || exit 125
shift 2
exec "$@"
EOF
mask_why=""
if [ "$(id -u)" != 0 ]; then mask_why="not root"
elif ! command -v unshare >/dev/null; then mask_why="no unshare(1)"
elif ! unshare -m true 2>/dev/null; then mask_why="unshare -m fails here"
fi
mask_wrap() { # LIBPREFIX: the wrapper that hides it, or "" with mask_why set
	local files
	files=$(lib_files "$1" | tr '\n' ' ')
	[ -n "$files" ] || { mask_why="no $1* found"; echo ""; return; }
	echo "unshare -m bash $WORK/mask.sh $files --"
}

# ---- the plain C program ------------------------------------------------------------------------
for how in return exit _exit abort segv sigterm sigkill fork exec threads; do
	pair "plain-$how" "" "" "" -- "$PLAIN" "$how" 3
	verdict_none plain "$how" 0 "never initialised CUDA"
done
pair plain-nogpu "" "CUDA_VISIBLE_DEVICES=" "" -- "$PLAIN" return 3
verdict_none plain "no GPU (CUDA_VISIBLE_DEVICES=)" 0
pair plain-unwritable "" "" "GPUTRACE_OUTPUT=$WORK/plainfile/x.gtrace" -- "$PLAIN" return 3
verdict_none plain "output folder unwritable" 0
if [ -z "$mask_why" ] && W=$(mask_wrap libcuda.so) && [ -n "$W" ]; then
	pair plain-nodriver "$W" "" "" -- "$PLAIN" return 3
	verdict_none plain "no driver (libcuda masked)" 1 "$(gt_err | head -n 1 | cut -c1-60)"
else
	row plain "no driver (libcuda masked)" SKIP "$mask_why"
fi

# ---- the CUDA program: endings ----------------------------------------------------------------
for pair_ in "return 3" "exit 3" "abort 134" "segv 139" "raise-segv 139" "sigterm 143"; do
	set -- $pair_
	pair "cuda-$1" "" "" "" -- "$RC" "$1" --kernels $K
	if [ -z "$SAME" ] && [ "$(cat "$D/with.rc")" != "$2" ]; then SAME="status $(cat "$D/with.rc"), expected $2"; fi
	verdict_all cuda "ending: $1"
done
for how in _exit sigkill; do
	pair "cuda-$how" "" "" "" -- "$RC" "$how" --kernels $K --settle-ms $SETTLE
	verdict_flushed cuda "ending: $how (after ${SETTLE} ms)"
done
pair cuda-thread-exit "" "" "" -- "$RC" thread-exit --kernels $K
verdict_all cuda "ending: exit from a second thread"

# ---- the CUDA program: conditions -------------------------------------------------------------
pair cuda-nogpu "" "CUDA_VISIBLE_DEVICES=" "" -- "$RC" return --kernels $K
if [ -n "$SAME" ]; then row cuda "no GPU (CUDA_VISIBLE_DEVICES=)" FAIL "$SAME"
elif [ "$(ntraces)" = 0 ]; then row cuda "no GPU (CUDA_VISIBLE_DEVICES=)" PASS "status $(cat "$D/with.rc"), no trace, $(gt_n) line(s) $(gt_err | head -n 1 | cut -c1-50)"
else
	f=$(traces)
	if [ "$(kernels_of "$f")" = 0 ] && [ "$(complete_of "$f")" = 1 ]; then
		off=$(meta_of "$f" tracing.off)
		row cuda "no GPU (CUDA_VISIBLE_DEVICES=)" PASS "status $(cat "$D/with.rc"), a complete trace with 0 kernels, $(ginfo "$f" | sed -n 's/^  devices: *//p') device(s)${off:+, tracing.off: $off}"
	else
		row cuda "no GPU (CUDA_VISIBLE_DEVICES=)" FAIL "$(kernels_of "$f") kernels, complete $(complete_of "$f")"
	fi
fi

if [ -z "$mask_why" ] && W=$(mask_wrap libcuda.so) && [ -n "$W" ]; then
	pair cuda-nodriver "$W" "" "" -- "$RC" return --kernels $K
	verdict_none cuda "no driver (libcuda masked)" 1 "$(gt_err | head -n 1 | cut -c1-60)"
else
	row cuda "no driver (libcuda masked)" SKIP "${mask_why:-no libcuda found to mask}"
fi
if [ -z "$mask_why" ] && W=$(mask_wrap libcupti.so) && [ -n "$W" ]; then
	pair cuda-nocupti "$W" "" "" -- "$RC" return --kernels $K
	verdict_off cuda "no libcupti (masked)" "libcupti"
else
	row cuda "no libcupti (masked)" SKIP "${mask_why:-no libcupti found to mask}"
fi

: >"$WORK/plainfile"
pair cuda-unwritable "" "" "GPUTRACE_OUTPUT=$WORK/plainfile/x.gtrace" -- "$RC" return --kernels $K
verdict_none cuda "output folder unwritable (parent a file)" 1 "$(gt_err | head -n 1 | sed 's/.*: \(Not a directory\).*/\1/')"
if [ -z "$mask_why" ]; then
	mkdir -p "$WORK/rofolder"
	pair cuda-readonly "unshare -m bash $WORK/ro.sh $WORK/rofolder --" "" "GPUTRACE_OUTPUT=$WORK/rofolder/x.gtrace" \
		-- "$RC" return --kernels $K
	verdict_none cuda "output folder read-only (bind mount)" 1 "$(gt_err | head -n 1 | sed 's/.*: \(Read-only file system\).*/\1/')"
else
	row cuda "output folder read-only (bind mount)" SKIP "$mask_why"
fi

mkdir -p "$WORK/exists"
printf 'keep me\n' >"$WORK/exists/run.gtrace"
pair cuda-exists "" "" "GPUTRACE_OUTPUT=$WORK/exists/run.gtrace" -- "$RC" return --kernels $K
if [ -n "$SAME" ]; then row cuda "output file exists" FAIL "$SAME"
elif [ "$(cat "$WORK/exists/run.gtrace")" != "keep me" ]; then row cuda "output file exists" FAIL "the existing file was changed"
else
	why=$(check_all "$WORK/exists/run.1.gtrace" "$(tally)")
	if [ -n "$why" ]; then row cuda "output file exists" FAIL "run.1.gtrace: $why"
	else row cuda "output file exists" PASS "the old file kept, the trace is run.1.gtrace with all $(tally) kernels"; fi
fi

FLOOR=$B/tests/gpu/libcuptifloor.so
if [ -f "$FLOOR" ]; then
	pair cuda-otherclient "" "" "LD_PRELOAD=$FLOOR:$LIB" -- "$RC" return --kernels $K
	f=$(traces | head -n 1)
	if [ -n "$SAME" ]; then row cuda "another CUPTI client (preloaded tool)" FAIL "$SAME"
	elif [ -z "$f" ]; then row cuda "another CUPTI client (preloaded tool)" FAIL "no trace"
	else
		col=$(meta_of "$f" tracing.collision); off=$(meta_of "$f" tracing.off); ref=$(meta_of "$f" tracing.other_clients_refused)
		k=$(kernels_of "$f")
		if [ -n "$col$off$ref" ] && [ "$(gt_n)" -ge 1 ]; then
			row cuda "another CUPTI client (preloaded tool)" PASS "said in $(gt_n) line(s) and in the trace: ${col:+collision: $col}${off:+off: $off}${ref:+refused: $ref}; $k of $(tally) kernels"
		elif [ -z "$(check_all "$f" "$(tally)")" ]; then
			row cuda "another CUPTI client (preloaded tool)" PASS "no collision: all $(tally) kernels, complete"
		else
			row cuda "another CUPTI client (preloaded tool)" FAIL "$k of $(tally) kernels and nothing says why: $(check_all "$f" "$(tally)")"
		fi
	fi
else
	row cuda "another CUPTI client (preloaded tool)" SKIP "no $FLOOR"
fi

pair cuda-fork "" "" "GPUTRACE_OUTPUT=%n-%p.gtrace" -- "$RC" fork --kernels $K
if [ -n "$SAME" ]; then row cuda "fork, then CUDA in the child" FAIL "$SAME"
elif [ "$(ntraces)" != 2 ]; then row cuda "fork, then CUDA in the child" FAIL "$(ntraces) traces, expected the parent's and the child's"
else
	bad=""
	for f in $(traces); do why=$(check_all "$f" $K); [ -n "$why" ] && bad="$bad $(basename "$f"): $why"; done
	if [ -n "$bad" ]; then row cuda "fork, then CUDA in the child" FAIL "$bad"
	else row cuda "fork, then CUDA in the child" PASS "two traces (parent, child), each complete with its $K kernels"; fi
fi

pair cuda-exec "" "" "" -- "$RC" exec --kernels $K --settle-ms $SETTLE
if [ -n "$SAME" ]; then row cuda "exec of another CUDA program" FAIL "$SAME"
elif [ "$(ntraces)" != 2 ]; then row cuda "exec of another CUDA program" FAIL "$(ntraces) traces: $(ls "$D/with" | tr '\n' ' ')"
else
	old="" new=""
	for f in $(traces); do
		if [ "$(complete_of "$f")" = 1 ]; then new=$f; else old=$f; fi
	done
	if [ -z "$old" ] || [ -z "$new" ]; then row cuda "exec of another CUDA program" FAIL "expected one cut and one complete trace"
	elif [ "$(kernels_of "$old")" != $K ]; then row cuda "exec of another CUDA program" FAIL "the old image's trace has $(kernels_of "$old") kernels, $K flushed"
	elif [ -n "$(check_all "$new" $((K / 2)))" ]; then row cuda "exec of another CUDA program" FAIL "new image: $(check_all "$new" $((K / 2)))"
	else row cuda "exec of another CUDA program" PASS "old image cut at its last flush with its $K kernels; the new one complete with its $((K / 2))"; fi
fi

pair cuda-threads "" "" "" -- "$RC" threads --kernels $K --threads 16 --streams 8
verdict_all cuda "16 threads on 8 shared streams"

# ---- PyTorch: a plain run, and torch.profiler beside the recorder -------------------------------------
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
	# Kineto's own log lines carry times and pids: left out of the comparison (and reported).
	NOISE='^(WARNING|INFO|ERROR|STAGE):|^\[W|^ *_warn_once\(|UserWarning'
	pair torch-plain "" "" "" -- python3 "$PYPROG" plain
	f=$(traces | head -n 1)
	if [ -n "$SAME" ]; then row torch "plain run" FAIL "$SAME"
	elif [ -z "$f" ] || [ "$(complete_of "$f")" != 1 ] || [ "$(dropped_of "$f")" != 0 ] || [ "$(kernels_of "$f")" = 0 ]; then
		row torch "plain run" FAIL "trace: ${f:-none}, complete $(complete_of "$f"), $(kernels_of "$f") kernels, $(dropped_line "$f")"
	elif [ -n "$(meta_of "$f" tracing.collision)$(meta_of "$f" tracing.off)" ]; then
		row torch "plain run" FAIL "a collision without a second client: $(meta_of "$f" tracing.collision)$(meta_of "$f" tracing.off)"
	else
		row torch "plain run" PASS "complete, $(kernels_of "$f") kernels, 0 dropped (${MS} ms)"
	fi
	for when in before after; do
		pair "torch-collide-$when" "" "REL_PROF_OUT=prof.txt" "" -- python3 "$PYPROG" "collide-$when"
		f=$(traces | head -n 1)
		cond="torch.profiler started $when CUDA init"
		bare_prof=$(cat "$D/bare/prof.txt" 2>/dev/null)
		with_prof=$(cat "$D/with/prof.txt" 2>/dev/null)
		kineto=$(grep -Ec '^(WARNING|ERROR):' "$D/with.err")
		if [ -n "$SAME" ]; then row torch "$cond" FAIL "$SAME"
		elif [ -z "$f" ]; then row torch "$cond" FAIL "no trace"
		else
			col=$(meta_of "$f" tracing.collision); off=$(meta_of "$f" tracing.off); ref=$(meta_of "$f" tracing.other_clients_refused)
			said="${col:+collision: $col}${off:+off: $off}${ref:+refused: $ref}"
			detail="gputrace: $(kernels_of "$f") kernels, complete $(complete_of "$f"); torch.profiler bare '${bare_prof}', traced '${with_prof}'; $kineto Kineto warning(s)"
			if [ -n "$said" ] && [ "$(gt_n)" -ge 1 ]; then
				row torch "$cond" PASS "said in $(gt_n) line(s) and in the trace ($said); $detail"
			elif [ "$bare_prof" = "$with_prof" ] && [ "$(complete_of "$f")" = 1 ] && [ "$(kernels_of "$f")" -gt 0 ]; then
				row torch "$cond" PASS "both clients whole, nothing to say; $detail"
			else
				row torch "$cond" FAIL "one client lost records and nothing says so; $detail"
			fi
		fi
	done
	NOISE=""
else
	row torch "plain run, torch.profiler before/after" SKIP "no PyTorch with CUDA here"
fi

# ---- what a SIGKILL loses: a program killed while it launches ---------------------------------------
# rel_cuda progress prints "progress ms=T done=N" every 100 ms (N kernels completed by then); it is
# killed about 3 s in. The trace keeps every kernel flushed; what it lacks, against the last count
# printed, is what the SIGKILL lost, in kernels and in time at the program's rate.
for flush in 1000 100; do
	d=$WORK/sigkill-$flush
	mkdir -p "$d"
	# No timeout(1) here: $! must be the program itself (it ends by itself after 30 s anyway).
	(cd "$d" && exec env LD_PRELOAD="$LIB" GPUTRACE_FLUSH_MS=$flush "$RC" progress --seconds 30) \
		>"$d/out" 2>"$d/err" &
	pid=$!
	for _ in $(seq 1 300); do
		last=$(tail -n 1 "$d/out" | sed -n 's/^progress ms=\([0-9]*\).*/\1/p')
		[ -n "$last" ] && [ "$last" -ge 3000 ] && break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	f=$(ls "$d"/*.gtrace 2>/dev/null | head -n 1)
	lastn=$(sed -n 's/^progress ms=[0-9]* done=\([0-9]*\)/\1/p' "$d/out" | tail -n 1)
	lastms=$(sed -n 's/^progress ms=\([0-9]*\) .*/\1/p' "$d/out" | tail -n 1)
	if [ -z "$f" ] || [ -z "$lastn" ]; then
		row cuda "SIGKILL while launching (flush $flush ms)" FAIL "no trace or no progress line"
		continue
	fi
	k=$(kernels_of "$f")
	rate=$(awk -v n="$lastn" -v ms="$lastms" 'BEGIN { printf "%.0f", n / (ms / 1000) }')
	lost=$((lastn > k ? lastn - k : 0))
	lost_ms=$(awk -v l="$lost" -v r="$rate" 'BEGIN { ms = 0; if (r > 0) ms = 1000 * l / r; printf "%.0f", ms }')
	# At most one flush period, plus the 100 ms between two progress lines and the kill's delay.
	bound=$((flush + 300))
	detail="killed at ~${lastms} ms: $k kernels in the trace, $lastn completed by the last line; lost $lost (${lost_ms} ms at $rate/s; bound ${bound} ms)"
	if [ "$(complete_of "$f")" != 0 ]; then row cuda "SIGKILL while launching (flush $flush ms)" FAIL "complete after a SIGKILL? $detail"
	elif [ "$lost_ms" -le "$bound" ]; then row cuda "SIGKILL while launching (flush $flush ms)" PASS "$detail"
	else row cuda "SIGKILL while launching (flush $flush ms)" FAIL "$detail"; fi
	cp "$f" "$KEEP/sigkill-flush$flush.gtrace" 2>/dev/null
done

echo "matrix: $npass passed, $nfail failed, $nskip skipped"
exit $fail
