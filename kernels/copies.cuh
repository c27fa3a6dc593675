/*
 * kernels/copies.cuh: what the copy-timing programs (transfers, bwprobe, p2p_copy) share on top of
 * common.cuh: the --reps and --sizes options and the `sizes` line, the five copy kinds the tracer
 * must tell apart and one timed copy of each, GB/s from event times and the `bw` line's medians,
 * the byte patterns and the check that a copy moved the right bytes.
 *
 * Header-only, like common.cuh: each program is one translation unit built from its .cu file.
 */
#ifndef GPUTRACE_KERNELS_COPIES_CUH
#define GPUTRACE_KERNELS_COPIES_CUH

#include "common.cuh"

#include <string>

/* A comma-separated list of byte counts (parse_count's K/M/G suffixes), each in 1..16G. */
inline std::vector<size_t> parse_sizes(const char *list)
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

/*
 * The command line of a program that times copies at several sizes (transfers, p2p_copy): --reps R
 * timed rounds per size and --sizes LIST; `sizes` holds the program's default list on entry.
 */
inline void parse_rounds_options(int argc, char **argv, void (*usage)(FILE *), int *reps,
				 std::vector<size_t> *sizes)
{
	parse_options(argc, argv, usage,
		      {{"--reps", reps, 1, 100000}, {"--sizes", [&](const char *v) { *sizes = parse_sizes(v); }}});
}

/* The `sizes` line of a program that runs one untimed round per size; returns the largest size. */
inline size_t print_sizes_line(int reps, const std::vector<size_t> &sizes)
{
	const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());
	printf("sizes reps=%d warmup_rounds=1 max_bytes=%zu bytes=", reps, max_bytes);
	for (size_t k = 0; k < sizes.size(); k++)
		printf("%s%zu", k ? "," : "", sizes[k]);
	printf("\n");
	return max_bytes;
}

/* Decimal GB/s of one copy, bytes counted once; 0 for a copy too short for the events to see. */
inline double copy_gbps(size_t bytes, double ms) { return ms > 0 ? (double)bytes / 1e9 / (ms / 1e3) : 0.0; }

/* The end of a `bw` line: the median GB/s of the timed repetitions and the microseconds it means. */
inline void print_bw_median(size_t bytes, int reps, const std::vector<double> &gbps)
{
	const double g = median(gbps);
	printf(" bytes=%zu reps=%d gbps_median=%.3f us_median=%.3f\n", bytes, reps, g,
	       g > 0 ? (double)bytes / g / 1e3 : 0.0);
}

/* Host memory from malloc: pageable, as a program's own buffers usually are. Exit 1 without it. */
inline unsigned char *pageable_alloc(size_t bytes)
{
	unsigned char *p = (unsigned char *)malloc(bytes);
	if (!p) {
		fprintf(stderr, "%s: malloc: out of memory (%zu bytes)\n", g_prog, bytes);
		exit(EXIT_CUDA_FAILED);
	}
	return p;
}

/* Byte patterns that differ per (mul, add), so that a copy from the wrong source cannot pass a check. */
inline void fill_pattern(unsigned char *p, size_t n, unsigned mul, unsigned add)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * mul + add + (i >> 12)) & 0xffu);
}

/* Wrong data is a failed run: the first differing byte on stderr, exit 1. */
inline void expect_equal(const unsigned char *got, const unsigned char *want, size_t n, const char *what)
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

/* ---------------------------------------------------------------------------------------------- */
/* The five copy kinds, each a tallied cudaMemcpy or cudaMemcpyAsync between fixed buffers.         */

enum CopyKind { HTOD_PAGEABLE, DTOH_PAGEABLE, HTOD_PINNED, DTOH_PINNED, DTOD, NCOPY_KINDS };
inline const char *const k_copy_kind_name[NCOPY_KINDS] = {"htod_pageable", "dtoh_pageable", "htod_pinned",
							   "dtoh_pinned", "dtod"};

/* Pinned copies are cudaMemcpyAsync on the created stream; the others are cudaMemcpy. */
inline bool copy_is_pinned(int kind) { return kind == HTOD_PINNED || kind == DTOH_PINNED; }

/*
 * What the copies run between: every copy goes through device buffer a (H2D into it, D2H and D2D
 * out of it, D2D into b). A program that needs no round-trip check may pass one host buffer as both
 * source and destination.
 */
struct CopyBuffers {
	unsigned char *page_src = nullptr, *page_dst = nullptr; /* malloc'd */
	unsigned char *pin_src = nullptr, *pin_dst = nullptr;   /* cudaMallocHost'd */
	unsigned char *d_a = nullptr, *d_b = nullptr;
	cudaStream_t stream = nullptr; /* created, for the pinned copies */
};

/*
 * One copy of `kind` between the two events, recorded in the stream the copy runs in (synchronous
 * copies go to the legacy default stream, so their events do too), and waited for on the stop
 * event: a D2D cudaMemcpy may return before the copy is done.
 */
inline void timed_copy(const CopyBuffers &b, int kind, size_t bytes, const EventPair &ev)
{
	cudaStream_t es = copy_is_pinned(kind) ? b.stream : (cudaStream_t)0;
	CK(cudaEventRecord(ev.start, es));
	switch (kind) {
	case HTOD_PAGEABLE:
		tally_memcpy(b.d_a, b.page_src, bytes, cudaMemcpyHostToDevice);
		break;
	case DTOH_PAGEABLE:
		tally_memcpy(b.page_dst, b.d_a, bytes, cudaMemcpyDeviceToHost);
		break;
	case HTOD_PINNED:
		tally_memcpy_async(b.d_a, b.pin_src, bytes, cudaMemcpyHostToDevice, b.stream);
		break;
	case DTOH_PINNED:
		tally_memcpy_async(b.pin_dst, b.d_a, bytes, cudaMemcpyDeviceToHost, b.stream);
		break;
	case DTOD:
		tally_memcpy(b.d_b, b.d_a, bytes, cudaMemcpyDeviceToDevice);
		break;
	}
	CK(cudaEventRecord(ev.stop, es));
	CK(cudaEventSynchronize(ev.stop));
}

#endif /* GPUTRACE_KERNELS_COPIES_CUH */
