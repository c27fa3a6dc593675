#!/bin/sh
# `-` as a trace operand reads the trace from standard input: through a pipe (copied into memory,
# since the reader takes only a regular file, which it may rewind) and through a redirect (the file
# itself, opened again), the output is byte for byte that of the named file, for summary, dump,
# bandwidth, split, findings, info and diff (one side); `-` twice
# is a usage error, and an empty input is the error of an empty file (exit 2, one line each); a
# stream is checked header by header as it comes, and not held past the first bad one.
# Outputs that name the trace (info, findings, split's JSON) name it by the path it was read
# through, and are compared with that path written as TRACE.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
S="$root/traces/samples/h200-splat_render.gtrace"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -f "$S" ] || fail "no sample trace $S"
T=$(mktemp -d /tmp/gt_cli_stdin_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
export GPUTRACE_PEAKS="$T/no-peaks" HOME="$T"

# same LABEL ARGS...: "$G" ARGS with FILE for the trace, then with - from a pipe and a redirect.
same() {
	label=$1
	shift
	"$G" "$@" "$S" >"$T/file.out" 2>"$T/file.err" || fail "$label FILE exits $?: $(cat "$T/file.err")"
	cat "$S" | "$G" "$@" - >"$T/pipe.out" 2>"$T/pipe.err" || fail "$label - (pipe) exits $?: $(cat "$T/pipe.err")"
	"$G" "$@" - <"$S" >"$T/redir.out" 2>"$T/redir.err" || fail "$label - (redirect) exits $?: $(cat "$T/redir.err")"
	for f in file pipe redir; do
		sed -e "s|$S|TRACE|g" -e 's|/proc/self/fd/[0-9]*|TRACE|g' -e 's|/dev/stdin|TRACE|g' "$T/$f.out" >"$T/$f.tmp" &&
			mv "$T/$f.tmp" "$T/$f.out" || fail "sed"
	done
	cmp -s "$T/file.out" "$T/pipe.out" || fail "$label: the trace from a pipe gives other output than the file"
	cmp -s "$T/file.out" "$T/redir.out" || fail "$label: the trace from a redirect gives other output than the file"
	[ -s "$T/file.out" ] || fail "$label: no output"
	echo "ok: $label: the same $(wc -c <"$T/file.out") bytes from FILE, a pipe and a redirect"
}
same "summary" summary --format csv
same "dump" dump --format csv
same "bandwidth" bandwidth --format csv
same "split" split --format json
same "findings" findings --format json --output -
same "info" info
same "diff FILE -" diff --format csv "$S"

# Usage and input errors: one line, exit 2, nothing on standard output.
"$G" summary - - <"$S" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "'- -': exit $rc"
[ "$(cat "$T/err")" = "gpuanalyze: summary: standard input ('-') can be given once (see 'gpuanalyze summary --help')" ] ||
	fail "'- -': '$(cat "$T/err")'"
[ -s "$T/out" ] && fail "'- -' wrote to standard output"
: | "$G" summary - >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "empty standard input: exit $rc"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "empty standard input: not one line: $(cat "$T/err")"
grep -q "^gpuanalyze: cannot open trace '/proc/self/fd/[0-9]*': empty or truncated before its header" "$T/err" ||
	fail "empty standard input: '$(cat "$T/err")'"
echo "ok: '- -' and an empty standard input: exit 2, one line"

# A stream is checked as it comes: what is not a trace is refused at its first 32 bytes, and a
# trace followed by what is not a chunk at that chunk's header, without holding the rest (the
# writer, 64 MiB behind, never finishes: it is stopped by the closed pipe). The words are those of
# the same bytes in a file.
head -c 33 /dev/zero > "$T/zeros" && cat "$S" "$T/zeros" > "$T/trailing.gtrace" || fail "cannot write the inputs"
for what in zeros trailing; do
	rm -f "$T/all-written"
	if [ $what = zeros ]; then
		(head -c 67108864 /dev/zero && touch "$T/all-written") | "$G" summary - > /dev/null 2> "$T/err"
		"$G" summary "$T/zeros" > /dev/null 2> "$T/file.err"
	else
		(cat "$S" && head -c 67108864 /dev/zero && touch "$T/all-written") | "$G" summary - > /dev/null 2> "$T/err"
		"$G" summary "$T/trailing.gtrace" > /dev/null 2> "$T/file.err"
	fi
	[ -f "$T/all-written" ] && fail "$what: the whole 64 MiB stream was read before its headers were checked"
	[ "$(wc -l < "$T/err")" -eq 1 ] || fail "$what from a pipe: not one line: $(cat "$T/err")"
	sed "s|'/proc/self/fd/[0-9]*'|TRACE|" "$T/err" > "$T/err.1" && sed "s|'$T/[a-z.]*'|TRACE|" "$T/file.err" > "$T/err.2" ||
		fail sed
	cmp -s "$T/err.1" "$T/err.2" || fail "$what: a pipe says '$(cat "$T/err.1")', the file '$(cat "$T/err.2")'"
done
echo "ok: a stream that is not a trace is refused at its first header, with the words of a file"
exit 0
