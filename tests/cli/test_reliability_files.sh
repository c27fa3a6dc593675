#!/bin/sh
# How the recorder opens its trace file and reads its settings, with the whole recorder running
# (the stand-in driver of tests/cli/progs/fake_cuda.c). Checked against gputrace(1), FILES and
# ENVIRONMENT; in every case the program's stdout, stderr apart from "gputrace:" lines and exit
# status are those of the run without the recorder:
# - symbolic links are never followed: a link (to a file, or dangling) where the trace would go is
#   left alone, the file it names untouched or not created, and the trace takes the next free name;
# - nothing is clobbered: an existing file keeps its bytes, the trace is run.1.gtrace (a name not
#   ending in .gtrace gets .1); with run.gtrace .. run.999.gtrace all taken, one line and no trace;
# - permissions come from the umask (0666 less it: 022 -> 644, 077 -> 600, 002 -> 664);
# - an output folder that cannot be written (its parent path is a regular file; a read-only mount,
#   in a private mount namespace) is one line, and the program runs untraced;
# - a full disk (a 16 KiB tmpfs in a private mount namespace): one line, recording stops, the program
#   goes on unharmed, and the trace holds what reached the disk, readable, marked incomplete, and
#   gpuanalyze findings says an unknown number of records is lost (never "one flush interval");
#   through the launcher, that one line and nothing more; a disk already full when the trace is
#   opened: one line, and no empty file left behind;
# - nothing is made beside a device node or /dev/stdout: a character device at the name (one made
#   with mknod in the test's folder, 1,3 as /dev/null; the real /dev/null is never touched) is
#   written into directly, with the launcher's --force too, and stays a device node; a FIFO with a
#   reader gets the trace (read back whole), one without a reader is one line; a symbolic link
#   through /proc (to /proc/self/fd/1, and /dev/stdout itself) is one line, nothing created;
# - a newline in the output path is shown as \n: every message stays one "gputrace:" line;
# - an output the recorder cannot create, through the launcher: the recorder's one line, without
#   a false "the program never initialised CUDA";
# - every GPUTRACE_* variable with invalid values: exactly one line naming the variable, the value
#   and the fallback, and the recording goes on with that fallback (seen in the trace's metadata
#   where the trace holds the setting); a value holding a newline or an escape stays one line;
# - %r takes only a decimal number: RANK='../x' or PMI_RANK='a/b' is refused in one line, the next
#   variable (or 0) used, and the trace stays in its folder.
# The mount cells need root and unshare(1); where either is missing they are skipped with the
# reason (the rest of the test still runs).
. tests/cli/progs/common.sh
need_lib
FAKELIB=$(prog fakecuda/libcuda.so.1) || skip "skipped: no CUPTI headers under $CUDA_DIR to build the fake driver"
APP=$(prog fake_app) || fail "cannot build fake_app"
PEEK=$(prog trace_peek) || fail "cannot build trace_peek"
need_gputrace
[ -x "$B/gpuanalyze" ] || fail "$B/gpuanalyze not built"
FAKE="LD_LIBRARY_PATH=$(dirname "$FAKELIB") GPUTRACE_CUPTI_PATH=$FAKELIB"
TRACED="$FAKE LD_PRELOAD=$LIB GPUTRACE_FLUSH_MS=50"

compare() { # LABEL: bare and traced runs agree (stdout, stderr apart from gputrace: lines, status)
	cmp -s "$T/bare.out" "$T/with.out" || fail "$1: stdout differs: $(diff "$T/bare.out" "$T/with.out")"
	grep -v '^gputrace:' "$T/with.err" >"$T/with.err.prog"
	cmp -s "$T/bare.err" "$T/with.err.prog" || fail "$1: stderr differs: $(cat "$T/with.err")"
	[ "$(cat "$T/bare.rc")" = "$(cat "$T/with.rc")" ] ||
		fail "$1: status $(cat "$T/with.rc") traced, $(cat "$T/bare.rc") bare"
}
# traced LABEL EXTRA-ENV: fake_app "return 4 100 0 50", bare and traced (in $WD as it is), compared.
traced() {
	run bare "$FAKE" "$APP" return 4 100 0 50 </dev/null
	run with "$TRACED $2" "$APP" return 4 100 0 50 </dev/null
	compare "$1"
}
fresh() { rm -rf "$WD" && mkdir -p "$WD"; }
peek() { "$PEEK" "$1" >"$T/peek" 2>&1 || fail "cannot read $1: $(cat "$T/peek")"; }
has() { grep -qxF "$1" "$T/peek" || fail "$2: the trace lacks '$1': $(grep -v '^meta [hpt][or]' "$T/peek")"; }
lines() { [ "$(gt_lines "$T/with.err")" = "$1" ] || fail "$2: expected $1 gputrace: lines: $(cat "$T/with.err")"; }
line_is() { grep -q "$1" "$T/with.err" || fail "$2: no line matching '$1': $(cat "$T/with.err")"; }

# ---- symbolic links -------------------------------------------------------------------------
fresh
printf 'victim\n' >"$T/victim"
ln -s "$T/victim" "$WD/run.gtrace"
traced "symlink to a file" "GPUTRACE_OUTPUT=run.gtrace"
[ "$(cat "$T/victim")" = victim ] || fail "symlink to a file: the file it names was changed"
[ -L "$WD/run.gtrace" ] || fail "symlink to a file: the link was replaced"
peek "$WD/run.1.gtrace"
has "kernels 150" "symlink to a file"
note "a symbolic link where the trace goes is not followed: the file it names is untouched, the trace is run.1.gtrace"

fresh
ln -s "$T/not-there" "$WD/run.gtrace"
traced "dangling symlink" "GPUTRACE_OUTPUT=run.gtrace"
[ -e "$T/not-there" ] && fail "dangling symlink: the recorder created the file the link names"
peek "$WD/run.1.gtrace"
has "kernels 150" "dangling symlink"
note "a dangling symbolic link is not followed either: nothing created through it, the trace is run.1.gtrace"

# ---- no clobbering --------------------------------------------------------------------------
fresh
printf 'precious\n' >"$WD/run.gtrace"
traced "existing file" "GPUTRACE_OUTPUT=run.gtrace"
[ "$(cat "$WD/run.gtrace")" = precious ] || fail "existing file: its bytes changed"
peek "$WD/run.1.gtrace"
has "kernels 150" "existing file"
fresh
printf 'precious\n' >"$WD/trace.out"
traced "existing file, other suffix" "GPUTRACE_OUTPUT=trace.out"
[ "$(cat "$WD/trace.out")" = precious ] || fail "existing trace.out: its bytes changed"
peek "$WD/trace.out.1"
has "kernels 150" "existing trace.out"
note "an existing file keeps its bytes; the trace takes run.1.gtrace (trace.out.1 for another suffix)"

fresh
: >"$WD/run.gtrace"
i=1
while [ $i -le 999 ]; do : >"$WD/run.$i.gtrace"; i=$((i + 1)); done
traced "1000 names taken" "GPUTRACE_OUTPUT=run.gtrace"
lines 1 "1000 names taken"
line_is "^gputrace: cannot create the trace file for 'run.gtrace': File exists; the program runs untraced$" "1000 names taken"
[ "$(ls "$WD" | wc -l)" = 1000 ] || fail "1000 names taken: a file was added: $(ls "$WD" | wc -l) files"
[ -s "$WD/run.999.gtrace" ] && fail "1000 names taken: run.999.gtrace was written"
note "run.gtrace .. run.999.gtrace all taken: one line, no trace, the program unchanged"

# ---- permissions from the umask ---------------------------------------------------------------
for pair in "022 644" "077 600" "002 664" "027 640"; do
	set -- $pair
	fresh
	(umask "$1" && cd "$WD" && exec env $TRACED GPUTRACE_OUTPUT=run.gtrace "$APP" return 0 10 0 0) \
		>"$T/with.out" 2>"$T/with.err" || fail "umask $1: the program failed: $(cat "$T/with.err")"
	mode=$(stat -c %a "$WD/run.gtrace") || fail "umask $1: no trace"
	[ "$mode" = "$2" ] || fail "umask $1: the trace has mode $mode, expected $2"
done
note "permissions: 0666 less the umask (022 -> 644, 077 -> 600, 002 -> 664, 027 -> 640)"

# ---- a folder that cannot be written ----------------------------------------------------------
# Root ignores permission bits, so the folder is made unwritable in ways root cannot ignore.
fresh
: >"$T/plainfile"
traced "parent is a file" "GPUTRACE_OUTPUT=$T/plainfile/run.gtrace"
lines 1 "parent is a file"
line_is "^gputrace: cannot create the trace file for '$T/plainfile/run.gtrace': Not a directory; the program runs untraced$" \
	"parent is a file"
note "an output path under a regular file: one line, untraced"

traced "under /proc" "GPUTRACE_OUTPUT=/proc/gputrace-test/run.gtrace"
lines 1 "under /proc"
line_is "^gputrace: cannot create the trace file for '/proc/gputrace-test/run.gtrace': .*; the program runs untraced$" \
	"under /proc"
note "an output path under /proc: $(sed -n 's/.*run.gtrace.: \(.*\); the program.*/\1/p' "$T/with.err"), one line, untraced"

# ---- not a place for numbered names: device nodes, FIFOs, /dev/stdout ----------------------------
fresh
if mknod "$WD/null" c 1 3 2>/dev/null; then
	traced "character device" "GPUTRACE_OUTPUT=null"
	lines 1 "character device"
	line_is "^gputrace: trace written to 'null': 150 kernels" "character device"
	[ -c "$WD/null" ] || fail "character device: the node was replaced"
	[ "$(ls "$WD")" = null ] || fail "character device: files made beside it: $(ls "$WD")"
	run with "$FAKE GPUTRACE_FLUSH_MS=50" "$GPUTRACE" record --lib "$LIB" --force -o null -- "$APP" return 4 100 0 50 </dev/null
	compare "launcher --force -o NODE"
	lines 1 "launcher --force -o NODE"
	line_is "^gputrace: null: 150 kernels, 100 copies" "launcher --force -o NODE"
	[ -c "$WD/null" ] || fail "launcher --force -o NODE: the node was removed or replaced"
	[ "$(ls "$WD")" = null ] || fail "launcher --force -o NODE: files made beside it: $(ls "$WD")"
	note "a character device node (1,3 as /dev/null) at the name: written into, with the launcher's --force too; never removed, nothing beside it"
else
	echo "skip: character device cell: mknod is not allowed here (not root, or a nodev mount)"
fi

fresh
mkfifo "$WD/fifo" || fail "mkfifo failed"
traced "FIFO without a reader" "GPUTRACE_OUTPUT=fifo"
lines 1 "FIFO without a reader"
line_is "^gputrace: cannot create the trace file for 'fifo': a FIFO with no reader; the program runs untraced$" \
	"FIFO without a reader"
[ -p "$WD/fifo" ] && [ "$(ls "$WD")" = fifo ] || fail "FIFO without a reader: $(ls -l "$WD")"
# A reader that is there before the recorder opens the FIFO: the shell holds it open (read and
# write, which never blocks), and cat, without that descriptor, reads until the last writer is gone.
exec 7<>"$WD/fifo"
timeout 60 cat "$WD/fifo" >"$T/fifo.gtrace" 7>&- &
catpid=$!
traced "FIFO with a reader" "GPUTRACE_OUTPUT=fifo"
exec 7>&-
wait $catpid || fail "FIFO with a reader: the reader failed or timed out"
lines 1 "FIFO with a reader"
peek "$T/fifo.gtrace"
has "kernels 150" "FIFO with a reader"
has "complete 1" "FIFO with a reader"
[ -p "$WD/fifo" ] && [ "$(ls "$WD")" = fifo ] || fail "FIFO with a reader: $(ls -l "$WD")"
note "a FIFO: with a reader it carries the whole trace; without one, one line; never replaced"

fresh
ln -s /proc/self/fd/1 "$WD/out"
traced "link to /proc/self/fd/1" "GPUTRACE_OUTPUT=out"
lines 1 "link to /proc/self/fd/1"
line_is "^gputrace: cannot create the trace file for 'out': it leads to one of the program's own open files, as /dev/stdout does; name a file; the program runs untraced$" \
	"link to /proc/self/fd/1"
[ "$(ls "$WD")" = out ] || fail "link to /proc/self/fd/1: files made beside it: $(ls "$WD")"
[ -e /dev/stdout.1 ] && fail "/dev/stdout.1 exists before the test: remove it first"
traced "/dev/stdout" "GPUTRACE_OUTPUT=/dev/stdout"
[ -e /dev/stdout.1 ] && { rm -f /dev/stdout.1; fail "/dev/stdout: /dev/stdout.1 was created"; }
lines 1 "/dev/stdout"
line_is "^gputrace: cannot create the trace file for '/dev/stdout': it leads to one of the program's own open files" "/dev/stdout"
note "a link through /proc (to /proc/self/fd/1, and /dev/stdout): one line, nothing created beside it, the program's output untouched"

# A newline in the output path: escaped in the line, which stays one line (compare checks that no
# line without the prefix reached the program's stderr).
fresh
nl='
'
run bare "$FAKE" "$APP" return 4 100 0 50 </dev/null
(cd "$WD" && exec env $TRACED "GPUTRACE_OUTPUT=a${nl}b.gtrace" "$APP" return 4 100 0 50) </dev/null \
	>"$T/with.out" 2>"$T/with.err"
echo $? >"$T/with.rc"
compare "newline in the path"
lines 1 "newline in the path"
line_is "^gputrace: trace written to 'a\\\\nb.gtrace': 150 kernels" "newline in the path"
peek "$WD/a${nl}b.gtrace"
has "kernels 150" "newline in the path"
(cd "$WD" && exec env $TRACED "GPUTRACE_OUTPUT=$T/plainfile/x${nl}y.gtrace" "$APP" return 4 100 0 50) </dev/null \
	>"$T/with.out" 2>"$T/with.err"
echo $? >"$T/with.rc"
compare "newline in an unwritable path"
lines 1 "newline in an unwritable path"
line_is "^gputrace: cannot create the trace file for '$T/plainfile/x\\\\ny.gtrace': Not a directory; the program runs untraced$" \
	"newline in an unwritable path"
note "a newline in the output path: shown as a visible escape, one line (written, and refused)"

# Through the launcher, an output the recorder cannot create: its one line, and no "the program
# never initialised CUDA" (it did).
fresh
run with "$FAKE" "$GPUTRACE" record --lib "$LIB" -o "$T/plainfile/run.gtrace" -- "$APP" return 4 100 0 50 </dev/null
compare "launcher, unwritable output"
lines 1 "launcher, unwritable output"
line_is "^gputrace: cannot create the trace file for '$T/plainfile/run.gtrace': Not a directory; the program runs untraced$" \
	"launcher, unwritable output"
note "through the launcher, an output it cannot create: the recorder's one line, no false 'never initialised CUDA'"

# in_namespace SETUP CMD...: runs CMD in a private mount namespace after the shell commands
# SETUP; 0 when it ran (CMD's own status goes to $T/ns.rc), 1 when the namespace cannot be made.
can_unshare() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	command -v unshare >/dev/null 2>&1 || { echo "no unshare(1)"; return 1; }
	unshare -m true 2>"$T/unshare.err" || { echo "unshare -m failed: $(head -n 1 "$T/unshare.err")"; return 1; }
	return 0
}
if why=$(can_unshare); then
	# A read-only bind mount of the working folder.
	fresh
	run bare "$FAKE" "$APP" return 4 100 0 50
	(unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" || exit 120
		shift; cd "$0" && exec env "$@"' "$WD" "$WD" $TRACED GPUTRACE_OUTPUT=run.gtrace "$APP" return 4 100 0 50) \
		>"$T/with.out" 2>"$T/with.err"
	echo $? >"$T/with.rc"
	[ "$(cat "$T/with.rc")" = 120 ] && fail "read-only mount: could not mount"
	compare "read-only folder"
	lines 1 "read-only folder"
	line_is "^gputrace: cannot create the trace file for 'run.gtrace': Read-only file system; the program runs untraced$" \
		"read-only folder"
	note "a read-only folder: one line, untraced"

	# A full disk: 16 KiB of tmpfs, 70000 kernels and 50000 copies (about 60 KiB of trace).
	fresh
	run bare "$FAKE" "$APP" return 4 50000 100 20000
	(unshare -m sh -c 'mount -t tmpfs -o size=16k gputrace-test "$1" || exit 120
		shift; cd "$0" && env "$@"; rc=$?; cp "$0"/*.gtrace "$0/../full.gtrace"; exit $rc' \
		"$WD" "$WD" $TRACED GPUTRACE_OUTPUT=run.gtrace "$APP" return 4 50000 100 20000) \
		>"$T/with.out" 2>"$T/with.err"
	echo $? >"$T/with.rc"
	[ "$(cat "$T/with.rc")" = 120 ] && fail "full disk: could not mount a tmpfs"
	compare "full disk"
	lines 1 "full disk"
	line_is "^gputrace: writing trace 'run.gtrace' failed (.*No space left on device); recording stopped, the program goes on$" \
		"full disk"
	peek "$T/full.gtrace"
	has "complete 0" "full disk"
	k=$(sed -n 's/^kernels //p' "$T/peek")
	[ "$k" -gt 0 ] && [ "$k" -lt 70000 ] || fail "full disk: $k kernels in what reached the disk"
	"$B/gpuanalyze" findings "$T/full.gtrace" >"$T/findings" 2>"$T/findings.err" ||
		fail "full disk: gpuanalyze findings failed: $(cat "$T/findings.err")"
	grep -q "trace-incomplete" "$T/findings" || fail "full disk: no trace-incomplete finding: $(cat "$T/findings")"
	grep -q "an unknown number" "$T/findings" || fail "full disk: findings do not say an unknown number is lost"
	grep -qi "flush interval" "$T/findings" && fail "full disk: findings claim a bound: $(grep -i 'flush interval' "$T/findings")"
	note "a full disk: status 4, one line, the program unharmed; the trace keeps $k kernels, readable, incomplete; findings: an unknown number lost"

	# The same through the launcher: the recorder's one line, no tally of counts not on disk.
	fresh
	(unshare -m sh -c 'mount -t tmpfs -o size=16k gputrace-test "$1" || exit 120
		shift; cd "$0" && exec env "$@"' \
		"$WD" "$WD" $FAKE GPUTRACE_FLUSH_MS=50 "$GPUTRACE" record --lib "$LIB" -o run.gtrace -- \
		"$APP" return 4 50000 100 20000) >"$T/with.out" 2>"$T/with.err"
	echo $? >"$T/with.rc"
	[ "$(cat "$T/with.rc")" = 120 ] && fail "full disk, launcher: could not mount a tmpfs"
	compare "full disk, launcher"
	lines 1 "full disk, launcher"
	line_is "^gputrace: writing trace 'run.gtrace' failed (.*No space left on device); recording stopped, the program goes on$" \
		"full disk, launcher"
	note "a full disk through the launcher: the recorder's one line and nothing more"

	# A disk already full when the trace is opened: one line, no empty file left.
	fresh
	run bare "$FAKE" "$APP" return 4 100 0 50
	(unshare -m sh -c 'mount -t tmpfs -o size=16k gputrace-test "$1" || exit 120
		head -c 1048576 /dev/zero >"$1/fill" 2>/dev/null
		shift; cd "$0" && env "$@"; rc=$?; ls -A "$0" >"$0/../left"; exit $rc' \
		"$WD" "$WD" $TRACED GPUTRACE_OUTPUT=run.gtrace "$APP" return 4 100 0 50) \
		>"$T/with.out" 2>"$T/with.err"
	echo $? >"$T/with.rc"
	[ "$(cat "$T/with.rc")" = 120 ] && fail "full at open: could not mount a tmpfs"
	compare "full at open"
	lines 1 "full at open"
	line_is "^gputrace: cannot write the trace 'run.gtrace': input/output error: No space left on device (the file was removed); the program runs untraced$" \
		"full at open"
	[ "$(cat "$T/left")" = fill ] || fail "full at open: left in the folder: $(cat "$T/left")"
	note "a disk full at open: one line, the empty file removed"
else
	echo "skip: read-only folder and full disk cells: $why"
fi

# ---- settings: invalid values, one line each, and the fallback used -------------------------------
# VAR VALUE | the text the line must hold after the value | the trace's META that shows the fallback
long=$(head -c 1100 /dev/zero | tr '\0' 'x')
while IFS='|' read -r var value text meta; do
	[ -n "$var" ] || continue
	fresh
	traced "$var='$value'" "$var=$value"
	n=$(grep -c "^gputrace: .*$var" "$T/with.err")
	[ "$n" = 1 ] || fail "$var='$value': $n lines name it, expected 1: $(cat "$T/with.err")"
	l=$(grep "^gputrace: .*$var" "$T/with.err")
	case $l in *"$text"*) ;; *) fail "$var='$value': the line does not say '$text': $l" ;; esac
	other=$(grep '^gputrace:' "$T/with.err" | grep -v "$var" | grep -v "^gputrace: trace written to ")
	[ -z "$other" ] || fail "$var='$value': other lines: $other"
	set -- "$WD"/*.gtrace
	[ -f "$1" ] || fail "$var='$value': no trace: the recorder must go on with the fallback"
	peek "$1"
	has "kernels 150" "$var='$value'"
	[ -z "$meta" ] || has "meta $meta" "$var='$value'"
	note "$var='$(printf '%.20s' "$value")': one line ($(printf '%.70s' "${l#gputrace: }")...), recorded with the fallback"
done <<EOF
GPUTRACE_FLUSH_MS|abc|using 1000|trace.flush_ms=1000
GPUTRACE_FLUSH_MS|0|using 1000|trace.flush_ms=1000
GPUTRACE_FLUSH_MS|-50|using 1000|trace.flush_ms=1000
GPUTRACE_FLUSH_MS|99999999999999999999999|using 1000|trace.flush_ms=1000
GPUTRACE_FLUSH_MS|0x64|using 1000|trace.flush_ms=1000
GPUTRACE_BUFFER_KB|63|using 4096|trace.buffer_bytes=4194304
GPUTRACE_BUFFER_KB|262145|using 4096|trace.buffer_bytes=4194304
GPUTRACE_BUFFERS_MAX|3|using 256|
GPUTRACE_BUFFERS_MAX|4097|using 256|
GPUTRACE_SAMPLE_MS|5|below 10; using 10|
GPUTRACE_SAMPLE_MS|ten|using 200|
GPUTRACE_LATENCY|2|using 0|trace.latency_timestamps=0
GPUTRACE_EXIT_TIMEOUT_MS|99|using 10000|
GPUTRACE_EXIT_TIMEOUT_MS|600001|using 10000|
GPUTRACE_SHADOW_MAX|0|using 3|
GPUTRACE_SHADOW_BYTES|1TB|using 1073741824|
GPUTRACE_QUIET|yes|using 0|
GPUTRACE_DEBUG|2|using 0|
GPUTRACE_DISABLE|true|using 0|
GPUTRACE_KERNELS|gemm(|recording all kernels|trace.kernel_filter=
GPUTRACE_ACTIVITIES|kernel,memcpy,kernal|unknown kind 'kernal' ignored|trace.activities=kernel,memcpy
GPUTRACE_ACTIVITIES|-kernel,-memcpy,-memset,-runtime,-driver,-sync,-nvtx,-memory,-overhead|leaves nothing to record; using the default|trace.activities=kernel,memcpy,memset,runtime,driver,nvtx,memory
GPUTRACE_OUTPUT|$long|longer than 1023 bytes; using '%n-%p.gtrace'|
EOF

# A value holding a newline (here one that would forge a second gputrace: line, and an escape
# sequence): its message stays one line, the controls shown as \n and \x1b.
for var in GPUTRACE_FLUSH_MS GPUTRACE_KERNELS GPUTRACE_ACTIVITIES GPUTRACE_WINDOW; do
	fresh
	value=$(printf 'x(\ngputrace: trace written to forged.gtrace\033[2J')
	run bare "$FAKE" "$APP" return 4 100 0 50 </dev/null
	(cd "$WD" && exec env LD_LIBRARY_PATH="$(dirname "$FAKELIB")" GPUTRACE_CUPTI_PATH="$FAKELIB" \
		LD_PRELOAD="$LIB" GPUTRACE_FLUSH_MS=50 "$var=$value" "$APP" return 4 100 0 50 </dev/null) \
		>"$T/with.out" 2>"$T/with.err"
	echo $? >"$T/with.rc"
	compare "$var with a newline"
	grep -q 'forged' "$T/with.err" || fail "$var with a newline: the value is not quoted: $(cat "$T/with.err")"
	grep 'forged' "$T/with.err" | grep -q "^gputrace: $var='x(\\\\ngputrace: trace written to forged.gtrace\\\\x1b\\[2J'" ||
		fail "$var with a newline: not one escaped line: $(cat "$T/with.err")"
	[ "$(grep -c 'forged' "$T/with.err")" = 1 ] || fail "$var with a newline: split: $(cat "$T/with.err")"
	grep -q "$(printf '\033')" "$T/with.err" && fail "$var: an escape character reached stderr"
done
note "a newline or an escape in a GPUTRACE_ value: one line, escaped"

# ---- %r: only a decimal number is a rank ----------------------------------------------------------
# A rank becomes part of the path: '../x' or 'a/b' is refused in one line, and the next variable
# (or 0) is used, so the trace stays in its folder.
fresh
mkdir -p "$WD/sub"
traced "RANK=../x" "RANK=../x GPUTRACE_OUTPUT=sub/%r.gtrace"
lines 2 "RANK=../x"
line_is "^gputrace: RANK='\.\./x' is not a rank (a decimal number of at most 9 digits); ignored\$" "RANK=../x"
[ -f "$WD/sub/0.gtrace" ] || fail "RANK=../x: no sub/0.gtrace: $(find "$WD" -name "*.gtrace")"
[ "$(find "$WD" -name "*.gtrace" | wc -l)" = 1 ] || fail "RANK=../x: $(find "$WD" -name "*.gtrace")"
fresh
mkdir -p "$WD/sub"
traced "PMI_RANK=a/b SLURM_PROCID=3" "PMI_RANK=a/b SLURM_PROCID=3 GPUTRACE_OUTPUT=sub/r%r.gtrace"
lines 2 "PMI_RANK=a/b"
line_is "^gputrace: PMI_RANK='a/b' is not a rank" "PMI_RANK=a/b"
[ -f "$WD/sub/r3.gtrace" ] || fail "PMI_RANK=a/b SLURM_PROCID=3: no sub/r3.gtrace: $(find "$T" -name '*.gtrace')"
peek "$WD/sub/r3.gtrace"
has "meta process.rank=3" "PMI_RANK=a/b SLURM_PROCID=3"
fresh
traced "RANK=1234567890" "RANK=1234567890 GPUTRACE_OUTPUT=r%r.gtrace"
line_is "^gputrace: RANK='1234567890' is not a rank" "RANK=1234567890"
[ -f "$WD/r0.gtrace" ] || fail "RANK=1234567890: no r0.gtrace: $(ls "$WD")"
note "a rank that is not a decimal number: one line, and the trace stays in its folder"

# A list of nothing but an unknown kind: the unknown kind and the fallback are said in one line,
# as the issue asks: one line per invalid value.
fresh
traced "GPUTRACE_ACTIVITIES=kernal" "GPUTRACE_ACTIVITIES=kernal"
n=$(grep -c '^gputrace: .*GPUTRACE_ACTIVITIES' "$T/with.err")
case $n in
1) note "GPUTRACE_ACTIVITIES='kernal': one line" ;;
*) fail "GPUTRACE_ACTIVITIES='kernal': $n lines: $(cat "$T/with.err")" ;;
esac
exit 0
