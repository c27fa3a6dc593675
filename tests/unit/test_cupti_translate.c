/* test_cupti_translate.c: CUPTI activity records -> trace records (cupti/translate.c).
 *
 * Each test builds CUPTI records by hand, exactly as CUPTI lays them out in an activity buffer,
 * feeds them to translate_record() with a real trace writer on a temporary file, closes the file and
 * reads it back with the streaming reader. What is checked is what reaches the file: every field's
 * mapping, the kernel flags (latency timestamps, graphs, cooperative launches, impossible times),
 * the kernel-name filter and its accounting, API names without CUPTI's version suffix, the pairing
 * of NVTX start and end markers into ranges, the counters the recorder's tally is made of, and the
 * mapping of CUPTI's copy, memory and sync kinds to the format's own (cupti/translate_kinds.c).
 * No GPU and no libcupti are involved: the translator only reads the structs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti/translate.h"
#include "cupti/translate_kinds.h"
#include "traces/gputrace.h"

/* ---- fixture: a writer on a temporary file, and what came back ---------------------------- */

#define MAX_EVENTS 20000

struct fx {
	char path[32];
	struct gt_writer *w;
	struct translator x;
	struct gt_reader *r;       /* open after fx_read, for string lookups */
	struct gt_event *ev;       /* fixed records read back, in file order */
	int nev;
};

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	snprintf(f->path, sizeof f->path, "/tmp/gt_xlate_XXXXXX");
	int fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(gt_writer_open_fd(&f->w, fd, NULL), 0);
	assert_int_equal(translate_init(&f->x, f->w), 0);
	f->ev = calloc(MAX_EVENTS, sizeof *f->ev);
	assert_non_null(f->ev);
	return f;
}

static void feed(struct fx *f, const void *rec)
{
	assert_int_equal(translate_record(&f->x, (const CUpti_Activity *)rec), 0);
}

/* Runs translate_finish (as the recorder does at the end), closes the file and reads it back. */
static void fx_read(struct fx *f, uint64_t finish_now)
{
	assert_int_equal(translate_finish(&f->x, finish_now), 0);
	assert_int_equal(gt_writer_close(f->w), 0);
	f->w = NULL;
	char err[256];
	assert_int_equal(gt_reader_open(&f->r, f->path, err, sizeof err), 0);
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(f->r, &ev)) > 0) {
		if (ev.type < GT_REC_FIRST_FIXED)
			continue;
		assert_true(f->nev < MAX_EVENTS);
		f->ev[f->nev++] = ev;
	}
	assert_int_equal(rc, 0);
	struct gt_tail t;
	gt_reader_tail(f->r, &t);
	assert_true(t.complete);
}

static void fx_free(struct fx *f)
{
	if (f->w)
		gt_writer_abandon(f->w);
	gt_reader_close(f->r);
	translate_release(&f->x);
	unlink(f->path);
	free(f->ev);
	free(f);
}

static int count_type(const struct fx *f, int type)
{
	int n = 0;
	for (int i = 0; i < f->nev; i++)
		n += f->ev[i].type == type;
	return n;
}

/* The k-th record of a type (0-based), in file order. */
static const struct gt_event *nth(const struct fx *f, int type, int k)
{
	for (int i = 0; i < f->nev; i++)
		if (f->ev[i].type == type && k-- == 0)
			return &f->ev[i];
	fail_msg("no record %d of type %d (%s)", k, type, gt_rec_type_name(type));
	return NULL;
}

static const char *str(const struct fx *f, uint32_t id)
{
	return gt_reader_string(f->r, id);
}

/* ---- builders: CUPTI records as CUPTI fills them ----------------------------------------- */

static CUpti_ActivityKernel10 mk_kernel(const char *name, uint64_t start, uint64_t end)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.name = name;
	k.start = start;
	k.end = end;
	k.gridX = k.gridY = k.gridZ = 1;
	k.blockX = k.blockY = k.blockZ = 1;
	return k;
}

static CUpti_ActivityMarker2 mk_marker(unsigned flags, uint32_t id, uint32_t tid, uint64_t ts,
                                       const char *name, const char *domain)
{
	CUpti_ActivityMarker2 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.id = id;
	m.timestamp = ts;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = 4242;
	m.objectId.pt.threadId = tid;
	m.name = name;
	m.domain = domain;
	return m;
}

#define START CUPTI_ACTIVITY_FLAG_MARKER_START
#define END CUPTI_ACTIVITY_FLAG_MARKER_END
#define MARK CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS

/* ---- kernels ------------------------------------------------------------------------------ */

/* Every field of a kernel record lands in the matching field of the trace record. */
static void test_kernel_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityKernel10 k = mk_kernel("_Z9compositePK5SplatiP6float4ii", 5000, 7500);
	k.queued = 4000;
	k.submitted = 4600;
	k.deviceId = 3;
	k.contextId = 17;
	k.streamId = 29;
	k.correlationId = 123456;
	k.gridX = 1024; k.gridY = 2; k.gridZ = 3;
	k.blockX = 256; k.blockY = 4; k.blockZ = 1;
	k.clusterX = 2; k.clusterY = 1; k.clusterZ = 1;
	k.staticSharedMemory = 4096;
	k.dynamicSharedMemory = 49152;
	k.localMemoryPerThread = 64;
	k.registersPerThread = 40;
	k.graphNodeId = 0;
	k.graphId = 0;
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
	feed(f, &k);
	assert_int_equal(f->x.stats.kernels, 1);
	assert_int_equal(f->x.stats.bad_times, 0);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 1);
	const struct gt_kernel *r = &nth(f, GT_REC_KERNEL, 0)->u.kernel;
	assert_int_equal(r->start, 5000);
	assert_int_equal(r->end, 7500);
	assert_int_equal(r->queued, 4000);
	assert_int_equal(r->submitted, 4600);
	assert_string_equal(str(f, r->name_id), "_Z9compositePK5SplatiP6float4ii");
	assert_int_equal(r->device_id, 3);
	assert_int_equal(r->context_id, 17);
	assert_int_equal(r->stream_id, 29);
	assert_int_equal(r->correlation_id, 123456);
	assert_int_equal(r->grid_x, 1024);
	assert_int_equal(r->grid_y, 2);
	assert_int_equal(r->grid_z, 3);
	assert_int_equal(r->block_x, 256);
	assert_int_equal(r->block_y, 4);
	assert_int_equal(r->block_z, 1);
	assert_int_equal(r->cluster_x, 2);
	assert_int_equal(r->cluster_y, 1);
	assert_int_equal(r->cluster_z, 1);
	assert_int_equal(r->static_smem, 4096);
	assert_int_equal(r->dynamic_smem, 49152);
	assert_int_equal(r->local_mem, 64);
	assert_int_equal(r->registers, 40);
	assert_int_equal(r->graph_id, 0);
	assert_int_equal(r->graph_node_id, 0);
	assert_int_equal(r->flags, GT_KERNEL_HAS_QUEUED);
	assert_int_equal(r->reserved, 0);
	/* No DROPPED record: nothing was filtered or unknown. */
	assert_int_equal(count_type(f, GT_REC_DROPPED), 0);
	fx_free(f);
}

/* CUPTI_ACTIVITY_KIND_KERNEL (serialised kernels) uses the same layout and is translated too. */
static void test_kernel_serial_kind(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityKernel10 k = mk_kernel("serial", 10, 20);
	k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
	feed(f, &k);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 1);
	assert_string_equal(str(f, nth(f, GT_REC_KERNEL, 0)->u.kernel.name_id), "serial");
	assert_int_equal(f->x.stats.unknown_kinds, 0);
	fx_free(f);
}

/* HAS_QUEUED only when both latency timestamps are set and neither is CUPTI_TIMESTAMP_UNKNOWN
 * (all ones); otherwise both fields are 0 in the trace, never a half-measured value. */
static void test_kernel_queued_flag(void **state)
{
	(void)state;
	static const struct { uint64_t q, s; int has; } cases[] = {
		{ 0, 0, 0 },                    /* latency timestamps off */
		{ 900, 0, 0 },                  /* only queued */
		{ 0, 950, 0 },                  /* only submitted */
		{ UINT64_MAX, 950, 0 },         /* queued unknown */
		{ 900, UINT64_MAX, 0 },         /* submitted unknown */
		{ UINT64_MAX, UINT64_MAX, 0 },  /* both unknown */
		{ 900, 950, 1 },                /* both measured */
		{ 1, 1, 1 },                    /* tiny but measured */
	};
	enum { N = sizeof cases / sizeof cases[0] };
	struct fx *f = fx_new();
	for (int i = 0; i < N; i++) {
		CUpti_ActivityKernel10 k = mk_kernel("k", 1000 + (uint64_t)i, 2000);
		k.queued = cases[i].q;
		k.submitted = cases[i].s;
		k.correlationId = (uint32_t)i;
		feed(f, &k);
	}
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), N);
	for (int i = 0; i < N; i++) {
		const struct gt_kernel *r = &nth(f, GT_REC_KERNEL, i)->u.kernel;
		assert_int_equal(r->correlation_id, i);
		assert_int_equal(r->start, 1000 + (uint64_t)i);
		if (cases[i].has) {
			assert_int_equal(r->flags & GT_KERNEL_HAS_QUEUED, GT_KERNEL_HAS_QUEUED);
			assert_int_equal(r->queued, cases[i].q);
			assert_int_equal(r->submitted, cases[i].s);
		} else {
			assert_int_equal(r->flags & GT_KERNEL_HAS_QUEUED, 0);
			assert_int_equal(r->queued, 0);
			assert_int_equal(r->submitted, 0);
		}
	}
	fx_free(f);
}

/* A graph id marks FROM_GRAPH (node id kept); cooperative launches, single or multi device, mark
 * COOPERATIVE; a regular launch and a command-list launch mark neither. */
static void test_kernel_graph_and_cooperative(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityKernel10 k = mk_kernel("g", 100, 200);
	k.graphId = 77;
	k.graphNodeId = 0x1234567890abcdefull;
	feed(f, &k);
	k = mk_kernel("c1", 100, 200);
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
	feed(f, &k);
	k = mk_kernel("c2", 100, 200);
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE;
	feed(f, &k);
	k = mk_kernel("regular", 100, 200);
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
	feed(f, &k);
	k = mk_kernel("cbl", 100, 200);
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_CBL_COMMANDLIST;
	feed(f, &k);
	k = mk_kernel("graph_coop", 100, 200);
	k.graphId = 5;
	k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
	feed(f, &k);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 6);
	const struct gt_kernel *g = &nth(f, GT_REC_KERNEL, 0)->u.kernel;
	assert_int_equal(g->flags, GT_KERNEL_FROM_GRAPH);
	assert_int_equal(g->graph_id, 77);
	assert_int_equal(g->graph_node_id, 0x1234567890abcdefull);
	assert_int_equal(nth(f, GT_REC_KERNEL, 1)->u.kernel.flags, GT_KERNEL_COOPERATIVE);
	assert_int_equal(nth(f, GT_REC_KERNEL, 2)->u.kernel.flags, GT_KERNEL_COOPERATIVE);
	assert_int_equal(nth(f, GT_REC_KERNEL, 3)->u.kernel.flags, 0);
	assert_int_equal(nth(f, GT_REC_KERNEL, 4)->u.kernel.flags, 0);
	assert_int_equal(nth(f, GT_REC_KERNEL, 5)->u.kernel.flags,
	                 GT_KERNEL_FROM_GRAPH | GT_KERNEL_COOPERATIVE);
	fx_free(f);
}

/* end < start, start = 0 and end = 0 are impossible: the kernel is kept, flagged BAD_TIMES and
 * counted; end == start (a zero-length kernel) is possible and not flagged. */
static void test_kernel_bad_times(void **state)
{
	(void)state;
	static const struct { uint64_t s, e; int bad; } cases[] = {
		{ 2000, 1000, 1 }, { 0, 1000, 1 }, { 1000, 0, 1 }, { 0, 0, 1 },
		{ 1000, 1000, 0 }, { 1000, 1001, 0 }, { 1, UINT64_MAX, 0 },
	};
	enum { N = sizeof cases / sizeof cases[0] };
	struct fx *f = fx_new();
	for (int i = 0; i < N; i++) {
		CUpti_ActivityKernel10 k = mk_kernel("k", cases[i].s, cases[i].e);
		k.correlationId = (uint32_t)i;
		feed(f, &k);
	}
	assert_int_equal(f->x.stats.bad_times, 4);
	assert_int_equal(f->x.stats.kernels, N);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), N);
	for (int i = 0; i < N; i++) {
		const struct gt_kernel *r = &nth(f, GT_REC_KERNEL, i)->u.kernel;
		assert_int_equal(r->correlation_id, i);
		assert_int_equal(r->start, cases[i].s); /* kept as CUPTI gave it, not repaired */
		assert_int_equal(r->end, cases[i].e);
		assert_int_equal(!!(r->flags & GT_KERNEL_BAD_TIMES), cases[i].bad);
	}
	fx_free(f);
}

/* A kernel record without a name still becomes a kernel, under a placeholder name. */
static void test_kernel_without_name(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityKernel10 k = mk_kernel(NULL, 1, 2);
	feed(f, &k);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 1);
	assert_string_equal(str(f, nth(f, GT_REC_KERNEL, 0)->u.kernel.name_id), "<unknown kernel>");
	fx_free(f);
}

/* ---- the kernel-name filter --------------------------------------------------------------- */

struct filter_calls {
	int calls;
	char seen[16][64];
};

static int keep_gemm(void *ctx, const char *name)
{
	struct filter_calls *c = ctx;
	if (c->calls < 16)
		snprintf(c->seen[c->calls], sizeof c->seen[0], "%s", name);
	c->calls++;
	return strstr(name, "gemm") != NULL;
}

/* The filter runs once per distinct name (the decision is cached); dropped launches are counted,
 * never written, and translate_finish writes their count as one DROPPED record of reason FILTERED. */
static void test_kernel_filter(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct filter_calls calls;
	memset(&calls, 0, sizeof calls);
	f->x.keep_kernel = keep_gemm;
	f->x.keep_ctx = &calls;
	static const char *const names[] = { "sgemm_128x64", "reduce_sum", "hgemm_tn", "softmax" };
	for (int rep = 0; rep < 25; rep++)
		for (int i = 0; i < 4; i++) {
			/* A fresh copy of the name each time: CUPTI's pointers need not be stable. */
			char name[64];
			snprintf(name, sizeof name, "%s", names[i]);
			CUpti_ActivityKernel10 k = mk_kernel(name, 100 + (uint64_t)rep, 200 + (uint64_t)rep);
			k.correlationId = (uint32_t)(rep * 4 + i);
			feed(f, &k);
		}
	assert_int_equal(calls.calls, 4);
	for (int i = 0; i < 4; i++)
		assert_string_equal(calls.seen[i], names[i]);
	assert_int_equal(f->x.stats.kernels, 50);
	assert_int_equal(f->x.stats.filtered, 50);
	fx_read(f, 987654321);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 50);
	for (int i = 0; i < 50; i++) {
		const char *n = str(f, nth(f, GT_REC_KERNEL, i)->u.kernel.name_id);
		assert_non_null(strstr(n, "gemm"));
	}
	assert_int_equal(count_type(f, GT_REC_DROPPED), 1);
	const struct gt_dropped *d = &nth(f, GT_REC_DROPPED, 0)->u.dropped;
	assert_int_equal(d->reason, GT_DROP_FILTERED);
	assert_int_equal(d->count, 50);
	assert_int_equal(d->timestamp, 987654321);
	fx_free(f);
}

/* Without a filter every kernel is kept and no FILTERED record is written. */
static void test_kernel_no_filter(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	for (int i = 0; i < 10; i++) {
		CUpti_ActivityKernel10 k = mk_kernel(i % 2 ? "a" : "b", 1, 2);
		feed(f, &k);
	}
	fx_read(f, 5);
	assert_int_equal(count_type(f, GT_REC_KERNEL), 10);
	assert_int_equal(f->x.stats.filtered, 0);
	assert_int_equal(count_type(f, GT_REC_DROPPED), 0);
	fx_free(f);
}

/* ---- copies and memsets ------------------------------------------------------------------- */

static CUpti_ActivityMemcpy6 mk_memcpy(uint8_t kind, uint64_t bytes)
{
	CUpti_ActivityMemcpy6 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = kind;
	m.bytes = bytes;
	m.start = 10;
	m.end = 20;
	return m;
}

static void test_memcpy_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMemcpy6 m = mk_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 64ull << 20);
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.start = 1000000;
	m.end = 2200000;
	m.deviceId = 1;
	m.contextId = 2;
	m.streamId = 13;
	m.correlationId = 99;
	m.graphId = 4;
	m.graphNodeId = 55;
	feed(f, &m);
	m = mk_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 1000);
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	m.flags = 0;
	feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_MEMCPY), 2);
	const struct gt_memcpy *r = &nth(f, GT_REC_MEMCPY, 0)->u.memcpy;
	assert_int_equal(r->start, 1000000);
	assert_int_equal(r->end, 2200000);
	assert_int_equal(r->bytes, 64ull << 20);
	assert_int_equal(r->copy_kind, GT_COPY_HTOD);
	assert_int_equal(r->src_kind, GT_MEM_PINNED);
	assert_int_equal(r->dst_kind, GT_MEM_DEVICE);
	assert_int_equal(r->flags, GT_COPY_ASYNC);
	assert_int_equal(r->device_id, 1);
	assert_int_equal(r->dst_device_id, 1); /* not a peer copy: the same device */
	assert_int_equal(r->context_id, 2);
	assert_int_equal(r->stream_id, 13);
	assert_int_equal(r->correlation_id, 99);
	assert_int_equal(r->graph_id, 4);
	assert_int_equal(r->graph_node_id, 55);
	r = &nth(f, GT_REC_MEMCPY, 1)->u.memcpy;
	assert_int_equal(r->copy_kind, GT_COPY_DTOH);
	assert_int_equal(r->src_kind, GT_MEM_DEVICE);
	assert_int_equal(r->dst_kind, GT_MEM_PAGEABLE);
	assert_int_equal(r->flags, 0);
	assert_int_equal(r->bytes, 1000);
	fx_free(f);
}

/* Peer copies: the executing (source) device and the destination device are both kept. */
static void test_memcpy_peer_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMemcpyPtoP4 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.bytes = 1ull << 30;
	m.start = 500;
	m.end = 900;
	m.deviceId = 0;
	m.srcDeviceId = 2;
	m.dstDeviceId = 5;
	m.contextId = 8;
	m.streamId = 21;
	m.correlationId = 31;
	m.graphId = 6;
	m.graphNodeId = 66;
	feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_MEMCPY), 1);
	const struct gt_memcpy *r = &nth(f, GT_REC_MEMCPY, 0)->u.memcpy;
	assert_int_equal(r->copy_kind, GT_COPY_PTOP);
	assert_int_equal(r->device_id, 2);
	assert_int_equal(r->dst_device_id, 5);
	assert_int_equal(r->bytes, 1ull << 30);
	assert_int_equal(r->start, 500);
	assert_int_equal(r->end, 900);
	assert_int_equal(r->src_kind, GT_MEM_DEVICE);
	assert_int_equal(r->dst_kind, GT_MEM_DEVICE);
	assert_int_equal(r->flags, GT_COPY_ASYNC);
	assert_int_equal(r->context_id, 8);
	assert_int_equal(r->stream_id, 21);
	assert_int_equal(r->correlation_id, 31);
	assert_int_equal(r->graph_id, 6);
	assert_int_equal(r->graph_node_id, 66);
	assert_int_equal(f->x.stats.memcpys, 1);
	assert_int_equal(f->x.stats.bytes_other, 1ull << 30);
	fx_free(f);
}

/* Bytes are added up per direction: HtoD, DtoH, DtoD, and everything else (peer, HtoH, arrays). */
static void test_byte_counters(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	static const struct { uint8_t kind; uint64_t bytes; } copies[] = {
		{ CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 100 }, { CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 23 },
		{ CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4000 }, { CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 50000 },
		{ CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 7 }, { CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, 600000 },
		{ CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, 1 }, { CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, 2 },
		{ CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 5ull << 32 },
	};
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		CUpti_ActivityMemcpy6 m = mk_memcpy(copies[i].kind, copies[i].bytes);
		feed(f, &m);
	}
	assert_int_equal(f->x.stats.memcpys, 9);
	assert_int_equal(f->x.stats.bytes_htod, 123);
	assert_int_equal(f->x.stats.bytes_dtoh, 4000 + (5ull << 32));
	assert_int_equal(f->x.stats.bytes_dtod, 50007);
	assert_int_equal(f->x.stats.bytes_other, 600003);
	/* Memsets move no data between memories and are not counted as copied bytes. */
	CUpti_ActivityMemset4 s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = 1 << 20;
	feed(f, &s);
	assert_int_equal(f->x.stats.memsets, 1);
	assert_int_equal(f->x.stats.bytes_htod + f->x.stats.bytes_dtoh + f->x.stats.bytes_dtod +
	                 f->x.stats.bytes_other, 123 + 4000 + (5ull << 32) + 50007 + 600003);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_MEMCPY), 9);
	uint64_t total = 0;
	for (int i = 0; i < 9; i++)
		total += nth(f, GT_REC_MEMCPY, i)->u.memcpy.bytes;
	assert_int_equal(total, 123 + 4000 + (5ull << 32) + 50007 + 600003);
	fx_free(f);
}

static void test_memset_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMemset4 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.value = 0xdeadbeef;
	m.bytes = 3ull << 33;
	m.start = 70;
	m.end = 90;
	m.deviceId = 2;
	m.contextId = 3;
	m.streamId = 4;
	m.correlationId = 5;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	m.graphNodeId = 8;
	m.graphId = 9;
	feed(f, &m);
	m.flags = 0;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_MEMSET), 2);
	const struct gt_memset *r = &nth(f, GT_REC_MEMSET, 0)->u.memset;
	assert_int_equal(r->value, 0xdeadbeef);
	assert_int_equal(r->bytes, 3ull << 33);
	assert_int_equal(r->start, 70);
	assert_int_equal(r->end, 90);
	assert_int_equal(r->device_id, 2);
	assert_int_equal(r->context_id, 3);
	assert_int_equal(r->stream_id, 4);
	assert_int_equal(r->correlation_id, 5);
	assert_int_equal(r->flags, GT_COPY_ASYNC);
	assert_int_equal(r->mem_kind, GT_MEM_MANAGED);
	assert_int_equal(r->graph_node_id, 8);
	assert_int_equal(r->graph_id, 9);
	r = &nth(f, GT_REC_MEMSET, 1)->u.memset;
	assert_int_equal(r->flags, 0);
	assert_int_equal(r->mem_kind, GT_MEM_DEVICE);
	fx_free(f);
}

/* ---- API calls ---------------------------------------------------------------------------- */

struct names_ctx {
	int calls;
};

static const char *fake_api_name(void *ctx, CUpti_CallbackDomain d, uint32_t cbid)
{
	struct names_ctx *c = ctx;
	c->calls++;
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211)
		return "cudaLaunchKernel_v7000";
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 31)
		return "cudaMemcpy_v3020";
	if (d == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 211)
		return "cuMemsetD8_v2";
	if (d == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 307)
		return "cuLaunchKernel";
	return NULL;
}

static CUpti_ActivityAPI mk_api(int driver, uint32_t cbid, uint32_t corr)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = cbid;
	a.correlationId = corr;
	a.start = 1000 + corr;
	a.end = 2000 + corr;
	a.processId = 4242;
	a.threadId = 0xabcdef01u;
	return a;
}

/* Fields, domains, names through the resolver with CUPTI's "_vNNNN" suffix stripped (a driver
 * function's "_v2" goes too: the trace names the function as a program's source calls it, and the
 * cbid keeps the version apart), one resolver call per callback id and domain, and a "runtime#N" /
 * "driver#N" name when CUPTI has none. */
static void test_api_records(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct names_ctx nc = { 0 };
	f->x.api_name = fake_api_name;
	f->x.api_name_ctx = &nc;
	CUpti_ActivityAPI a = mk_api(0, 211, 1);
	a.returnValue = 700; /* cudaErrorIllegalAddress */
	feed(f, &a);
	for (uint32_t i = 2; i < 12; i++) {
		a = mk_api(0, 211, i);
		feed(f, &a);
	}
	a = mk_api(0, 31, 20);
	feed(f, &a);
	a = mk_api(1, 211, 21); /* the same cbid in the other domain is another function */
	a.returnValue = 1;
	feed(f, &a);
	a = mk_api(1, 307, 22);
	feed(f, &a);
	a = mk_api(1, 9999, 23);
	feed(f, &a);
	a = mk_api(0, 9998, 24);
	feed(f, &a);
	a = mk_api(1, 9999, 25);
	feed(f, &a);
	/* Distinct (domain, cbid) pairs: runtime 211, 31, 9998; driver 211, 307, 9999. */
	assert_int_equal(nc.calls, 6);
	assert_int_equal(f->x.stats.api_calls, 17);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_API), 17);
	const struct gt_api *r = &nth(f, GT_REC_API, 0)->u.api;
	assert_string_equal(str(f, r->name_id), "cudaLaunchKernel");
	assert_int_equal(r->domain, GT_API_RUNTIME);
	assert_int_equal(r->cbid, 211);
	assert_int_equal(r->correlation_id, 1);
	assert_int_equal(r->start, 1001);
	assert_int_equal(r->end, 2001);
	assert_int_equal(r->process_id, 4242);
	assert_int_equal(r->thread_id, 0xabcdef01u);
	assert_int_equal(r->return_value, 700);
	uint32_t launch_id = r->name_id;
	for (int i = 1; i < 11; i++)
		assert_int_equal(nth(f, GT_REC_API, i)->u.api.name_id, launch_id);
	assert_string_equal(str(f, nth(f, GT_REC_API, 11)->u.api.name_id), "cudaMemcpy");
	r = &nth(f, GT_REC_API, 12)->u.api;
	assert_string_equal(str(f, r->name_id), "cuMemsetD8");
	assert_int_equal(r->domain, GT_API_DRIVER);
	assert_int_equal(r->return_value, 1);
	assert_string_equal(str(f, nth(f, GT_REC_API, 13)->u.api.name_id), "cuLaunchKernel");
	assert_string_equal(str(f, nth(f, GT_REC_API, 14)->u.api.name_id), "driver#9999");
	assert_string_equal(str(f, nth(f, GT_REC_API, 15)->u.api.name_id), "runtime#9998");
	assert_string_equal(str(f, nth(f, GT_REC_API, 16)->u.api.name_id), "driver#9999");
	fx_free(f);
}

/* Without a resolver (CUPTI's name function missing) every call still gets a name. */
static void test_api_without_resolver(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityAPI a = mk_api(0, 211, 1);
	feed(f, &a);
	fx_read(f, 0);
	assert_string_equal(str(f, nth(f, GT_REC_API, 0)->u.api.name_id), "runtime#211");
	fx_free(f);
}

static void test_api_name_len(void **state)
{
	(void)state;
	static const struct { const char *in; size_t len; } cases[] = {
		{ "cudaMemcpy_v3020", 10 },
		{ "cudaLaunchKernel_v7000", 16 },
		{ "cudaGraphLaunch_v10000", 15 },
		{ "cuMemcpyHtoD_v2", 12 },      /* "_v2" is a CUPTI-style suffix too: digits after _v */
		{ "cuLaunchKernel", 14 },
		{ "cudaMalloc_v", 12 },         /* "_v" without digits is part of the name */
		{ "v3020", 5 },
		{ "_v3020", 0 },
		{ "x_v1", 1 },
		{ "cuda2D_v3020", 6 },
		{ "cudaMemcpy2D", 12 },         /* trailing digits without "_v" stay */
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t got = translate_api_name_len(cases[i].in);
		if (got != cases[i].len)
			fail_msg("translate_api_name_len(\"%s\") = %zu, expected %zu", cases[i].in, got,
			         cases[i].len);
	}
}

/* ---- CUPTI's kinds -> the format's (translate_kinds.c) ------------------------------------------ */

/* The three mappings and the format's names, over plain ints, so that one table can hold them. */
static int copy_of(int v) { return translate_copy_kind((CUpti_ActivityMemcpyKind)v); }
static int mem_of(int v) { return translate_mem_kind((CUpti_ActivityMemoryKind)v); }
static int sync_of(int v) { return translate_sync_kind((CUpti_ActivitySynchronizationType)v); }

/* Every kind CUPTI defines, name for name: the format's value of that meaning, and its name. */
static void test_kind_mapping_name_for_name(void **state)
{
	(void)state;
	static const struct {
		int (*map)(int);
		const char *(*name)(int);
		int cupti, gt;
		const char *want;
	} rows[] = {
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, GT_COPY_HTOD, "HtoD" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, GT_COPY_DTOH, "DtoH" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA, GT_COPY_HTOA, "HtoA" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH, GT_COPY_ATOH, "AtoH" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_ATOA, GT_COPY_ATOA, "AtoA" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_ATOD, GT_COPY_ATOD, "AtoD" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_DTOA, GT_COPY_DTOA, "DtoA" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, GT_COPY_DTOD, "DtoD" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, GT_COPY_HTOH, "HtoH" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, GT_COPY_PTOP, "PtoP" },
		{ copy_of, gt_copy_kind_name, CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN, GT_COPY_UNKNOWN, "unknown" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, GT_MEM_PAGEABLE, "pageable" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, GT_MEM_PINNED, "pinned" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, GT_MEM_DEVICE, "device" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY, GT_MEM_ARRAY, "array" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, GT_MEM_MANAGED, "managed" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC, GT_MEM_DEVICE_STATIC,
		  "device-static" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC, GT_MEM_MANAGED_STATIC,
		  "managed-static" },
		{ mem_of, gt_mem_kind_name, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN, GT_MEM_UNKNOWN, "unknown" },
		{ sync_of, gt_sync_kind_name, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE,
		  GT_SYNC_EVENT, "event" },
		{ sync_of, gt_sync_kind_name, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT,
		  GT_SYNC_STREAM_WAIT_EVENT, "stream-wait-event" },
		{ sync_of, gt_sync_kind_name, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE,
		  GT_SYNC_STREAM, "stream" },
		{ sync_of, gt_sync_kind_name, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE,
		  GT_SYNC_CONTEXT, "context" },
		{ sync_of, gt_sync_kind_name, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN, GT_SYNC_UNKNOWN,
		  "unknown" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int v = rows[i].map(rows[i].cupti);
		assert_int_equal(v, rows[i].gt);
		assert_string_equal(rows[i].name(v), rows[i].want);
	}
}

/* A value CUPTI may add later is written as the format's UNKNOWN (0), never as CUPTI's number. */
static void test_kind_mapping_unknown_values(void **state)
{
	(void)state;
	static const int later[] = { 11, 42, 200, 255, 0x10000, 0x7fffffff };
	for (size_t i = 0; i < sizeof later / sizeof later[0]; i++) {
		assert_int_equal(copy_of(later[i]), GT_COPY_UNKNOWN);
		assert_int_equal(mem_of(later[i]), GT_MEM_UNKNOWN);
		assert_int_equal(sync_of(later[i]), GT_SYNC_UNKNOWN);
	}
	assert_int_equal(mem_of(8), GT_MEM_UNKNOWN); /* the first value past each table */
	assert_int_equal(sync_of(5), GT_SYNC_UNKNOWN);

	/* And through the translator into the file: each record's kind fields. */
	struct fx *f = fx_new();
	CUpti_ActivityMemcpy6 m = mk_memcpy(77, 100);
	m.srcKind = 42;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	feed(f, &m);
	CUpti_ActivityMemset4 ms;
	memset(&ms, 0, sizeof ms);
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.memoryKind = 99;
	feed(f, &ms);
	CUpti_ActivitySynchronization2 sy;
	memset(&sy, 0, sizeof sy);
	sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	sy.type = (CUpti_ActivitySynchronizationType)9;
	feed(f, &sy);
	CUpti_ActivityMemory4 mem;
	memset(&mem, 0, sizeof mem);
	mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	mem.memoryKind = (CUpti_ActivityMemoryKind)31;
	feed(f, &mem);
	fx_read(f, 0);
	const struct gt_memcpy *c = &nth(f, GT_REC_MEMCPY, 0)->u.memcpy;
	assert_int_equal(c->copy_kind, GT_COPY_UNKNOWN);
	assert_int_equal(c->src_kind, GT_MEM_UNKNOWN);
	assert_int_equal(c->dst_kind, GT_MEM_MANAGED);
	assert_int_equal(f->x.stats.bytes_other, 100); /* an unknown copy counts as "other" */
	assert_int_equal(nth(f, GT_REC_MEMSET, 0)->u.memset.mem_kind, GT_MEM_UNKNOWN);
	assert_int_equal(nth(f, GT_REC_SYNC, 0)->u.sync.kind, GT_SYNC_UNKNOWN);
	assert_int_equal(nth(f, GT_REC_MEMORY, 0)->u.memory.mem_kind, GT_MEM_UNKNOWN);
	fx_free(f);
}

/* ---- synchronization, memory, overhead, graphs -------------------------------------------- */

static void test_sync_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivitySynchronization2 s;
	memset(&s, 0, sizeof s);
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	s.start = 300;
	s.end = 800;
	s.correlationId = 41;
	s.contextId = 1;
	s.streamId = 7;
	s.cudaEventId = 0;
	feed(f, &s);
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
	s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s.cudaEventId = 12;
	feed(f, &s);
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
	feed(f, &s);
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
	feed(f, &s);
	assert_int_equal(f->x.stats.syncs, 4);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_SYNC), 4);
	const struct gt_sync *r = &nth(f, GT_REC_SYNC, 0)->u.sync;
	assert_int_equal(r->kind, GT_SYNC_STREAM);
	assert_int_equal(r->start, 300);
	assert_int_equal(r->end, 800);
	assert_int_equal(r->correlation_id, 41);
	assert_int_equal(r->context_id, 1);
	assert_int_equal(r->stream_id, 7);
	assert_int_equal(r->event_id, 0);
	r = &nth(f, GT_REC_SYNC, 1)->u.sync;
	assert_int_equal(r->kind, GT_SYNC_EVENT);
	assert_int_equal(r->stream_id, 0xffffffffu);
	assert_int_equal(r->event_id, 12);
	assert_int_equal(nth(f, GT_REC_SYNC, 2)->u.sync.kind, GT_SYNC_CONTEXT);
	assert_int_equal(nth(f, GT_REC_SYNC, 3)->u.sync.kind, GT_SYNC_STREAM_WAIT_EVENT);
	fx_free(f);
}

static void test_memory_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMemory4 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.correlationId = 61;
	m.address = 0x7f0000200000ull;
	m.bytes = 1ull << 34;
	m.timestamp = 123456789;
	m.processId = 4242;
	m.deviceId = 1;
	m.contextId = 2;
	m.streamId = 3;
	feed(f, &m);
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	m.timestamp = 223456789;
	feed(f, &m);
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	feed(f, &m);
	assert_int_equal(f->x.stats.memory_ops, 3);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_MEMORY), 3);
	const struct gt_memory *r = &nth(f, GT_REC_MEMORY, 0)->u.memory;
	assert_int_equal(r->op, GT_MEMORY_ALLOC);
	assert_int_equal(r->mem_kind, GT_MEM_DEVICE);
	assert_int_equal(r->correlation_id, 61);
	assert_int_equal(r->address, 0x7f0000200000ull);
	assert_int_equal(r->bytes, 1ull << 34);
	assert_int_equal(r->timestamp, 123456789);
	assert_int_equal(r->process_id, 4242);
	assert_int_equal(r->device_id, 1);
	assert_int_equal(r->context_id, 2);
	assert_int_equal(r->stream_id, 3);
	r = &nth(f, GT_REC_MEMORY, 1)->u.memory;
	assert_int_equal(r->op, GT_MEMORY_FREE);
	assert_int_equal(r->timestamp, 223456789);
	r = &nth(f, GT_REC_MEMORY, 2)->u.memory;
	assert_int_equal(r->op, GT_MEMORY_ALLOC);
	assert_int_equal(r->mem_kind, GT_MEM_PINNED);
	fx_free(f);
}

/* The object id is the thread for thread overheads and the device for device ones. */
static void test_overhead_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityOverhead3 o;
	memset(&o, 0, sizeof o);
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	o.objectId.pt.processId = 4242;
	o.objectId.pt.threadId = 777;
	o.start = 11;
	o.end = 19;
	feed(f, &o);
	memset(&o, 0, sizeof o);
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER;
	o.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE;
	o.objectId.dcs.deviceId = 3;
	o.objectId.dcs.contextId = 8;
	o.start = 21;
	o.end = 29;
	feed(f, &o);
	assert_int_equal(f->x.stats.overheads, 2);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_OVERHEAD), 2);
	const struct gt_overhead *r = &nth(f, GT_REC_OVERHEAD, 0)->u.overhead;
	assert_int_equal(r->kind, GT_OVERHEAD_CUPTI_BUFFER_FLUSH);
	assert_int_equal(r->object_kind, CUPTI_ACTIVITY_OBJECT_THREAD);
	assert_int_equal(r->object_id, 777);
	assert_int_equal(r->start, 11);
	assert_int_equal(r->end, 19);
	r = &nth(f, GT_REC_OVERHEAD, 1)->u.overhead;
	assert_int_equal(r->kind, GT_OVERHEAD_DRIVER_COMPILER);
	assert_int_equal(r->object_kind, CUPTI_ACTIVITY_OBJECT_DEVICE);
	assert_int_equal(r->object_id, 3);
	assert_int_equal(r->start, 21);
	assert_int_equal(r->end, 29);
	fx_free(f);
}

/* CUPTI's overhead kinds (1, 1<<16, 2<<16, ...) become the trace format's numbering (1..9);
 * one the format does not know is written as UNKNOWN, not as a number a reader would misname. */
static void test_overhead_kind_numbering(void **state)
{
	(void)state;
	static const struct { CUpti_ActivityOverheadKind cupti; uint32_t gt; } map[] = {
		{ CUPTI_ACTIVITY_OVERHEAD_UNKNOWN, GT_OVERHEAD_UNKNOWN },
		{ CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER, GT_OVERHEAD_DRIVER_COMPILER },
		{ CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, GT_OVERHEAD_CUPTI_BUFFER_FLUSH },
		{ CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION, GT_OVERHEAD_CUPTI_INSTRUMENTATION },
		{ CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE, GT_OVERHEAD_CUPTI_RESOURCE },
		{ CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING,
		  GT_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING },
		{ CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING, GT_OVERHEAD_LAZY_FUNCTION_LOADING },
		{ CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, GT_OVERHEAD_COMMAND_BUFFER_FULL },
		{ CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST, GT_OVERHEAD_ACTIVITY_BUFFER_REQUEST },
		{ CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT, GT_OVERHEAD_UVM_ACTIVITY_INIT },
		{ (CUpti_ActivityOverheadKind)(99 << 16), GT_OVERHEAD_UNKNOWN },
	};
	enum { N = sizeof map / sizeof map[0] };
	struct fx *f = fx_new();
	for (int i = 0; i < N; i++) {
		CUpti_ActivityOverhead3 o;
		memset(&o, 0, sizeof o);
		o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
		o.overheadKind = map[i].cupti;
		o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
		o.start = (uint64_t)i;
		o.end = (uint64_t)i + 1;
		feed(f, &o);
	}
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_OVERHEAD), N);
	for (int i = 0; i < N; i++) {
		const struct gt_overhead *r = &nth(f, GT_REC_OVERHEAD, i)->u.overhead;
		assert_int_equal(r->start, i);
		if (r->kind != map[i].gt)
			fail_msg("CUPTI overhead kind %#x written as %u, expected %u", (unsigned)map[i].cupti,
			         r->kind, map[i].gt);
	}
	fx_free(f);
}

static void test_graph_trace_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityGraphTrace2 g;
	memset(&g, 0, sizeof g);
	g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
	g.start = 5000;
	g.end = 9000;
	g.graphId = 12;
	g.correlationId = 300;
	g.streamId = 14;
	g.deviceId = 1;
	g.contextId = 1;
	feed(f, &g);
	assert_int_equal(f->x.stats.graphs, 1);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_GRAPH_LAUNCH), 1);
	const struct gt_graph_launch *r = &nth(f, GT_REC_GRAPH_LAUNCH, 0)->u.graph_launch;
	assert_int_equal(r->start, 5000);
	assert_int_equal(r->end, 9000);
	assert_int_equal(r->graph_id, 12);
	assert_int_equal(r->correlation_id, 300);
	assert_int_equal(r->stream_id, 14);
	fx_free(f);
}

/* Kinds the translator does not know are counted, never written, and reported at finish as one
 * DROPPED record of reason UNKNOWN_KIND. */
static void test_unknown_kinds(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_Activity a;
	memset(&a, 0, sizeof a);
	a.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	feed(f, &a);
	a.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	feed(f, &a);
	a.kind = CUPTI_ACTIVITY_KIND_NAME;
	feed(f, &a);
	assert_int_equal(f->x.stats.unknown_kinds, 3);
	fx_read(f, 4444);
	assert_int_equal(f->nev, 1);
	const struct gt_dropped *d = &nth(f, GT_REC_DROPPED, 0)->u.dropped;
	assert_int_equal(d->reason, GT_DROP_UNKNOWN_KIND);
	assert_int_equal(d->count, 3);
	assert_int_equal(d->timestamp, 4444);
	fx_free(f);
}

/* ---- NVTX --------------------------------------------------------------------------------- */

/* Nested push/pop on one thread: depths 0, 1, 2 by nesting, one record per range when it closes
 * (innermost first), kind PUSH_POP, the range's own start and end, name and domain. */
static void test_nvtx_nested_push_pop(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	m = mk_marker(START, 1, 100, 1000, "render_frame", NULL); feed(f, &m);
	m = mk_marker(START, 2, 100, 1100, "upload", NULL);       feed(f, &m);
	m = mk_marker(START, 3, 100, 1150, "pack", "mydomain");    feed(f, &m);
	m = mk_marker(END, 3, 100, 1180, NULL, NULL);             feed(f, &m);
	m = mk_marker(END, 2, 100, 1200, NULL, NULL);             feed(f, &m);
	m = mk_marker(START, 4, 100, 1300, "composite", NULL);    feed(f, &m);
	m = mk_marker(END, 4, 100, 1900, NULL, NULL);             feed(f, &m);
	m = mk_marker(END, 1, 100, 2000, NULL, NULL);             feed(f, &m);
	/* After everything closed, a new range is at the top level again. */
	m = mk_marker(START, 5, 100, 3000, "render_frame", NULL); feed(f, &m);
	m = mk_marker(END, 5, 100, 4000, NULL, NULL);             feed(f, &m);
	assert_int_equal(f->x.stats.nvtx, 5);
	assert_int_equal(f->x.stats.unpaired_nvtx, 0);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 5);
	static const struct { const char *name; uint64_t s, e; uint32_t depth, id; const char *dom; }
	want[] = {
		{ "pack", 1150, 1180, 2, 3, "mydomain" }, { "upload", 1100, 1200, 1, 2, NULL },
		{ "composite", 1300, 1900, 1, 4, NULL }, { "render_frame", 1000, 2000, 0, 1, NULL },
		{ "render_frame", 3000, 4000, 0, 5, NULL },
	};
	for (int i = 0; i < 5; i++) {
		const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, i)->u.nvtx;
		assert_string_equal(str(f, r->name_id), want[i].name);
		assert_int_equal(r->start, want[i].s);
		assert_int_equal(r->end, want[i].e);
		assert_int_equal(r->depth, want[i].depth);
		assert_int_equal(r->range_id, want[i].id);
		assert_int_equal(r->kind, GT_NVTX_PUSH_POP);
		assert_int_equal(r->thread_id, 100);
		assert_int_equal(r->color, 0);
		if (want[i].dom)
			assert_string_equal(str(f, r->domain_id), want[i].dom);
		else
			assert_int_equal(r->domain_id, 0);
	}
	fx_free(f);
}

/* Depth is per thread: two threads nesting at once each start at 0. */
static void test_nvtx_depth_per_thread(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	m = mk_marker(START, 1, 100, 10, "a0", NULL); feed(f, &m);
	m = mk_marker(START, 2, 200, 11, "b0", NULL); feed(f, &m);
	m = mk_marker(START, 3, 100, 12, "a1", NULL); feed(f, &m);
	m = mk_marker(START, 4, 200, 13, "b1", NULL); feed(f, &m);
	m = mk_marker(END, 3, 100, 20, NULL, NULL);   feed(f, &m);
	m = mk_marker(END, 4, 200, 21, NULL, NULL);   feed(f, &m);
	m = mk_marker(END, 1, 100, 22, NULL, NULL);   feed(f, &m);
	m = mk_marker(END, 2, 200, 23, NULL, NULL);   feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 4);
	static const struct { const char *name; uint32_t tid, depth; } want[] = {
		{ "a1", 100, 1 }, { "b1", 200, 1 }, { "a0", 100, 0 }, { "b0", 200, 0 },
	};
	for (int i = 0; i < 4; i++) {
		const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, i)->u.nvtx;
		assert_string_equal(str(f, r->name_id), want[i].name);
		assert_int_equal(r->thread_id, want[i].tid);
		assert_int_equal(r->depth, want[i].depth);
		assert_int_equal(r->kind, GT_NVTX_PUSH_POP);
	}
	fx_free(f);
}

/* nvtxRangeStart on one thread, nvtxRangeEnd on another: one START_END range, attributed to the
 * thread that started it. */
static void test_nvtx_start_end_across_threads(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	m = mk_marker(START, 0x10001, 100, 5000, "request", "server"); feed(f, &m);
	m = mk_marker(END, 0x10001, 300, 9000, NULL, NULL);            feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 1);
	const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, 0)->u.nvtx;
	assert_int_equal(r->kind, GT_NVTX_START_END);
	assert_int_equal(r->range_id, 0x10001);
	assert_int_equal(r->start, 5000);
	assert_int_equal(r->end, 9000);
	assert_int_equal(r->thread_id, 100);
	assert_string_equal(str(f, r->name_id), "request");
	assert_string_equal(str(f, r->domain_id), "server");
	fx_free(f);
}

/* An END whose START never arrived (before recording began, or dropped by CUPTI) is counted as
 * unpaired and writes nothing; a repeated END after the range closed is unpaired too. */
static void test_nvtx_unpaired_end(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	m = mk_marker(END, 9, 100, 50, NULL, NULL);    feed(f, &m);
	m = mk_marker(START, 1, 100, 60, "x", NULL);   feed(f, &m);
	m = mk_marker(END, 1, 100, 70, NULL, NULL);    feed(f, &m);
	m = mk_marker(END, 1, 100, 80, NULL, NULL);    feed(f, &m);
	assert_int_equal(f->x.stats.unpaired_nvtx, 2);
	assert_int_equal(f->x.stats.nvtx, 1);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 1);
	assert_int_equal(nth(f, GT_REC_NVTX, 0)->u.nvtx.end, 70);
	fx_free(f);
}

static CUpti_ActivityMarkerData2 mk_marker_data(uint32_t id, unsigned flags, uint32_t color)
{
	CUpti_ActivityMarkerData2 d;
	memset(&d, 0, sizeof d);
	d.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
	d.flags = (CUpti_ActivityFlag)flags;
	d.id = id;
	d.color = color;
	return d;
}

/* MarkerData's ARGB colour is applied to its open range; without the ARGB flag, or for an id that
 * is not open, it changes nothing. */
static void test_nvtx_marker_data_color(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	CUpti_ActivityMarkerData2 d;
	m = mk_marker(START, 1, 100, 10, "red", NULL); feed(f, &m);
	d = mk_marker_data(1, CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB, 0xffff0000u); feed(f, &d);
	m = mk_marker(START, 2, 100, 11, "none", NULL); feed(f, &m);
	d = mk_marker_data(2, CUPTI_ACTIVITY_FLAG_MARKER_COLOR_NONE, 0xff00ff00u); feed(f, &d);
	d = mk_marker_data(77, CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB, 0xff0000ffu); feed(f, &d);
	m = mk_marker(END, 2, 100, 20, NULL, NULL); feed(f, &m);
	m = mk_marker(END, 1, 100, 21, NULL, NULL); feed(f, &m);
	/* The id of a closed range may be reused by CUPTI later: a new range starts uncoloured. */
	m = mk_marker(START, 1, 100, 30, "again", NULL); feed(f, &m);
	m = mk_marker(END, 1, 100, 31, NULL, NULL); feed(f, &m);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 3);
	const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, 0)->u.nvtx;
	assert_string_equal(str(f, r->name_id), "none");
	assert_int_equal(r->color, 0);
	r = &nth(f, GT_REC_NVTX, 1)->u.nvtx;
	assert_string_equal(str(f, r->name_id), "red");
	assert_int_equal(r->color, 0xffff0000u);
	r = &nth(f, GT_REC_NVTX, 2)->u.nvtx;
	assert_string_equal(str(f, r->name_id), "again");
	assert_int_equal(r->color, 0);
	assert_int_equal(f->x.stats.unknown_kinds, 0);
	fx_free(f);
}

/* Ranges still open when recording ends (the program exited inside them) are written by
 * translate_finish with end = 0, keeping their start, depth, name and colour. */
static void test_nvtx_open_at_finish(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	CUpti_ActivityMarkerData2 d;
	m = mk_marker(START, 1, 100, 10, "outer", NULL); feed(f, &m);
	d = mk_marker_data(1, CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB, 0x80112233u); feed(f, &d);
	m = mk_marker(START, 2, 100, 20, "inner", NULL); feed(f, &m);
	m = mk_marker(START, 3, 100, 25, "closed", NULL); feed(f, &m);
	m = mk_marker(END, 3, 100, 26, NULL, NULL); feed(f, &m);
	assert_int_equal(f->x.stats.nvtx, 1);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 3);
	int seen_outer = 0, seen_inner = 0, seen_closed = 0;
	for (int i = 0; i < 3; i++) {
		const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, i)->u.nvtx;
		const char *n = str(f, r->name_id);
		if (!strcmp(n, "outer")) {
			seen_outer++;
			assert_int_equal(r->start, 10);
			assert_int_equal(r->end, 0);
			assert_int_equal(r->depth, 0);
			assert_int_equal(r->color, 0x80112233u);
			assert_int_equal(r->range_id, 1);
		} else if (!strcmp(n, "inner")) {
			seen_inner++;
			assert_int_equal(r->start, 20);
			assert_int_equal(r->end, 0);
			assert_int_equal(r->depth, 1);
			assert_int_equal(r->thread_id, 100);
		} else {
			assert_string_equal(n, "closed");
			seen_closed++;
			assert_int_equal(r->end, 26);
			assert_int_equal(r->depth, 2);
		}
	}
	assert_int_equal(seen_outer + seen_inner + seen_closed, 3);
	assert_int_equal(seen_outer, 1);
	assert_int_equal(seen_inner, 1);
	fx_free(f);
}

/* nvtxMark: one record with start = end, kind MARK, on its thread; sync markers are not kept. */
static void test_nvtx_marks(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	CUpti_ActivityMarker2 m;
	m = mk_marker(MARK, 50, 100, 777, "checkpoint", "io"); feed(f, &m);
	m = mk_marker(MARK, 51, 200, 778, NULL, NULL);         feed(f, &m);
	m = mk_marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 52, 100, 779, "lock", NULL);
	feed(f, &m);
	m = mk_marker(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_RELEASE, 52, 100, 780, "lock", NULL);
	feed(f, &m);
	assert_int_equal(f->x.stats.nvtx, 2);
	assert_int_equal(f->x.stats.unpaired_nvtx, 0);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), 2);
	const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, 0)->u.nvtx;
	assert_int_equal(r->kind, GT_NVTX_MARK);
	assert_int_equal(r->start, 777);
	assert_int_equal(r->end, 777);
	assert_int_equal(r->thread_id, 100);
	assert_int_equal(r->depth, 0);
	assert_string_equal(str(f, r->name_id), "checkpoint");
	assert_string_equal(str(f, r->domain_id), "io");
	r = &nth(f, GT_REC_NVTX, 1)->u.nvtx;
	assert_int_equal(r->kind, GT_NVTX_MARK);
	assert_int_equal(r->thread_id, 200);
	assert_string_equal(str(f, r->name_id), "");
	assert_int_equal(r->domain_id, 0);
	fx_free(f);
}

/* Many ranges open at once, closed in a scrambled order: the open-range table grows and deletes
 * from the middle of its probe runs; every range is paired with its own start exactly once. */
static void test_nvtx_many_open_ranges(void **state)
{
	(void)state;
	enum { N = 5000 };
	struct fx *f = fx_new();
	uint32_t *order = malloc(N * sizeof *order);
	assert_non_null(order);
	uint64_t s = 0x2545f4914f6cdd1dull;
	/* Ids spread like CUPTI's (not dense), each range on one of 7 threads (start/end kinds). */
	for (uint32_t i = 0; i < N; i++) {
		CUpti_ActivityMarker2 m = mk_marker(START, i * 2654435761u | 1u, 1 + i % 7, 1000 + i,
		                                    "r", NULL);
		feed(f, &m);
		order[i] = i;
	}
	for (uint32_t i = N - 1; i > 0; i--) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		uint32_t j = (uint32_t)(s % (i + 1));
		uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
	}
	for (uint32_t k = 0; k < N; k++) {
		uint32_t i = order[k];
		CUpti_ActivityMarker2 m = mk_marker(END, i * 2654435761u | 1u, 1 + i % 7, 100000 + i,
		                                    NULL, NULL);
		feed(f, &m);
	}
	assert_int_equal(f->x.stats.nvtx, N);
	assert_int_equal(f->x.stats.unpaired_nvtx, 0);
	fx_read(f, 0);
	assert_int_equal(count_type(f, GT_REC_NVTX), N);
	for (int k = 0; k < N; k++) {
		const struct gt_nvtx *r = &nth(f, GT_REC_NVTX, k)->u.nvtx;
		uint32_t i = order[k];
		assert_int_equal(r->range_id, i * 2654435761u | 1u);
		assert_int_equal(r->start, 1000 + i);
		assert_int_equal(r->end, 100000 + i);
		assert_int_equal(r->thread_id, 1 + i % 7);
	}
	free(order);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_fields),
		cmocka_unit_test(test_kernel_serial_kind),
		cmocka_unit_test(test_kernel_queued_flag),
		cmocka_unit_test(test_kernel_graph_and_cooperative),
		cmocka_unit_test(test_kernel_bad_times),
		cmocka_unit_test(test_kernel_without_name),
		cmocka_unit_test(test_kernel_filter),
		cmocka_unit_test(test_kernel_no_filter),
		cmocka_unit_test(test_memcpy_fields),
		cmocka_unit_test(test_memcpy_peer_fields),
		cmocka_unit_test(test_byte_counters),
		cmocka_unit_test(test_memset_fields),
		cmocka_unit_test(test_api_records),
		cmocka_unit_test(test_api_without_resolver),
		cmocka_unit_test(test_api_name_len),
		cmocka_unit_test(test_kind_mapping_name_for_name),
		cmocka_unit_test(test_kind_mapping_unknown_values),
		cmocka_unit_test(test_sync_fields),
		cmocka_unit_test(test_memory_fields),
		cmocka_unit_test(test_overhead_fields),
		cmocka_unit_test(test_overhead_kind_numbering),
		cmocka_unit_test(test_graph_trace_fields),
		cmocka_unit_test(test_unknown_kinds),
		cmocka_unit_test(test_nvtx_nested_push_pop),
		cmocka_unit_test(test_nvtx_depth_per_thread),
		cmocka_unit_test(test_nvtx_start_end_across_threads),
		cmocka_unit_test(test_nvtx_unpaired_end),
		cmocka_unit_test(test_nvtx_marker_data_color),
		cmocka_unit_test(test_nvtx_open_at_finish),
		cmocka_unit_test(test_nvtx_marks),
		cmocka_unit_test(test_nvtx_many_open_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
