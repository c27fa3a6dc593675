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
#include "common.cuh"

#include <string>

enum Kind { HTOD_PAGEABLE, DTOH_PAGEABLE, HTOD_PINNED, DTOH_PINNED, DTOD, NKINDS };
static const char *const k_kind_name[NKINDS] = {"htod_pageable", "dtoh_pageable", "htod_pinned",
						"dtoh_pinned", "dtod"};

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

static std::vector<size_t> parse_sizes(const char *list)
{
	std::vector<size_t> sizes;
	std::string all(list);
	size_t pos = 0;
	for (;;) {
		size_t comma = all.find(',', pos);
		std::string item = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		uint64_t v = 0;
		if (!parse_count(item.c_str(), &v) || v == 0 || v > (16ull << 30))
			usage_error("invalid size in --sizes: '%s' (1..16G)", item.c_str());
		sizes.push_back((size_t)v);
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return sizes;
}

/* Two different byte patterns, so that a copy from the wrong source cannot pass the check. */
static void fill_pattern(unsigned char *p, size_t n, unsigned mul, unsigned add)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * mul + add + (i >> 12)) & 0xffu);
}

static void expect_equal(const unsigned char *got, const unsigned char *want, size_t n, const char *what)
{
	if (memcmp(got, want, n) == 0)
		return;
	size_t i = 0;
	while (got[i] == want[i])
		i++;
	fprintf(stderr, "%s: %s: wrong data at byte %zu of %zu: got 0x%02x, expected 0x%02x\n", g_prog, what, i,
		n, got[i], want[i]);
	exit(EXIT_CUDA_FAILED);
}

int main(int argc, char **argv)
{
	g_prog = "transfers";
	int reps = 5;
	std::vector<size_t> sizes = parse_sizes("4K,64K,1M,16M,64M");
	for (int i = 1; i < argc; i++) {
		Opt o(argc, argv, &i);
		if (o.flag("--help")) {
			usage(stdout);
			return 0;
		} else if (o.is("--reps"))
			reps = o.i32(1, 100000);
		else if (o.is("--sizes"))
			sizes = parse_sizes(o.str());
		else
			o.unknown();
	}

	open_device();
	const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
	printf("sizes reps=%d warmup_rounds=1 max_bytes=%zu bytes=", reps, max_bytes);
	for (size_t k = 0; k < sizes.size(); k++)
		printf("%s%zu", k ? "," : "", sizes[k]);
	printf("\n");
	printf("method timing=cudaEvent around each copy gbps=bytes/1e9/seconds statistic=median of per-rep "
	       "GB/s warmup=1 untimed round per size\n");

	/* malloc'd host memory is pageable; touching it now keeps first-touch faults out of the copies. */
	unsigned char *h_page_src = (unsigned char *)malloc(max_bytes);
	unsigned char *h_page_dst = (unsigned char *)malloc(max_bytes);
	if (!h_page_src || !h_page_dst) {
		fprintf(stderr, "%s: malloc: out of memory (%zu bytes)\n", g_prog, max_bytes);
		return EXIT_CUDA_FAILED;
	}
	unsigned char *h_pin_src = nullptr, *h_pin_dst = nullptr, *d_a = nullptr, *d_b = nullptr;
	CK(cudaMallocHost((void **)&h_pin_src, max_bytes));
	CK(cudaMallocHost((void **)&h_pin_dst, max_bytes));
	CK(cudaMalloc((void **)&d_a, max_bytes));
	CK(cudaMalloc((void **)&d_b, max_bytes));
	fill_pattern(h_page_src, max_bytes, 7, 1);
	fill_pattern(h_pin_src, max_bytes, 13, 5);
	memset(h_page_dst, 0, max_bytes);
	memset(h_pin_dst, 0, max_bytes);

	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop;
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CK(cudaEventCreate(&ev_start));
	CK(cudaEventCreate(&ev_stop));

	tally_memset(d_a, 0, max_bytes);
	tally_memset(d_b, 0, max_bytes);
	tally_memset_async(d_a, 0x5a, std::min<size_t>(4096, max_bytes), stream);
	CK(cudaStreamSynchronize(stream));
	CK(cudaDeviceSynchronize());

	for (size_t bytes : sizes) {
		std::vector<double> gbps[NKINDS];
		for (int rep = -1; rep < reps; rep++) {
			for (int kind = 0; kind < NKINDS; kind++) {
				/* Synchronous copies go to the legacy default stream, so their events do too. */
				cudaStream_t es = (kind == HTOD_PINNED || kind == DTOH_PINNED) ? stream : (cudaStream_t)0;
				CK(cudaEventRecord(ev_start, es));
				switch (kind) {
				case HTOD_PAGEABLE:
					tally_memcpy(d_a, h_page_src, bytes, cudaMemcpyHostToDevice);
					break;
				case DTOH_PAGEABLE:
					tally_memcpy(h_page_dst, d_a, bytes, cudaMemcpyDeviceToHost);
					break;
				case HTOD_PINNED:
					tally_memcpy_async(d_a, h_pin_src, bytes, cudaMemcpyHostToDevice, stream);
					break;
				case DTOH_PINNED:
					tally_memcpy_async(h_pin_dst, d_a, bytes, cudaMemcpyDeviceToHost, stream);
					break;
				case DTOD:
					tally_memcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice);
					break;
				}
				CK(cudaEventRecord(ev_stop, es));
				/* A D2D cudaMemcpy may return before the copy is done; wait for the event. */
				CK(cudaEventSynchronize(ev_stop));
				if (kind == HTOD_PINNED || kind == DTOH_PINNED)
					CK(cudaStreamSynchronize(stream));
				const double ms = event_ms(ev_start, ev_stop);
				if (rep >= 0)
					gbps[kind].push_back(ms > 0 ? (double)bytes / 1e9 / (ms / 1e3) : 0.0);
			}
		}
		expect_equal(h_page_dst, h_page_src, bytes, "pageable round trip");
		expect_equal(h_pin_dst, h_pin_src, bytes, "pinned round trip");
		for (int kind = 0; kind < NKINDS; kind++) {
			const double g = median(gbps[kind]);
			printf("bw kind=%s bytes=%zu reps=%d gbps_median=%.3f us_median=%.3f\n", k_kind_name[kind],
			       bytes, reps, g, g > 0 ? (double)bytes / g / 1e3 : 0.0);
		}
	}

	/* The last D2D copy moved the pinned pattern into device B, at the last size in the list. */
	const size_t last = sizes.back();
	tally_memcpy(h_page_dst, d_b, last, cudaMemcpyDeviceToHost);
	expect_equal(h_page_dst, h_pin_src, last, "device to device copy");
	printf("verify round_trips=ok dtod=ok\n");

	CK(cudaEventDestroy(ev_start));
	CK(cudaEventDestroy(ev_stop));
	CK(cudaStreamDestroy(stream));
	CK(cudaFree(d_a));
	CK(cudaFree(d_b));
	CK(cudaFreeHost(h_pin_src));
	CK(cudaFreeHost(h_pin_dst));
	free(h_page_src);
	free(h_page_dst);
	g_tally.print();
	return 0;
}
