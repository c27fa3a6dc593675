# sqlite_fixture.sh: what the tests that read gpuanalyze's SQLite export share. Sourced (POSIX sh)
# by test_gpuanalyze_stats.sh and test_gpuanalyze_export_sqlite.sh after they set `why` (what the
# sqlite3 command is needed for): sets root, G (the analyzer), fail(), T (a scratch folder removed
# at exit) holding stats.gtrace and deep.gtrace from test_analyze_stats, and exits 77 with the
# reason when the sqlite3 command (Debian package sqlite3) is not installed.
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$build/tests/test_analyze_stats" ] || fail "no trace writer at $build/tests/test_analyze_stats"
command -v sqlite3 >/dev/null 2>&1 || {
	echo "sqlite3 is not installed (Debian package sqlite3): cannot $why"
	exit 77
}
T=$(mktemp -d /tmp/gt_cli_sqlite_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
"$build/tests/test_analyze_stats" write "$T" || fail "cannot write the synthetic traces"
