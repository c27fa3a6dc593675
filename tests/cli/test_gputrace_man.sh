#!/bin/sh
# gputrace(1) and `gputrace --help` agree: every GPUTRACE_* variable that --help lists has an entry
# in the man page's ENVIRONMENT that opens "NAME (default VALUE)" with the same default ("(none)"
# in --help is "none" in the page), every variable the page documents that way is one --help
# lists, every option --help shows appears in the page, and the SYNOPSIS has every command of the
# usage, and every exit status that --help states for record and peak is in the page's EXIT STATUS
# (the reverse too, for the ones the page gives record and peak). Where groff is installed, the
# page also formats without a warning.
. tests/cli/progs/common.sh
need_gputrace
MAN=$ROOT/man/gputrace.1
[ -f "$MAN" ] || fail "no $MAN"

"$GPUTRACE" --help >"$T/help" 2>&1 || fail "gputrace --help failed: $(cat "$T/help")"

# The page's source as plain text: no comments, no font changes, roff's escapes for - ' and so on
# undone, so that it can be compared with what --help prints.
sed -e '/^\.\\"/d' \
    -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' \
    -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(em/--/g' -e 's/\\(lq/"/g' -e 's/\\(rq/"/g' \
    -e 's/\\&//g' -e 's/\\e/\\/g' "$MAN" >"$T/man.txt"

# Variables: --help prints "  NAME   default VALUE" and then the meaning on the next line.
n=0
sed -n 's/^  \(GPUTRACE_[A-Z0-9_]*\) *default \(.*[^ ]\) *$/\1 \2/p' "$T/help" >"$T/vars"
[ -s "$T/vars" ] || fail "no variables found in gputrace --help"
while read -r var def; do
	[ "$def" = "(none)" ] && def=none
	grep -qxF "$var (default $def)" "$T/man.txt" ||
		fail "$var: gputrace --help says default '$def'; the man page has: $(grep "^$var (default" "$T/man.txt" || echo 'no entry')"
	n=$((n + 1))
done <"$T/vars"
note "$n variables of gputrace --help documented in gputrace(1) with the same default"

# And the other way: no variable documented with a default that --help does not list (a stale
# entry), apart from GPUTRACE_REPORT, which the launcher sets and the page describes separately.
sed -n 's/^\(GPUTRACE_[A-Z0-9_]*\) (default .*)$/\1/p' "$T/man.txt" >"$T/manvars"
while read -r var; do
	grep -q "^  $var " "$T/help" || fail "gputrace(1) documents $var, which gputrace --help does not list"
done <"$T/manvars"
note "every variable entry of gputrace(1) is in gputrace --help"

# Options: every -x and --long-name on an option line of --help ("  -o, --output FILE  ...").
grep -E '^ +-' "$T/help" | sed -e 's/^ *//' -e 's/   .*//' | grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' | sort -u >"$T/opts"
[ -s "$T/opts" ] || fail "no options found in gputrace --help"
m=0
while read -r opt; do
	grep -qE -- "(^|[^a-zA-Z-])$opt([^a-zA-Z-]|\$)" "$T/man.txt" ||
		fail "option $opt of gputrace --help is not in gputrace(1)"
	m=$((m + 1))
done <"$T/opts"
note "$m options of gputrace --help in gputrace(1): $(tr '\n' ' ' <"$T/opts")"

# Commands of the usage lines are in the SYNOPSIS.
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$T/man.txt" >"$T/synopsis"
for cmd in $(sed -n 's/^ *\(usage:\)\{0,1\} *gputrace \([a-z][a-z]*\) .*/\2/p' "$T/help" | sort -u); do
	grep -q "^gputrace $cmd" "$T/synopsis" || fail "the SYNOPSIS lacks 'gputrace $cmd'"
done
grep -q -- "--help" "$T/synopsis" || fail "the SYNOPSIS lacks --help"
grep -q -- "-V" "$T/synopsis" || fail "the SYNOPSIS lacks -V"
note "SYNOPSIS has every command of the usage"

# Exit statuses: the numbers of "Exit status of CMD: ..." in --help against the page's paragraph
# on CMD in EXIT STATUS (the signal examples, 128 plus a signal's number, aside).
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$T/man.txt" >"$T/exit.man"
for cmd in record peak; do
	awk -v want="Exit status of $cmd:" 'index($0, want) == 1 { on = 1 } on && (/^$/ || (/^Exit status of / && index($0, want) != 1)) { exit } on { print }' "$T/help" |
		grep -oE '(^|[ (;])[0-9]+( |$)' | tr -dc '0-9\n' | sort -un >"$T/exit.help.$cmd"
	[ -s "$T/exit.help.$cmd" ] || fail "gputrace --help states no exit status for $cmd"
	awk -v cmd="$cmd" '/^\.B gputrace / { on = ($3 == cmd) } on' "$T/exit.man" | tr '\n' ' ' |
		sed 's/([^)]*signal[^)]*)//g' | grep -oE '(^|[ (])[0-9]+[ ,)]' | tr -dc '0-9\n' | sort -un >"$T/exit.man.$cmd"
	cmp -s "$T/exit.help.$cmd" "$T/exit.man.$cmd" ||
		fail "exit statuses of $cmd: --help states $(tr '\n' ' ' <"$T/exit.help.$cmd"), gputrace(1) $(tr '\n' ' ' <"$T/exit.man.$cmd")"
done
note "EXIT STATUS states the statuses of --help: record $(tr '\n' ' ' <"$T/exit.help.record"), peak $(tr '\n' ' ' <"$T/exit.help.peak")"

if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$MAN" >"$T/groff" 2>&1 || fail "groff failed on gputrace.1"
	[ -s "$T/groff" ] && fail "groff warns about gputrace.1: $(cat "$T/groff")"
	note "groff -man -ww -z: silent"
fi
exit 0
