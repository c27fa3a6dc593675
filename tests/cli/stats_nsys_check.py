#!/usr/bin/env python3
"""stats_nsys_check.py: checks gpuanalyze's nsys trace reports against an independent computation.

Usage: stats_nsys_check.py GPUANALYZE TRACE [headers]. Reads the trace's records through
`gpuanalyze dump --format jsonl` and computes, here and without the analyzer's code, what each
report must hold; then runs `gpuanalyze stats -r NAME --format csv` and `--format text` for each
report and compares: the CSV header's keys, the rows' values and, with "headers", the text
header's titles (Nsight Systems' column names, in order). Prints one line per disagreement and exits 1 on any.
"""
import csv
import io
import json
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

G, TRACE = sys.argv[1], sys.argv[2]
HEADERS = sys.argv[3:] == ["headers"]
errors = []


def err(msg):
    errors.append(msg)


def run(*args):
    return subprocess.run([G, *args], check=True, capture_output=True, text=True).stdout


recs = defaultdict(list)
for line in run("dump", "--format", "jsonl", TRACE).splitlines():
    r = json.loads(line)
    recs[r["type"]].append(r)

# Nsight Systems' column titles (text) and our keys (CSV), in order; a None title: machine only.
STATS = lambda p, k: [(p + "Avg (ns)", k + "avg_ns"), (p + "Med (ns)", k + "med_ns"), (p + "Min (ns)", k + "min_ns"),
                      (p + "Max (ns)", k + "max_ns"), (p + "StdDev (ns)", k + "stddev_ns")]
SUM = [("Time (%)", "time_pct"), ("Total Time (ns)", "total_time_ns"), ("Instances", "instances")] + STATS("", "")
COLUMNS = {
    "cuda_gpu_trace": [("Start (ns)", "start_ns"), ("Duration (ns)", "duration_ns"), ("CorrId", "corr_id"),
                       ("GrdX", "grid_x"), ("GrdY", "grid_y"), ("GrdZ", "grid_z"), ("BlkX", "block_x"),
                       ("BlkY", "block_y"), ("BlkZ", "block_z"), ("Reg/Trd", "registers_per_thread"),
                       ("StcSMem (MB)", "static_smem_bytes"), ("DymSMem (MB)", "dynamic_smem_bytes"),
                       ("Bytes (MB)", "bytes"), ("Throughput (MBps)", "throughput_mbps"), ("SrcMemKd", "src_mem_kind"),
                       ("DstMemKd", "dst_mem_kind"), ("Device", "device"), ("Ctx", "context"), ("Strm", "stream"),
                       (None, "name"), ("Name", "demangled")],
    "cuda_api_trace": [("Start (ns)", "start_ns"), ("Duration (ns)", "duration_ns"), ("Name", "name"),
                       ("Result", "result"), ("CorrID", "corr_id"), ("Pid", "pid"), ("Tid", "tid"),
                       ("T-Pri", "thread_priority"), ("Thread Name", "thread_name")],
    "cuda_kern_exec_trace": [("API Start (ns)", "api_start_ns"), ("API Dur (ns)", "api_dur_ns"),
                             ("Queue Start (ns)", "queue_start_ns"), ("Queue Dur (ns)", "queue_dur_ns"),
                             ("Kernel Start (ns)", "kernel_start_ns"), ("Kernel Dur (ns)", "kernel_dur_ns"),
                             ("Total Dur (ns)", "total_dur_ns"), ("PID", "pid"), ("TID", "tid"), ("DevId", "device"),
                             ("API Function", "api_function"), ("GridXYZ", "grid"), ("BlockXYZ", "block"),
                             (None, "kernel_name"), ("Kernel Name", "kernel_demangled")],
    "cuda_kern_exec_sum": [("PID", "pid"), ("TID", "tid"), ("DevId", "device"), ("Count", "count"),
                           ("QCount", "queue_count")] + STATS("T", "total_") + STATS("A", "api_") +
                          STATS("Q", "queue_") + STATS("K", "kernel_") +
                          [("API Name", "api_name"), (None, "kernel_name"), ("Kernel Name", "kernel_demangled")],
    "cuda_api_gpu_sum": SUM + [("Category", "category"), (None, "operation"), ("Operation", "operation_demangled")],
    "nvtx_pushpop_sum": SUM + [("Range", "range")],
    "nvtx_pushpop_trace": [("Start (ns)", "start_ns"), ("End (ns)", "end_ns"), ("Duration (ns)", "duration_ns"),
                           ("DurChild (ns)", "dur_child_ns"), ("DurNonChild (ns)", "dur_non_child_ns"),
                           ("Name", "name"), ("PID", "pid"), ("TID", "tid"), ("Lvl", "level"),
                           ("NumChild", "num_child"), ("RangeId", "range_id"), ("ParentId", "parent_id"),
                           ("RangeStack", "range_stack"), ("NameTree", "name_tree")],
    "nvtx_gpu_proj_trace": [("Name", "name"), ("Projected Start (ns)", "projected_start_ns"),
                            ("Projected Duration (ns)", "projected_duration_ns"), ("Orig Start (ns)", "orig_start_ns"),
                            ("Orig Duration (ns)", "orig_duration_ns"), ("Style", "style"), ("PID", "pid"),
                            ("TID", "tid"), ("NumGPUOps", "num_gpu_ops"), ("Lvl", "level"), ("NumChild", "num_child"),
                            ("RangeId", "range_id"), ("ParentId", "parent_id"), ("RangeStack", "range_stack")],
    "nvtx_gpu_proj_sum": [("Range", "range"), ("Style", "style"), ("Total Proj Time (ns)", "total_proj_time_ns"),
                          ("Total Range Time (ns)", "total_range_time_ns"), ("Range Instances", "range_instances")] +
                         STATS("Proj ", "proj_") +
                         [("Total GPU Ops", "total_gpu_ops"), ("Avg GPU Ops", "avg_gpu_ops"),
                          ("Avg Range Lvl", "avg_range_level"), ("Avg Num Child", "avg_num_child")],
}

rows = {}
for rep, cols in COLUMNS.items():
    out = run("stats", "-r", rep, "--format", "csv", TRACE)
    data = list(csv.DictReader(io.StringIO(out)))
    head = out.splitlines()[0].split(",")
    want_keys = [k for _, k in cols]
    if head != want_keys:
        err(f"{rep}: CSV header {head} != {want_keys}")
    rows[rep] = data
    if not HEADERS:
        continue
    text = run("stats", "-r", rep, TRACE).splitlines()
    # The text table's header is the line above the first line of dashes.
    dash = next((i for i, l in enumerate(text) if l.startswith("-") and set(l) <= {"-", " "}), None)
    want_titles = [t for t, _ in cols if t]
    if dash is None:
        if any(l.startswith("no rows") for l in text):
            pass
        else:
            err(f"{rep}: no table in the text output")
    else:
        widths = [len(w) for w in text[dash].split("  ") if w]
        line, pos, titles = text[dash - 1], 0, []
        for w in widths:
            titles.append(line[pos:pos + w].strip())
            pos += w + 2
        if titles != want_titles:
            err(f"{rep}: text header {titles} != {want_titles}")

kernels = [k for k in recs["kernel"] if not (k["flags"] & 8) and k["end"] >= k["start"]]
copies = [m for m in recs["memcpy"] if not (m["flags"] & 2) and m["end"] >= m["start"]]
memsets = [m for m in recs["memset"] if m["end"] >= m["start"]]
apis = [a for a in recs["api"] if a["end"] >= a["start"]]

# cuda_gpu_trace: one row per kernel, copy and memset, in order of start; throughput = MB/s.
r = rows["cuda_gpu_trace"]
want = Counter((x["start"], x["end"] - x["start"], x["correlation_id"]) for x in kernels + copies + memsets)
got = Counter((int(x["start_ns"]), int(x["duration_ns"]), int(x["corr_id"])) for x in r)
if want != got:
    err(f"cuda_gpu_trace: rows differ: missing {list((want - got).items())[:3]}, extra {list((got - want).items())[:3]}")
if [int(x["start_ns"]) for x in r] != sorted(int(x["start_ns"]) for x in r):
    err("cuda_gpu_trace: rows not in order of start")
for x in r:
    if x["bytes"] and int(x["duration_ns"]) > 0:
        tp = int(x["bytes"]) * 1e3 / int(x["duration_ns"])
        if abs(float(x["throughput_mbps"]) - tp) > 1e-9 * tp:
            err(f"cuda_gpu_trace: throughput {x['throughput_mbps']} != {tp}")
            break

# cuda_api_trace
want = Counter((a["start"], a["end"] - a["start"], a["name"], a["correlation_id"], a["return_value"]) for a in apis)
got = Counter((int(x["start_ns"]), int(x["duration_ns"]), x["name"].lstrip("'"), int(x["corr_id"]), int(x["result"]))
              for x in rows["cuda_api_trace"])
if want != got:
    err(f"cuda_api_trace: rows differ: missing {list((want - got).items())[:3]}, extra {list((got - want).items())[:3]}")

# cuda_kern_exec_trace: each kernel with the earliest call of its correlation id.
first = {}
for a in sorted(apis, key=lambda a: a["start"]):
    first.setdefault(a["correlation_id"], a)
launches = []
for k in kernels:
    a = first.get(k["correlation_id"])
    if a is None or k["end"] < a["start"]:
        continue
    q = k["start"] - a["end"] if k["start"] > a["end"] else None
    launches.append((a, k, q))
want = Counter((a["start"], a["end"] - a["start"], "" if q is None else str(q), k["start"], k["end"] - k["start"],
                k["end"] - a["start"]) for a, k, q in launches)
got = Counter((int(x["api_start_ns"]), int(x["api_dur_ns"]), x["queue_dur_ns"], int(x["kernel_start_ns"]),
               int(x["kernel_dur_ns"]), int(x["total_dur_ns"])) for x in rows["cuda_kern_exec_trace"])
if want != got:
    err(f"cuda_kern_exec_trace: rows differ: missing {list((want - got).items())[:3]}, extra {list((got - want).items())[:3]}")

# cuda_kern_exec_sum: per group, the count, the queued count, total min/max and the kernel median.
groups = defaultdict(list)
for a, k, q in launches:
    groups[(a["process_id"], a["thread_id"], k["device_id"], a["name"], k["name"])].append((a, k, q))
got = {(int(x["pid"]), int(x["tid"]), int(x["device"]), x["api_name"].lstrip("'"), x["kernel_name"].lstrip("'")): x
       for x in rows["cuda_kern_exec_sum"]}
if set(got) != set(groups):
    err(f"cuda_kern_exec_sum: groups differ: {sorted(set(groups) ^ set(got))[:3]}")
for key, ls in groups.items():
    x = got.get(key)
    if not x:
        continue
    tot = [k["end"] - a["start"] for a, k, _ in ls]
    qs = [q for _, _, q in ls if q is not None]
    want = (len(ls), len(qs), min(tot), max(tot), statistics.median(k["end"] - k["start"] for _, k, _ in ls))
    have = (int(x["count"]), int(x["queue_count"]), float(x["total_min_ns"]), float(x["total_max_ns"]),
            float(x["kernel_med_ns"]))
    if want != have:
        err(f"cuda_kern_exec_sum: {key}: {have} != {want}")

# cuda_api_gpu_sum: per category and operation, instances and total.
want = Counter()
for a in apis:
    want[("CUDA_API", a["name"])] += a["end"] - a["start"]
for k in kernels:
    want[("CUDA_KERNEL", k["name"])] += k["end"] - k["start"]
ops = {"HtoD": "Host-to-Device", "DtoH": "Device-to-Host", "DtoD": "Device-to-Device", "HtoH": "Host-to-Host",
       "PtoP": "Peer-to-Peer", "HtoA": "Host-to-Array", "AtoH": "Array-to-Host", "AtoA": "Array-to-Array",
       "AtoD": "Array-to-Device", "DtoA": "Device-to-Array"}
for m in copies:
    want[("MEMORY_OPER", "[CUDA memcpy %s]" % ops.get(m["copy_kind"], "unknown"))] += m["end"] - m["start"]
for m in memsets:
    want[("MEMORY_OPER", "[CUDA memset]")] += m["end"] - m["start"]
got = {(x["category"], x["operation"].lstrip("'")): float(x["total_time_ns"]) for x in rows["cuda_api_gpu_sum"]}
if {k: float(v) for k, v in want.items()} != got:
    err(f"cuda_api_gpu_sum: totals differ: {sorted(set(want.items()) ^ set(got.items()))[:4]}")
pct = sum(float(x["time_pct"]) for x in rows["cuda_api_gpu_sum"] if x["time_pct"])
if rows["cuda_api_gpu_sum"] and abs(pct - 100) > 1e-6:
    err(f"cuda_api_gpu_sum: percents add up to {pct}")

# nvtx_pushpop_sum and nvtx_pushpop_trace: closed push/pop ranges.
pp = [n for n in recs["nvtx"] if n["kind"] == "push-pop" and n["end"] and n["end"] >= n["start"]]
want = defaultdict(list)
for n in pp:
    want[(n["domain"] + ":" if n["domain"] else "") + n["name"]].append(n["end"] - n["start"])
got = {x["range"].lstrip("'"): x for x in rows["nvtx_pushpop_sum"]}
if set(got) != set(want):
    err(f"nvtx_pushpop_sum: ranges differ: {sorted(set(got) ^ set(want))[:3]}")
for name, d in want.items():
    x = got.get(name)
    if x and (int(x["instances"]), float(x["total_time_ns"]), float(x["med_ns"])) != (len(d), sum(d), statistics.median(d)):
        err(f"nvtx_pushpop_sum: {name}: {x['instances']} {x['total_time_ns']} {x['med_ns']} != {len(d)} {sum(d)}")

# The tree, rebuilt here: per thread, by start (the longer first), a parent is the innermost range
# still open at the child's start.
order = sorted(pp, key=lambda n: (n["thread_id"], n["start"], -n["end"]))
level, parent, child, nchild = [], [], [0] * len(order), [0] * len(order)
stack = []
for i, n in enumerate(order):
    if i and n["thread_id"] != order[i - 1]["thread_id"]:
        stack = []
    while stack and order[stack[-1]]["end"] <= n["start"]:
        stack.pop()
    level.append(len(stack))
    parent.append(stack[-1] + 1 if stack else None)
    if stack:
        child[stack[-1]] += n["end"] - n["start"]
        nchild[stack[-1]] += 1
    stack.append(i)
got = rows["nvtx_pushpop_trace"]
if len(got) != len(order):
    err(f"nvtx_pushpop_trace: {len(got)} rows, want {len(order)}")
for i, (x, n) in enumerate(zip(got, order)):
    want = (n["start"], n["end"], level[i], "" if parent[i] is None else str(parent[i]), child[i], nchild[i], i + 1)
    have = (int(x["start_ns"]), int(x["end_ns"]), int(x["level"]), x["parent_id"], int(x["dur_child_ns"]),
            int(x["num_child"]), int(x["range_id"]))
    chain, p = [], i + 1
    while p:
        chain.append(p)
        p = parent[p - 1]
    stack_want = ("..." if len(chain) > 16 else "") + "".join(f":{c}" for c in reversed(chain[:16]))
    want += (stack_want,)
    have += (x["range_stack"],)
    if want != have:
        err(f"nvtx_pushpop_trace: row {i + 1}: {have} != {want}")
        break

# nvtx_gpu_proj_*: each closed range's GPU operations are those whose launching call started in
# it (on its thread for push/pop); its projection spans their starts and ends.
import bisect
gpu_ops = []
for x in kernels + copies + memsets:
    a = first.get(x["correlation_id"])
    if a is not None:
        gpu_ops.append((a["start"], a["thread_id"] & 0xffffffff, x["start"], x["end"]))
gpu_ops.sort()
by_thread = defaultdict(list)
for o in gpu_ops:
    by_thread[o[1]].append(o)
keys_all = [o[0] for o in gpu_ops]
keys_th = {t: [o[0] for o in l] for t, l in by_thread.items()}
want = Counter()
want_sum = defaultdict(lambda: [0, 0, 0])
for n in recs["nvtx"]:
    if n["kind"] not in ("push-pop", "start-end") or not n["end"] or n["end"] < n["start"]:
        continue
    if n["kind"] == "push-pop":
        l, k = by_thread.get(n["thread_id"], []), keys_th.get(n["thread_id"], [])
    else:
        l, k = gpu_ops, keys_all
    sl = l[bisect.bisect_left(k, n["start"]):bisect.bisect_left(k, n["end"])]
    if not sl:
        continue
    ps, pe = min(o[2] for o in sl), max(o[3] for o in sl)
    style = "PushPop" if n["kind"] == "push-pop" else "StartEnd"
    want[(n["name"], style, n["start"], ps, pe - ps, len(sl))] += 1
    g = want_sum[(n["name"], style)]
    g[0] += 1
    g[1] += pe - ps
    g[2] += len(sl)
got = Counter((x["name"].lstrip("'"), x["style"], int(x["orig_start_ns"]), int(x["projected_start_ns"]),
               int(x["projected_duration_ns"]), int(x["num_gpu_ops"])) for x in rows["nvtx_gpu_proj_trace"])
if want != got:
    err(f"nvtx_gpu_proj_trace: rows differ: missing {list((want - got).items())[:3]}, extra {list((got - want).items())[:3]}")
got = {(x["range"].lstrip("'"), x["style"]): [int(x["range_instances"]), float(x["total_proj_time_ns"]),
                                              int(x["total_gpu_ops"])] for x in rows["nvtx_gpu_proj_sum"]}
if got != {k: [v[0], float(v[1]), v[2]] for k, v in want_sum.items()}:
    err(f"nvtx_gpu_proj_sum: groups differ: {sorted(got.items())[:3]} vs {sorted(want_sum.items())[:3]}")

for e in errors:
    print(f"{TRACE}: {e}")
sys.exit(1 if errors else 0)
