#!/bin/sh
# gpuanalyze and gputrace share one command-line grammar (common/cli.h), checked from outside:
#   - every subcommand of both tools takes -h, --help, -V and --version: exit 0, its text on stdout,
#     nothing on stderr; -V and --version print the tool's own version line;
#   - a short letter means the same option everywhere: over the --help of every subcommand of both
#     tools, each "-x, --long" pair names one long option per letter;
#   - a usage error has one shape in both tools: exactly one line on stderr,
#     "TOOL: CMD: unknown option '--no-such-option' (see 'TOOL CMD --help')" (and the same shape
#     for an option without its value), nothing on stdout, exit status 2;
#   - the aliases the grammar keeps work (record/replay --kernels, report --shadow) and the letters
#     it freed are refused (gputrace's -f is not --force), report takes --format md only.
# No GPU and no trace needed: everything stops at the parser.
. tests/cli/progs/common.sh
need_gputrace
GA=$B/gpuanalyze
[ -x "$GA" ] || fail "$GA not built"

# commands TOOL: the subcommands that TOOL --help lists.
commands() {
	case $1 in
	gpuanalyze) "$GA" --help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 && $1 != "commands:" { print $1 }' ;;
	gputrace) "$GPUTRACE" --help | sed -n 's/^\(usage:\)\{0,1\} *gputrace \([a-z][a-z]*\) .*/\2/p' | sort -u ;;
	esac
}
bin() { if [ "$1" = gpuanalyze ]; then echo "$GA"; else echo "$GPUTRACE"; fi; }

total=0
for tool in gpuanalyze gputrace; do
	exe=$(bin $tool)
	version=$("$exe" --version)
	cmds=$(commands $tool)
	[ -n "$cmds" ] || fail "$tool --help lists no command"
	for c in $cmds; do
		for opt in -h --help -V --version; do
			"$exe" "$c" "$opt" >"$T/o" 2>"$T/e"
			rc=$?
			[ $rc = 0 ] || fail "$tool $c $opt: exit $rc: $(cat "$T/e")"
			[ -s "$T/e" ] && fail "$tool $c $opt: wrote to stderr: $(cat "$T/e")"
			[ -s "$T/o" ] || fail "$tool $c $opt: nothing on stdout"
			case $opt in
			-V | --version) [ "$(cat "$T/o")" = "$version" ] || fail "$tool $c $opt: '$(cat "$T/o")', not '$version'" ;;
			*) head -n 1 "$T/o" | grep -q "^usage: $tool $c" || fail "$tool $c $opt: $(head -n 1 "$T/o")" ;;
			esac
		done
		"$exe" "$c" --help | grep -q '^  -V, --version ' ||
			fail "$tool $c --help does not list -V, --version"
		# The letters this command's help gives, as "LETTER LONG TOOL CMD" lines.
		"$exe" "$c" --help | sed -n "s/^  -\([A-Za-z]\), --\([a-z][a-z-]*\).*/\1 \2 $tool $c/p" >>"$T/letters"
		# A usage error: one line, its shape, nothing on stdout, exit 2.
		"$exe" "$c" --no-such-option >"$T/o" 2>"$T/e"
		rc=$?
		[ $rc = 2 ] || fail "$tool $c --no-such-option: exit $rc"
		[ -s "$T/o" ] && fail "$tool $c --no-such-option: wrote to stdout: $(cat "$T/o")"
		want="$tool: $c: unknown option '--no-such-option' (see '$tool $c --help')"
		[ "$(cat "$T/e")" = "$want" ] || fail "$tool $c --no-such-option: '$(cat "$T/e")', not '$want'"
		total=$((total + 1))
	done
	note "$tool: $(echo $cmds | wc -w) commands take -h, --help, -V, --version; an unknown option is '$tool: CMD: unknown option ... (see ...)', exit 2"
done

# One meaning per letter across both tools.
[ -s "$T/letters" ] || fail "no '-x, --long' option line in any help"
awk '{ print $1, $2 }' "$T/letters" | sort -u | awk '{ n[$1]++; l[$1] = l[$1] " --" $2 } END { for (k in n) if (n[k] > 1) print "-" k ":" l[k] }' >"$T/clash"
[ -s "$T/clash" ] && fail "a letter with more than one meaning: $(cat "$T/clash")"
note "one meaning per letter over $total commands: $(awk '{ print "-" $1 "=--" $2 }' "$T/letters" | sort -u | tr '\n' ' ')"
# -o is --output in both tools, where a command has it.
grep -q '^o output gpuanalyze' "$T/letters" && grep -q '^o output gputrace' "$T/letters" ||
	fail "-o is not --output in both tools"

# An option without its value: the same shape in both tools.
for pair in "gpuanalyze summary" "gputrace record" "gputrace replay"; do
	set -- $pair
	"$(bin "$1")" "$2" -o >"$T/o" 2>"$T/e"
	rc=$?
	want="$1: $2: option '--output' needs a value (FILE) (see '$1 $2 --help')"
	[ $rc = 2 ] && [ ! -s "$T/o" ] && [ "$(cat "$T/e")" = "$want" ] ||
		fail "$1 $2 -o: exit $rc, '$(cat "$T/e")', not '$want'"
done
note "an option without its value: 'TOOL: CMD: option '--output' needs a value (FILE) (see ...)', exit 2"

# expect_usage LABEL WANT-SUBSTRING CMD...: exit 2 and one line on stderr that holds WANT.
expect_usage() {
	label=$1 want=$2
	shift 2
	"$@" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 2 ] || fail "$label: exit $rc, expected 2: $(cat "$T/e")"
	[ "$(wc -l <"$T/e")" -eq 1 ] || fail "$label: not one line on stderr: $(cat "$T/e")"
	grep -qF -- "$want" "$T/e" || fail "$label: '$(cat "$T/e")' lacks '$want'"
	note "$label: $(cat "$T/e")"
}
# The aliases are parsed (the error is the missing operand that follows, not the option).
expect_usage "record --kernels is --kernel" "missing operand PROGRAM" "$GPUTRACE" record --kernels x
expect_usage "replay --kernels is --kernel" "missing operand TRACE" "$GPUTRACE" replay --kernels x
expect_usage "report --shadow is --ref" "missing operand FILE" "$GA" report --shadow x.so
expect_usage "report --ref" "missing operand FILE" "$GA" report --ref x.so
expect_usage "gputrace record -f is not --force" "unknown option '-f'" "$GPUTRACE" record -f -- true
expect_usage "gputrace replay -f is not --force" "unknown option '-f'" "$GPUTRACE" replay -f x.gtrace
expect_usage "report --format json" "option '--format' wants one of md, not 'json'" "$GA" report --format json x.gtrace
expect_usage "report -f md takes its format" "missing operand FILE" "$GA" report -f md
expect_usage "grouped flags, the last taking a value" "missing operand PROGRAM" "$GPUTRACE" record -qk x
exit 0
