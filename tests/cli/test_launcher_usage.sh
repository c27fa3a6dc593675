#!/bin/sh
# gputrace's command line: --help (top level and per command) and --version exit 0 with their
# text on stdout and nothing on stderr; an unknown command, an unknown option, an option without
# its value, or `record` without a program exit 2 with exactly one "gputrace:" line on stderr and
# nothing on stdout. No GPU needed.
. tests/cli/progs/common.sh
need_gputrace

expect_ok() { # LABEL TEXT-ON-STDOUT ARGS...
	label=$1 text=$2
	shift 2
	"$GPUTRACE" "$@" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 0 ] || fail "$label: exit $rc, expected 0: $(cat "$T/e")"
	grep -q -- "$text" "$T/o" || fail "$label: '$text' not on stdout: $(head -3 "$T/o")"
	[ -s "$T/e" ] && fail "$label: wrote to stderr: $(cat "$T/e")"
	note "$label"
}

expect_usage_error() { # LABEL ARGS...
	label=$1
	shift
	"$GPUTRACE" "$@" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 2 ] || fail "$label: exit $rc, expected 2"
	[ -s "$T/o" ] && fail "$label: wrote to stdout: $(cat "$T/o")"
	n=$(wc -l <"$T/e")
	[ "$n" -eq 1 ] || fail "$label: $n lines on stderr, expected 1: $(cat "$T/e")"
	grep -q '^gputrace: ' "$T/e" || fail "$label: the line does not start with 'gputrace: ': $(cat "$T/e")"
	note "$label: $(cat "$T/e")"
}

expect_ok "gputrace --help" "usage: gputrace record" --help
expect_ok "gputrace -h" "usage: gputrace record" -h
expect_ok "gputrace help" "usage: gputrace record" help
expect_ok "gputrace --help lists the environment" "GPUTRACE_OUTPUT" --help
expect_ok "gputrace record --help" "usage: gputrace record" record --help
expect_ok "gputrace record -h" "usage: gputrace record" record -h
expect_ok "gputrace peak --help" "usage: gputrace peak" peak --help
expect_ok "gputrace --version" "^gputrace [0-9][0-9.]* (trace format [0-9]*\.[0-9]*)$" --version

expect_usage_error "unknown command" frobnicate
expect_usage_error "unknown command that looks like an option" --frobnicate
expect_usage_error "record: unknown long option" record --frobnicate -- true
expect_usage_error "record: unknown long option with a value" record --frobnicate=3 -- true
expect_usage_error "record: unknown short option" record -x -- true
expect_usage_error "record: unknown short option in a cluster" record -qx -- true
expect_usage_error "record: -o without its value" record -o
expect_usage_error "record: --flush-ms without its value" record --flush-ms
expect_usage_error "record: no program" record
expect_usage_error "record: no program after --" record -q --
expect_usage_error "peak: unknown option" peak --frobnicate
expect_usage_error "peak: -o without its value" peak -o

# No arguments at all: the usage, on stderr, and the usage status.
"$GPUTRACE" >"$T/o" 2>"$T/e"
rc=$?
[ $rc = 2 ] || fail "no arguments: exit $rc, expected 2"
grep -q "usage: gputrace record" "$T/e" || fail "no arguments: no usage on stderr"
[ -s "$T/o" ] && fail "no arguments: wrote to stdout"
note "no arguments: usage on stderr, exit 2"
exit 0
