#!/bin/sh
# gputrace's command line: --help (top level and per command) and --version (-V) exit 0 with their
# text on stdout and nothing on stderr; each command's --help is the full one (its options, its
# exit statuses) and its exit statuses are those it gives (127 for a program that cannot be run);
# an unknown command, an unknown option, an option without its value, or `record` without a
# program exit 2 with exactly one "gputrace:" line on stderr and nothing on stdout. No GPU needed.
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
expect_ok "gputrace -V" "^gputrace [0-9][0-9.]* (trace format [0-9]*\.[0-9]*)$" -V

# exit_text CMD: the paragraph "Exit status of CMD: ..." of the help on standard input, up to a
# blank line or the next command's.
exit_text() {
	awk -v want="Exit status of $1:" 'index($0, want) == 1 { on = 1 } on && (/^$/ || (/^Exit status of / && index($0, want) != 1)) { exit } on { print }'
}

# Each command's help is the full one: every option line of `gputrace --help` for it, -h, and its
# exit statuses (the same words as the top-level help).
"$GPUTRACE" --help >"$T/top"
for cmd in record peak; do
	"$GPUTRACE" $cmd --help >"$T/$cmd"
	sed -n "/^$cmd options:/,/^\$/p" "$T/top" | sed -e '1d' -e '/^$/d' >"$T/$cmd.opts"
	[ -s "$T/$cmd.opts" ] || fail "gputrace --help has no '$cmd options:'"
	while IFS= read -r line; do
		grep -qxF -- "$line" "$T/$cmd" || fail "gputrace $cmd --help lacks the option line '$line'"
	done <"$T/$cmd.opts"
	grep -q '^  -h, --help ' "$T/$cmd" || fail "gputrace $cmd --help lacks -h, --help"
	exit_text "$cmd" <"$T/top" >"$T/$cmd.exit"
	[ -s "$T/$cmd.exit" ] || fail "gputrace --help states no exit status of $cmd"
	exit_text "$cmd" <"$T/$cmd" | cmp -s - "$T/$cmd.exit" ||
		fail "gputrace $cmd --help states other exit statuses than gputrace --help"
	note "gputrace $cmd --help: $(wc -l <"$T/$cmd.opts") option lines and the exit statuses of gputrace --help"
done
grep -q 'GPUTRACE_OUTPUT' "$T/record" || fail "gputrace record --help lacks the environment"

# What the help says a program that cannot be run gives, it gives (any library will do: the
# program is never started).
grep -q '127 when the program cannot be run' "$T/record" || fail "record --help does not say 127"
"$GPUTRACE" record -q --lib /dev/null -- "$T/no-such-program" >"$T/o" 2>"$T/e"
rc=$?
[ $rc = 127 ] || fail "a program that cannot be run: exit $rc, record --help says 127: $(cat "$T/e")"
grep -q "^gputrace: cannot run '$T/no-such-program'" "$T/e" || fail "no line saying why: $(cat "$T/e")"
note "a program that cannot be run: 127, as record --help says"

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
