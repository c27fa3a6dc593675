#!/bin/sh
# gpuanalyze bandwidth, byte for byte, on a small synthetic trace of copies whose rates
# test_analyze_bandwidth.c checks against NumPy (build/tests/test_analyze_bandwidth writes it,
# with a peaks file in the format `gputrace peak` appends to): text with --peaks, Markdown with
# $GPUTRACE_PEAKS naming a file that does not exist, CSV, JSON; the input errors (exit 2, one
# line); the default place of the peaks file ($XDG_CACHE_HOME/gputrace/peaks where that is an
# absolute path, else ~/.cache/gputrace/peaks); and, on the real sample recordings, that every format runs and the JSON parses. To accept
# a deliberate change, run the commands below by hand where 'test_analyze_bandwidth write .' wrote
# the files, and review the diff.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
W="$build/tests/test_analyze_bandwidth"
EXPECTED="$here/expected"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$W" ] || fail "no trace writer at $W"
T=$(mktemp -d /tmp/gt_cli_bw_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
. "$root/tests/cli/golden.sh"
"$W" write "$T" || fail "cannot write the files"
cd "$T" || fail "cd $T"
# No measured peaks from wherever the person running the tests keeps theirs.
export GPUTRACE_PEAKS="$T/no-peaks-here"
export HOME="$T"


check bandwidth_copies.txt "$G" bandwidth --peaks peaks copies.gtrace
GPUTRACE_PEAKS=nothere check bandwidth_copies.md "$G" bandwidth --format md copies.gtrace
check bandwidth_copies.csv "$G" bandwidth --format csv --peaks peaks copies.gtrace
GPUTRACE_PEAKS=peaks check bandwidth_copies.json "$G" bandwidth --format json copies.gtrace

# Without $GPUTRACE_PEAKS: the XDG cache (an absolute XDG_CACHE_HOME only), else ~/.cache.
mkdir -p "$T/xdg/gputrace" && cp peaks "$T/xdg/gputrace/peaks" || fail "cannot place the XDG peaks"
GPUTRACE_PEAKS= XDG_CACHE_HOME="$T/xdg" "$G" bandwidth --format csv copies.gtrace >"$T/xdg.csv" 2>"$T/err" ||
	fail "bandwidth with XDG_CACHE_HOME exits $?: $(cat "$T/err")"
"$G" bandwidth --format csv --peaks peaks copies.gtrace | cmp -s - "$T/xdg.csv" ||
	fail "bandwidth did not read \$XDG_CACHE_HOME/gputrace/peaks as --peaks would"
GPUTRACE_PEAKS= XDG_CACHE_HOME="$T/xdg-none" "$G" bandwidth copies.gtrace >"$T/out" 2>&1
grep -qF "no measured peaks: $T/xdg-none/gputrace/peaks does not exist" "$T/out" ||
	fail "bandwidth does not look in \$XDG_CACHE_HOME: $(grep 'measured peaks' "$T/out")"
GPUTRACE_PEAKS= XDG_CACHE_HOME=relative "$G" bandwidth copies.gtrace >"$T/out" 2>&1
grep -qF "no measured peaks: $T/.cache/gputrace/peaks does not exist" "$T/out" ||
	fail "bandwidth does not ignore a relative XDG_CACHE_HOME: $(grep 'measured peaks' "$T/out")"

error 2 "gpuanalyze: cannot read peaks file 'missing-peaks': No such file or directory" \
	"$G" bandwidth --peaks missing-peaks copies.gtrace
error 2 "gpuanalyze: cannot open trace 'missing.gtrace': No such file or directory" "$G" bandwidth missing.gtrace

# Only a regular file of at most 1 MiB is read as peaks: a FIFO (which would wait for a writer
# forever), /dev/urandom (which never ends) and a larger file are left out with one warning line,
# from $GPUTRACE_PEAKS and --peaks alike, in bandwidth and in report. timeout stops a hang.
mkfifo "$T/fifo" || fail "mkfifo"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' > "$T/big-peaks" || fail "cannot write a large peaks file"
for p in "$T/fifo" /dev/urandom "$T/big-peaks"; do
	why="not a regular file"
	[ "$p" = "$T/big-peaks" ] && why="larger than the 1 MiB a peaks file may hold"
	for how in env opt report; do
		case $how in
		env) GPUTRACE_PEAKS=$p timeout 60 "$G" bandwidth copies.gtrace > "$T/out" 2> "$T/err" ;;
		opt) timeout 60 "$G" bandwidth --peaks "$p" copies.gtrace > "$T/out" 2> "$T/err" ;;
		report) GPUTRACE_PEAKS=$p timeout 60 "$G" report copies.gtrace > "$T/out" 2> "$T/err" ;;
		esac
		rc=$?
		[ $rc -eq 0 ] || fail "$how with peaks '$p': exit $rc: $(cat "$T/err")"
		[ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF "gpuanalyze: warning: peaks file '$p' " "$T/err" &&
			grep -qF "not read: $why; measured peaks left out" "$T/err" ||
			fail "$how with peaks '$p': not one warning line: $(cat "$T/err")"
		grep -q "measured peaks from" "$T/out" && fail "$how with peaks '$p': peaks were read"
	done
done
error 2 "gpuanalyze: bandwidth: option '--format' wants one of text|md|json|csv, not 'junit' (see 'gpuanalyze bandwidth --help')" \
	"$G" bandwidth --format junit copies.gtrace

for f in "$root"/traces/samples/*.gtrace; do
	[ -f "$f" ] || continue
	for fmt in text md csv json; do
		"$G" bandwidth --format $fmt "$f" >"$T/out" 2>"$T/err" || fail "bandwidth --format $fmt $f exits $?: $(cat "$T/err")"
	done
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/out" || fail "bandwidth --format json $f: not JSON"
	fi
done
exit 0
