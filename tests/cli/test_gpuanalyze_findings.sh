#!/bin/sh
# gpuanalyze findings, byte for byte, on synthetic traces that test_analyze_findings.c writes: one
# with planted problems (a pageable async copy, a synchronous copy, a slow first launch, an idle
# gap), a clean one (no finding), one that lost records; text, Markdown and JSON; the exit status:
# 0 whatever the findings, unless --fail-on SEVERITY finds one at least that severe (then 1); usage
# and input errors exit 2 with one line. On the real sample recordings every format runs and the
# JSON parses. To accept a deliberate change, run the commands below by hand where
# 'test_analyze_findings write .' wrote the traces, and review the diff.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
W="$build/tests/test_analyze_findings"
EXPECTED="$here/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$W" ] || fail "no trace writer at $W"
T=$(mktemp -d /tmp/gt_cli_find_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$W" write "$T" || fail "cannot write the traces"
cd "$T" || fail "cd $T"
export GPUTRACE_PEAKS="$T/no-peaks-here"

# check NAME WANT_RC CMD...: standard output equals expected/NAME, that exit status, no stderr.
check() {
	name=$1 want_rc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "'$*' exits $rc, not $want_rc: $(cat "$T/err")"
	[ -s "$T/err" ] && fail "'$*' wrote to stderr: $(cat "$T/err")"
	if [ -n "$name" ] && ! cmp -s "$T/out" "$EXPECTED/$name"; then
		diff -u "$EXPECTED/$name" "$T/out" | head -n 40
		fail "'$*' differs from expected/$name"
	fi
	return 0
}

check findings_planted.txt 0 "$G" findings planted.gtrace
check findings_planted.md 0 "$G" findings --format md planted.gtrace
check findings_planted.json 0 "$G" findings --format json planted.gtrace
check findings_clean.txt 0 "$G" findings clean.gtrace
check findings_lost.txt 0 "$G" findings lost.gtrace
# --fail-on: 1 when a finding of that severity or higher exists
check "" 1 "$G" findings --fail-on warning planted.gtrace
check "" 1 "$G" findings --fail-on info planted.gtrace
check "" 0 "$G" findings --fail-on error planted.gtrace
check "" 1 "$G" findings --fail-on error lost.gtrace
check "" 0 "$G" findings --fail-on info clean.gtrace

"$G" findings --fail-on fatal planted.gtrace >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "--fail-on fatal: exit status"
[ "$(cat "$T/err")" = "gpuanalyze: findings: option '--fail-on' wants one of info|warning|error, not 'fatal' (see 'gpuanalyze findings --help')" ] ||
	fail "--fail-on fatal says '$(cat "$T/err")'"
"$G" findings missing.gtrace >"$T/out" 2>"$T/err"
[ $? -eq 2 ] || fail "missing trace: exit status"
[ "$(cat "$T/err")" = "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" ] ||
	fail "missing trace says '$(cat "$T/err")'"

for f in "$root"/traces/samples/*.gtrace; do
	[ -f "$f" ] || continue
	for fmt in text md json; do
		"$G" findings --format $fmt "$f" >"$T/out" 2>"$T/err" || fail "findings --format $fmt $f exits $?: $(cat "$T/err")"
	done
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/out" || fail "findings --format json $f: not JSON"
	fi
done
exit 0
