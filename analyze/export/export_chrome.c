/* export_chrome.c: pass 2 of gpuanalyze export (export.c) as Chrome Trace Event JSON: the metadata
 * events, one slice, flow arrow, counter or instant per record, the memory counters at the end and
 * the closing otherData. Separate from the CSV emitter (export_csv.c): the two share the tracks and
 * the output buffer, not their words. */
#include "analyze/export/export_internal.h"

#include "traces/gputrace.h"

#include "analyze/output/output.h"

#include <math.h>
#include <stdio.h>

/* ---- pass 2: Chrome JSON -------------------------------------------------------------------- */

static void ev_begin(struct ex *x)
{
	if (x->first_event)
		PUTS(&x->o, "\n{");
	else
		PUTS(&x->o, ",\n{");
	x->first_event = 0;
	x->res->written++;
}

static inline void put_escaped(struct ex *x, const char *s)
{
	char *e = escape(s, x->opt->format == GT_EXPORT_CHROME);
	if (!e) {
		x->o.err = GT_ERR_NOMEM;
		return;
	}
	put_str(&x->o, e);
	free(e);
}

/* s as a JSON string, or null when there is none (an option not given). */
static void put_escaped_or_null(struct ex *x, const char *s)
{
	if (s)
		put_escaped(x, s);
	else
		PUTS(&x->o, "null");
}

/* A slice's shown duration: its own, unless its ends are mapped onto another clock. */
static uint64_t shown_dur(const struct ex *x, uint64_t start, uint64_t end)
{
	return x->clock.mapped ? rel(x, end) - rel(x, start) : end - start;
}

static inline void arg_un(struct ex *x, const char *key, size_t n, uint64_t v, int first)
{
	char *p = reserve(&x->o, n + 32);
	if (!first)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, key, n);
	p = W_LIT(p + n, "\":");
	commit(&x->o, w_u64(p, v));
}

/* ,"key":v (no comma when first): an event's argument, or any other number in an object. key is a
 * literal of ours: its length is known when compiling. */
#define arg_u(x, key, v, first) arg_un((x), (key), sizeof(key) - 1, (v), (first))

/* The start of a metadata event, counter or instant: {"ph":"P" (an instant's "s":"S" scope after
 * it; scope 0: none) and its process. */
static void ev_head(struct ex *x, char ph, char scope, uint32_t pid)
{
	ev_begin(x);
	PUTS(&x->o, "\"ph\":\"");
	put(&x->o, &ph, 1);
	if (scope) {
		PUTS(&x->o, "\",\"s\":\"");
		put(&x->o, &scope, 1);
	}
	PUTS(&x->o, "\"");
	arg_u(x, "pid", pid, 0);
}

static void meta_event(struct ex *x, uint32_t pid, int thread, uint32_t tid, const char *what, const char *name,
                       uint64_t sort)
{
	ev_head(x, 'M', 0, pid);
	if (thread)
		arg_u(x, "tid", tid, 0);
	PUTS(&x->o, ",\"name\":\"");
	put_str(&x->o, what);
	if (name) {
		PUTS(&x->o, "\",\"args\":{\"name\":");
		put_escaped(x, name);
	} else {
		PUTS(&x->o, "\",\"args\":{\"sort_index\":");
		put_u64(&x->o, sort);
	}
	PUTS(&x->o, "}}");
	x->res->metadata++;
}

/* A META value that is a decimal count (a rank, a world size) of at most 19 digits, or NULL: the
 * traced program's environment chose it, and only digits go into the JSON as a number. */
static const char *meta_count(const struct gt_reader *r, const char *key)
{
	const char *v = gt_reader_meta(r, key);
	size_t k = v ? strspn(v, "0123456789") : 0;
	return v && k && !v[k] && k < 20 ? v : NULL;
}

/* The header keys PyTorch's profiler (Kineto) writes before its events, so that Holistic Trace
 * Analysis and TensorBoard's profiler read a one-trace export as they read a rank's profile:
 * deviceProperties (the fields the trace holds; Kineto's others, such as warpSize, are left out
 * rather than guessed) and distributedInfo (rank and world size, where the recorder found them in
 * the launcher's environment). An export of several traces has no one rank and writes neither. */
static void kineto_header(struct ex *x, const struct gt_reader *r)
{
	struct out *o = &x->o;
	PUTS(o, "\"schemaVersion\":1,\n\"deviceProperties\":[");
	size_t n = gt_reader_device_count(r), shown = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		if (!d)
			continue;
		if (shown++)
			PUTS(o, ",");
		PUTS(o, "\n{");
		arg_u(x, "id", d->device_id, 1);
		PUTS(o, ",\"name\":");
		put_escaped(x, name ? name : "");
		arg_u(x, "totalGlobalMem", d->global_mem_bytes, 0);
		arg_u(x, "computeMajor", d->cc_major, 0);
		arg_u(x, "computeMinor", d->cc_minor, 0);
		if (d->max_threads_per_sm)
			arg_u(x, "maxThreadsPerMultiprocessor", d->max_threads_per_sm, 0);
		arg_u(x, "numSms", d->sm_count, 0);
		if (d->l2_bytes)
			arg_u(x, "l2CacheSize", d->l2_bytes, 0);
		PUTS(o, "}");
	}
	PUTS(o, "],\n");
	const char *rank = meta_count(r, "process.rank");
	const char *world = meta_count(r, "process.world_size");
	if (rank) {
		PUTS(o, "\"distributedInfo\":{\"rank\":");
		put_str(o, rank);
		if (world) {
			PUTS(o, ",\"world_size\":");
			put_str(o, world);
		}
		PUTS(o, "},\n");
	}
}

void gt_ex_chrome_header(struct ex *x, const struct gt_reader *r)
{
	PUTS(&x->o, "{");
	if (x->nfiles == 1)
		kineto_header(x, r);
	PUTS(&x->o, "\"traceEvents\":[");
}

void gt_ex_metadata(struct ex *x, const struct gt_reader *r)
{
	char buf[512];
	const char *pname = gt_reader_meta(r, "process.name");
	/* Several traces: the trace's label first ("rank 1 host: ..."), its own pid in the name (the
	 * process ids are the export's), processes in the order the traces were given. */
	const char *label = x->file ? x->file->label : "";
	const char *sp = x->file ? " " : "";
	uint32_t real_pid = x->file ? x->file_pid : x->host_pid;
	if (pname)
		snprintf(buf, sizeof buf, "%s%shost: %s (pid %u)", label, sp, pname, real_pid);
	else
		snprintf(buf, sizeof buf, "%s%shost (pid %u)", label, sp, real_pid);
	meta_event(x, x->host_pid, 0, 0, "process_name", buf, 0);
	meta_event(x, x->host_pid, 0, 0, "process_sort_index", NULL, x->file ? x->pid_base : 0);
	for (size_t i = 0; i < x->ndevs; i++) {
		const char *dn = NULL;
		uint32_t d = x->devs[i];
		if (gt_reader_device(r, d, &dn) && dn && *dn)
			snprintf(buf, sizeof buf, "%s%sGPU %u: %s", label, sp, d, dn);
		else
			snprintf(buf, sizeof buf, "%s%sGPU %u", label, sp, d);
		uint32_t pid = dev_pid(x, d);
		meta_event(x, pid, 0, 0, "process_name", buf, 0);
		meta_event(x, pid, 0, 0, "process_sort_index", NULL, x->file ? pid : 1 + (uint64_t)d);
	}
	for (size_t i = 0; i < x->nt; i++) {
		const struct track *t = &x->t[i];
		for (uint32_t l = 0; l < t->nlanes; l++) {
			gt_ex_track_label(t, l, buf, sizeof buf);
			meta_event(x, t->pid, 1, t->tid0 + l, "thread_name", buf, 0);
			meta_event(x, t->pid, 1, t->tid0 + l, "thread_sort_index", NULL, t->tid0 + l);
		}
	}
}

/* "pid":P,"tid":T of a track's lane, at most 44 bytes: lane 0's is made once. */
static inline char *w_ids(char *p, const struct track *t, uint32_t lane)
{
	if (!lane) {
		memcpy(p, t->ids, t->nids);
		return p + t->nids;
	}
	p = W_LIT(p, "\"pid\":");
	p = w_u64(p, t->pid);
	p = W_LIT(p, ",\"tid\":");
	return w_u64(p, t->tid0 + lane);
}

static void slice_head(struct ex *x, const struct track *t, uint32_t lane, uint64_t start, uint64_t end,
                       const char *name, size_t name_len, const char *cat)
{
	struct out *o = &x->o;
	size_t catn = strlen(cat); /* ours, short */
	int small = name_len < 4096;
	char *p = reserve(o, 128 + catn + (small ? name_len : 0));
	p = W_LIT(p, ",\n{\"ph\":\"X\",");
	p = w_ids(p, t, lane);
	p = W_LIT(p, ",\"ts\":");
	p = w_us(p, rel(x, start));
	p = W_LIT(p, ",\"dur\":");
	p = w_us(p, shown_dur(x, start, end));
	p = W_LIT(p, ",\"name\":");
	if (small) {
		memcpy(p, name, name_len);
		p += name_len;
	} else {
		commit(o, p);
		put(o, name, name_len);
		p = reserve(o, 32 + catn);
	}
	p = W_LIT(p, ",\"cat\":\"");
	memcpy(p, cat, catn);
	p = W_LIT(p + catn, "\",\"args\":{");
	commit(o, p);
	x->res->written++;
	x->res->slices++;
}

static void flow(struct ex *x, char ph, uint64_t id, const struct track *t, uint32_t lane, uint64_t ts)
{
	struct out *o = &x->o;
	char *p = reserve(o, 160);
	p = ph == 'f' ? W_LIT(p, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":") : W_LIT(p, ",\n{\"ph\":\"s\",\"id\":");
	p = w_u64(p, id);
	*p++ = ',';
	p = w_ids(p, t, lane);
	p = W_LIT(p, ",\"ts\":");
	p = w_us(p, rel(x, ts));
	p = W_LIT(p, ",\"name\":\"launch\",\"cat\":\"flow\"}");
	commit(o, p);
	x->res->written++;
	if (ph == 'f')
		x->res->flows++; /* an arrow is its two ends */
}

/* ts: shown ns (rel). */
static void counter(struct ex *x, uint32_t pid, uint64_t ts, const char *name, const char *key, int64_t v)
{
	ev_head(x, 'C', 0, pid);
	PUTS(&x->o, ",\"ts\":");
	put_us(&x->o, ts);
	PUTS(&x->o, ",\"name\":\"");
	put_str(&x->o, name);
	PUTS(&x->o, "\",\"args\":{\"");
	put_str(&x->o, key);
	PUTS(&x->o, "\":");
	put_i64(&x->o, v);
	PUTS(&x->o, "}}");
	x->res->counters++;
}

/* ts: shown ns (rel). */
static void instant(struct ex *x, uint32_t pid, uint32_t tid, char scope, uint64_t ts, const char *name_json,
                    const char *cat)
{
	ev_head(x, 'i', scope, pid);
	arg_u(x, "tid", tid, 0);
	PUTS(&x->o, ",\"ts\":");
	put_us(&x->o, ts);
	PUTS(&x->o, ",\"name\":");
	put_str(&x->o, name_json);
	PUTS(&x->o, ",\"cat\":\"");
	put_str(&x->o, cat);
	PUTS(&x->o, "\"}");
	x->res->instants++;
}

static const char *mem_group(int kind)
{
	switch (kind) {
	case GT_MEM_DEVICE:
	case GT_MEM_DEVICE_STATIC:
	case GT_MEM_ARRAY: return "device memory in use (bytes)";
	case GT_MEM_PINNED: return "pinned host memory in use (bytes)";
	case GT_MEM_MANAGED:
	case GT_MEM_MANAGED_STATIC: return "managed memory in use (bytes)";
	case GT_MEM_PAGEABLE: return "pageable host memory in use (bytes)";
	default: return "other memory in use (bytes)";
	}
}

/* Flow arrows of an API call (start) or of a GPU operation (finish), by correlation id. */
static void flows_of_call(struct ex *x, uint32_t corr, const struct track *t, uint32_t lane, uint64_t mid)
{
	uint8_t *b = corr ? corr_find(x->cnt, corr) : NULL;
	if (!b || !(*b & API_SEEN))
		return;
	unsigned n = *b & ~API_SEEN;
	for (unsigned k = 0; k < n; k++)
		flow(x, 's', x->flow_base + (uint64_t)corr * 128 + k, t, lane, mid);
}

static int flow_of_op(struct ex *x, uint32_t corr, const struct track *t, uint32_t lane, uint64_t mid)
{
	uint8_t *b = corr ? corr_find(x->cnt, corr) : NULL;
	if (!b || !(*b & API_SEEN))
		return 0;
	/* x->next makes a page only where x->cnt has one: within the same budget */
	uint8_t *k;
	if (gt_ex_corr_make(x->next, corr, UINT64_MAX, &k) || !k)
		return GT_ERR_NOMEM;
	if (*k >= (*b & ~API_SEEN)) {
		x->res->flows_capped++;
		return 0;
	}
	flow(x, 'f', x->flow_base + (uint64_t)corr * 128 + (*k)++, t, lane, mid);
	return 0;
}

/* Where a slice record is drawn: its track and lane, its ends and middle (where flow arrows attach). */
struct drawn {
	const struct track *t;
	uint32_t lane;
	uint64_t start, end, mid;
};

/* A kernel's slice, its launch arguments and its flow arrow. */
static int chrome_kernel(struct ex *x, const struct gt_reader *r, const struct drawn *sl, const struct gt_kernel *k)
{
	size_t nlen = 0;
	const char *nm = gt_ex_name_of(x, r, k->name_id, 1, &nlen);
	if (!nm)
		return GT_ERR_NOMEM;
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, nm, nlen, "kernel");
	/* By hand: this is the line written millions of times (at most 10 numbers of 20 digits). */
	struct out *o = &x->o;
	char *p = reserve(o, 400);
	p = W_LIT(p, "\"correlation\":");
	p = w_u64(p, k->correlation_id);
	p = W_LIT(p, ",\"grid\":\"");
	p = w_dims(p, k->grid_x, k->grid_y, k->grid_z);
	p = W_LIT(p, "\",\"block\":\"");
	p = w_dims(p, k->block_x, k->block_y, k->block_z);
	p = W_LIT(p, "\",\"registers\":");
	p = w_u64(p, k->registers);
	p = W_LIT(p, ",\"static_smem\":");
	p = w_u64(p, k->static_smem);
	p = W_LIT(p, ",\"dynamic_smem\":");
	p = w_u64(p, k->dynamic_smem);
	if (k->flags & GT_KERNEL_HAS_QUEUED && k->queued && k->queued <= sl->start) {
		p = W_LIT(p, ",\"queued_to_start_ns\":");
		p = w_u64(p, sl->start - k->queued);
	}
	if (k->graph_id) {
		p = W_LIT(p, ",\"graph\":");
		p = w_u64(p, k->graph_id);
	}
	p = W_LIT(p, "}}");
	commit(o, p);
	return flow_of_op(x, k->correlation_id, sl->t, sl->lane, sl->mid);
}

/* A memcpy's slice (named by its kinds, made again only when they change) and its flow arrow. */
static int chrome_memcpy(struct ex *x, const struct drawn *sl, const struct gt_memcpy *m)
{
	uint32_t mk = 1u << 24 | (uint32_t)m->copy_kind << 16 | (uint32_t)m->src_kind << 8 | m->dst_kind;
	if (mk != x->op_key) {
		snprintf(x->op_name, sizeof x->op_name, "\"memcpy %s %s->%s\"", gt_copy_kind_name(m->copy_kind),
		         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
		x->op_key = mk;
	}
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, x->op_name, strlen(x->op_name), "memcpy");
	arg_u(x, "correlation", m->correlation_id, 1);
	arg_u(x, "bytes", m->bytes, 0);
	if (m->flags & GT_COPY_ASYNC)
		PUTS(&x->o, ",\"async\":\"yes\"}}");
	else
		PUTS(&x->o, ",\"async\":\"no\"}}");
	return flow_of_op(x, m->correlation_id, sl->t, sl->lane, sl->mid);
}

/* A memset's slice and its flow arrow. */
static int chrome_memset(struct ex *x, const struct drawn *sl, const struct gt_memset *m)
{
	uint32_t mk = 2u << 24 | m->mem_kind;
	if (mk != x->op_key) {
		snprintf(x->op_name, sizeof x->op_name, "\"memset %s\"", gt_mem_kind_name(m->mem_kind));
		x->op_key = mk;
	}
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, x->op_name, strlen(x->op_name), "memset");
	arg_u(x, "correlation", m->correlation_id, 1);
	arg_u(x, "bytes", m->bytes, 0);
	arg_u(x, "value", m->value, 0);
	PUTS(&x->o, "}}");
	return flow_of_op(x, m->correlation_id, sl->t, sl->lane, sl->mid);
}

/* An API call's slice and the flow arrows that start at it. */
static int chrome_api(struct ex *x, const struct gt_reader *r, const struct drawn *sl, const struct gt_api *a)
{
	size_t nlen = 0;
	const char *nm = gt_ex_name_of(x, r, a->name_id, 0, &nlen);
	if (!nm)
		return GT_ERR_NOMEM;
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, nm, nlen,
	           a->domain == GT_API_DRIVER ? "cuda_driver" : "cuda_runtime");
	arg_u(x, "correlation", a->correlation_id, 1);
	if (a->return_value) {
		PUTS(&x->o, ",\"return\":");
		put_i64(&x->o, a->return_value);
	}
	PUTS(&x->o, "}}");
	flows_of_call(x, a->correlation_id, sl->t, sl->lane, sl->mid);
	return 0;
}

/* A synchronization's slice. */
static int chrome_sync(struct ex *x, const struct drawn *sl, const struct gt_sync *y)
{
	char buf[160];
	/* One of a few names (no snprintf for each of a million syncs). */
	const char *kn = gt_sync_kind_name(y->kind);
	size_t kl = strlen(kn);
	if (kl > sizeof buf - 8)
		kl = sizeof buf - 8;
	memcpy(buf, "\"sync ", 6);
	memcpy(buf + 6, kn, kl);
	buf[6 + kl] = '"';
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, buf, kl + 7, "sync");
	arg_u(x, "correlation", y->correlation_id, 1);
	if (y->stream_id != UINT32_MAX)
		arg_u(x, "stream", y->stream_id, 0);
	PUTS(&x->o, "}}");
	return 0;
}

/* An NVTX mark (an instant on its thread) or range (a slice, when s > 0). */
static int chrome_nvtx(struct ex *x, const struct gt_reader *r, int s, const struct drawn *sl,
                       const struct gt_nvtx *n)
{
	size_t nlen = 0;
	const char *nm = gt_ex_name_of(x, r, n->name_id, 0, &nlen);
	if (!nm)
		return GT_ERR_NOMEM;
	if (n->kind == GT_NVTX_MARK) {
		const struct track *th = gt_ex_track_of(x, TK_THREAD, 0, n->thread_id, 0);
		if (th && n->start)
			instant(x, th->pid, th->tid0, 't', rel(x, n->start), nm, "nvtx");
		return 0;
	}
	if (s <= 0)
		return 0;
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, nm, nlen, "nvtx");
	arg_u(x, "depth", n->depth, 1);
	if (n->domain_id) {
		const char *dom = gt_ex_name_of(x, r, n->domain_id, 0, NULL);
		if (!dom)
			return GT_ERR_NOMEM;
		PUTS(&x->o, ",\"domain\":");
		put_str(&x->o, dom);
	}
	if (n->kind == GT_NVTX_START_END)
		arg_u(x, "thread", n->thread_id, 0);
	PUTS(&x->o, "}}");
	return 0;
}

/* The tracer's own overhead, as a slice. */
static int chrome_overhead(struct ex *x, const struct drawn *sl, const struct gt_overhead *v)
{
	char buf[160];
	snprintf(buf, sizeof buf, "\"overhead kind %u\"", v->kind);
	if (v->kind == GT_OVERHEAD_CAPTURE)
		snprintf(buf, sizeof buf, "\"shadow capture\"");
	slice_head(x, sl->t, sl->lane, sl->start, sl->end, buf, strlen(buf), "overhead");
	arg_u(x, "object", v->object_id, 1);
	PUTS(&x->o, "}}");
	return 0;
}

/* A clock sample: four counters on its device's process. */
static int chrome_clock_sample(struct ex *x, const struct gt_clock_sample *c)
{
	if (!c->timestamp)
		return 0;
	uint32_t pid = dev_pid(x, c->device_id);
	uint64_t ts = rel(x, c->timestamp);
	counter(x, pid, ts, "SM clock (MHz)", "MHz", c->sm_clock_mhz);
	counter(x, pid, ts, "memory clock (MHz)", "MHz", c->mem_clock_mhz);
	counter(x, pid, ts, "temperature (C)", "C", c->temperature_c);
	counter(x, pid, ts, "power (mW)", "mW", c->power_mw);
	return 0;
}

/* A hardware-counter sample: a counter track per device and metric, named by the metric. A count
 * (.sum) is shown as its rate per second over the sample's interval ("dram__bytes_read.sum /s"),
 * which reads the same whatever the sampling interval; anything else (a percentage, a rate) as
 * it is. A value that is not finite or is negative was not measured: no point at all. */
static int chrome_metric_sample(struct ex *x, const struct gt_reader *r, const struct gt_metric_sample *m)
{
	if ((m->flags & GT_METRIC_BAD_TIMES) || m->end <= m->start || !isfinite(m->value) || m->value < 0)
		return 0;
	const char *name = gt_reader_string(r, m->metric_id);
	size_t len = strlen(name);
	int count = len >= 4 && !strcmp(name + len - 4, ".sum");
	double v = count ? m->value / ((double)(m->end - m->start) * 1e-9) : m->value;
	if (!isfinite(v))
		return 0;
	char num[64];
	gt_out_format_real(num, sizeof num, v);
	ev_head(x, 'C', 0, dev_pid(x, m->device_id));
	PUTS(&x->o, ",\"ts\":");
	put_us(&x->o, rel(x, m->start));
	PUTS(&x->o, ",\"name\":");
	put_escaped(x, name);
	if (count)
		PUTS(&x->o, ",\"cat\":\"metric /s\",\"args\":{\"per_second\":");
	else
		PUTS(&x->o, ",\"cat\":\"metric\",\"args\":{\"value\":");
	put_str(&x->o, num);
	PUTS(&x->o, "}}");
	x->res->counters++;
	return 0;
}

/* A process event, as an instant on the host's process. */
static int chrome_process(struct ex *x, const struct gt_process *p)
{
	char buf[160];
	if (!p->timestamp)
		return 0;
	switch (p->event) {
	case GT_PROCESS_START: snprintf(buf, sizeof buf, "\"process start\""); break;
	case GT_PROCESS_EXIT: snprintf(buf, sizeof buf, "\"process exit (status %d)\"", p->status); break;
	case GT_PROCESS_SIGNAL: snprintf(buf, sizeof buf, "\"process killed by signal %d\"", p->status); break;
	case GT_PROCESS_FORKED: snprintf(buf, sizeof buf, "\"forked from %d\"", p->status); break;
	case GT_PROCESS_EXEC: snprintf(buf, sizeof buf, "\"exec: trace ends\""); break;
	case GT_PROCESS_TRACING_OFF: snprintf(buf, sizeof buf, "\"tracing stopped\""); break;
	case GT_PROCESS_WINDOW_OPEN: snprintf(buf, sizeof buf, "\"recording window %d opens\"", p->status); break;
	case GT_PROCESS_WINDOW_CLOSE: snprintf(buf, sizeof buf, "\"recording window %d closes\"", p->status); break;
	default: snprintf(buf, sizeof buf, "\"process event %u\"", p->event); break;
	}
	instant(x, x->host_pid, 0, 'p', rel(x, p->timestamp), buf, "process");
	return 0;
}

/* Dropped records, as a global instant. */
static int chrome_dropped(struct ex *x, const struct gt_dropped *d)
{
	char buf[160];
	snprintf(buf, sizeof buf, "\"%llu records dropped (%s)\"", (unsigned long long)d->count,
	         gt_drop_reason_name((int)d->reason));
	/* Without a time: at the start of what is shown. */
	instant(x, x->host_pid, 0, 'g', d->timestamp ? rel(x, d->timestamp) : x->win->start, buf, "dropped");
	return 0;
}

int gt_ex_emit_chrome(struct ex *x, const struct gt_reader *r, const struct gt_event *ev)
{
	int kind;
	uint32_t device;
	uint64_t key;
	struct drawn sl = { NULL, 0, 0, 0, 0 };
	int s = gt_ex_slice_of(ev, &kind, &device, &key, &sl.start, &sl.end);
	if (s > 0) {
		if (!(sl.t = gt_ex_track_of(x, kind, device, key, 0)))
			return GT_ERR_STATE;
		sl.lane = lane_of(x);
	}
	sl.mid = sl.start + (sl.end - sl.start) / 2;
	switch (ev->type) {
	case GT_REC_KERNEL: return s > 0 ? chrome_kernel(x, r, &sl, &ev->u.kernel) : 0;
	case GT_REC_MEMCPY: return s > 0 ? chrome_memcpy(x, &sl, &ev->u.memcpy) : 0;
	case GT_REC_MEMSET: return s > 0 ? chrome_memset(x, &sl, &ev->u.memset) : 0;
	case GT_REC_API: return s > 0 ? chrome_api(x, r, &sl, &ev->u.api) : 0;
	case GT_REC_SYNC: return s > 0 ? chrome_sync(x, &sl, &ev->u.sync) : 0;
	case GT_REC_NVTX: return chrome_nvtx(x, r, s, &sl, &ev->u.nvtx);
	case GT_REC_OVERHEAD: return s > 0 ? chrome_overhead(x, &sl, &ev->u.overhead) : 0;
	case GT_REC_CLOCK_SAMPLE: return chrome_clock_sample(x, &ev->u.clock_sample);
	case GT_REC_METRIC_SAMPLE: return chrome_metric_sample(x, r, &ev->u.metric_sample);
	case GT_REC_PROCESS: return chrome_process(x, &ev->u.process);
	case GT_REC_DROPPED: return chrome_dropped(x, &ev->u.dropped);
	default: return 0;
	}
}

static int cmp_mem(const void *a, const void *b)
{
	const struct memrec *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Host memory (groups 1 and 3: pinned, pageable) belongs on the host's process; device memory on
 * its device. */
static uint32_t mem_pid(const struct ex *x, size_t group, uint32_t device)
{
	return group == 1 || group == 3 ? x->host_pid : dev_pid(x, device);
}

/* Memory in use per (device, kind group), in time order; a free never takes it below 0. */
int gt_ex_memory_counters(struct ex *x)
{
	if (gt_tl_vec_sort(&x->mem))
		return GT_ERR_NOMEM;
	/* Stable by time already; group by device too (a stable sort keeps time order within one). */
	struct memrec *m = x->mem.buf.p;
	size_t n = x->mem.n;
	if (n > 1) {
		/* Few devices: an insertion of each device's records in turn would do, but qsort on
		 * (device, ts) keeps it simple; equal keys may reorder, which changes no sum. */
		qsort(m, n, sizeof *m, cmp_mem);
	}
	const char *groups[5] = { "device memory in use (bytes)", "pinned host memory in use (bytes)",
		                  "managed memory in use (bytes)", "pageable host memory in use (bytes)",
		                  "other memory in use (bytes)" };
	/* A window shows the sums from its start: what the records before it added up to is drawn at
	 * the start (carried), just before the first record from there on changes it. */
	uint64_t sum[5] = { 0 };
	int carried[5] = { 0 };
	uint32_t dev = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || i == 0 || m[i].device != dev) {
			for (size_t gi = 0; i && gi < 5; gi++)
				if (carried[gi])
					counter(x, mem_pid(x, gi, dev), x->win->start, groups[gi], "bytes", (int64_t)sum[gi]);
			if (i == n)
				break;
			memset(sum, 0, sizeof sum);
			memset(carried, 0, sizeof carried);
			dev = m[i].device;
		}
		const char *g = mem_group(m[i].kind);
		size_t gi = 0;
		while (gi < 4 && strcmp(groups[gi], g) != 0)
			gi++;
		if (m[i].op != GT_MEMORY_ALLOC && m[i].op != GT_MEMORY_FREE)
			continue;
		uint64_t ts = rel(x, m[i].ts);
		for (size_t k = 0; ts >= x->win->start && k < 5; k++)
			if (carried[k]) {
				counter(x, mem_pid(x, k, dev), x->win->start, groups[k], "bytes", (int64_t)sum[k]);
				carried[k] = 0;
			}
		if (m[i].op == GT_MEMORY_ALLOC)
			sum[gi] += m[i].bytes;
		else
			sum[gi] = sum[gi] > m[i].bytes ? sum[gi] - m[i].bytes : 0;
		if (ts < x->win->start)
			carried[gi] = 1;
		else if (ts <= x->win->end)
			counter(x, mem_pid(x, gi, dev), ts, g, "bytes", (int64_t)sum[gi]);
	}
	return 0;
}

/* Several traces: each one's path, label, process ids and clock. */
static void traces_data(struct ex *x)
{
	struct out *o = &x->o;
	PUTS(o, ",\"traces\":[");
	for (size_t i = 0; i < x->nfiles; i++) {
		const struct gt_xfile *f = &x->files[i];
		put_str(o, i ? ",{\"path\":" : "{\"path\":");
		put_escaped(x, f->path);
		PUTS(o, ",\"label\":");
		put_escaped(x, f->label);
		arg_u(x, "host_pid", pid_base_of(i), 0);
		arg_u(x, "process_id", f->pid, 0);
		arg_u(x, "origin_ns", f->origin, 0);
		PUTS(o, ",\"clock\":\"");
		put_str(o, f->clock.mapped ? gt_align_state_name(f->align.state) : "own");
		PUTS(o, "\"}");
	}
	PUTS(o, "],\"origin_realtime_ns\":");
	put_i64(o, x->nfiles && x->files[0].clock.mapped ? x->files[0].clock.origin_host : 0);
	PUTS(o, ",\"time\":\"ts and dur in microseconds (3 decimals: exact nanoseconds) since "
	        "origin_realtime_ns on CLOCK_REALTIME (traces whose clock is own: since their own origin_ns "
	        "on their CUPTI clock)\"");
}

/* A window or a kernel filter: what was asked and what it left out. */
static void window_data(struct ex *x)
{
	struct out *o = &x->o;
	const struct gt_export_options *op = x->opt;
	if (!x->win->active && !(op->kernels && op->kernels->active))
		return;
	PUTS(o, ",\"window\":");
	if (x->win->active) {
		PUTS(o, "{\"start_us\":");
		put_us(o, x->win->start);
		PUTS(o, ",\"end_us\":");
		if (x->win->end == UINT64_MAX)
			PUTS(o, "null");
		else
			put_us(o, x->win->end);
		PUTS(o, ",\"range\":");
		put_escaped_or_null(x, op->range);
		PUTS(o, "}");
	} else {
		PUTS(o, "null");
	}
	PUTS(o, ",\"kernel_filter\":");
	put_escaped_or_null(x, op->kernels && op->kernels->active ? op->kernels->pattern : NULL);
	arg_u(x, "records_left_out", x->win->left_out, 0);
}

void gt_ex_other_data(struct ex *x)
{
	struct out *o = &x->o;
	struct gt_export_result *s = x->res;
	PUTS(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"gpuanalyze export " GT_TOOL_VERSION "\"");
	if (x->nfiles > 1) {
		traces_data(x);
	} else {
		PUTS(o, ",\"trace\":");
		put_escaped(x, x->path);
		arg_u(x, "origin_ns", x->origin, 0);
		PUTS(o, ",\"time\":\"ts and dur in microseconds (3 decimals: exact nanoseconds) since origin_ns on the "
		        "CUPTI clock\"");
	}
	window_data(x);
	PUTS(o, ",\"synthetic\":");
	put_escaped_or_null(x, x->synthetic);
	PUTS(o, ",\"complete\":");
	if (x->complete)
		PUTS(o, "true");
	else
		PUTS(o, "false");
	/* The result's counts, in the order readers of otherData have always seen them. */
	const struct {
		const char *key;
		uint64_t n;
	} counts[] = {
		{ ",\"slices\":", s->slices },
		{ ",\"tracks\":", s->tracks },
		{ ",\"overlap_tracks\":", s->subtracks },
		{ ",\"slices_on_overlap_tracks\":", s->overlapped },
		{ ",\"flows\":", s->flows },
		{ ",\"flows_capped\":", s->flows_capped },
		{ ",\"flows_unmapped\":", s->flows_unmapped },
		{ ",\"bad_times_left_out\":", s->bad_times },
		{ ",\"nvtx_unclosed_left_out\":", s->unclosed },
	};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		put_str(o, counts[i].key);
		put_u64(o, counts[i].n);
	}
	PUTS(o, "}}\n");
}
