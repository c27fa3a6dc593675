/* translate.c: CUPTI activity records -> gputrace records (see translate.h).
 *
 * One function per CUPTI record kind; each copies the fields the trace keeps, interns names, and marks
 * what CUPTI could not measure rather than inventing a value. Caches keep the per-record cost low: API
 * names by callback id, kernel-filter decisions by string id.
 */
#include "cupti/translate.h"

#include "cupti/translate_kinds.h"

#include "common/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct translate_open_range {
	uint32_t id;            /* 0 = empty slot; CUPTI marker ids start at 1 */
	uint32_t name_id, domain_id, tid, depth, color;
	uint64_t start;
};

int translate_init(struct translator *x, struct gt_writer *w)
{
	memset(x, 0, sizeof *x);
	x->w = w;
	return 0;
}

void translate_release(struct translator *x)
{
	free(x->api_ids[0]);
	free(x->api_ids[1]);
	free(x->keep_by_id);
	free(x->open);
	free(x->depth);
	memset(x, 0, sizeof *x);
}

size_t translate_api_name_len(const char *name)
{
	size_t n = strlen(name);
	/* "cudaMemcpy_v3020": drop a trailing "_v" followed only by digits. */
	size_t i = n;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i < n && i >= 2 && name[i - 1] == 'v' && name[i - 2] == '_')
		return i - 2;
	return n;
}

/* Both caches below are indexed by a number (callback id, string id) and hold 0 for "not looked up
 * yet": common/grow.h's gt_grow_zeroed, from 1024 entries. */
#define CACHE_FIRST 1024

static uint32_t api_name_id(struct translator *x, CUpti_CallbackDomain domain, uint32_t cbid)
{
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if (cbid > 1u << 20 || (cbid >= x->api_cap[d] && gt_grow_zeroed(&x->api_ids[d], &x->api_cap[d],
	                                                                 (size_t)cbid + 1, sizeof(uint32_t), CACHE_FIRST)))
		return 0;
	uint32_t id = x->api_ids[d][cbid];
	if (id)
		return id;
	const char *name = x->api_name ? x->api_name(x->api_name_ctx, domain, cbid) : NULL;
	if (name) {
		id = gt_writer_intern_n(x->w, name, translate_api_name_len(name));
	} else {
		char buf[48];
		size_t n = (size_t)snprintf(buf, sizeof buf, "%s#%u", d ? "driver" : "runtime", cbid);
		id = gt_writer_intern_n(x->w, buf, n < sizeof buf ? n : sizeof buf - 1);
	}
	x->api_ids[d][cbid] = id;
	return id;
}

/* Filter decision for a kernel's name, cached by string id so the filter runs once per name. */
static int keep_kernel(struct translator *x, uint32_t name_id, const char *name)
{
	if (!x->keep_kernel)
		return 1;
	if (name_id >= x->keep_cap &&
	    gt_grow_zeroed(&x->keep_by_id, &x->keep_cap, (size_t)name_id + 1, 1, CACHE_FIRST))
		return 1; /* keeping is the safe side of a failure */
	if (!x->keep_by_id[name_id])
		x->keep_by_id[name_id] = x->keep_kernel(x->keep_ctx, name) ? 1 : -1;
	return x->keep_by_id[name_id] > 0;
}

static int kernel(struct translator *x, const CUpti_ActivityKernel10 *k)
{
	const char *name = k->name ? k->name : "<unknown kernel>";
	uint32_t name_id = gt_writer_intern(x->w, name);
	if (!keep_kernel(x, name_id, name)) {
		x->stats.filtered++;
		return 0;
	}
	struct gt_kernel r = {
		.start = k->start, .end = k->end, .queued = k->queued, .submitted = k->submitted,
		.graph_node_id = k->graphNodeId, .name_id = name_id, .correlation_id = k->correlationId,
		.device_id = k->deviceId, .context_id = k->contextId, .stream_id = k->streamId,
		.graph_id = k->graphId,
		.grid_x = (uint32_t)k->gridX, .grid_y = (uint32_t)k->gridY, .grid_z = (uint32_t)k->gridZ,
		.block_x = (uint32_t)k->blockX, .block_y = (uint32_t)k->blockY,
		.block_z = (uint32_t)k->blockZ,
		.cluster_x = k->clusterX, .cluster_y = k->clusterY, .cluster_z = k->clusterZ,
		.static_smem = (uint32_t)k->staticSharedMemory,
		.dynamic_smem = (uint32_t)k->dynamicSharedMemory,
		.local_mem = k->localMemoryPerThread, .registers = k->registersPerThread,
	};
	/* CUPTI leaves queued/submitted 0 unless latency timestamps are on, and may report
	 * CUPTI_TIMESTAMP_UNKNOWN (all ones) when it could not take them. */
	if (k->queued && k->submitted && k->queued != (uint64_t)-1 && k->submitted != (uint64_t)-1) {
		r.flags |= GT_KERNEL_HAS_QUEUED;
	} else {
		r.queued = r.submitted = 0;
	}
	if (k->graphId)
		r.flags |= GT_KERNEL_FROM_GRAPH;
	if (k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE ||
	    k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE)
		r.flags |= GT_KERNEL_COOPERATIVE;
	if (k->start == 0 || k->end == 0 || k->end < k->start) {
		r.flags |= GT_KERNEL_BAD_TIMES;
		x->stats.bad_times++;
	}
	x->stats.kernels++;
	return gt_writer_add(x->w, GT_REC_KERNEL, &r);
}

static void count_bytes(struct translator *x, int kind, uint64_t bytes)
{
	switch (kind) {
	case GT_COPY_HTOD: x->stats.bytes_htod += bytes; break;
	case GT_COPY_DTOH: x->stats.bytes_dtoh += bytes; break;
	case GT_COPY_DTOD: x->stats.bytes_dtod += bytes; break;
	default: x->stats.bytes_other += bytes; break;
	}
}

/* The fields CUpti_ActivityMemcpy6 and CUpti_ActivityMemcpyPtoP4 share by name: a macro, since the
 * two are different types. */
#define MEMCPY_FIELDS(m)                                                                           \
	.start = (m)->start, .end = (m)->end, .bytes = (m)->bytes, .graph_node_id = (m)->graphNodeId,  \
	.correlation_id = (m)->correlationId, .context_id = (m)->contextId,                            \
	.stream_id = (m)->streamId, .graph_id = (m)->graphId,                                          \
	.copy_kind = translate_copy_kind((m)->copyKind),                                               \
	.src_kind = translate_mem_kind((m)->srcKind), .dst_kind = translate_mem_kind((m)->dstKind)

/* Counts and writes a copy; the recorder's own copies (shadow capture) are counted apart. */
static int memcpy_add(struct translator *x, const struct gt_memcpy *r)
{
	if (r->flags & GT_COPY_TOOL) {
		x->stats.tool_copies++;
	} else {
		x->stats.memcpys++;
		count_bytes(x, r->copy_kind, r->bytes);
	}
	return gt_writer_add(x->w, GT_REC_MEMCPY, r);
}

static int memcpy1(struct translator *x, const CUpti_ActivityMemcpy6 *m)
{
	int tool = x->tool_copy && x->tool_copy(m->correlationId);
	struct gt_memcpy r = {
		MEMCPY_FIELDS(m), .device_id = m->deviceId, .dst_device_id = m->deviceId,
		.flags = ((m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? GT_COPY_ASYNC : 0) |
		         (tool ? GT_COPY_TOOL : 0),
	};
	return memcpy_add(x, &r);
}

static int memcpy_p2p(struct translator *x, const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct gt_memcpy r = {
		MEMCPY_FIELDS(m), .device_id = m->srcDeviceId, .dst_device_id = m->dstDeviceId,
		.flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? GT_COPY_ASYNC : 0,
	};
	return memcpy_add(x, &r);
}

static int memset1(struct translator *x, const CUpti_ActivityMemset4 *m)
{
	struct gt_memset r = {
		.start = m->start, .end = m->end, .bytes = m->bytes, .graph_node_id = m->graphNodeId,
		.correlation_id = m->correlationId, .device_id = m->deviceId,
		.context_id = m->contextId, .stream_id = m->streamId, .value = m->value,
		.graph_id = m->graphId, .mem_kind = translate_mem_kind(m->memoryKind),
		.flags = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) ? GT_COPY_ASYNC : 0,
	};
	x->stats.memsets++;
	return gt_writer_add(x->w, GT_REC_MEMSET, &r);
}

static int api(struct translator *x, const CUpti_ActivityAPI *a, int driver)
{
	CUpti_CallbackDomain dom = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	struct gt_api r = {
		.start = a->start, .end = a->end, .thread_id = a->threadId,
		.name_id = api_name_id(x, dom, a->cbid), .correlation_id = a->correlationId,
		.cbid = a->cbid, .process_id = a->processId, .return_value = (int32_t)a->returnValue,
		.domain = driver ? GT_API_DRIVER : GT_API_RUNTIME,
	};
	x->stats.api_calls++;
	return gt_writer_add(x->w, GT_REC_API, &r);
}

static int sync1(struct translator *x, const CUpti_ActivitySynchronization2 *s)
{
	struct gt_sync r = {
		.start = s->start, .end = s->end, .correlation_id = s->correlationId,
		.context_id = s->contextId, .stream_id = s->streamId, .event_id = s->cudaEventId,
		.kind = translate_sync_kind(s->type),
	};
	x->stats.syncs++;
	return gt_writer_add(x->w, GT_REC_SYNC, &r);
}

/* ---- NVTX: pair start and end markers ------------------------------------------------------ */

static uint32_t hash32(uint32_t v)
{
	v ^= v >> 16;
	v *= 0x7feb352du;
	v ^= v >> 15;
	return v;
}

static struct translate_open_range *open_find(struct translator *x, uint32_t id, int insert)
{
	if (insert && (x->open_count + 1) * 2 > x->open_cap) {
		uint32_t ncap = x->open_cap ? x->open_cap * 2 : 256;
		struct translate_open_range *n = calloc(ncap, sizeof *n);
		if (!n)
			return NULL;
		for (uint32_t i = 0; i < x->open_cap; i++) {
			if (!x->open[i].id)
				continue;
			uint32_t j = hash32(x->open[i].id) & (ncap - 1);
			while (n[j].id)
				j = (j + 1) & (ncap - 1);
			n[j] = x->open[i];
		}
		free(x->open);
		x->open = n;
		x->open_cap = ncap;
	}
	if (!x->open_cap)
		return NULL;
	uint32_t j = hash32(id) & (x->open_cap - 1);
	while (x->open[j].id) {
		if (x->open[j].id == id)
			return &x->open[j];
		j = (j + 1) & (x->open_cap - 1);
	}
	if (!insert)
		return NULL;
	x->open[j].id = id;
	x->open_count++;
	return &x->open[j];
}

/* Removes an entry and re-inserts the rest of its probe run (linear probing deletion). */
static void open_remove(struct translator *x, struct translate_open_range *e)
{
	uint32_t j = (uint32_t)(e - x->open);
	x->open[j].id = 0;
	x->open_count--;
	for (uint32_t k = (j + 1) & (x->open_cap - 1); x->open[k].id; k = (k + 1) & (x->open_cap - 1)) {
		struct translate_open_range moved = x->open[k];
		x->open[k].id = 0;
		uint32_t h = hash32(moved.id) & (x->open_cap - 1);
		while (x->open[h].id)
			h = (h + 1) & (x->open_cap - 1);
		x->open[h] = moved;
	}
}

static uint32_t *thread_depth(struct translator *x, uint32_t tid)
{
	for (uint32_t i = 0; i < x->depth_count; i++)
		if (x->depth[i].tid == tid)
			return &x->depth[i].depth;
	if (x->depth_count == x->depth_cap) {
		uint32_t n = x->depth_cap ? x->depth_cap * 2 : 16;
		void *p = realloc(x->depth, n * sizeof *x->depth);
		if (!p)
			return NULL;
		x->depth = p;
		x->depth_cap = n;
	}
	x->depth[x->depth_count].tid = tid;
	x->depth[x->depth_count].depth = 0;
	return &x->depth[x->depth_count++].depth;
}

/* The NVTX record of an open range that ends at end (0: never closed). */
static struct gt_nvtx range_record(const struct translate_open_range *o, uint64_t end, uint8_t kind)
{
	return (struct gt_nvtx){ .start = o->start, .end = end, .range_id = o->id,
		.name_id = o->name_id, .domain_id = o->domain_id, .thread_id = o->tid,
		.depth = o->depth, .color = o->color, .kind = kind };
}

static int marker(struct translator *x, const CUpti_ActivityMarker2 *m)
{
	uint32_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		struct gt_nvtx r = { .start = m->timestamp, .end = m->timestamp,
			.name_id = gt_writer_intern(x->w, m->name ? m->name : ""),
			.domain_id = m->domain ? gt_writer_intern(x->w, m->domain) : 0,
			.thread_id = tid, .kind = GT_NVTX_MARK };
		x->stats.nvtx++;
		return gt_writer_add(x->w, GT_REC_NVTX, &r);
	}
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		struct translate_open_range *o = open_find(x, m->id, 1);
		if (!o)
			return GT_ERR_NOMEM;
		uint32_t *d = thread_depth(x, tid);
		o->name_id = gt_writer_intern(x->w, m->name ? m->name : "");
		o->domain_id = m->domain ? gt_writer_intern(x->w, m->domain) : 0;
		o->tid = tid;
		o->depth = d ? (*d)++ : 0;
		o->start = m->timestamp;
		o->color = 0;
		return 0;
	}
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		struct translate_open_range *o = open_find(x, m->id, 0);
		if (!o) {
			x->stats.unpaired_nvtx++;
			return 0;
		}
		uint32_t *d = thread_depth(x, o->tid);
		if (d && *d)
			(*d)--;
		struct gt_nvtx r = range_record(o, m->timestamp, tid == o->tid ? GT_NVTX_PUSH_POP : GT_NVTX_START_END);
		open_remove(x, o);
		x->stats.nvtx++;
		return gt_writer_add(x->w, GT_REC_NVTX, &r);
	}
	return 0; /* sync markers (acquire/release) are not kept */
}

static int marker_data(struct translator *x, const CUpti_ActivityMarkerData2 *m)
{
	struct translate_open_range *o = open_find(x, m->id, 0);
	if (o && (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB))
		o->color = m->color;
	return 0;
}

static int memory2(struct translator *x, const CUpti_ActivityMemory4 *m)
{
	struct gt_memory r = {
		.timestamp = m->timestamp, .address = m->address, .bytes = m->bytes,
		.correlation_id = m->correlationId, .device_id = m->deviceId,
		.context_id = m->contextId, .stream_id = m->streamId, .process_id = m->processId,
		.op = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
		          ? GT_MEMORY_FREE : GT_MEMORY_ALLOC,
		.mem_kind = translate_mem_kind(m->memoryKind),
	};
	x->stats.memory_ops++;
	return gt_writer_add(x->w, GT_REC_MEMORY, &r);
}

static int overhead(struct translator *x, const CUpti_ActivityOverhead3 *o)
{
	uint64_t obj = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId
	                                                            : o->objectId.dcs.deviceId;
	struct gt_overhead r = { .start = o->start, .end = o->end, .object_id = obj,
		.kind = translate_overhead_kind(o->overheadKind),
		.object_kind = translate_object_kind(o->objectKind) };
	x->stats.overheads++;
	return gt_writer_add(x->w, GT_REC_OVERHEAD, &r);
}

static int graph_trace(struct translator *x, const CUpti_ActivityGraphTrace2 *g)
{
	struct gt_graph_launch r = { .start = g->start, .end = g->end, .graph_id = g->graphId,
		.correlation_id = g->correlationId, .stream_id = g->streamId };
	x->stats.graphs++;
	return gt_writer_add(x->w, GT_REC_GRAPH_LAUNCH, &r);
}

int translate_record(struct translator *x, const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return kernel(x, (const CUpti_ActivityKernel10 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return memcpy1(x, (const CUpti_ActivityMemcpy6 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return memcpy_p2p(x, (const CUpti_ActivityMemcpyPtoP4 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return memset1(x, (const CUpti_ActivityMemset4 *)rec);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return api(x, (const CUpti_ActivityAPI *)rec, 0);
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return api(x, (const CUpti_ActivityAPI *)rec, 1);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sync1(x, (const CUpti_ActivitySynchronization2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return marker(x, (const CUpti_ActivityMarker2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
		return marker_data(x, (const CUpti_ActivityMarkerData2 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return memory2(x, (const CUpti_ActivityMemory4 *)rec);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return overhead(x, (const CUpti_ActivityOverhead3 *)rec);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		return graph_trace(x, (const CUpti_ActivityGraphTrace2 *)rec);
	default:
		x->stats.unknown_kinds++;
		return 0;
	}
}

/* A DROPPED record for count records lost for reason, none when count is 0. */
static int add_dropped(struct translator *x, uint64_t now, uint64_t count, uint32_t reason)
{
	if (!count)
		return 0;
	struct gt_dropped d = { .timestamp = now, .count = count, .reason = reason };
	return gt_writer_add(x->w, GT_REC_DROPPED, &d);
}

int translate_finish(struct translator *x, uint64_t now)
{
	int rc = 0;
	/* Ranges never closed (the program exited inside them) are written with end = 0. */
	for (uint32_t i = 0; i < x->open_cap && !rc; i++) {
		struct translate_open_range *o = &x->open[i];
		if (!o->id)
			continue;
		struct gt_nvtx r = range_record(o, 0, GT_NVTX_PUSH_POP);
		rc = gt_writer_add(x->w, GT_REC_NVTX, &r);
		o->id = 0;
	}
	x->open_count = 0;
	if (!rc)
		rc = add_dropped(x, now, x->stats.filtered, GT_DROP_FILTERED);
	if (!rc)
		rc = add_dropped(x, now, x->stats.unknown_kinds, GT_DROP_UNKNOWN_KIND);
	return rc;
}
