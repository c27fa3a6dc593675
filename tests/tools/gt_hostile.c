/* gt_hostile.c: writes traces shaped to make an analysis quadratic, through the public writer API.
 *
 * A trace is untrusted input: the traced program chooses how many launches happen at one instant,
 * its NVTX range names and nesting, how many threads mark them. Each shape below is one such choice
 * taken to N, with the records an analysis pairs (a launch call per kernel, by correlation id), so
 * that tests/cli/test_scaling.sh can check that doubling N no more than about doubles every
 * command's time. The shapes:
 *
 *   instant   N zero-length NVTX ranges, N zero-length kernels (with their launch calls), N
 *             zero-length copies, all at one timestamp: the 1.4 KB trace that took split 44 s
 *   samestart N ranges with one start time and distinct ends (nested, as push/pop would record
 *             them: depth i), N kernels inside at distinct times
 *   threads   N ranges each on its own thread, side by side in time, each holding a kernel
 *   streams   N kernels at one instant, each on its own stream, with N copies likewise
 *   deep      N ranges nested N deep on one thread, each one shorter at both ends, a kernel at
 *             each level
 *   names     N ranges and N kernels, each with its own name, one after the other
 *   overlap   N long kernels on N streams all spanning N short ranges side by side
 *   apithreads N kernels and copies one after the other, each one's API call on a thread of its own
 *   synccopies N synchronous copies at one instant, with N kernels on other streams at the same
 *             instant, then N more synchronous copies one after the other, the first of them as long
 *             as the run (so that every operation may overlap every copy before it)
 *   devices   N kernels and N copies, each pair on a device of its own (ids the trace never
 *             describes), one after the other
 *   jumble    N each of ranges (3 threads), kernels and copies (3 streams; half of the copies
 *             synchronous, some of those twice) and API calls at random in a span of 8 N ns, so
 *             that many start together, nest and overlap partly (a check that a faster path gives
 *             the numbers of the plain one, more than a timing)
 *
 * Each trace says trace.synthetic=1 and trace.shape, and its device's name says "synthetic".
 *
 *   gt_hostile -o FILE --shape SHAPE [-n N]
 */
#include "gputrace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1000000000ull /* the trace's origin: the process start, 1 s into the CUPTI clock */

struct hostile {
	struct gt_writer *w;
	uint32_t corr;
	uint64_t api_thread;     /* the thread of the API calls (77; apithreads: one per call) */
	uint32_t api_launch, api_copy, kname, rname;
};

#define CHECK(expr)                                                                                \
	do {                                                                                       \
		int rc_ = (expr);                                                                  \
		if (rc_ < 0) {                                                                     \
			fprintf(stderr, "gt_hostile: %s: %s\n", #expr, gt_strerror(rc_));          \
			return rc_;                                                                \
		}                                                                                  \
	} while (0)

/* A kernel [start, end) on stream, named name_id, with its cudaLaunchKernel call ending when the
 * kernel is queued, 500 to 800 ns before its start, and starting 500 to 1500 ns before that, so that
 * units' latency medians differ (at the instant itself when start is too early for that). */
static int kernel(struct hostile *h, uint32_t name_id, uint64_t start, uint64_t end, uint32_t stream)
{
	uint32_t corr = ++h->corr;
	uint64_t a1 = start - 500 - corr % 300, a0 = a1 - 500 - (uint64_t)corr * 7919 % 997;
	if (start < T0 + 2500)
		a0 = a1 = start;
	struct gt_api a = { .start = a0, .end = a1, .thread_id = h->api_thread, .name_id = h->api_launch,
		.correlation_id = corr, .cbid = 211, .process_id = 4242, .domain = GT_API_RUNTIME };
	CHECK(gt_writer_add(h->w, GT_REC_API, &a));
	struct gt_kernel k = { .start = start, .end = end, .queued = a1, .submitted = a1,
		.name_id = name_id, .correlation_id = corr, .context_id = 1, .stream_id = stream,
		.grid_x = 1, .grid_y = 1, .grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1,
		.flags = GT_KERNEL_HAS_QUEUED };
	return gt_writer_add(h->w, GT_REC_KERNEL, &k);
}

static int copy(struct hostile *h, uint64_t start, uint64_t end, uint32_t stream)
{
	uint32_t corr = ++h->corr;
	struct gt_api a = { .start = start, .end = end, .thread_id = h->api_thread, .name_id = h->api_copy,
		.correlation_id = corr, .cbid = 41, .process_id = 4242, .domain = GT_API_RUNTIME };
	CHECK(gt_writer_add(h->w, GT_REC_API, &a));
	struct gt_memcpy m = { .start = start, .end = end, .bytes = 4096, .correlation_id = corr,
		.context_id = 1, .stream_id = stream, .copy_kind = GT_COPY_HTOD, .src_kind = GT_MEM_PINNED,
		.dst_kind = GT_MEM_DEVICE, .flags = GT_COPY_ASYNC };
	return gt_writer_add(h->w, GT_REC_MEMCPY, &m);
}

static int range(struct hostile *h, uint32_t name_id, uint64_t start, uint64_t end, uint32_t depth,
                 uint32_t thread)
{
	struct gt_nvtx n = { .start = start, .end = end, .name_id = name_id, .thread_id = thread,
		.depth = depth, .kind = GT_NVTX_PUSH_POP };
	return gt_writer_add(h->w, GT_REC_NVTX, &n);
}

static int sync_at(struct hostile *h, uint64_t t)
{
	struct gt_sync s = { .start = t, .end = t, .correlation_id = ++h->corr, .context_id = 1,
		.stream_id = 0xffffffffu, .kind = GT_SYNC_CONTEXT };
	return gt_writer_add(h->w, GT_REC_SYNC, &s);
}

/* ---- the shapes: the records between the process's start (T0) and its exit, which is returned */

static int instant(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 1000;
	for (uint64_t i = 0; i < n; i++) {
		CHECK(range(h, h->rname, t, t, 0, 4242));
		CHECK(kernel(h, h->kname, t, t, 13));
		CHECK(copy(h, t, t, 13));
		CHECK(sync_at(h, t));
	}
	*end = t + 1000;
	return 0;
}

static int samestart(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++)
		CHECK(kernel(h, h->kname, t + 10 * i, t + 10 * i + 5, 13));
	/* As push/pop records them: the innermost closes first. */
	for (uint64_t i = 0; i < n; i++)
		CHECK(range(h, h->rname, t, t + 10 * (i + 1), (uint32_t)(n - 1 - i), 4242));
	*end = t + 10 * n + 1000;
	return 0;
}

static int threads(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = t + 100 * i;
		CHECK(kernel(h, h->kname, a + 10, a + 60, 13));
		CHECK(range(h, h->rname, a, a + 80, 0, (uint32_t)(1000 + i)));
	}
	*end = t + 100 * n + 1000;
	return 0;
}

static int streams(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++) {
		CHECK(kernel(h, h->kname, t, t + 5000, (uint32_t)(100 + i)));
		CHECK(copy(h, t, t + 3000, (uint32_t)(100 + i)));
	}
	CHECK(sync_at(h, t + 6000));
	*end = t + 10000;
	return 0;
}

static int deep(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, span = 20 * n + 20;
	for (uint64_t i = 0; i < n; i++)
		CHECK(kernel(h, h->kname, t + 10 * i, t + 10 * i + 5, 13));
	for (uint64_t i = n; i-- > 0;)
		CHECK(range(h, h->rname, t + 10 * i, t + span - 10 * i, (uint32_t)i, 4242));
	*end = t + span + 1000;
	return 0;
}

static int names(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	char buf[64];
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = t + 100 * i;
		snprintf(buf, sizeof buf, "_Z6kernel%" PRIu64 "Pf", i);
		uint32_t k = gt_writer_intern(h->w, buf);
		snprintf(buf, sizeof buf, "range%" PRIu64, i);
		uint32_t r = gt_writer_intern(h->w, buf);
		if (!k || !r)
			return GT_ERR_NOMEM;
		CHECK(kernel(h, k, a + 10, a + 60, 13));
		CHECK(range(h, r, a, a + 80, 0, 4242));
	}
	*end = t + 100 * n + 1000;
	return 0;
}

static int overlap(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++)
		CHECK(kernel(h, h->kname, t, t + 100 * n + 100, (uint32_t)(100 + i)));
	for (uint64_t i = 0; i < n; i++)
		CHECK(range(h, h->rname, t + 100 * i, t + 100 * i + 50, 0, 4242));
	*end = t + 100 * n + 1000;
	return 0;
}

static int apithreads(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++) {
		h->api_thread = 100000 + i;
		CHECK(kernel(h, h->kname, t + 3000 * i + 2000, t + 3000 * i + 2500, 13));
		CHECK(copy(h, t + 3000 * i + 2600, t + 3000 * i + 2900, 13));
	}
	*end = t + 3000 * n + 1000;
	return 0;
}

static int sync_copy(struct hostile *h, uint64_t start, uint64_t end, uint32_t stream)
{
	struct gt_memcpy m = { .start = start, .end = end, .bytes = 4096, .correlation_id = ++h->corr,
		.context_id = 1, .stream_id = stream, .copy_kind = GT_COPY_DTOH, .src_kind = GT_MEM_DEVICE,
		.dst_kind = GT_MEM_PAGEABLE };
	return gt_writer_add(h->w, GT_REC_MEMCPY, &m);
}

static int synccopies(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, t2 = t + 10000;
	for (uint64_t i = 0; i < n; i++) {
		CHECK(sync_copy(h, t, t + 5000, 13));
		CHECK(kernel(h, h->kname, t, t + 5000, (uint32_t)(100 + i % 8)));
	}
	CHECK(sync_copy(h, t2, t2 + 200 * n + 100, 14));
	for (uint64_t i = 0; i < n; i++) {
		CHECK(sync_copy(h, t2 + 200 * i + 10, t2 + 200 * i + 60, 13));
		CHECK(kernel(h, h->kname, t2 + 200 * i + 100, t2 + 200 * i + 150, 13));
	}
	*end = t2 + 200 * n + 1000;
	return 0;
}

static int devices(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = t + 100 * i;
		uint32_t corr = ++h->corr;
		struct gt_kernel k = { .start = a, .end = a + 40, .name_id = h->kname, .correlation_id = corr,
			.device_id = (uint32_t)(1 + i), .context_id = 1, .stream_id = 13, .grid_x = 1, .grid_y = 1,
			.grid_z = 1, .block_x = 32, .block_y = 1, .block_z = 1 };
		CHECK(gt_writer_add(h->w, GT_REC_KERNEL, &k));
		struct gt_memcpy m = { .start = a + 50, .end = a + 90, .bytes = 4096, .correlation_id = ++h->corr,
			.device_id = (uint32_t)(1 + i), .dst_device_id = (uint32_t)(1 + i), .context_id = 1,
			.stream_id = 13, .copy_kind = GT_COPY_HTOD, .src_kind = GT_MEM_PINNED,
			.dst_kind = GT_MEM_DEVICE, .flags = GT_COPY_ASYNC };
		CHECK(gt_writer_add(h->w, GT_REC_MEMCPY, &m));
	}
	*end = t + 100 * n + 1000;
	return 0;
}

/* xorshift64*, seeded by N: the same jumble for the same N. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

static int jumble(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, span = 8 * n + 8, x = n * 0x9e3779b97f4a7c15ull + 1;
	for (uint64_t i = 0; i < n; i++) {
		/* starts on a coarse grid, so that many coincide; lengths from 0 to a quarter of the span */
		uint64_t a = t + rnd(&x) % span / 4 * 4, len = rnd(&x) % 8 ? rnd(&x) % 16 : rnd(&x) % (span / 16);
		switch (rnd(&x) % 4) {
		case 0: CHECK(range(h, h->rname, a, a + len, 0, 4242 + (uint32_t)(rnd(&x) % 3))); break;
		case 1: CHECK(kernel(h, h->kname, a, a + len, 13 + (uint32_t)(rnd(&x) % 3))); break;
		case 2:
			if (rnd(&x) % 2)
				CHECK(copy(h, a, a + len, 13 + (uint32_t)(rnd(&x) % 3)));
			else {
				/* now and then twice, as a copy and its twin that only each other overlap */
				uint32_t stream = 13 + (uint32_t)(rnd(&x) % 3);
				CHECK(sync_copy(h, a, a + len, stream));
				if (rnd(&x) % 4 == 0)
					CHECK(sync_copy(h, a, a + len, stream));
			}
			break;
		default: CHECK(sync_at(h, a + len)); break;
		}
	}
	*end = t + span + span / 4 + 1000;
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct hostile *, uint64_t, uint64_t *);
} shapes[] = {
	{ "instant", instant }, { "samestart", samestart }, { "threads", threads }, { "streams", streams },
	{ "deep", deep },       { "names", names },         { "overlap", overlap },  { "devices", devices },
	{ "apithreads", apithreads }, { "synccopies", synccopies },
	{ "jumble", jumble },
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static int header(struct hostile *h, const char *shape)
{
	CHECK(gt_writer_meta(h->w, "trace.synthetic", "1"));
	CHECK(gt_writer_meta(h->w, "trace.generator", "gt_hostile"));
	CHECK(gt_writer_meta(h->w, "trace.shape", shape));
	CHECK(gt_writer_meta(h->w, "process.pid", "4242"));
	struct gt_device d = { .device_id = 0, .sm_count = 132, .cc_major = 9, .cc_minor = 0,
		.global_mem_bytes = 150754820096ull, .sm_clock_khz = 1980000, .mem_clock_khz = 2619000,
		.mem_bus_width_bits = 6144, .pcie_gen = 5, .pcie_width = 16, .pcie_gen_current = 5,
		.pcie_width_current = 16, .l2_bytes = 60u << 20, .max_threads_per_sm = 2048 };
	CHECK(gt_writer_device(h->w, &d, "NVIDIA H200 (synthetic)"));
	struct gt_process p = { .timestamp = T0, .host_ns = T0, .pid = 4242, .event = GT_PROCESS_START };
	CHECK(gt_writer_add(h->w, GT_REC_PROCESS, &p));
	h->api_launch = gt_writer_intern(h->w, "cudaLaunchKernel");
	h->api_copy = gt_writer_intern(h->w, "cudaMemcpyAsync");
	h->kname = gt_writer_intern(h->w, "_Z4stepPfi");
	h->rname = gt_writer_intern(h->w, "step");
	return h->rname ? 0 : GT_ERR_NOMEM;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gt_hostile -o FILE --shape SHAPE [-n N]\n  shapes:");
	for (size_t i = 0; i < NSHAPES; i++)
		fprintf(f, " %s", shapes[i].name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *shape = NULL;
	uint64_t n = 1000;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (v && !strcmp(argv[i], "-o")) {
			out = argv[++i];
		} else if (v && !strcmp(argv[i], "--shape")) {
			shape = argv[++i];
		} else if (v && !strcmp(argv[i], "-n")) {
			char *e;
			errno = 0;
			n = strtoull(argv[++i], &e, 0);
			if (errno || *e || v[0] == '-') {
				fprintf(stderr, "gt_hostile: -n: '%s' is not a number\n", v);
				return 2;
			}
		} else {
			usage(stderr);
			return 2;
		}
	}
	size_t s = 0;
	while (shape && s < NSHAPES && strcmp(shapes[s].name, shape))
		s++;
	if (!out || !shape || s == NSHAPES) {
		usage(stderr);
		return 2;
	}
	struct hostile h;
	memset(&h, 0, sizeof h);
	h.api_thread = 77;
	int rc = gt_writer_open(&h.w, out, 0, NULL);
	if (rc) {
		fprintf(stderr, "gt_hostile: cannot write '%s': %s\n", out, gt_strerror(rc));
		return 1;
	}
	uint64_t end = T0;
	rc = header(&h, shape);
	if (!rc)
		rc = shapes[s].fn(&h, n, &end);
	if (!rc) {
		struct gt_process p = { .timestamp = end, .host_ns = end, .pid = 4242, .event = GT_PROCESS_EXIT };
		rc = gt_writer_add(h.w, GT_REC_PROCESS, &p);
	}
	int crc = gt_writer_close(h.w);
	if (rc || crc) {
		fprintf(stderr, "gt_hostile: writing '%s' failed: %s\n", out, gt_strerror(rc ? rc : crc));
		return 1;
	}
	return 0;
}
