#!/bin/sh
# Every command README.md shows in its ```sh blocks runs as written, so that a newcomer's first
# five minutes cannot rot: each line (its trailing "# comment" dropped) is run with the build on
# PATH, as the README tells a reader to do before `make install`, from a temporary folder where
# traces/, tests/ and build/ lead to the repository's (so that outputs like -o REPORT.md land
# there). A command must exit as the README says: 0, or 1 for the two it says exit 1 (diff on the
# planted slowdown, shadow on the broken kernels). Commands that need a GPU, a program of the
# user's, or are the build itself are listed with the reason they are skipped; a command the test
# cannot place fails it, so that a new README command is either run here or skipped for a reason.
# Also: the README names every Debian package of the Makefile's deps target.
#   GT_README=FILE checks another file (the test of this test).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
readme=${GT_README:-$root/README.md}
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$build/gpuanalyze" ] || fail "no analyzer at $build/gpuanalyze"
[ -x "$build/gputrace" ] || fail "no launcher at $build/gputrace"
[ -f "$readme" ] || fail "no $readme"

T=$(mktemp -d "${TMPDIR:-/tmp}/gt_readme.XXXXXX") || fail "mktemp"
trap 'rm -rf "$T"' EXIT
mkdir "$T/run" || fail "mkdir"
ln -s "$root/traces" "$T/run/traces" && ln -s "$root/tests" "$T/run/tests" && ln -s "$build" "$T/run/build" ||
	fail "cannot link the repository's folders into $T/run"

# The lines of the ```sh blocks, one command each.
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0; next } on' "$readme" >"$T/lines" || fail "awk"

ran=0 skipped=0 n=0
while IFS= read -r line; do
	n=$((n + 1))
	cmd=$(printf '%s\n' "$line" | sed -e 's/[[:space:]]#.*$//' -e 's/[[:space:]]*$//')
	case $cmd in
	'' | '#'*) continue ;;
	*\\) fail "README line '$line' is continued: keep one command per line" ;;
	esac
	reason=""
	case $cmd in
	'make demo' | 'make check' | 'make check-all')
		reason="the build and the test tiers themselves, which run this test" ;;
	'make install'* | 'make uninstall'*)
		reason="installs into the system; test_install.sh checks it in a staging folder" ;;
	'export PATH=$PWD/build:$PATH')
		reason="done here: the build is on PATH for every command" ;;
	*'gputrace record '*)
		reason="records a CUDA program: needs a GPU" ;;
	'LD_PRELOAD='* | 'CUDA_INJECTION64_PATH='*)
		reason="preloads the recorder into a CUDA program of the user's: needs a GPU" ;;
	'gputrace peak' | 'gputrace peak '*)
		reason="measures this machine's GPU: needs a GPU" ;;
	*' run.gtrace' | *' run.replay.gtrace')
		reason="reads the trace the Record lines make: needs a GPU" ;;
	'gpuanalyze '* | 'gputrace '*) ;;
	*) fail "README command '$cmd': neither run nor skipped by this test; give it a reason here or make it runnable" ;;
	esac
	if [ -n "$reason" ]; then
		echo "skipped: $cmd ($reason)"
		skipped=$((skipped + 1))
		continue
	fi
	want=0
	case $cmd in
	'gpuanalyze diff '* | 'gpuanalyze shadow '*) want=1 ;;
	esac
	(cd "$T/run" && PATH="$build:$PATH" && export PATH && sh -c "$cmd") >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "README command '$cmd' exits $rc, not $want: $(head -c 600 "$T/err")"
	[ -s "$T/out" ] || [ -n "$(find "$T/run" -newer "$T/lines" -type f | head -n 1)" ] ||
		fail "README command '$cmd' printed and wrote nothing"
	echo "ok: $cmd (exit $rc)"
	ran=$((ran + 1))
done <"$T/lines"

# The README's dependency list is the Makefile's (make deps installs DEB_DEPS).
deps=$(sed -n 's/^DEB_DEPS *:= *//p' "$root/Makefile")
[ -n "$deps" ] || fail "no DEB_DEPS in the Makefile"
tr -s ' \t,.:;()`' '\n' <"$readme" >"$T/words" || fail "tr"
for p in $deps; do
	grep -qx -e "$p" "$T/words" || fail "README does not list the build dependency $p (Makefile DEB_DEPS)"
done
echo "ok: README lists every package of the Makefile's DEB_DEPS: $deps"

# The no-GPU path is the README's point: at least its analyses, shadow and the helps must have run.
[ "$ran" -ge 10 ] || fail "only $ran README commands ran (of $n lines in its sh blocks): is the extraction broken?"
echo "ok: $ran README commands ran as written, $skipped skipped with their reasons"
exit 0
