"""Where windowed recording's cost lies: times every Transformer training step of a
launch-bound PyTorch run, and prints the distribution of step times and the slowest steps with
their offset from the first timed step, so that a cost paid once per window (CUPTI attaching or
detaching) shows as spikes a period apart and a cost paid inside windows as a shifted band.

    python3 probe_window_steps.py [--seconds S]      (run bare, then with GPUTRACE_WINDOW=...)

Each step is synchronised before its clock stops (so a step's time is its own, not its queue's);
that makes steps slower than the free-running loop of framework_workloads.py, and the same in
every mode, which is what a side-by-side comparison needs. Prints one line of percentiles, one
line of the total time above the median, and the ten slowest steps.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from framework_workloads import transformer_step  # noqa: E402 (found through the line above)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=4.0)
    a = ap.parse_args()
    step = transformer_step(torch)
    for _ in range(20):
        step()
    torch.cuda.synchronize()
    times = []
    t_start = time.perf_counter()
    while time.perf_counter() - t_start < a.seconds:
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        times.append((t1 - t0, t0 - t_start))
    d = sorted(x[0] for x in times)
    n = len(d)

    def pct(p):
        return d[min(n - 1, int(p * (n - 1) + 0.5))] * 1e3

    med = pct(0.5)
    excess = sum(max(0.0, x[0] * 1e3 - med) for x in times)
    wall = (time.perf_counter() - t_start) * 1e3
    print(f"steps={n} mean_ms={wall / n:.4f} p10={pct(0.1):.4f} p50={med:.4f} p90={pct(0.9):.4f} "
          f"p99={pct(0.99):.4f} max={d[-1] * 1e3:.3f}")
    print(f"time above the median: {excess:.1f} ms of {wall:.1f} ms ({100 * excess / wall:.1f}%)")
    slow = sorted(times, reverse=True)[:10]
    print("slowest (ms @ offset s):", " ".join(f"{x[0] * 1e3:.2f}@{x[1]:.3f}" for x in slow))


if __name__ == "__main__":
    raise SystemExit(main())
