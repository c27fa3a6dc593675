#!/bin/sh
# Every page under man/ is clean under `mandoc -T lint -W style`: no style message, warning, error
# or unsupported request (a text line over 80 bytes, a date that does not parse, a paragraph macro
# that does nothing, a macro out of place). Skipped (77) where mandoc is not installed (make deps
# installs it).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v mandoc >/dev/null 2>&1 || { echo "skipped: mandoc is not installed (make deps installs it)"; exit 77; }

n=0
for m in "$root"/man/*.[1-9]; do
	out=$(mandoc -T lint -W style "$m" 2>&1)
	rc=$?
	[ -z "$out" ] || fail "mandoc -T lint -W style $(basename "$m"):
$out"
	# mandoc(1): 0 when nothing at or above the -W level occurred; 1 and up are style messages or worse.
	[ $rc -eq 0 ] || fail "mandoc -T lint -W style exits $rc on $(basename "$m")"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no man pages under $root/man"
echo "ok: $n pages lint-clean under mandoc -T lint -W style"
exit 0
