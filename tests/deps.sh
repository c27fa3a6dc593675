#!/bin/sh
# Installs the Debian packages gputrace builds against, or says exactly how to.
#   tests/deps.sh PACKAGE...
# Checks for the headers rather than the packages, so that a machine with the libraries installed by
# other means passes too.
missing=""
have() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have zstd.h || missing="$missing libzstd-dev"
have gelf.h || missing="$missing libelf-dev"
{ printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' | ${CC:-cc} -E -x c - >/dev/null 2>&1; } || missing="$missing libcmocka-dev"
[ -z "$missing" ] && exit 0
echo "gputrace: missing build dependencies:$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "gputrace: installing them with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q $missing >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1
		apt-get install -y -q $missing || { echo "gputrace: apt-get install failed"; exit 1; }
	fi
	exit 0
fi
echo "gputrace: install them with: sudo apt-get install$missing"
exit 1
