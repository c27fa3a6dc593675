/*
 * kernels/bwprobe.cu: the bandwidth probe that `gputrace peak` runs, so that the analyzer can set a
 * measured peak beside the theoretical one. For each kind (pinned and pageable H2D and D2H, and D2D)
 * it copies one large buffer (256 MiB unless --bytes says otherwise) W times untimed, then R times
 * timed with CUDA events, and prints one machine-readable line per kind:
 *   peak kind=htod_pinned gbps=55.41 bytes=268435456 reps=7
 * gbps is the median over the R timed copies of bytes / 1e9 / seconds (decimal GB/s, bytes counted
 * once, so a D2D copy of B bytes is B, not 2B). A "detail" line per kind gives the spread, and the
 * "device" line comes first. Kinds run one after another, never overlapping.
 *
 * Then, unless --no-ceilings, the memory and compute ceilings of ceilings.cuh (dram_read, dram_copy,
 * dram_triad, l2_read, fp32_fma, fp64_fma, fp16_mma, bf16_mma, and a library GEMM's fp16_gemm and
 * bf16_gemm), each a "peak" line of its own with gbps or gflops, the theoretical figure, the clocks
 * and the method, with the same R and W; a kind that cannot be measured here (no cuBLAS) is a
 * "skip kind=... why=..." line instead.
 */
#include "ceilings.cuh"
#include "copies.cuh"

/* The order the kinds run and print in. */
static const CopyKind k_order[NCOPY_KINDS] = {HTOD_PINNED, DTOH_PINNED, HTOD_PAGEABLE, DTOH_PAGEABLE, DTOD};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bwprobe [--bytes B] [--reps R] [--warmup W] [--no-ceilings]\n"
		"Measures copy bandwidth per kind (htod_pinned, dtoh_pinned, htod_pageable, dtoh_pageable,\n"
		"dtod) with CUDA events and prints 'peak kind=<kind> gbps=<median GB/s> bytes=<B> reps=<R>'.\n"
		"Then the ceilings: device-memory read, copy and triad and L2 read bandwidth (gbps=, bytes\n"
		"read plus written), FP32 and FP64 FMA, FP16 and BF16 mma and cuBLAS GEMM throughput\n"
		"(gflops=), each with theory_gbps= or theory_gflops=, sm_mhz=, mem_mhz=, clocks= and\n"
		"method=; 'skip kind=<kind> why=\"...\"' for one that cannot be measured (no cuBLAS).\n"
		"  --bytes B       bytes per copy, K/M/G suffixes binary (default 256M)\n"
		"  --reps R        timed copies per kind, timed launches per ceiling (default 7)\n"
		"  --warmup W      untimed copies or launches before the timed ones (default 2)\n"
		"  --no-ceilings   measure the copies only\n"
		"Exit: 0 ok, 1 CUDA error, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "bwprobe";
	uint64_t bytes_opt = 256u << 20;
	int reps = 7, warmup = 2;
	bool no_ceilings = false;
	parse_options(argc, argv, usage,
		      {{"--bytes", &bytes_opt, 1, 64ull << 30},
		       {"--reps", &reps, 1, 100000},
		       {"--warmup", &warmup, 0, 100000},
		       {"--no-ceilings", &no_ceilings}});
	const size_t bytes = (size_t)bytes_opt;

	const cudaDeviceProp prop = open_device();
	printf("sizes bytes=%zu reps=%d warmup=%d\n", bytes, reps, warmup);
	printf("method timing=cudaEvent around each copy gbps=bytes/1e9/seconds statistic=median of per-rep "
	       "GB/s pinned=cudaMallocHost+cudaMemcpyAsync pageable=malloc+cudaMemcpy dtod=cudaMemcpy\n");

	/* Pageable buffers are written once so that no page is first touched inside a timed copy. No
	 * round trip is checked, so each host buffer is both the source and the destination. */
	CopyBuffers b;
	b.page_src = b.page_dst = pageable_alloc(bytes);
	memset(b.page_src, 0x3c, bytes);
	CK(cudaMallocHost((void **)&b.pin_src, bytes));
	b.pin_dst = b.pin_src;
	memset(b.pin_src, 0xc3, bytes);
	CK(cudaMalloc((void **)&b.d_a, bytes));
	CK(cudaMalloc((void **)&b.d_b, bytes));
	/* Device memory is written before it is read, so no copy reads uninitialised memory. */
	tally_memset(b.d_a, 0, bytes);
	tally_memset(b.d_b, 0, bytes);
	CK(cudaDeviceSynchronize());

	EventPair ev;
	CK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
	ev.create();

	for (CopyKind kind : k_order) {
		std::vector<double> gbps;
		for (int rep = -warmup; rep < reps; rep++) {
			timed_copy(b, kind, bytes, ev);
			const double ms = ev.ms();
			if (rep >= 0)
				gbps.push_back(copy_gbps(bytes, ms));
		}
		CK(cudaStreamSynchronize(b.stream));
		const double lo = *std::min_element(gbps.begin(), gbps.end());
		const double hi = *std::max_element(gbps.begin(), gbps.end());
		const char *name = k_copy_kind_name[kind];
		printf("peak kind=%s gbps=%.2f bytes=%zu reps=%d\n", name, median(gbps), bytes, reps);
		printf("detail kind=%s gbps_min=%.2f gbps_max=%.2f warmup=%d\n", name, lo, hi, warmup);
	}
	fflush(stdout);
	if (!no_ceilings)
		measure_ceilings(prop, b.stream, reps, warmup);

	ev.destroy();
	CK(cudaStreamDestroy(b.stream));
	CK(cudaFree(b.d_a));
	CK(cudaFree(b.d_b));
	CK(cudaFreeHost(b.pin_src));
	free(b.page_src);
	g_tally.print();
	return 0;
}
