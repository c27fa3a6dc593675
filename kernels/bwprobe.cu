/*
 * kernels/bwprobe.cu: the bandwidth probe that `gputrace peak` runs, so that the analyzer can set a
 * measured peak beside the theoretical one. For each kind (pinned and pageable H2D and D2H, and D2D)
 * it copies one large buffer (256 MiB unless --bytes says otherwise) W times untimed, then R times
 * timed with CUDA events, and prints one machine-readable line per kind:
 *   peak kind=htod_pinned gbps=55.41 bytes=268435456 reps=7
 * gbps is the median over the R timed copies of bytes / 1e9 / seconds (decimal GB/s, bytes counted
 * once, so a D2D copy of B bytes is B, not 2B). A "detail" line per kind gives the spread, and the
 * "device" line comes first. Kinds run one after another, never overlapping.
 */
#include "common.cuh"

enum Kind { HTOD_PINNED, DTOH_PINNED, HTOD_PAGEABLE, DTOH_PAGEABLE, DTOD, NKINDS };
static const char *const k_kind_name[NKINDS] = {"htod_pinned", "dtoh_pinned", "htod_pageable",
						"dtoh_pageable", "dtod"};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bwprobe [--bytes B] [--reps R] [--warmup W]\n"
		"Measures copy bandwidth per kind (htod_pinned, dtoh_pinned, htod_pageable, dtoh_pageable,\n"
		"dtod) with CUDA events and prints 'peak kind=<kind> gbps=<median GB/s> bytes=<B> reps=<R>'.\n"
		"  --bytes B   bytes per copy, K/M/G suffixes binary (default 256M)\n"
		"  --reps R    timed copies per kind (default 7)\n"
		"  --warmup W  untimed copies per kind before the timed ones (default 2)\n"
		"Exit: 0 ok, 1 CUDA error, 2 bad usage, 3 no CUDA device.\n");
}

int main(int argc, char **argv)
{
	g_prog = "bwprobe";
	size_t bytes = 256u << 20;
	int reps = 7, warmup = 2;
	for (int i = 1; i < argc; i++) {
		Opt o(argc, argv, &i);
		if (o.flag("--help")) {
			usage(stdout);
			return 0;
		} else if (o.is("--bytes"))
			bytes = (size_t)o.u64(1, 64ull << 30);
		else if (o.is("--reps"))
			reps = o.i32(1, 100000);
		else if (o.is("--warmup"))
			warmup = o.i32(0, 100000);
		else
			o.unknown();
	}

	open_device();
	printf("sizes bytes=%zu reps=%d warmup=%d\n", bytes, reps, warmup);
	printf("method timing=cudaEvent around each copy gbps=bytes/1e9/seconds statistic=median of per-rep "
	       "GB/s pinned=cudaMallocHost+cudaMemcpyAsync pageable=malloc+cudaMemcpy dtod=cudaMemcpy\n");

	/* Pageable buffers are written once so that no page is first touched inside a timed copy. */
	unsigned char *h_page = (unsigned char *)malloc(bytes);
	if (!h_page) {
		fprintf(stderr, "%s: malloc: out of memory (%zu bytes)\n", g_prog, bytes);
		return EXIT_CUDA_FAILED;
	}
	memset(h_page, 0x3c, bytes);
	unsigned char *h_pin = nullptr, *d_a = nullptr, *d_b = nullptr;
	CK(cudaMallocHost((void **)&h_pin, bytes));
	memset(h_pin, 0xc3, bytes);
	CK(cudaMalloc((void **)&d_a, bytes));
	CK(cudaMalloc((void **)&d_b, bytes));
	/* Device memory is written before it is read, so no copy reads uninitialised memory. */
	tally_memset(d_a, 0, bytes);
	tally_memset(d_b, 0, bytes);
	CK(cudaDeviceSynchronize());

	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop;
	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CK(cudaEventCreate(&ev_start));
	CK(cudaEventCreate(&ev_stop));

	for (int kind = 0; kind < NKINDS; kind++) {
		const bool pinned = kind == HTOD_PINNED || kind == DTOH_PINNED;
		/* Pinned copies are async in the created stream; the others go to the legacy stream. */
		cudaStream_t es = pinned ? stream : (cudaStream_t)0;
		std::vector<double> gbps;
		for (int rep = -warmup; rep < reps; rep++) {
			CK(cudaEventRecord(ev_start, es));
			switch (kind) {
			case HTOD_PINNED:
				tally_memcpy_async(d_a, h_pin, bytes, cudaMemcpyHostToDevice, stream);
				break;
			case DTOH_PINNED:
				tally_memcpy_async(h_pin, d_a, bytes, cudaMemcpyDeviceToHost, stream);
				break;
			case HTOD_PAGEABLE:
				tally_memcpy(d_a, h_page, bytes, cudaMemcpyHostToDevice);
				break;
			case DTOH_PAGEABLE:
				tally_memcpy(h_page, d_a, bytes, cudaMemcpyDeviceToHost);
				break;
			case DTOD:
				tally_memcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice);
				break;
			}
			CK(cudaEventRecord(ev_stop, es));
			CK(cudaEventSynchronize(ev_stop));
			const double ms = event_ms(ev_start, ev_stop);
			if (rep >= 0)
				gbps.push_back(ms > 0 ? (double)bytes / 1e9 / (ms / 1e3) : 0.0);
		}
		CK(cudaStreamSynchronize(stream));
		const double lo = *std::min_element(gbps.begin(), gbps.end());
		const double hi = *std::max_element(gbps.begin(), gbps.end());
		printf("peak kind=%s gbps=%.2f bytes=%zu reps=%d\n", k_kind_name[kind], median(gbps), bytes, reps);
		printf("detail kind=%s gbps_min=%.2f gbps_max=%.2f warmup=%d\n", k_kind_name[kind], lo, hi, warmup);
	}

	CK(cudaEventDestroy(ev_start));
	CK(cudaEventDestroy(ev_stop));
	CK(cudaStreamDestroy(stream));
	CK(cudaFree(d_a));
	CK(cudaFree(d_b));
	CK(cudaFreeHost(h_pin));
	free(h_page);
	g_tally.print();
	return 0;
}
