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
 *
 * Each is launched --reps times. The program prints one "expect" line per kernel with those counts
 * (the test reads them), "device" and "tally" lines as every program here does.
 *
 *   known_counts [--n N] [--iters K] [--threads T] [--reps R]
 */
#include "common.cuh"

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

static void usage(FILE *f)
{
	fputs("usage: known_counts [--n N] [--iters K] [--threads T] [--reps R]\n"
	      "  triad over N floats (default 33554432: 3 arrays of 128 MiB), FP32 and FP64 FMA chains of\n"
	      "  K steps (default 4096) in T threads (default 262144), each kernel launched R times\n"
	      "  (default 3); prints the DRAM bytes and FLOPs each launch must show\n",
	      f);
}

int main(int argc, char **argv)
{
	g_prog = "known_counts";
	uint64_t n = 1u << 25, threads = 1u << 18;
	int iters = 4096, reps = 3;
	parse_options(argc, argv, usage,
	              {{"--n", &n, 256, 1u << 30}, {"--iters", &iters, 1, 1 << 24}, {"--threads", &threads, 256, 1u << 24},
	               {"--reps", &reps, 1, 1000}});
	n -= n % 256;
	threads -= threads % 256;
	open_device();
	printf("sizes n=%" PRIu64 " iters=%d threads=%" PRIu64 " reps=%d\n", n, iters, threads, reps);
	float *a, *b, *c, *fin, *fout;
	double *din, *dout;
	CK(cudaMalloc(&a, n * sizeof(float)));
	CK(cudaMalloc(&b, n * sizeof(float)));
	CK(cudaMalloc(&c, n * sizeof(float)));
	CK(cudaMalloc(&fin, threads * sizeof(float)));
	CK(cudaMalloc(&fout, threads * sizeof(float)));
	CK(cudaMalloc(&din, threads * sizeof(double)));
	CK(cudaMalloc(&dout, threads * sizeof(double)));
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
	for (int r = 0; r < reps; r++) {
		triad<<<(unsigned)(n / 256), 256>>>(a, b, c, 3.0f, (unsigned)n);
		tally_launch("triad");
		chain<float><<<(unsigned)(threads / 256), 256>>>(fin, fout, iters, 0.999f, 0.001f);
		tally_launch("chain<float>");
		chain<double><<<(unsigned)(threads / 256), 256>>>(din, dout, iters, 0.999, 0.001);
		tally_launch("chain<double>");
	}
	CK(cudaDeviceSynchronize());
	g_tally.print();
	return 0;
}
