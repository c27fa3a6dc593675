"""A PyTorch DistributedDataParallel training step over NCCL, one process per GPU, for recording a
multi-rank job with gputrace (tests/gpu/test_multi_gpu.sh) and reading it with `gpuanalyze ranks`.

    python3 ddp_step.py --nprocs 2 [--steps N] [--slow-rank R] [--slow-matmuls K]   # launches ranks
    torchrun --nproc_per_node 2 ddp_step.py [--steps N] ...                          # one rank each

With --nprocs the script starts the ranks itself, the way torchrun does: one child process per
rank, each given RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment when it
starts (so that a recorder injected into it reads its rank before any Python runs: its trace is
`%r`). The parent never imports torch, so it never touches CUDA and writes no trace of its own.

Each rank uses GPU LOCAL_RANK, trains a small MLP wrapped in DDP for --steps steps; each step is
one NVTX range "step" (torch.cuda.nvtx) that ends after torch.cuda.synchronize(), so a step on one
rank covers the same all-reduce as on the others. --slow-rank R gives rank R --slow-matmuls extra
4096 x 4096 matrix products before each forward pass: it reaches the all-reduce last, and the other
ranks wait for it inside NCCL's kernels, which `gpuanalyze ranks` reports as "waited for".

NVLink multicast (NVLS) stays off, as the GPU machine's notes require: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 are set before torch is imported, in
this process and in every rank it starts.

Output per rank, one line each: "ddp rank=R world=W device=D name=... steps=N ..." and "ddp_step rank=R
step_ms_median=... slow_matmuls=K". Exit 0 ok, 1 a rank failed, 2 bad usage, 3 no torch, no CUDA or
fewer GPUs than ranks.
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NO_MULTICAST)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nccl_version(torch):
    v = torch.cuda.nccl.version()  # a tuple in recent torch, an int (2.19.3 -> 21903) before
    return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)


def launch(a):
    """Starts --nprocs ranks as torchrun would, waits for all; the worst exit status wins."""
    port = str(free_port())
    procs = []
    for r in range(a.nprocs):
        env = dict(os.environ, **NO_MULTICAST, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(a.nprocs),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        argv = [sys.executable, os.path.abspath(__file__), "--steps", str(a.steps), "--warmup", str(a.warmup),
                "--slow-rank", str(a.slow_rank), "--slow-matmuls", str(a.slow_matmuls)]
        procs.append(subprocess.Popen(argv, env=env))
    rcs = [p.wait() for p in procs]
    bad = [rc for rc in rcs if rc != 0]
    if bad:
        print(f"ddp_step: ranks exited {rcs}", file=sys.stderr)
        return 3 if all(rc == 3 for rc in bad) else 1
    return 0


def rank_main(a):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    try:
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
    except Exception as e:  # noqa: BLE001
        print(f"ddp_step: no torch: {e}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("ddp_step: no CUDA device", file=sys.stderr)
        return 3
    if torch.cuda.device_count() <= local:
        print(f"ddp_step: needs {world} GPUs: found {torch.cuda.device_count()}", file=sys.stderr)
        return 3
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    try:  # device_id (torch >= 2.3) binds the group to this GPU at once
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    except TypeError:
        dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.manual_seed(1234 + rank)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).to(dev)
    ddp = DDP(model, device_ids=[local])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    inp = torch.randn(512, 1024, device=dev)
    tgt = torch.randn(512, 1024, device=dev)
    big_a = torch.randn(4096, 4096, device=dev)
    big_b = torch.randn(4096, 4096, device=dev)
    scratch = torch.empty(4096, 4096, device=dev)
    extra = a.slow_matmuls if rank == a.slow_rank else 0
    print(f"ddp rank={rank} world={world} device={local} name=\"{torch.cuda.get_device_name(dev)}\" "
          f"steps={a.steps} warmup={a.warmup} torch={torch.__version__} "
          f"nccl={nccl_version(torch)} "
          f"nvls={os.environ.get('NCCL_NVLS_ENABLE')}", flush=True)
    times = []
    for i in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("step")
        for _ in range(extra):
            torch.mm(big_a, big_b, out=scratch)  # the straggler's extra work
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(ddp(inp), tgt)
        loss.backward()  # DDP's all-reduce of the gradients runs here, over NCCL
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        if i >= a.warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    dist.barrier()
    print(f"ddp_step rank={rank} step_ms_median={statistics.median(times):.3f} slow_matmuls={extra} "
          f"loss={loss.item():.6f}", flush=True)
    dist.destroy_process_group()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nprocs", type=int, default=0, help="start this many ranks (else: run as one rank)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3, help="steps run first, also as NVTX 'step' ranges")
    ap.add_argument("--slow-rank", type=int, default=-1, help="the rank given extra work (-1: none)")
    ap.add_argument("--slow-matmuls", type=int, default=8)
    a = ap.parse_args()
    if a.steps < 1 or a.warmup < 0 or a.slow_matmuls < 0:
        ap.error("--steps must be >= 1, --warmup and --slow-matmuls >= 0")
    if a.nprocs:
        return launch(a)
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        ap.error("no RANK/WORLD_SIZE in the environment: run under torchrun, or give --nprocs")
    return rank_main(a)


if __name__ == "__main__":
    sys.exit(main())
