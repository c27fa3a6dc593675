#!/bin/bash
# test_replay.sh: `gputrace replay` on a real GPU, on kernels this project wrote (correct and broken)
# and on kernels it did not: PyTorch's at::native layer norm and softmax, a Triton kernel from
# torch.compile, and a CuPy RawKernel (NVRTC). Each program is recorded with --shadow, then every
# capture is replayed alone: the self-check must reproduce deterministic kernels bit for bit, every
# capture must get a verdict, the timing table must set isolation beside the run, and gpuanalyze
# must read the replay trace (summary, and diff of two replays). Kernels that take their tensors'
# addresses inside by-value structs (PyTorch's reductions, CuPy's elementwise kernels) are replayed
# through the pointers the recorder found in those structs.
. "$(dirname "$0")/lib.sh"
GT=$B/gputrace
export GPUTRACE_QUIET=1

expect() { # expect NAME FILE REGEX MIN: at least MIN lines of FILE match REGEX
	local n; n=$(grep -cE "$3" "$2")
	if [ "$n" -ge "$4" ]; then echo "  PASS $1 ($n lines match '$3')"; else echo "  FAIL $1 ($n < $4 lines match '$3')"; fail=1; fi
}
verdicts_for_all() { # NAME REPLAY-OUTPUT TRACE: one verdict line per capture replayed
	local want got
	want=$("$GT" replay --list "$3" | sed -n 's/^\([0-9]*\) captured launches.*/\1/p')
	got=$(grep -c '^  verdict: ' "$2")
	if [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then echo "  PASS $1: $got verdicts for $want captures"
	else echo "  FAIL $1: $got verdicts for $want captures"; fail=1; fi
}
replay() { # replay NAME TRACE ARGS...: prints the output, leaves it in NAME.txt, returns the status
	local name=$1 trace=$2; shift 2
	"$GT" replay --force -o "$name.replay.gtrace" "$@" "$trace" > "$name.txt" 2>&1
	local rc=$?
	sed 's/^/    /' "$name.txt"
	echo "  ($name: gputrace replay exit $rc)"
	cp "$name.txt" "$KEEP/replay-$name.txt" 2>/dev/null
	return $rc
}

echo "== our kernels, correct"
check "record shadow_kernels" "$GT" record -q --force -o k.gtrace --shadow '*' --shadow-max 2 -- \
	"$B/kernels/shadow_kernels" --reps 20 --n 1000003 --rows 64 --cols 1024
replay k k.gtrace -n 30; rc=$?
[ $rc -eq 0 ] && echo "  PASS replay exit 0" || { echo "  FAIL replay exit $rc"; fail=1; }
verdicts_for_all "correct kernels" k.txt k.gtrace
expect "saxpy and reduce_sum reproduced bit for bit" k.txt '^  verdict: reproduced: bit-exact' 4
expect "timing beside the run" k.txt 'in the run .* in isolation .* median: [0-9.]+x' 4
check "gpuanalyze summary of the replay" "$GA" summary --warmup 1 k.replay.gtrace
check "gpuanalyze report of the replay" "$GA" report k.replay.gtrace
"$GA" stats nvtx_kern_sum k.replay.gtrace > nvtx.txt 2>&1
sed 's/^/    /' nvtx.txt | head -20
expect "each capture's launches under its NVTX range" nvtx.txt 'replay capture [0-9]+' 8
replay k2 k.gtrace -n 30 --capture 1 --capture 3 >/dev/null
"$GT" replay --force -o k3.replay.gtrace -n 30 --capture 1 --capture 3 k.gtrace > k3.txt 2>&1
"$GA" diff k2.replay.gtrace k3.replay.gtrace > diff.txt 2>&1; rc=$?
sed 's/^/    /' diff.txt
case $rc in 0 | 1) echo "  PASS gpuanalyze diff of two replays (exit $rc)" ;; *) echo "  FAIL diff exit $rc"; fail=1 ;; esac
expect "diff names saxpy" diff.txt 'saxpy' 1

echo "== a standalone reproducer, built and run from its own folder"
check "extract capture 1" "$GT" replay --extract 1 -o "$WORK/repro1" k.gtrace
check "build the reproducer" make -C "$WORK/repro1" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
(cd "$WORK/repro1" && ./repro -n 50) > repro1.txt 2>&1; rc=$?
sed 's/^/    /' repro1.txt
[ $rc -eq 0 ] && echo "  PASS the reproducer reproduces bit for bit (exit 0)" || { echo "  FAIL reproducer exit $rc"; fail=1; }

echo "== our kernels, broken"
check "record shadow_kernels --broken" "$GT" record -q --force -o kb.gtrace --shadow '*' --shadow-max 3 -- \
	"$B/kernels/shadow_kernels" --broken --reps 20 --n 1000003 --rows 64 --cols 1024
replay kb kb.gtrace -n 30; rc=$?
case $rc in 0 | 1) echo "  PASS broken replay ends with a verdict (exit $rc)" ;; *) echo "  FAIL exit $rc"; fail=1 ;; esac
verdicts_for_all "broken kernels" kb.txt kb.gtrace

echo "== PyTorch: at::native layer norm, softmax, a sum (struct parameters)"
cat > torch_prog.py <<'EOF'
import torch, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(512, 1024, device="cuda")
w = torch.randn(1024, device="cuda"); b = torch.randn(1024, device="cuda")
for _ in range(20):
    y = F.layer_norm(x, (1024,), w, b)
    z = torch.softmax(x, dim=-1)
    s = x.sum(dim=1)
torch.cuda.synchronize()
print("torch ok", float(y.sum()), float(z.sum()), float(s.sum()))
EOF
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	check "record PyTorch" "$GT" record -q --force -o t.gtrace --shadow '/layer_norm|softmax|reduce_kernel/' --shadow-max 2 -- python3 torch_prog.py
	replay t t.gtrace -n 30
	verdicts_for_all "PyTorch captures" t.txt t.gtrace
	expect "at::native kernels reproduced (layer norm, softmax, and the sum through its ReduceOp struct)" t.txt '^  verdict: reproduced' 6
	expect "pointers inside the ReduceOp struct followed" t.txt 'note: 1 by-value struct parameters, .* pointers inside them followed' 2

	echo "== Triton through torch.compile"
	cat > triton_prog.py <<'EOF'
import torch
@torch.compile
def f(a, b):
    return torch.relu(a * b + 1.0)
a = torch.randn(1 << 20, device="cuda"); b = torch.randn(1 << 20, device="cuda")
for _ in range(20):
    c = f(a, b)
torch.cuda.synchronize()
print("triton ok", float(c.sum()))
EOF
	check "record torch.compile" "$GT" record -q --force -o tr.gtrace --shadow '/triton/' --shadow-max 2 -- python3 triton_prog.py
	replay tr tr.gtrace -n 30
	verdicts_for_all "Triton captures" tr.txt tr.gtrace
	expect "a Triton kernel reproduced" tr.txt '^  verdict: reproduced' 1
	echo "== Triton compiled afresh (an empty inductor cache: variants of one kernel name are loaded)"
	TORCHINDUCTOR_CACHE_DIR=$WORK/inductor TRITON_CACHE_DIR=$WORK/triton \
		check "record torch.compile, fresh caches" "$GT" record -q --force -o trf.gtrace --shadow '/triton/' --shadow-max 2 -- python3 triton_prog.py
	replay trf trf.gtrace -n 30
	expect "a freshly compiled Triton kernel reproduced" trf.txt '^  verdict: reproduced' 1
	check "extract the Triton capture" "$GT" replay --extract 1 -o "$WORK/repro_tr" trf.gtrace
	check "build it" make -C "$WORK/repro_tr" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
	(cd "$WORK/repro_tr" && ./repro -n 50) > repro_tr.txt 2>&1; rc=$?
	sed 's/^/    /' repro_tr.txt
	[ $rc -eq 0 ] && echo "  PASS the Triton reproducer reproduces (exit 0)" || { echo "  FAIL Triton reproducer exit $rc"; fail=1; }
else
	echo "  (no PyTorch with CUDA here: PyTorch and Triton parts not run)"
	fail=1
fi

echo "== CuPy: a RawKernel (NVRTC) and an elementwise kernel"
cat > cupy_prog.py <<'EOF'
import cupy as cp
k = cp.RawKernel(r'''
extern "C" __global__ void scale_add(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}''', "scale_add")
n = 1 << 20
x = cp.arange(n, dtype=cp.float32); y = cp.ones(n, dtype=cp.float32)
for _ in range(10):
    k(((n + 255) // 256,), (256,), (x, y, cp.float32(0.5), cp.int32(n)))
    z = x * 2 + 1
cp.cuda.Device().synchronize()
print("cupy ok", float(y.sum()), float(z.sum()))
EOF
if python3 -c 'import cupy' 2>/dev/null; then
	check "record CuPy" "$GT" record -q --force -o c.gtrace --shadow '*' --shadow-max 2 -- python3 cupy_prog.py
	replay c c.gtrace -n 30
	verdicts_for_all "CuPy captures" c.txt c.gtrace
	expect "the RawKernel reproduced" c.txt '^  verdict: reproduced' 1
	expect "CuPy's elementwise kernels (CArray structs) reproduced too" c.txt '^  verdict: reproduced' 10
else
	echo "  (no CuPy here)"
fi
cp ./*.gtrace "$KEEP/" 2>/dev/null
exit $fail
