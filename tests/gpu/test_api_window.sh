#!/bin/bash
# What the defaults record of the API, and windowed recording, on the real GPU:
# - defaults: runtime and driver API records only for the calls the analyses use; the trace's META
#   trace.api_calls says "selected: ..."; at most 2 API records per kernel on launch_storm, on a
#   PyTorch tiny-op loop and Transformer step, and on CuPy (which launches through the driver API);
#   kernels, copies and memsets still exact (the same count as with every call recorded);
# - +api-all: every call, META "all", more records than the defaults on PyTorch;
# - GPUTRACE_WINDOW=100/500 on a 3 s PyTorch loop: window-open/close records, every kernel inside
#   a window (or finishing within 50 ms of its close: work launched inside it), with its launch
#   calls and at most 2 API records per kernel (the calls the defaults select, inside windows too), split's units are the windows and it says how much of the run they saw; an NVTX program
#   under windows runs to its end as bare.
. "$(dirname "$0")/lib.sh"
W=$REPO/tests/gpu/framework_workloads.py
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || skip "no PyTorch with CUDA"

# rec NAME ENV... -- CMD...: records CMD with the variables given; trace in $KEEP/NAME.gtrace
rec() {
	local name=$1; shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$KEEP/$name.gtrace" LD_PRELOAD="$B/libgputrace.so" "${envs[@]}" \
		"$@" > "$WORK/$name.out" 2> "$WORK/$name.err" ||
		{ echo "  FAIL $name: the program failed"; cat "$WORK/$name.err"; fail=1; return 1; }
	"$GA" info --format json "$KEEP/$name.gtrace" > "$WORK/$name.info.json"
}

# per_kernel NAME MAX: API records per kernel at most MAX; prints the figures
per_kernel() {
	python3 - "$WORK/$1.info.json" "$2" "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['traces'][0]
meta = {m['key']: m['value'] for m in t['metadata']}
c = t['records_by_type']
k, a = c.get('kernel', 0), c.get('api', 0)
print(f"{sys.argv[3]}: {k} kernels, {a} API records ({a / k if k else float('nan'):.2f} per kernel); "
      f"trace.api_calls = {meta.get('trace.api_calls')!r}")
ok = k > 0 and a <= float(sys.argv[2]) * k and meta.get('trace.api_calls', '').startswith('selected:')
sys.exit(0 if ok else 1)
PY
}

# same_counts A B: kernels, memcpys and memsets equal in the two traces
same_counts() {
	python3 - "$WORK/$1.info.json" "$WORK/$2.info.json" <<'PY'
import json, sys
def c(p):
    r = json.load(open(p))['traces'][0]['records_by_type']
    return r.get('kernel', 0), r.get('memcpy', 0), r.get('memset', 0), r.get('api', 0)
a, b = c(sys.argv[1]), c(sys.argv[2])
print(f"(kernels, memcpys, memsets, api): {a} vs {b}")
sys.exit(0 if a[:3] == b[:3] and a[0] > 0 else 1)
PY
}

rec storm -- "$B/kernels/launch_storm" --launches 20000 && check "launch_storm: <= 2 API records per kernel" per_kernel storm 2
rec tinyop -- python3 "$W" --only tinyop --seconds 0.3 && check "PyTorch tinyop: <= 2 API records per kernel" per_kernel tinyop 2
rec transformer -- python3 "$W" --only transformer --seconds 0.3 &&
	check "PyTorch Transformer step: <= 2 API records per kernel" per_kernel transformer 2
rec transformer_all GPUTRACE_ACTIVITIES=+api-all -- python3 "$W" --only transformer --seconds 0.3 &&
	check "PyTorch +api-all: the same kernels, copies, memsets" same_counts transformer transformer_all
check "PyTorch +api-all: META trace.api_calls = all" \
	grep -q '"trace.api_calls", "value": "all"\|"key": "trace.api_calls", "value": "all"' "$WORK/transformer_all.info.json"
if python3 -c 'import cupy' 2>/dev/null; then
	rec cupy -- python3 "$W" --only cupy --seconds 0.3 && check "CuPy (driver API): <= 2 API records per kernel" per_kernel cupy 2
	check "CuPy: its cuLaunchKernel calls recorded" \
		sh -c "'$GA' dump --type api --format csv '$KEEP/cupy.gtrace' | grep -c ',cuLaunchKernel' | awk '\$1 >= 1000 { ok = 1 } END { exit !ok }'"
else
	echo "  (no CuPy here: the driver-API framework cell is not run)"
fi

# Windows: 100 ms of every 500 ms over a 3 s loop.
if rec window GPUTRACE_WINDOW=100/500 -- python3 "$W" --only tinyop --seconds 3; then
	"$GA" dump --type process,kernel,api --format csv "$KEEP/window.gtrace" > "$WORK/window.csv"
	check "windows: every kernel inside a window, with its launch call, at most 2 API records per kernel" python3 - "$WORK/window.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
edges, kernels, apis = [], [], 0
for r in rows:
    if r['type'] == 'process' and r.get('event') in ('window-open', 'window-close'):
        edges.append((int(r['timestamp']), r['event']))
    elif r['type'] == 'kernel':
        kernels.append((int(r['start']), int(r['end'])))
    elif r['type'] == 'api':
        apis += 1
edges.sort()
wins, cur = [], None
for t, e in edges:
    if e == 'window-open' and cur is None:
        cur = t
    elif e == 'window-close' and cur is not None:
        wins.append((cur, t)); cur = None
if cur is not None:
    wins.append((cur, max(e for _, e in kernels) if kernels else cur))
outside = [k for k in kernels if not any(a <= k[0] <= b + 50_000_000 for a, b in wins)]
print(f"{len(wins)} windows, {len(kernels)} kernels, {apis} API records, {len(outside)} kernels outside a window")
for k in outside[:10]:
    a, b = min(wins, key=lambda w: min(abs(k[0] - w[0]), abs(k[0] - w[1])))
    print(f"  kernel [{k[0]}, {k[1]}]: {(k[0] - a) / 1e3:+.1f} us from the nearest window's open, "
          f"{(k[0] - b) / 1e3:+.1f} us from its close")
# Inside windows only the calls the analyses use are recorded, as in a full recording: the launch
# call of each kernel, and few others (at most 2 API records per kernel, the defaults' bound). A launch
# call already running when its window opened has no record while its kernel has (measured on the
# H200: 38,828 API records for 38,832 kernels in 6 windows), hence one per window less.
sys.exit(0 if len(wins) >= 4 and kernels and not outside and
         len(kernels) - len(wins) <= apis <= 2 * len(kernels) else 1)
PY
	"$GA" split --format json "$KEEP/window.gtrace" > "$WORK/window.split.json"
	check "windows: split's units are the windows, coverage said" python3 - "$WORK/window.split.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m, w = j['units_from']['mode'], j['trace'].get('windows', {})
print(f"mode {m}; windows {w}")
share = w.get('recorded_ns', 0) / w['run_ns'] if w.get('run_ns') else 0
sys.exit(0 if m == 'window' and w.get('count', 0) >= 4 and 0.1 < share < 0.4 else 1)
PY
fi
# Windows on a program that marks NVTX ranges (CUPTI's NVTX handlers crash a program once CUPTI is
# detached: measured, hence refused then): it runs and exits as bare, with windows and kernels.
if rec window_nvtx GPUTRACE_WINDOW=50/250 -- "$B/kernels/splat_render" --frames 3000 --warmup 3; then
	check "windows: an NVTX program runs to its end, windows and kernels recorded" python3 - "$WORK/window_nvtx.info.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['traces'][0]['records_by_type']
print(f"{c.get('process', 0)} process records, {c.get('kernel', 0)} kernels, {c.get('nvtx', 0)} NVTX records "
      "(none when the program's first range came while CUPTI was detached)")
sys.exit(0 if c.get('process', 0) >= 6 and c.get('kernel', 0) > 0 else 1)
PY
fi
exit $fail
