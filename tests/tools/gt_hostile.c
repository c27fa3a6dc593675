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
 * and shapes that combine two features, since a cost that one feature alone keeps small can grow
 * with the product of two:
 *
 *   nestlaunch N ranges nested N deep on one thread, and N launches whose calls run on that same
 *             thread, each inside every range opened before it (nesting x launches inside)
 *   longnames N ranges, N API calls and N kernels spread over N / 2048 + 1 names of about 1 MiB,
 *             the reader's cap on one name, that differ only in their last bytes (long names x
 *             many records)
 *   counters  N kernels one after the other, each with its replayed counter value (LAUNCH_METRIC),
 *             under N counter samples (METRIC_SAMPLE) that all span the whole run, as sampled
 *             counters and kernels overlap (every sample x every kernel, for an analysis that
 *             apportions samples to kernels by time)
 *   shortnames N kernels, each with a name of its own, in kernel records cut short to the 44
 *             bytes that reach the name (legal: a reader zero-fills the fields a shorter record
 *             lacks), written raw since the writer always writes whole records (many names x
 *             short records)
 *
 * Each trace says trace.synthetic=1 and trace.shape, and its device's name says "synthetic"; it
 * claims host "hostile" and pid 4242, so that copies of it given to ranks claim one process.
 *
 *   gt_hostile -o FILE --shape SHAPE [-n N]
 */
#include "traces/gputrace.h"

#include <errno.h>
#include <inttypes.h>
#include <zstd.h>
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

static int nestlaunch(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, span = 20 * n + 5000;
	h->api_thread = 4242;
	/* the call of launch i starts 100 to 1500 ns after range i opens */
	for (uint64_t i = 0; i < n; i++)
		CHECK(kernel(h, h->kname, t + 10 * i + 2400, t + 10 * i + 2405, 13));
	for (uint64_t i = n; i-- > 0;)
		CHECK(range(h, h->rname, t + 10 * i, t + span - 10 * i, (uint32_t)i, 4242));
	*end = t + span + 1000;
	return 0;
}

static int counters(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, span = 100 * n + 1000;
	uint32_t metric = gt_writer_intern(h->w, "dram__bytes_read.sum");
	if (!metric)
		return GT_ERR_NOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = t + 100 * i;
		CHECK(kernel(h, h->kname, a, a + 60, 13));
		struct gt_launch_metric l = { .start = a, .end = a + 60, .value = 4096.0 + (double)i,
			.metric_id = metric, .name_id = h->kname, .correlation_id = h->corr, .passes = 1 };
		CHECK(gt_writer_add(h->w, GT_REC_LAUNCH_METRIC, &l));
		struct gt_metric_sample m = { .start = t, .end = t + span, .value = (double)(i + 1) * 1e6,
			.metric_id = metric };
		CHECK(gt_writer_add(h->w, GT_REC_METRIC_SAMPLE, &m));
	}
	*end = t + span + 1000;
	return 0;
}

#define LONG_NAME (1u << 20) /* the reader's GT_MAX_STRING_LEN */

static int longnames(struct hostile *h, uint64_t n, uint64_t *end)
{
	uint64_t t = T0 + 10000, nn = n / 2048 + 1;
	if (nn > 100)
		nn = 100; /* the reader's 128 MiB of names in all */
	char *buf = malloc(LONG_NAME - 16);
	uint32_t *ids = malloc(nn * sizeof *ids);
	if (!buf || !ids) {
		free(buf);
		free(ids);
		return GT_ERR_NOMEM;
	}
	memset(buf, 'x', LONG_NAME - 17);
	int rc = 0;
	for (uint64_t i = 0; i < nn && !rc; i++) {
		snprintf(buf + LONG_NAME - 32, 16, "%015" PRIu64, i);
		if (!(ids[i] = gt_writer_intern(h->w, buf)))
			rc = GT_ERR_NOMEM;
	}
	for (uint64_t i = 0; i < n && !rc; i++) {
		uint64_t a = t + 100 * i;
		uint32_t id = ids[i % nn], corr = ++h->corr;
		struct gt_api c = { .start = a, .end = a + 30, .thread_id = h->api_thread, .name_id = id,
			.correlation_id = corr, .cbid = 211, .process_id = 4242, .domain = GT_API_RUNTIME };
		if ((rc = gt_writer_add(h->w, GT_REC_API, &c)) == 0)
			rc = range(h, id, a, a + 80, 0, 4242);
		struct gt_kernel k = { .start = a + 40, .end = a + 70, .name_id = id, .correlation_id = corr,
			.context_id = 1, .stream_id = 13, .grid_x = 1, .grid_y = 1, .grid_z = 1, .block_x = 32,
			.block_y = 1, .block_z = 1 };
		if (!rc)
			rc = gt_writer_add(h->w, GT_REC_KERNEL, &k);
	}
	free(buf);
	free(ids);
	*end = t + 100 * n + 1000;
	return rc;
}


/* ---- shortnames: written raw, as gputrace-format(5) says, since the writer writes whole records */

#define SHORT_KERNEL 44u /* the kernel record up to and including name_id */
#define SHORT_BATCH 65536u

static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}
static void st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static size_t put_block_header(uint8_t *p, uint16_t type, uint16_t enc, uint32_t count, uint32_t rsize,
                               uint32_t payload)
{
	st16(p, type);
	st16(p + 2, enc);
	st32(p + 4, count);
	st32(p + 8, rsize);
	st32(p + 12, payload);
	return 16;
}

/* One chunk: its 32-byte header (with its FNV-1a check) and a zstd frame with content size and
 * checksum. */
static int put_chunk(FILE *f, const uint8_t *raw, size_t len, uint32_t nrec, uint32_t nblocks, uint32_t seq)
{
	size_t cap = ZSTD_compressBound(len);
	uint8_t *z = malloc(cap), h[32];
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (!z || !cc) {
		free(z);
		ZSTD_freeCCtx(cc);
		return GT_ERR_NOMEM;
	}
	size_t zn = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(zn))
		zn = ZSTD_compress2(cc, z, cap, raw, len);
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(zn)) {
		free(z);
		return GT_ERR_IO;
	}
	uint32_t fields[7] = { 0x4b435447u, 0, (uint32_t)zn, (uint32_t)len, nrec, nblocks, seq };
	for (int i = 0; i < 7; i++)
		st32(h + 4 * i, fields[i]);
	uint32_t fnv = 2166136261u;
	for (int i = 0; i < 28; i++)
		fnv = (fnv ^ h[i]) * 16777619u;
	st32(h + 28, fnv);
	int rc = fwrite(h, 1, 32, f) == 32 && fwrite(z, 1, zn, f) == zn ? 0 : GT_ERR_IO;
	free(z);
	return rc;
}

static int shortnames(const char *out, uint64_t n)
{
	FILE *f = fopen(out, "wb");
	if (!f)
		return GT_ERR_IO;
	uint8_t hdr[32] = "GPUTRACE";
	st16(hdr + 8, 1);
	st16(hdr + 10, 0);
	st32(hdr + 12, 32);
	/* a batch: a block of its names, then a block of its kernels (transposed) */
	size_t cap = 16 + (size_t)SHORT_BATCH * 24 + 16 + (size_t)SHORT_BATCH * SHORT_KERNEL + 256;
	uint8_t *raw = malloc(cap), *recs = malloc((size_t)SHORT_BATCH * SHORT_KERNEL);
	int rc = raw && recs ? 0 : GT_ERR_NOMEM;
	if (!rc && fwrite(hdr, 1, 32, f) != 32)
		rc = GT_ERR_IO;
	uint32_t seq = 0, chunks = 0;
	uint64_t records = 0;
	if (!rc) { /* the metadata */
		static const char *const kv[][2] = { { "trace.synthetic", "1" }, { "trace.generator", "gt_hostile" },
			                             { "trace.shape", "shortnames" } };
		size_t p = 16;
		for (size_t i = 0; i < 3; i++) {
			size_t lk = strlen(kv[i][0]), lv = strlen(kv[i][1]);
			st32(raw + p, (uint32_t)(4 + lk + lv));
			st32(raw + p + 4, (uint32_t)lk);
			memcpy(raw + p + 8, kv[i][0], lk);
			memcpy(raw + p + 8 + lk, kv[i][1], lv);
			p += 8 + lk + lv;
		}
		put_block_header(raw, GT_REC_META, 0, 3, 0, (uint32_t)(p - 16));
		rc = put_chunk(f, raw, p, 3, 1, seq++);
		records += 3;
		chunks++;
	}
	uint64_t t = T0, pstart = 0;
	for (uint64_t first = 0; !rc && first < n; first += SHORT_BATCH) {
		uint32_t m = (uint32_t)(n - first < SHORT_BATCH ? n - first : SHORT_BATCH);
		size_t p = 16;
		for (uint32_t i = 0; i < m; i++) {
			char name[24];
			int ln = snprintf(name, sizeof name, "k%" PRIx64, first + i);
			st32(raw + p, (uint32_t)(4 + ln));
			st32(raw + p + 4, (uint32_t)(first + i + 1));
			memcpy(raw + p + 8, name, (size_t)ln);
			p += 8 + (size_t)ln;
		}
		put_block_header(raw, GT_REC_STRING, 0, m, 0, (uint32_t)(p - 16));
		pstart = 0; /* deltas restart in every block */
		memset(recs, 0, (size_t)m * SHORT_KERNEL);
		for (uint32_t i = 0; i < m; i++) {
			uint8_t *r = recs + (size_t)i * SHORT_KERNEL;
			uint64_t start = t + 100 * (first + i), d = start - pstart;
			st64(r, d << 1);             /* zigzag of a positive delta */
			st64(r + 8, (50u << 1) + 1); /* end: 50 ns after the start */
			st32(r + 40, (uint32_t)(first + i + 1));
			pstart = start;
		}
		p += put_block_header(raw + p, GT_REC_KERNEL, 1, m, SHORT_KERNEL, m * SHORT_KERNEL);
		for (uint32_t i = 0; i < m; i++)
			for (uint32_t j = 0; j < SHORT_KERNEL; j++)
				raw[p + (size_t)j * m + i] = recs[(size_t)i * SHORT_KERNEL + j];
		p += (size_t)m * SHORT_KERNEL;
		rc = put_chunk(f, raw, p, 2 * m, 2, seq++);
		records += 2 * (uint64_t)m;
		chunks++;
	}
	if (!rc) { /* the end record: what was written */
		size_t p = 16;
		st32(raw + p, 24);
		st64(raw + p + 4, records);
		st64(raw + p + 12, chunks + 1);
		st64(raw + p + 20, 0);
		p += 28;
		put_block_header(raw, GT_REC_END, 0, 1, 0, (uint32_t)(p - 16));
		rc = put_chunk(f, raw, p, 1, 1, seq++);
	}
	free(raw);
	free(recs);
	if (fclose(f) != 0 && !rc)
		rc = GT_ERR_IO;
	return rc;
}

static const struct {
	const char *name;
	int (*fn)(struct hostile *, uint64_t, uint64_t *);
} shapes[] = {
	{ "instant", instant }, { "samestart", samestart }, { "threads", threads }, { "streams", streams },
	{ "deep", deep },       { "names", names },         { "overlap", overlap },  { "devices", devices },
	{ "apithreads", apithreads }, { "synccopies", synccopies },
	{ "jumble", jumble },   { "nestlaunch", nestlaunch }, { "longnames", longnames },
	{ "counters", counters },
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static int header(struct hostile *h, const char *shape)
{
	CHECK(gt_writer_meta(h->w, "trace.synthetic", "1"));
	CHECK(gt_writer_meta(h->w, "trace.generator", "gt_hostile"));
	CHECK(gt_writer_meta(h->w, "trace.shape", shape));
	CHECK(gt_writer_meta(h->w, "process.pid", "4242"));
	CHECK(gt_writer_meta(h->w, "host.name", "hostile")); /* copies of a trace claim one process */
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
	fprintf(f, " shortnames\n");
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
	if (out && shape && !strcmp(shape, "shortnames")) {
		int rc = shortnames(out, n);
		if (rc)
			fprintf(stderr, "gt_hostile: writing '%s' failed: %s\n", out, gt_strerror(rc));
		return rc ? 1 : 0;
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
