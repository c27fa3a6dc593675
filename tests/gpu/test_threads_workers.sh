#!/bin/bash
# Threads and worker processes on the H200 (about 60 s):
#   - host threads carry their OS thread ids (gettid), as nsys and torch.profiler show them: the
#     trace says trace.thread_ids=os, the main thread's id is the process id, and every API and
#     NVTX thread id is a real tid (at most pid_max), one per launching thread of rel_cuda threads;
#   - a process that initialises CUDA but never creates a context (a `torch.cuda.device_count()`
#     tool, torch.compile's compile workers) leaves no trace file, while the process that used the
#     GPU leaves exactly one, with every kernel.
. "$(dirname "$0")/lib.sh"
. "$REPO/tests/gpu/progs/rel_lib.sh"
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || torch=0
pid_max=$(cat /proc/sys/kernel/pid_max)

# ---- OS thread ids ------------------------------------------------------------------------------
"$B/gputrace" record -q -o "$WORK/threads.gtrace" -- "$RC" threads --threads 6 --kernels 50 --status 0 > threads.out ||
	{ echo "  FAIL rel_cuda threads did not run"; fail=1; }
"$GA" dump --format jsonl --type api,nvtx "$WORK/threads.gtrace" > threads.jsonl
"$GA" info --format json "$WORK/threads.gtrace" > threads.info.json
check "OS thread ids: trace.thread_ids=os, main thread = pid, 6 launching threads, all tids <= pid_max" \
	python3 -c '
import json, sys
pid_max = int(sys.argv[1])
meta = {m["key"]: m["value"] for m in json.load(open("threads.info.json"))["traces"][0]["metadata"]}
tids, pids, launchers = set(), set(), set()
for line in open("threads.jsonl"):
    r = json.loads(line)
    if r["type"] in ("api", "nvtx"):
        tids.add(r["thread_id"])
        if r["type"] == "api":
            pids.add(r["process_id"])
            if r["name"].startswith("cudaLaunchKernel"):
                launchers.add(r["thread_id"])
pid = int(meta.get("process.pid", -1))
print("trace.thread_ids:", meta.get("trace.thread_ids"), " process.pid:", pid, " api pids:", sorted(pids))
print("thread ids:", sorted(tids), " launching:", len(launchers))
bad = []
if meta.get("trace.thread_ids") != "os": bad.append("trace.thread_ids is not os")
if pid not in tids: bad.append("no record on the main thread (tid == pid)")
if any(t > pid_max or t <= 0 for t in tids): bad.append("a thread id beyond pid_max: not an OS tid")
if len(launchers) != 6: bad.append("%d launching threads, want 6" % len(launchers))
for b in bad: print("BAD", b)
sys.exit(1 if bad else 0)' "$pid_max"

# ---- processes that never used a GPU ------------------------------------------------------------
mkdir -p nogpu
if [ "${torch:-1}" = 1 ]; then
	GPUTRACE_DEBUG=1 "$B/gputrace" record -o nogpu/count.gtrace -- python3 -c \
		'import torch; print("devices", torch.cuda.device_count(), torch.cuda.is_available())' \
		> count.out 2> count.err
	check "a torch.cuda.device_count() process leaves no trace, and the launcher says why" sh -c '
		cat count.out; grep -v "^gputrace: debug" count.err | head -n 3
		[ -z "$(ls nogpu)" ] || { echo "BAD traces: $(ls nogpu)"; exit 1; }
		grep -q "initialised CUDA but never used a GPU" count.err'

	mkdir -p compiled
	GPUTRACE_DEBUG=1 TORCHINDUCTOR_COMPILE_THREADS=4 TORCHINDUCTOR_CACHE_DIR=$WORK/inductor \
		"$B/gputrace" record -o compiled/x.gtrace -- python3 -c '
import torch
def f(a, b):
    return torch.relu(a @ b + 1.0).sum(dim=1) * 0.5
g = torch.compile(f)
a = torch.randn(256, 256, device="cuda"); b = torch.randn(256, 256, device="cuda")
for _ in range(10):
    y = g(a, b)
torch.cuda.synchronize()
print("compiled ok", float(y.sum()))' > compile.out 2> compile.err
	rc=$?
	check "torch.compile: one trace (the process that used the GPU), compile workers leave none" sh -c '
		cat compile.out; grep -c "created no CUDA context" compile.err | sed "s/^/processes without a context, traces removed: /"
		grep -v "^gputrace: debug" compile.err | tail -n 3
		ls compiled
		[ '"$rc"' = 0 ] || { echo "BAD exit '"$rc"'"; exit 1; }
		[ "$(ls compiled | wc -l)" = 1 ] || { echo "BAD $(ls compiled | wc -l) traces"; exit 1; }
		k=$("'"$GA"'" info --format json compiled/x.gtrace | python3 -c "import json,sys; print(json.load(sys.stdin)[\"traces\"][0][\"records_by_type\"].get(\"kernel\", 0))")
		echo "kernels in x.gtrace: $k"; [ "$k" -gt 0 ]'
	# Compile workers forked before the program's cuInit (worker_start_method fork) are idle
	# recorders of their own: any of them that calls cuInit without a context must leave nothing.
	mkdir -p forked
	GPUTRACE_DEBUG=1 TORCHINDUCTOR_WORKER_START=fork TORCHINDUCTOR_COMPILE_THREADS=4 \
		TORCHINDUCTOR_CACHE_DIR=$WORK/inductor-fork "$B/gputrace" record -o forked/x.gtrace -- python3 -c '
import torch
g = torch.compile(lambda a: torch.sin(a) * torch.cos(a) + a.sum())
a = torch.randn(4096, device="cuda")
for _ in range(5):
    y = g(a)
torch.cuda.synchronize()
print("compiled ok", torch.__version__)' > fork.out 2> fork.err
	rc=$?
	check "torch.compile, workers forked: one trace, whatever the workers did" sh -c '
		cat fork.out; grep -c "created no CUDA context" fork.err | sed "s/^/processes without a context, traces removed: /"
		grep -c "recording to" fork.err | sed "s/^/recorders started: /"
		ls forked
		[ '"$rc"' = 0 ] && [ "$(ls forked | wc -l)" = 1 ]'
else
	echo "  skipped: no PyTorch with CUDA for the no-GPU process cases"
fi
exit $fail
