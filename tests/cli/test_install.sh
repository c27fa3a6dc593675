#!/bin/sh
# make install and make uninstall, staged with DESTDIR into a temporary tree under a
# PREFIX that does not exist on this machine, as a package build does:
# - every file lands under DESTDIR/PREFIX, and every piece is there: both programs, the recorder
#   (where CUPTI was found), the bandwidth probe in libexec/gputrace/ (where nvcc was found), the
#   archive, both headers, both pkg-config files, every page of man/;
# - the installed launcher runs from there: `gputrace peak --help`; `gputrace peak` finds the
#   installed probe (it succeeds on a GPU, or the probe itself says there is no device: never
#   "cannot find") and chooses its peaks file by $XDG_CACHE_HOME; `gputrace record` finds the
#   installed libgputrace.so;
# - pkg-config (PKG_CONFIG_PATH at the tree, PKG_CONFIG_SYSROOT_DIR at DESTDIR) gives the version
#   of `gputrace --version`, -lzstd in its --libs, and flags that compile and link a tiny reader
#   against the installed libgttrace.a without --static; that reader counts a sample trace's
#   records as the installed gpuanalyze does; a file including gputrace_ref.h compiles with
#   gputrace-ref's flags;
# - man finds every page in the tree (man -M), or, without man, each is at its path;
# - make uninstall removes every file install put there, and nothing else (a file of someone
#   else's in bin/ stays).
# Once per make check, in the plain pass: install copies the plain build; the sanitizer pass would
# first build every program of `all` again. Skipped (77) without pkg-config (make deps installs it).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GT_BUILD:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "ok: $*"; }

if [ "${GT_PASS:-}" = sanitizers ]; then
	echo "skipped: make install copies the plain build, checked once, in the plain pass"
	exit 77
fi
command -v pkg-config >/dev/null 2>&1 || { echo "skipped: pkg-config is not installed (make deps installs pkgconf)"; exit 77; }
[ -x "$build/gpuanalyze" ] || fail "no analyzer at $build/gpuanalyze"

T=$(mktemp -d "${TMPDIR:-/tmp}/gt_install.XXXXXX") || fail "mktemp"
trap 'rm -rf "$T"' EXIT
D=$T/stage
P=/opt/gputrace-install-test
I=$D$P
# A make of our own, not a sub-make of make check's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { ${MAKE:-make} --no-print-directory -C "$root" BUILD="$build" DESTDIR="$D" PREFIX="$P" "$@"; }

mk install >"$T/install.log" 2>&1 || fail "make install: $(tail -n 20 "$T/install.log")"
[ -d "$I" ] || fail "nothing under DESTDIR/PREFIX ($I)"
stray=$(find "$D" \( -type f -o -type l \) ! -path "$I/*")
[ -z "$stray" ] || fail "installed outside DESTDIR/PREFIX: $stray"
# What must be there, and only from the build in hand.
want="bin/gputrace bin/gpuanalyze lib/libgttrace.a include/gputrace.h include/gputrace_ref.h
      lib/pkgconfig/gputrace.pc lib/pkgconfig/gputrace-ref.pc"
[ -f "$build/libgputrace.so" ] && want="$want lib/libgputrace.so"
[ -f "$build/kernels/bwprobe" ] && want="$want libexec/gputrace/bwprobe"
# The replay worker, which the installed gputrace finds in libexec/gputrace/ as it finds bwprobe.
[ -f "$build/gputrace-replay" ] && want="$want libexec/gputrace/gputrace-replay"
for m in "$root"/man/*.[1-9]; do
	want="$want share/man/man${m##*.}/$(basename "$m")"
done
for f in $want; do
	[ -f "$I/$f" ] || fail "make install did not install $f"
done
n_installed=$(find "$I" -type f | wc -l)
note "make install: $n_installed files, all under DESTDIR/PREFIX: $(echo $want)"

# The installed launcher, from the installed tree.
G=$I/bin/gputrace
"$G" peak --help >"$T/peak.help" 2>"$T/err" || fail "installed gputrace peak --help: exit $?: $(cat "$T/err")"
grep -q '^usage: gputrace peak' "$T/peak.help" || fail "installed gputrace peak --help: $(head -n 2 "$T/peak.help")"
note "installed gputrace peak --help"
if [ -f "$I/libexec/gputrace/bwprobe" ]; then
	# 1 MiB, once: quick on a GPU; without one the probe says so (3). Never "cannot find" (2).
	XDG_CACHE_HOME=$T/xdg GPUTRACE_PEAKS='' HOME=$T/home "$G" peak --reps 1 --bytes 1048576 >"$T/peak.out" 2>"$T/peak.err"
	rc=$?
	grep -q 'cannot find the bandwidth probe' "$T/peak.err" && fail "installed gputrace peak does not find the installed probe"
	case $rc in
	0) [ -s "$T/xdg/gputrace/peaks" ] || fail "gputrace peak stored nothing in \$XDG_CACHE_HOME/gputrace/peaks"
	   [ -e "$T/home/.cache" ] && fail "gputrace peak wrote under \$HOME though XDG_CACHE_HOME was set"
	   note "installed gputrace peak: found the probe, stored $(wc -l <"$T/xdg/gputrace/peaks") peaks in \$XDG_CACHE_HOME/gputrace/peaks" ;;
	3) [ -d "$T/xdg/gputrace" ] || fail "gputrace peak did not make \$XDG_CACHE_HOME/gputrace"
	   note "installed gputrace peak: found the probe, which found no CUDA device; the cache folder is \$XDG_CACHE_HOME's" ;;
	*) fail "installed gputrace peak: exit $rc: $(cat "$T/peak.err")" ;;
	esac
else
	note "no bwprobe in this build (no nvcc): the probe's lookup is not checked"
fi
if [ -f "$I/lib/libgputrace.so" ]; then
	"$G" record -q -- true >"$T/rec.out" 2>"$T/rec.err" || fail "installed gputrace record -- true: exit $?: $(cat "$T/rec.err")"
	grep -q 'cannot find libgputrace.so' "$T/rec.err" && fail "installed gputrace record does not find the installed library"
	note "installed gputrace record finds the installed libgputrace.so"
fi

# pkg-config, as a user with this tree would call it.
export PKG_CONFIG_PATH="$I/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
version=$("$G" --version | sed -n 's/^gputrace \([^ ]*\) .*/\1/p')
[ "$(pkg-config --modversion gputrace)" = "$version" ] ||
	fail "gputrace.pc says version '$(pkg-config --modversion gputrace)', gputrace --version '$version'"
# The file names PREFIX itself (the sysroot is pkg-config's to add, and a package's to drop).
for pc in gputrace gputrace-ref; do
	grep -qx "prefix=$P" "$I/lib/pkgconfig/$pc.pc" ||
		fail "$pc.pc's prefix is not PREFIX '$P': $(grep '^prefix=' "$I/lib/pkgconfig/$pc.pc")"
done
# A plain link (no --static): the library is static only, so what it needs is in Libs.
flags=$(pkg-config --cflags --libs gputrace) || fail "pkg-config --cflags --libs gputrace"
case " $flags " in *" -lzstd "*) ;; *) fail "pkg-config --libs gputrace has no -lzstd (a plain link fails): $flags" ;; esac
case " $flags " in *" -I$I/include "*) ;; *) fail "pkg-config --cflags gputrace does not name $I/include: $flags" ;; esac
cat >"$T/reader.c" <<'EOF'
/* Counts a trace's records through the installed trace library. */
#include <gputrace.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct gt_reader *r;
	char err[256];
	if (argc != 2 || gt_reader_open(&r, argv[1], err, sizeof err) < 0) {
		fprintf(stderr, "reader: %s\n", argc == 2 ? err : "usage: reader FILE");
		return 2;
	}
	struct gt_event ev;
	unsigned long long n = 0;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) == 1)
		n++;
	gt_reader_close(r);
	if (rc < 0)
		return 2;
	printf("%llu\n", n);
	return 0;
}
EOF
# shellcheck disable=SC2086 # the flags are words
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$T/reader" "$T/reader.c" $flags >"$T/cc.log" 2>&1 ||
	fail "the reader does not build with pkg-config's flags ($flags): $(cat "$T/cc.log")"
sample=$root/traces/samples/h200-splat_render.gtrace
got=$("$T/reader" "$sample") || fail "the reader failed on $sample"
want_n=$("$I/bin/gpuanalyze" info --format json "$sample" | sed -n 's/^ *"records": \([0-9]*\),$/\1/p')
[ -n "$want_n" ] || fail "installed gpuanalyze info gives no record count"
[ "$got" = "$want_n" ] || fail "the reader counts $got records in $sample, installed gpuanalyze info $want_n"
note "a reader linked with \$(pkg-config --cflags --libs gputrace) reads $got records, as gpuanalyze info does"
ref_flags=$(pkg-config --cflags gputrace-ref) || fail "pkg-config gputrace-ref"
printf '#include <gputrace_ref.h>\nint gt_test_ref_abi = GT_REF_ABI;\n' >"$T/ref.c"
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -Wall -Wextra -Werror -fPIC -c -o "$T/ref.o" "$T/ref.c" $ref_flags >"$T/cc.log" 2>&1 ||
	fail "a reference does not compile with pkg-config --cflags gputrace-ref ($ref_flags): $(cat "$T/cc.log")"
note "gputrace_ref.h compiles with \$(pkg-config --cflags gputrace-ref)"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# Every page, as man finds it in the tree.
for m in "$root"/man/*.[1-9]; do
	sec=${m##*.} name=$(basename "$m" ".$sec")
	if command -v man >/dev/null 2>&1; then
		found=$(man -M "$I/share/man" -w "$sec" "$name" 2>/dev/null)
		[ "$found" = "$I/share/man/man$sec/$name.$sec" ] || fail "man -M finds '$found' for $name($sec)"
	else
		[ -f "$I/share/man/man$sec/$name.$sec" ] || fail "no $name($sec) in the tree"
	fi
done
note "every page of man/ is found in the tree$(command -v man >/dev/null 2>&1 && echo ' by man -M')"

# Uninstall: nothing of ours left, someone else's file kept.
echo other >"$I/bin/someone-elses"
mk uninstall >"$T/uninstall.log" 2>&1 || fail "make uninstall: $(tail -n 20 "$T/uninstall.log")"
left=$(find "$D" \( -type f -o -type l \) ! -path "$I/bin/someone-elses")
[ -z "$left" ] || fail "make uninstall left: $left"
[ -f "$I/bin/someone-elses" ] || fail "make uninstall removed a file it did not install"
[ -e "$I/libexec/gputrace" ] && fail "make uninstall left libexec/gputrace/"
note "make uninstall: the $n_installed files removed, libexec/gputrace/ too; a file it did not install kept"
exit 0
