/*
 * kernels/transfers.cu: copies of every kind the tracer must tell apart, at several sizes, each
 * timed with CUDA events so the program's own GB/s can be set beside the trace's. Per size and per
 * repetition, in this order:
 *   htod_pageable  cudaMemcpy       malloc'd host -> device A          (legacy default stream)
 *   dtoh_pageable  cudaMemcpy       device A -> malloc'd host
 *   htod_pinned    cudaMemcpyAsync  cudaMallocHost'd host -> device A  (created stream) + synchronise
 *   dtoh_pinned    cudaMemcpyAsync  device A -> cudaMallocHost'd host
 *   dtod           cudaMemcpy       device A -> device B
 * One untimed round (all five kinds) per size comes first, as warm-up. Before the copies, three
 * memsets (two cudaMemset over the whole device buffers, one cudaMemsetAsync of 4 KiB); after them
 * one more cudaMemcpy D2H of device B at the last size of the list, which checks that the D2D copy
 * moved the right bytes. The round trips are checked on the host after each size. All of these are
 * in the tally; only the timed repetitions are in the GB/s figures.
 */
#include "copies.cuh"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: transfers [--reps R] [--sizes LIST]\n"
		"Times pageable and pinned H2D and D2H copies and D2D copies at several sizes with CUDA\n"
		"events, after one untimed warm-up round per size, and prints the median GB/s (decimal,\n"
		"bytes counted once) per kind and size.\n"
		"  --reps R      timed repetitions per kind and size (default 5)\n"
		"  --sizes LIST  comma-separated byte counts, K/M/G suffixes binary\n"
		"                (default 4K,64K,1M,16M,64M)\n"
		"Exit: 0 ok, 1 CUDA error or wrong data, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "transfers";
	int reps = 5;
	std::vector<size_t> sizes = parse_sizes("4K,64K,1M,16M,64M");
	parse_rounds_options(argc, argv, usage, &reps, &sizes);

	open_device();
	const size_t max_bytes = print_sizes_line(reps, sizes);
	printf("method timing=cudaEvent around each copy gbps=bytes/1e9/seconds statistic=median of per-rep "
	       "GB/s warmup=1 untimed round per size\n");

	/* malloc'd host memory is pageable; touching it now keeps first-touch faults out of the copies. */
	CopyBuffers b;
	b.page_src = pageable_alloc(max_bytes);
	b.page_dst = pageable_alloc(max_bytes);
	CK(cudaMallocHost((void **)&b.pin_src, max_bytes));
	CK(cudaMallocHost((void **)&b.pin_dst, max_bytes));
	CK(cudaMalloc((void **)&b.d_a, max_bytes));
	CK(cudaMalloc((void **)&b.d_b, max_bytes));
	fill_pattern(b.page_src, max_bytes, 7, 1);
	fill_pattern(b.pin_src, max_bytes, 13, 5);
	memset(b.page_dst, 0, max_bytes);
	memset(b.pin_dst, 0, max_bytes);

	EventPair ev;
	CK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
	ev.create();

	tally_memset(b.d_a, 0, max_bytes);
	tally_memset(b.d_b, 0, max_bytes);
	tally_memset_async(b.d_a, 0x5a, std::min<size_t>(4096, max_bytes), b.stream);
	CK(cudaStreamSynchronize(b.stream));
	CK(cudaDeviceSynchronize());

	for (size_t bytes : sizes) {
		std::vector<double> gbps[NCOPY_KINDS];
		for (int rep = -1; rep < reps; rep++) {
			for (int kind = 0; kind < NCOPY_KINDS; kind++) {
				timed_copy(b, kind, bytes, ev);
				if (copy_is_pinned(kind))
					CK(cudaStreamSynchronize(b.stream));
				const double ms = ev.ms();
				if (rep >= 0)
					gbps[kind].push_back(copy_gbps(bytes, ms));
			}
		}
		expect_equal(b.page_dst, b.page_src, bytes, "pageable round trip");
		expect_equal(b.pin_dst, b.pin_src, bytes, "pinned round trip");
		for (int kind = 0; kind < NCOPY_KINDS; kind++) {
			printf("bw kind=%s", k_copy_kind_name[kind]);
			print_bw_median(bytes, reps, gbps[kind]);
		}
	}

	/* The last D2D copy moved the pinned pattern into device B, at the last size in the list. */
	const size_t last = sizes.back();
	tally_memcpy(b.page_dst, b.d_b, last, cudaMemcpyDeviceToHost);
	expect_equal(b.page_dst, b.pin_src, last, "device to device copy");
	printf("verify round_trips=ok dtod=ok\n");

	ev.destroy();
	CK(cudaStreamDestroy(b.stream));
	CK(cudaFree(b.d_a));
	CK(cudaFree(b.d_b));
	CK(cudaFreeHost(b.pin_src));
	CK(cudaFreeHost(b.pin_dst));
	free(b.page_src);
	free(b.page_dst);
	g_tally.print();
	return 0;
}
