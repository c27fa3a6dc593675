"""Compares gputrace's view of a PyTorch workload with torch.profiler's, run separately.

    python3 check_torch.py TRACE_DUMP_CSV PROFILER_JSONL STEPS_TRACED STEPS_PROFILED

The trace is of `torch_workload.py --steps S` (3 warm-up steps + S timed steps, plus set-up kernels);
the JSON lines come from `torch_workload.py --steps S --profile F` (torch.profiler around S steps).
Per kernel name seen by the profiler: launches per step on each side (they must be equal: the same
program, step for step) and the median duration on each side (different runs of the same kernels: we
report the ratio and accept 0.8..1.25, the run-to-run spread of a GPU that is not clock-locked).
"""
import csv
import json
import statistics
import sys


def main():
    steps_t, steps_p = int(sys.argv[3]), int(sys.argv[4])
    by_mangled, by_demangled = {}, {}
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if row["type"] == "kernel":
                us = (int(row["end"]) - int(row["start"])) / 1e3
                by_mangled.setdefault(row["name"], []).append(us)
                by_demangled.setdefault(row["demangled"], []).append(us)
    theirs = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    bad = 0
    total_t = total_p = 0
    print(f"  {'kernel (torch.profiler name)':60s} {'per step (trace)':>16s} {'per step (prof)':>15s} {'median us trace':>15s} {'prof':>8s} {'ratio':>6s}")
    for k in sorted(theirs, key=lambda k: -sum(k["us"])):
        name = k["name"]
        if name.startswith("Memset") or name.startswith("Memcpy"):
            # torch.profiler lists copies and memsets among its CUDA events; they are not kernels
            # (the trace has them as memcpy/memset records: counted by test_counts elsewhere).
            print(f"  {name[:60]:60s} {'(not a kernel)':>16s} {k['n'] / steps_p:15.2f}")
            continue
        # torch.profiler names C++ kernels by their demangled name, C kernels (cuBLAS) as they are.
        mine = by_demangled.get(name) or by_mangled.get(name)
        prof_per_step = k["n"] / steps_p
        if mine is None:
            print(f"  {name[:60]:60s} {'missing':>16s} {prof_per_step:15.2f}")
            bad += 1
            continue
        per_step = len(mine) / (steps_t + 3)
        mt = statistics.median(mine)
        mp = statistics.median(k["us"])
        ratio = mt / mp if mp else float("nan")
        ok = abs(per_step - prof_per_step) < 0.5 and 0.8 <= ratio <= 1.25
        bad += not ok
        total_t += len(mine)
        total_p += k["n"]
        print(f"  {name[:60]:60s} {per_step:16.2f} {prof_per_step:15.2f} {mt:15.3f} {mp:8.3f} {ratio:6.3f}{'' if ok else '  <-'}")
    print(f"  kernels seen by torch.profiler in {steps_p} steps: {total_p}; by gputrace for the same names "
          f"in {steps_t + 3} steps: {total_t}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
