"""The PyTorch program of the reliability matrix (tests/gpu/test_reliability_matrix.sh): unmodified
PyTorch, where PyTorch matters, a plain run and a second CUPTI client (torch.profiler) in the same
process as the recorder.

    python3 rel_torch.py plain|collide-before|collide-after [--steps N]

  plain           N steps of matrix products and a small MLP training step
  collide-before  torch.profiler (CUPTI inside, through Kineto) started before CUDA is initialised,
                  around the whole run
  collide-after   the same steps, then torch.profiler started once CUDA is in use, around N more

Standard output holds only what is the same on every run (the mode, the steps, a rounded checksum of
a deterministic result), so a run under the recorder can be compared byte for byte with a bare run.
What torch.profiler saw ("profiler_kernels=K names=M") goes to the file named by $REL_PROF_OUT (it
is what the collision costs the other client, and differs with and without the recorder). Exit 0;
3 without PyTorch or without a CUDA device (one line on stdout).
"""
import os
import sys


def work(torch, steps, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(512, 512, generator=g).to(dev)
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 512))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    model = model.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for _ in range(steps):
        y = x @ x.T
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y[:, :512] * 0.0)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    # Rounded hard: the value must not depend on the order cuBLAS picks from run to run.
    return round(float(loss.item()), 2)


def profiler_report(prof, torch):
    out = os.environ.get("REL_PROF_OUT")
    if not out:
        return
    names = {}
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            names[ev.name] = names.get(ev.name, 0) + 1
    with open(out, "w") as f:
        f.write(f"profiler_kernels={sum(names.values())} names={len(names)}\n")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
    steps = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--steps" else 20
    print(f"rel_torch {mode} steps={steps}", flush=True)
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except Exception as e:  # noqa: BLE001
        print(f"rel_torch: no torch: {type(e).__name__}")
        return 3
    if mode == "collide-before":
        # The profiler first: Kineto sets CUPTI up before this process has touched CUDA.
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            if not torch.cuda.is_available():
                print("rel_torch: no CUDA device")
                return 3
            v = work(torch, steps, torch.device("cuda"))
        profiler_report(prof, torch)
    else:
        if not torch.cuda.is_available():
            print("rel_torch: no CUDA device")
            return 3
        dev = torch.device("cuda")
        v = work(torch, steps, dev)
        if mode == "collide-after":
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                v = work(torch, steps, dev)
            profiler_report(prof, torch)
        elif mode != "plain":
            print(f"rel_torch: unknown mode {mode}")
            return 2
    print(f"rel_torch loss={v:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
