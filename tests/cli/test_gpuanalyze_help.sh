#!/bin/sh
# gpuanalyze's help and its man page agree: every command's synopsis, the first line of
# `gpuanalyze CMD --help`, appears verbatim in man/gpuanalyze.1 (as git's help test does), so
# the two cannot drift. Also: --version's form (and -V, the same), --help's command list and the
# page's NAME line naming every command, one spelling of the shared options in every command
# (-f/--format, -o/--output), percentages that say their unit, the exit statuses of --help and of
# the page's EXIT STATUS (the same set), exit statuses of usage errors (2), and that the man page
# renders without a groff warning.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
G="${GT_BUILD:-build}/gpuanalyze"
MAN="$root/man/gpuanalyze.1"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
command -v groff >/dev/null 2>&1 || { echo "groff is not installed: cannot render the man page"; exit 77; }

warnings=$(groff -man -ww -z "$MAN" 2>&1)
[ -z "$warnings" ] || fail "groff warns about $MAN: $warnings"
# One long line per synopsis: no filling, no hyphenation, no overstriking.
rendered=$(LC_ALL=C groff -man -Tascii -P-cbou -rLL=400n "$MAN" 2>/dev/null)
[ -n "$rendered" ] || fail "$MAN renders to nothing"

"$G" --version | grep -Eq '^gpuanalyze [0-9]+\.[0-9]+\.[0-9]+ \(trace format [0-9]+\.[0-9]+\)$' ||
	fail "--version: '$("$G" --version)'"

[ "$("$G" -V)" = "$("$G" --version)" ] || fail "-V prints '$("$G" -V)', --version '$("$G" --version)'"

cmds=$("$G" --help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 && $1 != "commands:" { print $1 }')
[ -n "$cmds" ] || fail "--help lists no commands"
# NAME: everything between .SH NAME and the next .SH, as one line.
name=$(sed -n '/^\.SH NAME/,/^\.SH /p' "$MAN" | sed -e '1d' -e '$d' | tr '\n' ' ')
for c in $cmds; do
	printf '%s\n' "$name" | grep -Eq "(^|[ :,])$c(,|\$| )" || fail "the NAME line of $MAN does not list '$c': $name"
done
for c in $cmds; do
	help=$("$G" "$c" --help) || fail "'gpuanalyze $c --help' exits $?"
	syn=$(printf '%s\n' "$help" | head -n 1 | sed 's/^usage: //')
	case $syn in "gpuanalyze $c"*) ;; *) fail "'gpuanalyze $c --help' starts with '$syn'" ;; esac
	printf '%s\n' "$rendered" | grep -Fq -- "$syn" ||
		fail "the synopsis of '$c' is not in $MAN: $syn"
	printf '%s\n' "$rendered" | grep -Eq "^   $c\$" || fail "$MAN has no subsection for '$c'"
	[ "$("$G" help "$c")" = "$help" ] || fail "'gpuanalyze help $c' differs from '$c --help'"
	# The shared options, with both spellings wherever they are offered.
	if printf '%s\n' "$help" | grep -q -- '--format'; then
		printf '%s\n' "$help" | grep -q '^  -f, --format ' || fail "'$c' has --format without -f"
	fi
	if printf '%s\n' "$help" | grep -q -- '--output'; then
		printf '%s\n' "$help" | grep -q '^  -o, --output FILE ' || fail "'$c' has --output without -o"
	fi
	printf '%s\n' "$help" | grep -Eq '^  -o FILE|^  --gzip|^  -z ' && fail "'$c' has a short or long option without its other spelling"
	if printf '%s\n' "$help" | grep -q -- '--threshold'; then
		printf '%s\n' "$help" | grep -q -- '--threshold PCT%' || fail "'$c': --threshold does not say its unit"
	fi
done

# Exit statuses: the numbers that --help names are those the page's EXIT STATUS lists.
help_codes=$("$G" --help | sed -n 's/^Exit status: //p' | grep -oE '(^| )[0-9]+ ' | tr -d ' ' | sort -u | tr '\n' ' ')
man_codes=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$MAN" | sed -n '/^\.TP/{n;s/^\.B \([0-9]*\)$/\1/p;}' | sort -u | tr '\n' ' ')
[ -n "$help_codes" ] || fail "--help names no exit status"
[ "$help_codes" = "$man_codes" ] || fail "exit statuses: --help names '$help_codes', $MAN lists '$man_codes'"

# Usage errors: status 2 and one line.
err=$("$G" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "no command: exit $rc"
err=$("$G" frobnicate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "unknown command: exit $rc"
[ "$err" = "gpuanalyze: unknown command 'frobnicate' (see 'gpuanalyze --help')" ] || fail "unknown command: '$err'"
err=$("$G" --frobnicate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc"
exit 0
