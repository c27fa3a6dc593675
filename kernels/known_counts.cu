/*
 * known_counts.cu: kernels whose device-memory traffic and floating-point operations follow from
 * their sizes alone, for checking hardware counters against arithmetic (gputrace replay --metrics,
 * tests/gpu/test_replay_metrics.sh).
 *
 *   triad       a[i] = b[i] + s * c[i] over n floats, one element per thread: 8n bytes read and 4n
 *               written in device memory once the arrays are far larger than L2; one FFMA per
 *               element, 2n FLOP
 *   fma_chain   each of T threads runs 4 independent chains of K FFMAs on floats, after 3 FADDs
 *               that seed the chains and before 3 that sum them: 4KT FFMA and 6T FADD instructions,
 *               8KT + 6T FLOP
 *   dfma_chain  the same in double: 4KT DFMA and 6T DADD
 *   mma_chain   each of W warps runs 4 independent chains of K tensor-core MMAs,
 *               mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (FP16 inputs, FP32 accumulators):
 *               4KW warp-level HMMA instructions of 16x8x16 multiply-adds each, 2*16*8*16 = 4096
 *               FLOP per instruction, 16384KW FLOP
 *
 * Each is launched --reps times. The program prints one "expect" line per kernel with those counts
 * (the test reads them), "device" and "tally" lines as every program here does.
 *
 *   known_counts [--n N] [--iters K] [--threads T] [--warps W] [--reps R]
 */
#include "common.cuh"

#include <cuda_fp16.h>

__global__ void triad(float *__restrict__ a, const float *__restrict__ b, const float *__restrict__ c, float s,
                      unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = b[i] + s * c[i];
}

template <typename T> __global__ void chain(const T *__restrict__ in, T *__restrict__ out, int iters, T m, T k)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	T x0 = in[t], x1 = x0 + (T)1, x2 = x0 + (T)2, x3 = x0 + (T)3;
	for (int i = 0; i < iters; i++) {
		x0 = x0 * m + k;
		x1 = x1 * m + k;
		x2 = x2 * m + k;
		x3 = x3 * m + k;
	}
	out[t] = (x0 + x1) + (x2 + x3);
}

#define MMA_CHAINS 4

/* One warp-wide m16n8k16 MMA with FP16 A and B and FP32 accumulators, D = A * B + D; A and B are four
 * and two 32-bit registers of packed halves (PTX ISA, "Matrix Fragments for mma.m16n8k16"). One
 * HMMA.16816.F32 instruction on sm_80 and later. Volatile, so that chains which start alike are
 * never merged into one. */
__device__ __forceinline__ void mma_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
	             "{%8,%9}, {%0,%1,%2,%3};"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi)
{
	__half2 v = __floats2half2_rn(lo, hi);
	unsigned u;
	memcpy(&u, &v, sizeof u);
	return u;
}

/* MMA_CHAINS accumulator fragments per warp, each updated iters times with the same A and B fragments
 * (registers only, no memory traffic in the loop); every thread writes its sum, so no MMA can be
 * dropped. Inputs are small values derived from the seed and the lane, so the sums stay finite. */
__global__ void mma_chain(float seed, int iters, float *__restrict__ out)
{
	const float t = seed * (float)(threadIdx.x % 32 + 1);
	unsigned a[4], b[2];
#pragma unroll
	for (int k = 0; k < 4; k++)
		a[k] = pack_half2(t * (float)(k + 1), t * (float)(k + 2));
	b[0] = pack_half2(t * 0.5f, t * 0.25f);
	b[1] = pack_half2(t * 0.75f, t * 0.125f);
	float d[MMA_CHAINS][4];
#pragma unroll
	for (int j = 0; j < MMA_CHAINS; j++)
		d[j][0] = d[j][1] = d[j][2] = d[j][3] = (float)j;
	for (int i = 0; i < iters; i++) {
#pragma unroll
		for (int j = 0; j < MMA_CHAINS; j++)
			mma_f16(d[j], a, b);
	}
	float s = 0;
#pragma unroll
	for (int j = 0; j < MMA_CHAINS; j++)
		s += (d[j][0] + d[j][1]) + (d[j][2] + d[j][3]);
	out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static void usage(FILE *f)
{
	fputs("usage: known_counts [--n N] [--iters K] [--threads T] [--warps W] [--reps R]\n"
	      "  triad over N floats (default 33554432: 3 arrays of 128 MiB), FP32 and FP64 FMA chains of\n"
	      "  K steps (default 4096) in T threads (default 262144), FP16 tensor-core MMA chains\n"
	      "  (m16n8k16, FP32 accumulators) of K steps in W warps (default 1024), each kernel launched\n"
	      "  R times (default 3); prints the DRAM bytes, FLOPs and MMA instructions each launch must show\n",
	      f);
}

int main(int argc, char **argv)
{
	g_prog = "known_counts";
	uint64_t n = 1u << 25, threads = 1u << 18, warps = 1024;
	int iters = 4096, reps = 3;
	parse_options(argc, argv, usage,
	              {{"--n", &n, 256, 1u << 30}, {"--iters", &iters, 1, 1 << 24}, {"--threads", &threads, 256, 1u << 24},
	               {"--warps", &warps, 4, 1u << 19}, {"--reps", &reps, 1, 1000}});
	n -= n % 256;
	threads -= threads % 256;
	warps -= warps % 4; /* 4 warps a block */
	open_device();
	printf("sizes n=%" PRIu64 " iters=%d threads=%" PRIu64 " warps=%" PRIu64 " reps=%d\n", n, iters, threads, warps,
	       reps);
	float *a, *b, *c, *fin, *fout, *mout;
	double *din, *dout;
	CK(cudaMalloc(&a, n * sizeof(float)));
	CK(cudaMalloc(&b, n * sizeof(float)));
	CK(cudaMalloc(&c, n * sizeof(float)));
	CK(cudaMalloc(&fin, threads * sizeof(float)));
	CK(cudaMalloc(&fout, threads * sizeof(float)));
	CK(cudaMalloc(&din, threads * sizeof(double)));
	CK(cudaMalloc(&dout, threads * sizeof(double)));
	CK(cudaMalloc(&mout, warps * 32 * sizeof(float)));
	tally_memset(a, 0, n * sizeof(float));
	tally_memset(b, 0x3f, n * sizeof(float));
	tally_memset(c, 0x40, n * sizeof(float));
	tally_memset(fin, 0, threads * sizeof(float));
	tally_memset(din, 0, threads * sizeof(double));
	const uint64_t k = (uint64_t)iters;
	printf("expect triad dram_read_bytes=%" PRIu64 " dram_write_bytes=%" PRIu64 " ffma=%" PRIu64 " fadd=0 flop=%" PRIu64
	       "\n", 8 * n, 4 * n, n, 2 * n);
	printf("expect chain<float> ffma=%" PRIu64 " fadd=%" PRIu64 " flop=%" PRIu64 "\n", 4 * k * threads, 6 * threads,
	       8 * k * threads + 6 * threads);
	printf("expect chain<double> dfma=%" PRIu64 " dadd=%" PRIu64 " flop=%" PRIu64 "\n", 4 * k * threads, 6 * threads,
	       8 * k * threads + 6 * threads);
	const uint64_t hmma = MMA_CHAINS * k * warps;
	printf("expect mma_chain hmma_inst=%" PRIu64 " flop=%" PRIu64 "\n", hmma, 2 * 16 * 8 * 16 * hmma);
	for (int r = 0; r < reps; r++) {
		triad<<<(unsigned)(n / 256), 256>>>(a, b, c, 3.0f, (unsigned)n);
		tally_launch("triad");
		chain<float><<<(unsigned)(threads / 256), 256>>>(fin, fout, iters, 0.999f, 0.001f);
		tally_launch("chain<float>");
		chain<double><<<(unsigned)(threads / 256), 256>>>(din, dout, iters, 0.999, 0.001);
		tally_launch("chain<double>");
		mma_chain<<<(unsigned)(warps / 4), 128>>>(1.0f / 1024, iters, mout);
		tally_launch("mma_chain");
	}
	CK(cudaDeviceSynchronize());
	g_tally.print();
	return 0;
}
