#!/bin/sh
# Every page under man/ is clean under `mandoc -T lint -W warning`: no warning, error or
# unsupported request (a date that does not parse, a paragraph macro that does nothing, a macro
# out of place). The STYLE level (lines over 80 bytes and the like) is not part of it: the pages
# keep one sentence or clause per source line, which is what roff asks. Skipped (77) where mandoc
# is not installed (make deps installs it).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v mandoc >/dev/null 2>&1 || { echo "skipped: mandoc is not installed (make deps installs it)"; exit 77; }

n=0
for m in "$root"/man/*.[1-9]; do
	out=$(mandoc -T lint -W warning "$m" 2>&1)
	rc=$?
	[ -z "$out" ] || fail "mandoc -T lint -W warning $(basename "$m"):
$out"
	# mandoc(1): 0 when nothing at or above the -W level occurred; 2 and up are warnings or worse.
	[ $rc -eq 0 ] || fail "mandoc -T lint -W warning exits $rc on $(basename "$m")"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no man pages under $root/man"
echo "ok: $n pages lint-clean under mandoc -T lint -W warning"
exit 0
