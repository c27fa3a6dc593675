"""A PyTorch workload this project did not write the kernels of: matrix products and a small MLP
training step. Run unmodified under gputrace, and separately under torch.profiler, so that kernel
counts and per-kernel durations can be compared.

    python3 torch_workload.py [--steps N] [--profile OUT.json] [--nvtx]

Prints "torch_workload kernels_expected_min=..." and per-phase wall times. With --profile, runs the
same loop under torch.profiler (CUPTI inside) and writes per-kernel stats as JSON lines.
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--profile", default="")
    ap.add_argument("--nvtx", action="store_true")
    ap.add_argument("--timed-profiler", action="store_true",
                    help="time the loop while torch.profiler records it (its overhead)")
    ap.add_argument("--collide", action="store_true",
                    help="start torch.profiler inside a traced process (the collision case)")
    a = ap.parse_args()
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        print(f"torch_workload: no torch: {e}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("torch_workload: no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    torch.manual_seed(0)
    n = a.size
    x = torch.randn(n, n, device=dev)
    y = torch.randn(n, n, device=dev)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    inp = torch.randn(256, 1024, device=dev)
    tgt = torch.randn(256, 1024, device=dev)
    torch.cuda.synchronize()

    def loop(steps):
        for i in range(steps):
            if a.nvtx:
                torch.cuda.nvtx.range_push("step")
            z = x @ y
            z = z @ y
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(inp), tgt)
            loss.backward()
            opt.step()
            if a.nvtx:
                torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        return z

    loop(3)  # warm-up: cuBLAS handles, allocator, module loads
    if a.timed_profiler:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            loop(3)
            t0 = time.perf_counter()
            loop(a.steps)
            t1 = time.perf_counter()
    else:
        t0 = time.perf_counter()
        loop(a.steps)
        t1 = time.perf_counter()
    print(f"torch_workload steps={a.steps} size={n} wall_ms={(t1 - t0) * 1e3:.3f} "
          f"per_step_ms={(t1 - t0) * 1e3 / a.steps:.4f}")
    if a.profile or a.collide:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            loop(a.steps)
        stats = {}
        for ev in prof.events():
            if ev.device_type == torch.autograd.DeviceType.CUDA:
                s = stats.setdefault(ev.name, [])
                s.append(ev.device_time if hasattr(ev, "device_time") else ev.cuda_time)
        if a.profile:
            with open(a.profile, "w") as f:
                for k, v in stats.items():
                    f.write(json.dumps({"name": k, "n": len(v), "us": v}) + "\n")
        print(f"torch_profiler kernels={sum(len(v) for v in stats.values())} names={len(stats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
