#!/bin/sh
# The scripts that only run on the GPU machine (tests/gpu/, tests/bench/) parse, checked here
# without a GPU: a syntax error in one used to cost a device call (minutes of a 30-minute budget)
# to find. Each shell script by its own interpreter's -n (the shebang's; sh for a sourced file
# without one), each Python file, and each Python program embedded in a shell script as a quoted
# here-document fed to python3 or written to a .py file, compiled (never run). A planted error in
# each of the three kinds must be caught, so that the check cannot pass by reading nothing.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v bash >/dev/null || { echo "SKIP: no bash"; exit 77; }
T=$(mktemp -d /tmp/gt_cli_XXXXXX) || fail "mktemp"
trap 'rm -rf "$T"' EXIT

# check FILE...: 0 when every file parses; otherwise names each one that does not.
check() {
	bad=0
	for f in "$@"; do
		case $f in
		*.py) continue ;;
		esac
		shell=sh
		head -n 1 "$f" | grep -q '^#!.*bash' && shell=bash
		$shell -n "$f" 2>"$T/err" || { echo "does not parse ($shell -n): $f: $(cat "$T/err")"; bad=1; }
	done
	python3 - "$@" <<'PY' || bad=1
import re, sys
bad = embedded = 0
opening = re.compile(r"<<-?'([A-Za-z_]+)'")
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    if path.endswith(".py"):
        try:
            compile(text, path, "exec")
        except SyntaxError as e:
            print(f"does not compile: {path}:{e.lineno}: {e.msg}")
            bad = 1
        continue
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = opening.search(lines[i])
        if not m or not ("python3" in lines[i] or re.search(r">\s*\S+\.py\b", lines[i])):
            i += 1
            continue
        start, end = i + 1, i + 1
        while end < len(lines) and lines[end].strip() != m.group(1):
            end += 1
        if end == len(lines):
            print(f"here-document never ends: {path}:{i + 1}")
            bad = 1
            break
        embedded += 1
        try:
            compile("\n".join(lines[start:end]) + "\n", f"{path}:{start + 1}", "exec")
        except SyntaxError as e:
            print(f"embedded Python does not compile: {path}:{start + e.lineno}: {e.msg}")
            bad = 1
        i = end + 1
print(f"checked in {len(sys.argv) - 1} files: {embedded} embedded Python programs", file=sys.stderr)
sys.exit(bad)
PY
	return $bad
}

files=$(ls "$root"/tests/gpu/*.sh "$root"/tests/gpu/*.py "$root"/tests/bench/*.sh "$root"/tests/bench/*.py)
[ "$(echo "$files" | wc -l)" -ge 20 ] || fail "found too few GPU and bench scripts: $files"
# shellcheck disable=SC2086 # the tree's own file names, without spaces
check $files 2>"$T/count" || fail "a GPU or bench script does not parse (above)"
embedded=$(sed -n 's/.*: \([0-9]*\) embedded Python programs$/\1/p' "$T/count")
[ "${embedded:-0}" -ge 20 ] || fail "too few embedded Python programs found: $(cat "$T/count")"
echo "ok: $(echo "$files" | wc -l) GPU and bench scripts parse, their $embedded embedded Python programs compile"

# The check fails on a planted error of each kind.
printf '#!/bin/bash\nif true; then\n' >"$T/bad_shell.sh"
printf 'def f(:\n' >"$T/bad.py"
printf '#!/bin/sh\npython3 - x <<'"'"'PY'"'"'\nprint("a"\nPY\n' >"$T/bad_embedded.sh"
printf '#!/bin/sh\ncat > prog.py <<'"'"'EOF'"'"'\nimport os\nos.getcwd(\nEOF\n' >"$T/bad_written.sh"
for f in bad_shell.sh bad.py bad_embedded.sh bad_written.sh; do
	check "$T/$f" >"$T/out" 2>&1 && fail "a planted error in $f was not caught"
done
grep -q 'bad_written.sh:4' "$T/out" || fail "the embedded error's line is not named: $(cat "$T/out")"
echo "ok: planted errors in a shell script, a Python file and two embedded programs are caught"
