#!/bin/sh
# Installs the Debian packages gputrace builds against, or says exactly how to.
#   tests/deps.sh PACKAGE...
# Checks for the headers and commands rather than the packages, so that a machine with the libraries
# installed by other means passes too.
#
# Then, optionally, clang with libFuzzer's and the sanitizers' runtimes, for the fuzz targets that
# make check builds and runs (tests/cli/test_fuzz_targets.sh); tests/fuzz/toolchain.sh checks for
# them the same way, by building and running a target. They are installed where the required ones
# would be (root with apt-get); a failure there is reported and does not fail make deps, since
# without them that one test is skipped with the reason.
here=$(dirname "$0")
missing=""
have() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have zstd.h || missing="$missing libzstd-dev"
have zlib.h || missing="$missing zlib1g-dev"
have sqlite3.h || missing="$missing libsqlite3-dev"
{ printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' | ${CC:-cc} -E -x c - >/dev/null 2>&1; } || missing="$missing libcmocka-dev"
# Tools that make check runs (tests/cli/test_man_lint.sh, tests/cli/test_install.sh, the SQL
# checks of test_gpuanalyze_stats.sh and test_gpuanalyze_export_sqlite.sh).
command -v mandoc >/dev/null 2>&1 || missing="$missing mandoc"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkgconf"
command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
# apt_install PACKAGE...: installs them, reading the package lists first only where installing
# without does not work (a fresh machine has none).
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "$@" >/dev/null 2>&1 && return 0
	apt-get update -q >/dev/null 2>&1
	apt-get install -y -q "$@"
}

if [ -n "$missing" ]; then
	echo "gputrace: missing build dependencies:$missing"
	if ! can_apt; then
		echo "gputrace: install them with: sudo apt-get install$missing"
		exit 1
	fi
	echo "gputrace: installing them with apt-get"
	apt_install $missing || { echo "gputrace: apt-get install failed"; exit 1; }
fi

why=$(sh "$here/fuzz/toolchain.sh") && exit 0
if [ -n "${FUZZ_CC:-}" ] || ! can_apt; then
	echo "gputrace: optional, for the fuzz targets: $why; make check skips them" \
		"(sudo apt-get install clang libclang-rt-14-dev installs what they need on Debian 12)"
	exit 0
fi
echo "gputrace: for the fuzz targets: $why; installing what they need with apt-get"
if ! command -v clang >/dev/null 2>&1; then
	apt_install clang >/dev/null 2>&1 || echo "gputrace: apt-get install clang failed"
fi
# The runtimes' package carries clang's major version (libclang-rt-14-dev on Debian 12).
if command -v clang >/dev/null 2>&1 && ! sh "$here/fuzz/toolchain.sh" >/dev/null; then
	rt="libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
	apt_install "$rt" >/dev/null 2>&1 || echo "gputrace: apt-get install $rt failed"
fi
why=$(sh "$here/fuzz/toolchain.sh") ||
	echo "gputrace: still no fuzz targets: $why; make check skips them"
exit 0
