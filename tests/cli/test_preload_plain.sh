#!/bin/sh
# The preload in a plain C program (no CUDA): LD_PRELOAD=libgputrace.so changes nothing the
# program's parent can see. For every way the program can end (return, exit, _exit, abort, a real
# SIGSEGV, raise(SIGSEGV), SIGTERM, SIGKILL, SIGINT, fork, exec, threads) its stdout is
# byte-identical to the run without the preload, its stderr identical apart from "gputrace:" lines,
# and its status (or the signal it died of) the same. Without a driver, the preload says so in
# exactly one line and writes no trace.
. tests/cli/progs/common.sh
need_lib
PLAIN=$(prog plain) || fail "cannot build the plain test program"
if has_driver; then driver=1; else driver=0; fi

for how in return exit _exit abort segv raise-segv sigterm sigkill sigint fork threads exec; do
	same_as_bare "plain $how" "LD_PRELOAD=$LIB" "$PLAIN" "$how" 3
	if [ $driver = 0 ]; then
		# One line per program image that loaded the preload: exec starts a second one.
		want=1
		[ "$how" = exec ] && want=2
		n=$(gt_lines "$T/with.err")
		[ "$n" = "$want" ] || fail "plain $how: $n gputrace: lines, expected $want: $(cat "$T/with.err")"
		grep -q '^gputrace: no CUDA driver (.*): nothing will be recorded$' "$T/with.err" ||
			fail "plain $how: no 'no CUDA driver' line: $(cat "$T/with.err")"
		no_traces "plain $how"
	fi
	note "plain $how: status $(cat "$T/with.rc"), output unchanged"
done

# The statuses themselves are what the endings say (so the comparison above compared something).
for pair in "return 3" "exit 3" "_exit 3" "abort 134" "segv 139" "raise-segv 139" "sigterm 143" \
            "sigkill 137" "sigint 130" "fork 3" "threads 3" "exec 3"; do
	set -- $pair
	run with "LD_PRELOAD=$LIB" "$PLAIN" "$1" 3
	[ "$(cat "$T/with.rc")" = "$2" ] || fail "plain $1: status $(cat "$T/with.rc"), expected $2"
done
note "statuses as expected"

# The preload's own line goes to stderr only: stdout of a traced run is the program's alone.
run with "LD_PRELOAD=$LIB" "$PLAIN" return 0
grep -q gputrace "$T/with.out" && fail "a gputrace line on stdout: $(cat "$T/with.out")"
exit 0
