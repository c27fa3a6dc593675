"""Launch-bound workloads of frameworks this project did not write, for the recording-cost table.

    python3 framework_workloads.py [--only transformer,tinyop,cupy] [--profiler] [--seconds S]
                                   [--chunks N]

- transformer: a 2-layer nn.TransformerEncoder training step (d_model 256, 4 heads, batch 16 x 128
  tokens, AdamW, fp32): about 140 kernels and 5 ms per step on an H200, launch-bound;
- tinyop: t.add_(1.0) on a 1024-float tensor, one kernel per op: the per-launch cost as PyTorch
  pays it (the dispatcher's calls around every launch included);
- cupy: x += 1 on a 1024-float CuPy array: CuPy launches through the driver API (cuLaunchKernel).

Each workload is warmed up, then timed over a fixed count sized to run about --seconds (so that a
windowed recording with a 1 s period sees several windows), and synchronised before the clock
stops. --chunks N (transformer only) times the steps in N synchronised chunks and reports the median
chunk: the figure a cost comparison wants, robust to a stall of the lent machine. With --profiler
the torch workloads run inside torch.profiler (CPU + CUDA activities), the peer this tool is
compared with. Prints one line per workload:
    workload=NAME unit=ms/step|us/op value=V count=N cpu=C
(C: the launching thread's CPU time per step or op, in the same unit).
"""
import argparse
import statistics
import sys
import time


def clocks():
    """Wall time, and the CPU time of this (the launching) thread: the second leaves out the time
    the VM ran something else, which is most of the lent machine's noise, and keeps what a tracer
    adds to each launch on the program's thread."""
    return time.perf_counter(), time.thread_time()


def transformer_step(torch):
    """One training step of the workload's Transformer, as a function (price_kinds.py uses it too)."""
    dev = torch.device("cuda")
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 128, 256, device=dev)
    tgt = torch.randn(16, 128, 256, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), tgt)
        loss.backward()
        opt.step()

    return step


def transformer(torch, seconds, profiler, chunks=1):
    """ms per step over about `seconds`; with chunks > 1, the steps are timed in that many
    synchronised chunks and the median chunk is the figure (wall and CPU time alike), so that one
    stall of the machine moves one chunk, not the run's figure."""
    step = transformer_step(torch)
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    steps = max(20, int(seconds / 0.005))
    per = max(1, steps // chunks)
    walls, cpus = [], []
    with profiler():
        for _ in range(chunks):
            t0, c0 = clocks()
            for _ in range(per):
                step()
            torch.cuda.synchronize()
            t1, c1 = clocks()
            walls.append((t1 - t0) * 1e3 / per)
            cpus.append((c1 - c0) * 1e3 / per)
    return "ms/step", statistics.median(walls), per * chunks, statistics.median(cpus)


def tinyop(torch, seconds, profiler):
    t = torch.zeros(1024, device="cuda")
    for _ in range(1000):
        t.add_(1.0)
    torch.cuda.synchronize()
    ops = max(1000, int(seconds / 10e-6))
    with profiler():
        t0, c0 = clocks()
        for _ in range(ops):
            t.add_(1.0)
        torch.cuda.synchronize()
        t1, c1 = clocks()
    return "us/op", (t1 - t0) * 1e6 / ops, ops, (c1 - c0) * 1e6 / ops


def cupy_op(seconds):
    import cupy
    x = cupy.zeros(1024, dtype=cupy.float32)
    for _ in range(1000):
        x += 1
    cupy.cuda.runtime.deviceSynchronize()
    ops = max(1000, int(seconds / 10e-6))
    t0, c0 = clocks()
    for _ in range(ops):
        x += 1
    cupy.cuda.runtime.deviceSynchronize()
    t1, c1 = clocks()
    return "us/op", (t1 - t0) * 1e6 / ops, ops, (c1 - c0) * 1e6 / ops


class _NoProfiler:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="transformer,tinyop,cupy")
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--chunks", type=int, default=1,
                    help="transformer only: time in this many synchronised chunks, report the median")
    a = ap.parse_args()
    which = a.only.split(",")
    torch = None
    if "transformer" in which or "tinyop" in which:
        import torch
        if not torch.cuda.is_available():
            print("framework_workloads: no CUDA device", file=sys.stderr)
            return 3

    def profiler():
        if not a.profiler:
            return _NoProfiler()
        from torch.profiler import profile, ProfilerActivity
        return profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])

    for w in which:
        if w == "transformer":
            unit, v, n, cpu = transformer(torch, a.seconds, profiler, max(1, a.chunks))
        elif w == "tinyop":
            unit, v, n, cpu = tinyop(torch, a.seconds, profiler)
        elif w == "cupy":
            if a.profiler:
                continue  # torch.profiler does not see CuPy's launches as its own workload
            try:
                unit, v, n, cpu = cupy_op(a.seconds)
            except ImportError as e:
                print(f"framework_workloads: no cupy: {e}", file=sys.stderr)
                continue
        else:
            print(f"framework_workloads: unknown workload {w}", file=sys.stderr)
            return 2
        print(f"workload={w} unit={unit} value={v:.4f} count={n} cpu={cpu:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
