#!/bin/sh
# `gputrace record` on a machine without a GPU driver (as in CI):
# - the program runs anyway, with its own stdout, stderr (apart from "gputrace:" lines) and status:
#   0, 7, 127 for a program that does not exist, and death by a signal passed through (SIGTERM ->
#   143 in sh, SIGSEGV -> 139, abort -> 134, SIGKILL -> 137);
# - it says "no CUDA driver" in exactly one line (the preload, under the launcher, stays quiet);
# - the program's own options after its name are left alone, with or without "--";
# - a SIGTERM sent to the launcher alone reaches the program, and the launcher dies of it too;
# - -o FILE that exists is refused (exit 2, one line, file untouched, program not run) unless
#   --force is given, which removes it before the run; --force removes only a regular file: a
#   symbolic link, a block device node or a socket is refused with one line (exit 2, left as it
#   is), and a character device node or a FIFO is left in place for the recorder to write into
#   (device nodes made with mknod in the test's own folder; the real /dev is never touched);
# - a path with a newline is shown escaped (\n): every message stays one "gputrace:" line.
# The launcher is taken from GT_BUILD (the sanitizer pass checks it too); the library it preloads
# from the plain build, through --lib.
. tests/cli/progs/common.sh
need_gputrace
need_lib
PLAIN=$(prog plain) || fail "cannot build the plain test program"
if has_driver; then driver=1; else driver=0; fi
REC="$GPUTRACE record --lib $LIB"

# Exit statuses and output, compared with the program run bare.
for pair in "return 0 0" "return 7 7" "exit 9 9" "_exit 4 4" "sigterm 0 143" "segv 0 139" \
            "abort 0 134" "sigkill 0 137" "fork 6 6" "exec 8 8"; do
	set -- $pair
	run bare "" "$PLAIN" "$1" "$2"
	run with "" $REC -o run.gtrace -- "$PLAIN" "$1" "$2"
	[ "$(cat "$T/with.rc")" = "$3" ] || fail "record plain $1 $2: status $(cat "$T/with.rc"), expected $3"
	[ "$(cat "$T/bare.rc")" = "$3" ] || fail "plain $1 $2 itself: status $(cat "$T/bare.rc"), expected $3"
	cmp -s "$T/bare.out" "$T/with.out" || fail "record plain $1: stdout differs: $(diff "$T/bare.out" "$T/with.out")"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" || fail "record plain $1: stderr differs: $(cat "$T/with.err")"
	if [ $driver = 0 ]; then
		n=$(grep -c 'no CUDA driver' "$T/with.err")
		[ "$n" = 1 ] || fail "record plain $1: $n 'no CUDA driver' lines, expected 1: $(cat "$T/with.err")"
		grep -q '^gputrace: no trace written: no CUDA driver on this machine' "$T/with.err" ||
			fail "record plain $1: no 'no trace written: no CUDA driver' line: $(cat "$T/with.err")"
		[ "$(gt_lines "$T/with.err")" = 1 ] || fail "record plain $1: extra lines: $(cat "$T/with.err")"
		no_traces "record plain $1"
	fi
	note "record plain $1 $2: status $3, output unchanged"
done

# A program that does not exist: 127, as a shell would give, with one line saying why.
run with "" $REC -- "$T/no-such-program" arg
[ "$(cat "$T/with.rc")" = 127 ] || fail "missing program: status $(cat "$T/with.rc"), expected 127"
grep -q "^gputrace: cannot run '$T/no-such-program': No such file or directory" "$T/with.err" ||
	fail "missing program: no 'cannot run' line: $(cat "$T/with.err")"
note "missing program: 127"

# The program's options are its own, after "--" and without it.
run with "" $REC -- sh -c 'echo "$@"; exit 5' sh -o --force -q
[ "$(cat "$T/with.rc")" = 5 ] || fail "program options: status $(cat "$T/with.rc")"
[ "$(cat "$T/with.out")" = "-o --force -q" ] || fail "program options changed: $(cat "$T/with.out")"
run with "" $REC sh -c 'echo "$@"; exit 6' sh -o x
[ "$(cat "$T/with.rc")" = 6 ] || fail "no --: status $(cat "$T/with.rc")"
[ "$(cat "$T/with.out")" = "-o x" ] || fail "no --: program options changed: $(cat "$T/with.out")"
note "program options left alone"

# A SIGTERM for the launcher alone (a CI runner's timeout) reaches the program.
(cd "$WD" && exec $REC -- sleep 30) >"$T/sig.out" 2>"$T/sig.err" &
lpid=$!
child=""
i=0
# The launcher's child, from /proc (the children file, where the kernel has it, else every
# process's parent id).
child_of() {
	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null | tr -d ' ')
	if [ -z "$c" ]; then
		for st in /proc/[0-9]*/stat; do
			set -- "$1" $(sed 's/^[0-9]* (.*) //' "$st" 2>/dev/null)
			[ "${3:-}" = "$1" ] && c=${st#/proc/} && c=${c%/stat} && break
		done
	fi
	echo "$c"
}
while [ $i -lt 100 ] && [ -z "$child" ]; do
	child=$(child_of $lpid)
	[ -z "$child" ] && sleep 0.05
	i=$((i + 1))
done
[ -n "$child" ] || { kill -KILL $lpid; fail "the launcher never started its program"; }
sleep 0.2 # let the launcher install its forwarding handler after the fork
kill -TERM $lpid
wait $lpid
rc=$?
[ $rc = 143 ] || fail "SIGTERM to the launcher: status $rc, expected 143"
i=0
while kill -0 "$child" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$child" 2>/dev/null && { kill -KILL "$child"; fail "the program outlived a SIGTERM to the launcher"; }
note "SIGTERM to the launcher: forwarded, 143"

# -o FILE that exists.
printf 'old trace\n' >"$WD/keep.gtrace"
run with "" $REC -o keep.gtrace -- "$PLAIN" return 0
[ "$(cat "$T/with.rc")" = 2 ] || fail "-o existing: status $(cat "$T/with.rc"), expected 2"
[ "$(wc -l <"$T/with.err")" -eq 1 ] || fail "-o existing: expected one line: $(cat "$T/with.err")"
grep -q "^gputrace: 'keep.gtrace' exists; use --force to replace it$" "$T/with.err" ||
	fail "-o existing: unexpected message: $(cat "$T/with.err")"
[ -s "$T/with.out" ] && fail "-o existing: the program ran: $(cat "$T/with.out")"
[ "$(cat "$WD/keep.gtrace")" = "old trace" ] || fail "-o existing: the file was changed"
note "-o existing: refused, file untouched, program not run"

# A symlink at the name is refused the same way (never followed to its target).
printf 'target\n' >"$WD/target"
ln -s target "$WD/link.gtrace"
run with "" $REC -o link.gtrace -- "$PLAIN" return 0
[ "$(cat "$T/with.rc")" = 2 ] || fail "-o symlink: status $(cat "$T/with.rc"), expected 2"
[ "$(cat "$WD/target")" = target ] || fail "-o symlink: the target was changed"
note "-o symlink: refused"

run with "" $REC --force -o keep.gtrace -- "$PLAIN" return 3
[ "$(cat "$T/with.rc")" = 3 ] || fail "--force: status $(cat "$T/with.rc"), expected 3"
grep -q 'plain: stdout line 1' "$T/with.out" || fail "--force: the program did not run"
if [ -e "$WD/keep.gtrace" ]; then
	[ "$(cat "$WD/keep.gtrace")" = "old trace" ] && fail "--force: the old file is still there"
fi
[ -e "$WD/keep.1.gtrace" ] && fail "--force: a numbered name was used instead of replacing"
run with "" $REC --force -o link.gtrace -- "$PLAIN" return 0
[ "$(cat "$T/with.rc")" = 2 ] || fail "-f over a symlink: status $(cat "$T/with.rc"), expected 2"
[ "$(wc -l <"$T/with.err")" -eq 1 ] || fail "-f over a symlink: expected one line: $(cat "$T/with.err")"
grep -q "^gputrace: 'link.gtrace' is a symbolic link; gputrace neither follows nor removes one (--force included): name a file$" \
	"$T/with.err" || fail "-f over a symlink: unexpected message: $(cat "$T/with.err")"
[ -L "$WD/link.gtrace" ] || fail "-f over a symlink: the link was removed"
[ "$(cat "$WD/target")" = target ] || fail "-f over a symlink: the target was changed"
[ -s "$T/with.out" ] && fail "-f over a symlink: the program ran"
note "--force: the old file is replaced; a symlink is refused even so, link and target untouched"

# Only a regular file is ever removed, --force included. Nodes of our own, in the test's folder.
if mknod "$WD/null" c 1 3 2>/dev/null && mknod "$WD/blk" b 7 200 2>/dev/null; then
	run with "" $REC --force -o null -- "$PLAIN" return 5
	[ "$(cat "$T/with.rc")" = 5 ] || fail "-f over a character device: status $(cat "$T/with.rc"), expected 5: $(cat "$T/with.err")"
	[ -c "$WD/null" ] || fail "-f over a character device: the node was removed or replaced"
	[ -e "$WD/null.1" ] && fail "-f over a character device: null.1 was made beside it"
	grep -q "exists\|replace" "$T/with.err" && fail "-f over a character device: $(cat "$T/with.err")"
	note "-f -o NODE (a character device, 1,3 as /dev/null): left in place, nothing made beside it, the program runs"
	run with "" $REC --force -o blk -- "$PLAIN" return 0
	[ "$(cat "$T/with.rc")" = 2 ] || fail "-f over a block device: status $(cat "$T/with.rc"), expected 2"
	grep -q "^gputrace: 'blk' is a block device; a trace goes only to a regular file, a character device or a FIFO$" \
		"$T/with.err" || fail "-f over a block device: unexpected message: $(cat "$T/with.err")"
	[ -b "$WD/blk" ] || fail "-f over a block device: the node was removed"
	note "-f -o BLOCKDEV: refused in one line, the node left alone, the program not run"
else
	echo "skip: device node cells: mknod is not allowed here (not root, or a nodev mount)"
fi
mkfifo "$WD/fifo" || fail "mkfifo failed"
run with "" $REC --force -o fifo -- "$PLAIN" return 0
[ "$(cat "$T/with.rc")" = 0 ] || fail "-f over a FIFO: status $(cat "$T/with.rc"): $(cat "$T/with.err")"
[ -p "$WD/fifo" ] || fail "-f over a FIFO: the FIFO was removed or replaced"
[ -e "$WD/fifo.1" ] && fail "-f over a FIFO: fifo.1 was made beside it"
note "-f -o FIFO: left in place, nothing made beside it"

# A newline in the path: shown as \n, one line.
nl='
'
printf 'old\n' >"$WD/a${nl}b.gtrace"
run with "" $REC -o "a${nl}b.gtrace" -- "$PLAIN" return 0
[ "$(cat "$T/with.rc")" = 2 ] || fail "newline in -o: status $(cat "$T/with.rc"), expected 2"
[ "$(wc -l <"$T/with.err")" -eq 1 ] || fail "newline in -o: expected one line: $(cat "$T/with.err")"
grep -q "^gputrace: 'a\\\\nb.gtrace' exists; use --force to replace it$" "$T/with.err" ||
	fail "newline in -o: unexpected message: $(cat "$T/with.err")"
note "a newline in -o FILE: shown as a visible escape, one line"
exit 0
