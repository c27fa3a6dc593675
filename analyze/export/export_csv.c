/* export_csv.c: pass 2 of gpuanalyze export (export.c) as timeline CSV, one row per record: the
 * kernels, API calls and other slices formatted by hand, the rest through snprintf. Separate from
 * the Chrome emitter (export_chrome.c): the same tracks and lanes, other words. */
#include "analyze/export/export_internal.h"

#include "traces/gputrace.h"

#include <stdio.h>

/* ---- pass 2: CSV ------------------------------------------------------------------------------ */

/* Several traces: the trace's label before a CSV process name ("rank 0 GPU 0"): at most 71 bytes. */
static inline char *w_prefix(char *p, const struct ex *x)
{
	size_t n = strlen(x->prefix);
	memcpy(p, x->prefix, n);
	return p + n;
}

/* The process, track and lane columns of a row on a track (gt_ex_track_label's words): at most
 * 143 bytes. */
static char *w_track_cols(char *p, const struct ex *x, const struct track *t, uint32_t lane)
{
	p = w_prefix(p, x);
	switch (t->kind) {
	case TK_STREAM:
		p = W_LIT(p, "GPU ");
		p = w_u64(p, t->device);
		p = W_LIT(p, ",stream ");
		p = w_u64(p, t->key);
		break;
	case TK_THREAD:
		p = W_LIT(p, "host,thread ");
		p = w_u64(p, t->key);
		break;
	case TK_SYNC: p = W_LIT(p, "host,synchronisation waits"); break;
	case TK_NVTX: p = W_LIT(p, "host,NVTX start/end ranges"); break;
	default: p = W_LIT(p, "host,CUPTI overhead"); break;
	}
	*p++ = ',';
	return w_u64(p, lane);
}

/* The detail column of a kernel's row, in both paths: "grid XxYxZ block XxYxZ registers R smem S+D"
 * (at most 124 bytes). */
static char *w_kernel_detail(char *p, const struct gt_kernel *k)
{
	p = W_LIT(p, "grid ");
	p = w_dims(p, k->grid_x, k->grid_y, k->grid_z);
	p = W_LIT(p, " block ");
	p = w_dims(p, k->block_x, k->block_y, k->block_z);
	p = W_LIT(p, " registers ");
	p = w_u64(p, k->registers);
	p = W_LIT(p, " smem ");
	p = w_u64(p, k->static_smem);
	*p++ = '+';
	return w_u64(p, k->dynamic_smem);
}

/* ... and of an API call's: "driver return N" or "runtime return N" (at most 26 bytes). */
static char *w_api_detail(char *p, const struct gt_api *a)
{
	p = a->domain == GT_API_DRIVER ? W_LIT(p, "driver return ") : W_LIT(p, "runtime return ");
	if (a->return_value < 0) {
		*p++ = '-';
		return w_u64(p, (uint64_t)0 - (uint64_t)(int64_t)a->return_value);
	}
	return w_u64(p, (uint64_t)a->return_value);
}

/* The rows written millions of times, kernels and API calls on the timeline, formatted by hand
 * (the generic path below takes twice as long through snprintf). The same columns and words. */
static int csv_fast(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, const struct track *t,
                    uint32_t lane, uint64_t start, uint64_t end)
{
	struct out *o = &x->o;
	size_t nlen;
	const char *nm;
	int kernel = ev->type == GT_REC_KERNEL;
	if (!(nm = gt_ex_name_of(x, r, kernel ? ev->u.kernel.name_id : ev->u.api.name_id, kernel, &nlen)))
		return GT_ERR_NOMEM;
	char *p = reserve(o, 320);
	p = kernel ? W_LIT(p, "kernel,") : W_LIT(p, "api,");
	p = w_u64(p, start);
	*p++ = ',';
	p = w_u64(p, end);
	*p++ = ',';
	p = w_u64(p, end - start);
	*p++ = ',';
	p = w_us(p, rel(x, start));
	*p++ = ',';
	p = w_track_cols(p, x, t, lane); /* a kernel's stream, an API call's thread */
	*p++ = ',';
	commit(o, p);
	put(o, nm, nlen);
	p = reserve(o, 256);
	*p++ = ',';
	p = w_u64(p, kernel ? ev->u.kernel.correlation_id : ev->u.api.correlation_id);
	p = W_LIT(p, ",,");
	p = kernel ? w_kernel_detail(p, &ev->u.kernel) : w_api_detail(p, &ev->u.api);
	*p++ = '\n';
	commit(o, p);
	x->res->written++;
	return 0;
}

/* The other slices' rows (copies, memsets, syncs, NVTX ranges), by hand like csv_fast: the same
 * columns and words as emit_csv's general path, which a start of 0 (printed as an empty field
 * there) still takes. */
static int csv_slice(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, const struct track *t,
                     uint32_t lane, uint64_t start, uint64_t end)
{
	struct out *o = &x->o;
	const char *nm;
	size_t nlen;
	switch (ev->type) {
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		uint32_t mk = 1u << 24 | (uint32_t)m->copy_kind << 16 | (uint32_t)m->src_kind << 8 | m->dst_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "memcpy %s %s->%s", gt_copy_kind_name(m->copy_kind),
			         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
			x->op_key = mk;
		}
		nm = x->op_name;
		break;
	}
	case GT_REC_MEMSET: {
		uint32_t mk = 2u << 24 | ev->u.memset.mem_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "memset %s", gt_mem_kind_name(ev->u.memset.mem_kind));
			x->op_key = mk;
		}
		nm = x->op_name;
		break;
	}
	case GT_REC_SYNC: nm = gt_sync_kind_name(ev->u.sync.kind); break;
	default:
		if (!(nm = gt_ex_name_of(x, r, ev->u.nvtx.name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		break;
	}
	if (ev->type != GT_REC_NVTX)
		nlen = strlen(nm); /* our own words, short */
	const char *tn = gt_rec_type_name(ev->type);
	size_t tl = strlen(tn);
	char *p = reserve(o, 224 + tl);
	memcpy(p, tn, tl);
	p += tl;
	*p++ = ',';
	if (start)
		p = w_u64(p, start);
	*p++ = ',';
	p = w_u64(p, end);
	*p++ = ',';
	p = w_u64(p, end - start);
	*p++ = ',';
	if (start)
		p = w_us(p, rel(x, start));
	*p++ = ',';
	p = w_track_cols(p, x, t, lane);
	*p++ = ',';
	if (ev->type == GT_REC_SYNC)
		p = W_LIT(p, "sync ");
	commit(o, p);
	put(o, nm, nlen);
	p = reserve(o, 160);
	*p++ = ',';
	switch (ev->type) {
	case GT_REC_MEMCPY:
		p = w_u64(p, ev->u.memcpy.correlation_id);
		*p++ = ',';
		p = w_u64(p, ev->u.memcpy.bytes);
		p = ev->u.memcpy.flags & GT_COPY_ASYNC ? W_LIT(p, ",async") : W_LIT(p, ",sync");
		break;
	case GT_REC_MEMSET:
		p = w_u64(p, ev->u.memset.correlation_id);
		*p++ = ',';
		p = w_u64(p, ev->u.memset.bytes);
		p = W_LIT(p, ",value ");
		p = w_u64(p, ev->u.memset.value);
		break;
	case GT_REC_SYNC:
		p = w_u64(p, ev->u.sync.correlation_id);
		p = W_LIT(p, ",,");
		break;
	default: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		p = n->kind == GT_NVTX_PUSH_POP ? W_LIT(p, ",,push-pop depth ") : W_LIT(p, ",,start-end depth ");
		p = w_u64(p, n->depth);
		p = W_LIT(p, " thread ");
		p = w_u64(p, n->thread_id);
		break;
	}
	}
	*p++ = '\n';
	commit(o, p);
	x->res->written++;
	return 0;
}

/* type,start_ns,end_ns,duration_ns,ts_us,process,track,lane,name,correlation_id,bytes,detail */
/* One row of the general (slow) path: its fields, filled per record type, then written. */
struct row {
	const struct track *t; /* where it is drawn, or NULL: then proc names its process */
	uint32_t lane;
	int interval;            /* start and end are both printed */
	uint64_t start, end, ts; /* raw ns; ts 0: no time */
	const char *nm;
	size_t nlen;
	char detail[200], proc[40], nbuf[160];
	uint64_t corr, bytes;
	int has_corr, has_bytes;
};
/* w_kernel_detail and w_api_detail write detail unchecked: at most 124 bytes and its NUL. */
_Static_assert(sizeof ((struct row *)0)->detail > 124, "a kernel's detail fits");

/* Fields of a GPU operation, an API call, a sync, an NVTX range or a memory event; 1: not one of them. */
static int csv_describe_op(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, struct row *w)
{
	switch (ev->type) {
	case GT_REC_KERNEL: {
		const struct gt_kernel *k = &ev->u.kernel;
		if (!(w->nm = gt_ex_name_of(x, r, k->name_id, 1, &w->nlen)))
			return GT_ERR_NOMEM;
		w->corr = k->correlation_id, w->has_corr = 1;
		snprintf(w->proc, sizeof w->proc, "GPU %u", k->device_id);
		*w_kernel_detail(w->detail, k) = '\0';
		return 0;
	}
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		snprintf(w->nbuf, sizeof w->nbuf, "memcpy %s %s->%s", gt_copy_kind_name(m->copy_kind),
		         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
		w->nm = w->nbuf;
		w->corr = m->correlation_id, w->has_corr = 1, w->bytes = m->bytes, w->has_bytes = 1;
		snprintf(w->proc, sizeof w->proc, "GPU %u", m->device_id);
		snprintf(w->detail, sizeof w->detail, "%s", m->flags & GT_COPY_ASYNC ? "async" : "sync");
		return 0;
	}
	case GT_REC_MEMSET: {
		const struct gt_memset *m = &ev->u.memset;
		snprintf(w->nbuf, sizeof w->nbuf, "memset %s", gt_mem_kind_name(m->mem_kind));
		w->nm = w->nbuf;
		w->corr = m->correlation_id, w->has_corr = 1, w->bytes = m->bytes, w->has_bytes = 1;
		snprintf(w->proc, sizeof w->proc, "GPU %u", m->device_id);
		snprintf(w->detail, sizeof w->detail, "value %u", m->value);
		return 0;
	}
	case GT_REC_API: {
		const struct gt_api *a = &ev->u.api;
		if (!(w->nm = gt_ex_name_of(x, r, a->name_id, 0, &w->nlen)))
			return GT_ERR_NOMEM;
		w->corr = a->correlation_id, w->has_corr = 1;
		*w_api_detail(w->detail, a) = '\0';
		return 0;
	}
	case GT_REC_SYNC: {
		const struct gt_sync *y = &ev->u.sync;
		snprintf(w->nbuf, sizeof w->nbuf, "sync %s", gt_sync_kind_name(y->kind));
		w->nm = w->nbuf;
		w->corr = y->correlation_id, w->has_corr = 1;
		return 0;
	}
	case GT_REC_NVTX: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		if (!(w->nm = gt_ex_name_of(x, r, n->name_id, 0, &w->nlen)))
			return GT_ERR_NOMEM;
		snprintf(w->detail, sizeof w->detail, "%s depth %u thread %u",
		         n->kind == GT_NVTX_MARK ? "mark" : n->kind == GT_NVTX_PUSH_POP ? "push-pop" : "start-end", n->depth,
		         n->thread_id);
		if (n->kind == GT_NVTX_MARK)
			w->t = gt_ex_track_of(x, TK_THREAD, 0, n->thread_id, 0);
		else if (n->end == 0)
			w->end = 0, w->interval = 0; /* never closed: no end to print */
		return 0;
	}
	case GT_REC_MEMORY: {
		const struct gt_memory *m = &ev->u.memory;
		snprintf(w->nbuf, sizeof w->nbuf, "%s %s",
		         m->op == GT_MEMORY_ALLOC ? "alloc" : m->op == GT_MEMORY_FREE ? "free" : "memory",
		         gt_mem_kind_name(m->mem_kind));
		w->nm = w->nbuf;
		w->corr = m->correlation_id, w->has_corr = 1, w->bytes = m->bytes, w->has_bytes = 1;
		snprintf(w->detail, sizeof w->detail, "address 0x%llx", (unsigned long long)m->address);
		snprintf(w->proc, sizeof w->proc, "GPU %u", m->device_id);
		return 0;
	}
	default: return 1;
	}
}

/* Fields of the tracer's and the process's own records (overhead, clocks, process events, drops,
 * graph launches); 1: not one of them. */
static int csv_describe_other(const struct gt_event *ev, struct row *w)
{
	switch (ev->type) {
	case GT_REC_OVERHEAD: {
		const struct gt_overhead *v = &ev->u.overhead;
		if (v->kind == GT_OVERHEAD_CAPTURE)
			snprintf(w->nbuf, sizeof w->nbuf, "shadow capture");
		else
			snprintf(w->nbuf, sizeof w->nbuf, "overhead kind %u", v->kind);
		w->nm = w->nbuf;
		snprintf(w->detail, sizeof w->detail, "object %llu", (unsigned long long)v->object_id);
		return 0;
	}
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		w->nm = "clock sample";
		snprintf(w->detail, sizeof w->detail,
		         "SM %u MHz memory %u MHz %u C %u mW utilization %u%% throttle 0x%llx", c->sm_clock_mhz,
		         c->mem_clock_mhz, c->temperature_c, c->power_mw, c->utilization_gpu,
		         (unsigned long long)c->throttle_reasons);
		snprintf(w->proc, sizeof w->proc, "GPU %u", c->device_id);
		return 0;
	}
	case GT_REC_PROCESS: {
		const struct gt_process *p = &ev->u.process;
		w->nm = "process";
		snprintf(w->detail, sizeof w->detail, "pid %u event %u status %d", p->pid, p->event, p->status);
		return 0;
	}
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		snprintf(w->nbuf, sizeof w->nbuf, "dropped %s", gt_drop_reason_name((int)d->reason));
		w->nm = w->nbuf;
		snprintf(w->detail, sizeof w->detail, "%llu records", (unsigned long long)d->count);
		return 0;
	}
	case GT_REC_CLOCK_SYNC: {
		const struct gt_clock_sync *c = &ev->u.clock_sync;
		w->nm = "clock sync";
		snprintf(w->detail, sizeof w->detail, "realtime %llu monotonic %llu", (unsigned long long)c->realtime_ns,
		         (unsigned long long)c->monotonic_ns);
		return 0;
	}
	case GT_REC_GRAPH_LAUNCH: {
		const struct gt_graph_launch *g = &ev->u.graph_launch;
		w->nm = "graph launch";
		w->corr = g->correlation_id, w->has_corr = 1;
		snprintf(w->detail, sizeof w->detail, "graph %u stream %u", g->graph_id, g->stream_id);
		return 0;
	}
	default: return 1;
	}
}

/* Fields of a hardware-counter record: the metric's name, its value (and passes, for a replayed
 * launch, whose kernel row shares its correlation id); 1: not one. The value is printed exactly
 * (%.17g), as dump does. */
static int csv_describe_metric(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, struct row *w)
{
	uint32_t metric, device, flags;
	double value;
	if (ev->type == GT_REC_METRIC_SAMPLE) {
		const struct gt_metric_sample *m = &ev->u.metric_sample;
		metric = m->metric_id, device = m->device_id, flags = m->flags, value = m->value;
		snprintf(w->detail, sizeof w->detail, "value %.17g", value);
	} else if (ev->type == GT_REC_LAUNCH_METRIC) {
		const struct gt_launch_metric *m = &ev->u.launch_metric;
		metric = m->metric_id, device = m->device_id, flags = m->flags, value = m->value;
		w->corr = m->correlation_id, w->has_corr = 1;
		snprintf(w->detail, sizeof w->detail, "value %.17g passes %u", value, m->passes);
	} else {
		return 1;
	}
	if (!(w->nm = gt_ex_name_of(x, r, metric, 0, &w->nlen)))
		return GT_ERR_NOMEM;
	snprintf(w->proc, sizeof w->proc, "GPU %u", device);
	if (flags & GT_METRIC_BAD_TIMES) {
		w->interval = 0, w->ts = 0;
		size_t k = strlen(w->detail);
		snprintf(w->detail + k, sizeof w->detail - k, "; bad timestamps: not on the timeline");
	}
	return 0;
}

/* Writes a row of the general path; s < 0 (not on the timeline) adds why to its detail. */
static void csv_write_row(struct ex *x, const struct gt_event *ev, int s, struct row *w)
{
	struct out *o = &x->o;
	if (s < 0) {
		size_t k = strlen(w->detail);
		snprintf(w->detail + k, sizeof w->detail - k, "%s%s", k ? "; " : "",
		         ev->type == GT_REC_NVTX && ev->u.nvtx.end == 0 ? "never closed: not on the timeline"
		                                                        : "bad timestamps: not on the timeline");
	}
	put_str(o, gt_rec_type_name(ev->type));
	PUTS(o, ",");
	if (w->ts)
		put_u64(o, w->ts);
	PUTS(o, ",");
	if (w->interval)
		put_u64(o, w->end);
	PUTS(o, ",");
	if (w->interval && w->end >= w->start)
		put_u64(o, w->end - w->start);
	PUTS(o, ",");
	if (w->ts)
		put_us(o, rel(x, w->ts));
	PUTS(o, ",");
	if (w->t) {
		commit(o, w_track_cols(reserve(o, 160), x, w->t, w->lane));
	} else {
		put_str(o, x->prefix);
		put_str(o, w->proc);
		PUTS(o, ",,");
	}
	PUTS(o, ",");
	put_str(o, w->nm); /* names from the trace are cached escaped; the others are our words (no comma) */
	PUTS(o, ",");
	if (w->has_corr)
		put_u64(o, w->corr);
	PUTS(o, ",");
	if (w->has_bytes)
		put_u64(o, w->bytes);
	PUTS(o, ",");
	put_str(o, w->detail);
	PUTS(o, "\n");
	x->res->written++;
}

int gt_ex_emit_csv(struct ex *x, const struct gt_reader *r, const struct gt_event *ev)
{
	int kind;
	uint32_t device;
	uint64_t key, start, end;
	int s = gt_ex_slice_of(ev, &kind, &device, &key, &start, &end);
	const struct track *t = NULL;
	uint32_t lane = 0;
	if (s > 0) {
		if (!(t = gt_ex_track_of(x, kind, device, key, 0)))
			return GT_ERR_STATE;
		lane = lane_of(x);
	}
	if (s > 0 && (ev->type == GT_REC_KERNEL || ev->type == GT_REC_API))
		return csv_fast(x, r, ev, t, lane, start, end);
	if (s > 0 && (ev->type == GT_REC_MEMCPY || ev->type == GT_REC_MEMSET || ev->type == GT_REC_SYNC ||
	              ev->type == GT_REC_NVTX))
		return csv_slice(x, r, ev, t, lane, start, end);
	struct row w = { .t = t, .lane = lane, .nm = "", .proc = "host" };
	w.interval = gt_xwin_raw_times(ev, &w.start, &w.end);
	w.ts = w.interval ? w.start : gt_tl_event_time(ev);
	int rc = csv_describe_op(x, r, ev, &w);
	if (rc == 1)
		rc = csv_describe_other(ev, &w);
	if (rc == 1)
		rc = csv_describe_metric(x, r, ev, &w);
	if (rc)
		return rc < 0 ? rc : 0; /* 1: a record type with no row */
	csv_write_row(x, ev, s, &w);
	return 0;
}
