"""Prices each CUPTI activity kind alone, inside one process, with cupti_price.c preloaded.

    LD_PRELOAD=build/tests/bench/libcuptiprice.so python3 price_kinds.py [--rounds R] [--configs A;B]

Between processes the lent VM's spread hides differences of a few percent, so one process runs
every configuration, switching CUPTI kinds on and off between timed blocks (cupti_price_set), in
rounds whose order is shuffled with a fixed seed. Each block is warmed up after the switch, then
timed: a launch-bound PyTorch Transformer training step, t.add_(1.0) on a 1024-float tensor, and
CuPy's x += 1 (which launches through the driver API). A configuration's price in a round is its
time over the same round's "none" (CUPTI attached, nothing enabled); the script prints the median
and min..max of those ratios over the rounds, the added microseconds per op, and the records each
configuration made per kernel (from cupti_price_counts, so a switch that did not take shows as 0).

Without the library (a bare process) it times "none" only: price_kinds.sh compares that with the
preloaded "none" to price CUPTI attached with nothing enabled.
"""
import argparse
import ctypes
import os
import random
import statistics as st
import sys
import time

DEFAULTS = "kernel,memcpy,memset,runtime-sel,driver-sel,sync,nvtx,memory,overhead"
NO_API = "kernel,memcpy,memset,sync,nvtx,memory,overhead"
CONFIGS = [
    ("none", ""),
    ("k+m", "kernel,memcpy"),
    ("+memset", "kernel,memcpy,memset"),
    ("+runtime-sel", "kernel,memcpy,runtime-sel"),
    ("+driver-sel", "kernel,memcpy,driver-sel"),
    ("+runtime", "kernel,memcpy,runtime"),
    ("+driver", "kernel,memcpy,driver"),
    ("+runtime-excl", "kernel,memcpy,runtime-excl"),
    ("+driver-excl", "kernel,memcpy,driver-excl"),
    ("+sync", "kernel,memcpy,sync"),
    ("+nvtx", "kernel,memcpy,nvtx"),
    ("+memory", "kernel,memcpy,memory"),
    ("+overhead", "kernel,memcpy,overhead"),
    ("no-api", NO_API),
    ("defaults", DEFAULTS),
]


def workloads(steps, ops):
    import torch
    import cupy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
    from framework_workloads import transformer_step
    step = transformer_step(torch)
    t = torch.zeros(1024, device="cuda")
    c = cupy.zeros(1024, dtype=cupy.float32)

    def tiny():
        t.add_(1.0)

    def cup():
        c.__iadd__(1)

    def sync():
        torch.cuda.synchronize()
        cupy.cuda.runtime.deviceSynchronize()

    # name, one op, ops per timed block, unit scale (per op -> printed unit)
    return sync, [("transformer", step, steps, 1e3, "ms/step"),
                  ("tinyop", tiny, ops, 1e6, "us/op"),
                  ("cupy", cup, ops, 1e6, "us/op")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--configs", default="", help="names to run, ';'-separated (default: all)")
    ap.add_argument("--steps", type=int, default=40, help="Transformer steps per timed block")
    ap.add_argument("--ops", type=int, default=8000, help="tiny ops per timed block")
    a = ap.parse_args()
    lib = ctypes.CDLL(None)
    try:
        setk = lib.cupti_price_set
        setk.argtypes = [ctypes.c_char_p]
        counts_fn = lib.cupti_price_counts
        names = lib.cupti_price_names
        names.restype = ctypes.c_char_p
        kind_names = names().decode().split(",") + ["other"]
    except AttributeError:
        setk = None
        kind_names = []
    configs = [c for c in CONFIGS if not a.configs or c[0] in a.configs.split(";")]
    if setk is None:
        configs = [("none", "")]
    sync, wls = workloads(a.steps, a.ops)
    for _, op, n, _, _ in wls:   # warm every workload once, nothing enabled
        for _ in range(min(n, 200)):
            op()
    sync()
    times = {}     # (config, workload) -> [seconds per op, one per round]
    recs = {}      # config -> {kind: records} summed over rounds
    rng = random.Random(12)
    arr = (ctypes.c_ulonglong * 20)()
    for r in range(a.rounds):
        order = configs[:]
        rng.shuffle(order)
        for name, kinds in order:
            if setk is not None:
                failed = setk(kinds.encode())
                if failed:
                    print(f"config {name}: {failed} kinds failed to switch", file=sys.stderr)
                counts_fn(arr)
                before = list(arr)
            for wname, op, n, _, _ in wls:
                for _ in range(n // 20):   # warm after the switch
                    op()
                sync()
                t0 = time.perf_counter()
                for _ in range(n):
                    op()
                sync()
                times.setdefault((name, wname), []).append((time.perf_counter() - t0) / n)
            if setk is not None:
                counts_fn(arr)
                d = recs.setdefault(name, {})
                for i, k in enumerate(kind_names):
                    d[k] = d.get(k, 0) + arr[i] - before[i]
    if setk is not None:
        setk(b"")
    print("mode=%s rounds=%d" % ("preloaded" if setk else "bare", a.rounds))
    for wname, _, n, scale, unit in wls:
        # Without "none" (a process that keeps one setting, CUPTI_PRICE_START) ratios are to the first.
        base = times.get(("none", wname), times[(configs[0][0], wname)])
        for name, _ in configs:
            v = times[(name, wname)]
            ratios = [x / b for x, b in zip(v, base)]
            print(f"price workload={wname} config={name} unit={unit} median={st.median(v) * scale:.4f} "
                  f"min={min(v) * scale:.4f} max={max(v) * scale:.4f} "
                  f"ratio_median={st.median(ratios):.4f} ratio_min={min(ratios):.4f} "
                  f"ratio_max={max(ratios):.4f} added={(st.median(v) - st.median(base)) * scale:+.4f}")
    for name, _ in configs:
        d = recs.get(name)
        if not d:
            continue
        k = d.get("kernel", 0)
        api = d.get("runtime", 0) + d.get("driver", 0)  # every API record counts under these two
        kept = {x: y for x, y in d.items() if y}
        print(f"records config={name} kernels={k} api={api} "
              f"api_per_kernel={api / k if k else float('nan'):.2f} {kept}")


if __name__ == "__main__":
    main()
