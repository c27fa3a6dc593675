#!/bin/sh
# test_gpu_script_options.sh: every option the GPU tests and benchmarks pass to `gputrace record`,
# `replay` or `peak` is one that command's --help lists. Those scripts run only on the GPU machine,
# whose time is short: an option that does not exist (`-f` for `--force` once cost a whole run of
# the replay tests) must fail here, on any machine, not there.
set -u
cd "$(dirname "$0")/../.." || exit 2
GT=${GT_BUILD:-build}/gputrace
[ -x "$GT" ] || { echo "test_gpu_script_options: skipped: $GT not built"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "test_gpu_script_options: skipped: no python3"; exit 77; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
for c in record replay peak; do
	"$GT" "$c" --help > "$work/$c.help" 2>&1 || { echo "FAIL: gputrace $c --help"; exit 1; }
done
python3 - "$work" tests/gpu/*.sh tests/bench/*.sh <<'PY'
import re, sys
work, scripts = sys.argv[1], sys.argv[2:]
helps = {c: open(f"{work}/{c}.help").read() for c in ("record", "replay", "peak")}
# "$GT" record ..., $G replay ..., gputrace peak ...: the launcher by any of the names the scripts use.
call = re.compile(r'(?:"\$\{?GT?\}?"|\$\{?GT?\}?|\bgputrace)\s+(record|replay|peak)\b(.*)')
bad = checked = 0
for path in scripts:
    lines = open(path).read().split("\n")
    for no, line in enumerate(lines, 1):
        m = call.search(line)
        # Not a call: a comment, or words inside a quoted message ("gputrace peak: exit 1").
        if not m or line.lstrip().startswith("#") or line[:m.start()].count('"') % 2:
            continue
        cmd, rest = m.group(1), m.group(2)
        for tok in rest.split():
            if tok == "--" or tok[0] in "|;&><" or tok.startswith("2>"):
                break  # the program, or the shell, from here on
            if not re.fullmatch(r"--?[A-Za-z][-A-Za-z0-9]*(=.*)?", tok):
                continue  # an option's value, a trace path
            opt = tok.split("=")[0]
            checked += 1
            if not re.search(r"(^|[\s,])" + re.escape(opt) + r"([\s,=]|$)", helps[cmd], re.M):
                print(f"FAIL: {path}:{no}: gputrace {cmd} has no option {opt}")
                bad += 1
print(f"{checked} options checked in {len(scripts)} scripts, {bad} unknown")
sys.exit(1 if bad or not checked else 0)
PY
