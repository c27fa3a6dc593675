#!/bin/sh
# Nothing a user types loses data (docs/RELIABILITY.md; gpuanalyze(1) and gputrace(1) on -o):
# - an output that is the same file as an input (the trace named directly, through a symbolic link,
#   through a hard link, or as standard input) is refused in one line, status 2, for every command
#   that writes one (info, summary, split, dump, findings, stats, report, export in each format),
#   and the trace keeps every byte;
# - a command that fails (a bad trace) leaves an existing -o file as it was; one that succeeds
#   replaces it; either way no temporary file is left in the folder;
# - report that refuses a figure's path leaves its Markdown as it was; export --format sqlite that
#   fails leaves the old database;
# - a new output gets the umask's permissions, a replaced one keeps its own; -o - streams to stdout;
# - report's figure links are percent-encoded: -o 'run 1.md' links run%201-kernels.svg;
# - gputrace peak appends to its peaks file through a copy renamed over it (a fake probe stands in
#   for the GPU): the old lines kept, a failed probe changes nothing, -o naming the probe refused.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
G="$build/gpuanalyze"
FIXTURE="$build/tests/test_analyze_cli_fixture"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$G" ] || fail "no analyzer at $G"
[ -x "$FIXTURE" ] || fail "no fixture writer at $FIXTURE"
T=$(mktemp -d /tmp/gt_atomic_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT
W=$T/w # the folder the outputs go to; messages stay outside it
mkdir "$W" || fail "mkdir"
"$FIXTURE" write "$W" >/dev/null || fail "cannot write the fixtures"
cd "$W" || fail "cd $W"
cp small.gtrace keep.gtrace || fail "cp"
cp "$root/tests/data/bad/bad_file_magic.gtrace" bad.gtrace || fail "no known-bad trace"
ln -s small.gtrace soft.gtrace || fail "ln -s"
ln small.gtrace hard.gtrace || fail "ln"

# listing: the folder's names, hidden ones included (a temporary would be one).
listing() { ls -A | LC_ALL=C sort; }
# refused LABEL OUT CMD...: status 2, exactly one line naming OUT as an input, the trace unchanged,
# nothing new in the folder.
refused() {
	label=$1 out=$2
	shift 2
	before=$(listing)
	"$G" "$@" >"$T/.out" 2>"$T/.err" </dev/null
	rc=$?
	[ $rc = 2 ] || fail "$label: status $rc, want 2: $(cat "$T/.err")"
	[ "$(wc -l <"$T/.err")" = 1 ] || fail "$label: want one line: $(cat "$T/.err")"
	grep -q "^gpuanalyze: cannot write '$out': it is the input '.*', and an output never replaces an input\$" "$T/.err" ||
		fail "$label: $(cat "$T/.err")"
	cmp -s small.gtrace keep.gtrace || fail "$label: the trace changed"
	[ "$(listing)" = "$before" ] || fail "$label: the folder changed: $(listing)"
}
for out in small.gtrace soft.gtrace hard.gtrace ./hard.gtrace "$W/soft.gtrace"; do
	refused "info -o $out" "$out" info small.gtrace -o "$out"
	refused "summary -o $out" "$out" summary small.gtrace -o "$out"
	refused "split -o $out" "$out" split small.gtrace -o "$out"
	refused "dump -o $out" "$out" dump small.gtrace -o "$out"
	refused "findings -o $out" "$out" findings small.gtrace -o "$out"
	refused "stats -o $out" "$out" stats cuda_gpu_kern_sum small.gtrace -o "$out"
	refused "report -o $out" "$out" report small.gtrace -o "$out"
	refused "export -o $out" "$out" export small.gtrace -o "$out"
	refused "export csv -o $out" "$out" export --format csv small.gtrace -o "$out"
	refused "export -z -o $out" "$out" export -z small.gtrace -o "$out"
	refused "export sqlite -o $out" "$out" export --format sqlite small.gtrace -o "$out"
	refused "summary of two, the second -o $out" "$out" summary truncated.gtrace small.gtrace -o "$out"
	refused "report --baseline -o $out" "$out" report truncated.gtrace --baseline small.gtrace -o "$out"
done
before=$(listing)
"$G" info - -o small.gtrace <small.gtrace >/dev/null 2>"$T/.err"
[ $? = 2 ] || fail "info - <small.gtrace -o small.gtrace: not refused: $(cat "$T/.err")"
cmp -s small.gtrace keep.gtrace || fail "info - <small.gtrace -o small.gtrace: the trace changed"
[ "$(listing)" = "$before" ] || fail "info - -o small.gtrace: the folder changed"
echo "ok: -o naming the input (directly, symbolic link, hard link, standard input) refused in one line, the trace intact"

# A bad trace leaves the old output; a good one replaces it; no temporary either way.
for cmd in "info" "summary" "split" "report" "export" "export --format csv" "export -z" "stats cuda_gpu_kern_sum"; do
	printf 'old output\n' >out.old
	cp out.old out
	before=$(listing)
	# shellcheck disable=SC2086 # cmd is split on purpose
	"$G" $cmd bad.gtrace -o out >/dev/null 2>"$T/.err"
	[ $? = 2 ] || fail "$cmd bad.gtrace -o out: status $?: $(cat "$T/.err")"
	cmp -s out out.old || fail "$cmd bad.gtrace -o out: the old output changed"
	[ "$(listing)" = "$before" ] || fail "$cmd bad.gtrace: the folder changed: $(listing)"
	# shellcheck disable=SC2086
	"$G" $cmd small.gtrace -o out >/dev/null 2>"$T/.err" || fail "$cmd small.gtrace -o out: status $?: $(cat "$T/.err")"
	cmp -s out out.old && fail "$cmd small.gtrace -o out: not replaced"
	# shellcheck disable=SC2086
	"$G" $cmd small.gtrace >"$T/out.stdout" 2>/dev/null
	case $cmd in
	report|"export -z") ;; # the figures' note / gzip's header differ from standard output
	*) cmp -s out "$T/out.stdout" || fail "$cmd: -o differs from standard output" ;;
	esac
	rm -f out-kernels.svg out-split.svg
	[ "$(listing)" = "$before" ] || fail "$cmd small.gtrace: the folder changed: $(listing)"
done
rm -f out out.old
echo "ok: a failed command leaves the old -o file; a successful one replaces it; no temporary left"

# SQLite: a failed export keeps the old database.
"$G" export --format sqlite small.gtrace -o db.sqlite 2>"$T/.err" || fail "export sqlite: $(cat "$T/.err")"
cp db.sqlite db.keep
before=$(listing)
"$G" export --format sqlite bad.gtrace -o db.sqlite 2>/dev/null && fail "export sqlite of a bad trace: status 0"
cmp -s db.sqlite db.keep || fail "export sqlite of a bad trace: the old database changed"
[ "$(listing)" = "$before" ] || fail "export sqlite of a bad trace: the folder changed: $(listing)"
rm -f db.sqlite db.keep
echo "ok: export --format sqlite that fails keeps the old database"

# report: a figure's path refused leaves the Markdown as it was.
printf 'old report\n' >r.md
ln -s nowhere r-kernels.svg
before=$(listing)
"$G" report small.gtrace -o r.md >/dev/null 2>"$T/.err"
[ $? = 2 ] || fail "report with a linked figure path: status $?"
grep -q "cannot write 'r-kernels.svg': it is a symbolic link" "$T/.err" || fail "report: $(cat "$T/.err")"
[ "$(cat r.md)" = "old report" ] || fail "report emptied its Markdown before refusing a figure"
[ "$(listing)" = "$before" ] || fail "report with a linked figure path: the folder changed: $(listing)"
rm -f r.md r-kernels.svg
echo "ok: report's figure refused, its Markdown unchanged"

# Permissions: the umask's for a new file, the old file's for one replaced.
(umask 027 && "$G" info small.gtrace -o new.txt) || fail "info -o new.txt"
[ "$(stat -c %a new.txt)" = 640 ] || fail "a new output under umask 027 has mode $(stat -c %a new.txt), want 640"
chmod 604 new.txt
"$G" info small.gtrace -o new.txt || fail "info -o new.txt again"
[ "$(stat -c %a new.txt)" = 604 ] || fail "a replaced output has mode $(stat -c %a new.txt), want its own 604"
# A link to a regular file: the file replaced, the link kept.
ln -s new.txt link.txt
"$G" info truncated.gtrace -o link.txt 2>/dev/null || fail "info -o link.txt"
[ -L link.txt ] || fail "-o through a link replaced the link"
grep -q "^trace: truncated.gtrace" new.txt || fail "-o through a link did not write the file it names"
rm -f new.txt link.txt
# -o -: standard output, as without -o.
"$G" info small.gtrace -o - >a.txt && "$G" info small.gtrace >b.txt && cmp -s a.txt b.txt || fail "-o - differs"
rm -f a.txt b.txt
echo "ok: new outputs have the umask's mode, replaced ones keep theirs; a link is followed; -o - is standard output"

# Figure links: percent-encoded, and the files beside the report under their own names.
for name in "run 1" "a)b" "x%y"; do
	"$G" report small.gtrace -o "$name.md" >/dev/null 2>"$T/.err" || fail "report -o '$name.md': $(cat "$T/.err")"
	[ -f "$name-kernels.svg" ] || fail "report -o '$name.md': no '$name-kernels.svg'"
	enc=$(printf '%s' "$name" | sed 's/%/%25/g; s/ /%20/g; s/)/%29/g')
	grep -qF "](${enc}-kernels.svg)" "$name.md" || fail "report -o '$name.md': link not ${enc}-kernels.svg: $(grep -F 'kernels.svg' "$name.md")"
	rm -f "$name.md" "$name-kernels.svg" "$name-split.svg"
done
echo "ok: report's figure links are percent-encoded"

# gputrace peak with a stand-in probe beside a copy of the launcher.
if [ -x "$build/gputrace" ]; then
	mkdir -p pk/bin && cp "$build/gputrace" pk/bin/ || fail "cp gputrace"
	cat >pk/bin/bwprobe <<'EOF'
#!/bin/sh
[ -n "$PROBE_FAIL" ] && exit 1
echo "device NVIDIA Stand-in (GPU-00000000-0000-0000-0000-000000000000)"
echo "peak h2d_pinned 50.0 GB/s"
EOF
	chmod +x pk/bin/bwprobe
	cd pk || fail "cd pk"
	printf 'old line\n' >peaks
	bin/gputrace peak -o peaks >/dev/null 2>"$T/.err" || fail "peak: $(cat "$T/.err")"
	[ "$(sed -n 1p peaks)" = "old line" ] && [ "$(wc -l <peaks)" = 2 ] || fail "peak: $(cat peaks)"
	cp peaks peaks.keep
	PROBE_FAIL=1 bin/gputrace peak -o peaks >/dev/null 2>&1 && fail "peak with a failing probe: status 0"
	cmp -s peaks peaks.keep || fail "peak with a failing probe changed the peaks file"
	cp bin/bwprobe probe.keep
	bin/gputrace peak -o bin/bwprobe >/dev/null 2>"$T/.err"
	[ $? = 2 ] || fail "peak -o PROBE: not refused"
	cmp -s bin/bwprobe probe.keep || fail "peak -o PROBE: the probe changed"
	[ "$(ls -A)" = "$(printf 'bin\npeaks\npeaks.keep\nprobe.keep')" ] || fail "peak left files: $(ls -A)"
	[ "$(ls -A bin)" = "$(printf 'bwprobe\ngputrace')" ] || fail "peak left files in bin: $(ls -A bin)"
	cd .. || fail "cd .."
	echo "ok: gputrace peak keeps the old lines, changes nothing when the probe fails, refuses -o PROBE"
fi
exit 0
