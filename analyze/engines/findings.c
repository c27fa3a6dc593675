/* findings.c: the findings pass and the walk of the rules table (findings_table.c).
 *
 * One read of the trace fills findings_pass.h's arrays and counters (and feeds bandwidth.c, whose
 * copy flags the copies rules read, and whose critical-path test is answered from those arrays
 * rather than a second read). Then each array is sorted by start (usually already so), each
 * device's span of GPU work is noted, and every rule of the table adds its findings; last they are
 * sorted by severity, then cost. The rules themselves live in findings_rules_<family>.c.
 */
#include "analyze/engines/findings.h"
#include "analyze/blocks/event_origin.h"
#include "analyze/engines/findings_pass.h"
#include "analyze/engines/findings_rules.h"
#include "analyze/support/api_calls.h"

#include "analyze/engines/bandwidth.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"
#include "analyze/blocks/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The defaults are the table's: each threshold an option holds, written where its row says. */
static void set_default(struct gt_findings_options *o, const struct findings_threshold *t)
{
	if (!t->name || t->field < 0)
		return;
	char *at = (char *)o + t->field;
	if (t->type == FT_U64)
		*(uint64_t *)(void *)at = (uint64_t)t->value;
	else if (t->type == FT_UNSIGNED)
		*(unsigned *)(void *)at = (unsigned)t->value;
	else
		*(double *)(void *)at = t->value;
}

void gt_findings_defaults(struct gt_findings_options *o)
{
	memset(o, 0, sizeof *o);
	for (size_t i = 0; i < gt_findings_nrules; i++)
		for (int j = 0; j < FINDINGS_MAX_THRESHOLDS; j++)
			set_default(o, &gt_findings_rules[i].thr[j]);
	set_default(o, &gt_findings_warn_threshold);
}

/* ---- the pass ----------------------------------------------------------------------------------- */

/* A string id the trace never defined (a damaged record) names nothing: it is taken as 0, so that
 * the tables indexed by id stay as small as the trace's strings (and below the label bits). */
static uint32_t known_id(const struct gt_reader *r, uint32_t id)
{
	return id <= gt_reader_string_count(r) && id < LBL_COPY ? id : 0;
}

static struct devops *devops_for(struct findings_pass *p, uint32_t device)
{
	size_t i = gt_idmap_get(&p->dev_index, device);
	if (i != SIZE_MAX)
		return &p->dev[i];
	if ((p->ndev == p->capdev && gt_grow_zeroed(&p->dev, &p->capdev, p->ndev + 1, sizeof *p->dev, 16)) ||
	    gt_idmap_put(&p->dev_index, device, p->ndev))
		return NULL;
	struct devops *d = &p->dev[p->ndev++];
	d->device = device;
	for (int k = 0; k < OP_KINDS; k++)
		gt_tl_vec_init(&d->ops[k], sizeof(struct op));
	d->n = 0;
	return d;
}

static int add_op(struct findings_pass *p, uint32_t device, int kind, uint64_t start, uint64_t end, uint32_t label,
                  uint32_t stream)
{
	/* Most traces have one device: the first entry is nearly always the one. */
	struct devops *d = p->ndev && p->dev[0].device == device ? &p->dev[0] : devops_for(p, device);
	if (!d)
		return GT_ERR_NOMEM;
	struct op *o = gt_tl_vec_push(&d->ops[kind]);
	d->n++;
	if (!o)
		return GT_ERR_NOMEM;
	o->start = start;
	o->end = end;
	o->label = label;
	o->stream = stream;
	return 0;
}

static void flag_add(struct flagacc *f, uint64_t start, uint64_t end, uint64_t bytes, uint32_t stream, int kind)
{
	f->count++;
	f->bytes += bytes;
	f->time_ns += (double)(end - start);
	if (!f->first || start < f->first) {
		f->first = start;
		f->first_stream = stream;
		f->first_kind = kind;
	}
}

static int on_kernel(struct findings_pass *p, const struct gt_reader *r, const struct gt_kernel *k)
{
	p->F->kernels++;
	if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start)
		return 0;
	uint32_t id = known_id(r, k->name_id);
	if (id >= p->nk && gt_grow_zeroed(&p->k, &p->nk, (size_t)id + 1, sizeof *p->k, 16))
		return GT_ERR_NOMEM;
	struct kacc *a = &p->k[id];
	if (a->n == a->cap) {
		if (gt_growbuf_reserve(&a->buf, (a->n + 1) * sizeof *a->d))
			return GT_ERR_NOMEM;
		a->d = a->buf.p;
		a->cap = a->buf.cap / sizeof *a->d;
	}
	uint64_t dur = k->end - k->start;
	if (!a->n || k->start < a->first_start) {
		a->first_start = k->start;
		a->first_dur = dur;
		a->first_stream = k->stream_id;
	}
	a->d[a->n++] = dur;
	return add_op(p, k->device_id, OP_KERNEL, k->start, k->end, id, k->stream_id);
}

static int on_memcpy(struct findings_pass *p, const struct gt_memcpy *m)
{
	p->F->copies++;
	if (m->end < m->start)
		return 0;
	int host = m->copy_kind == GT_COPY_HTOD || m->copy_kind == GT_COPY_HTOA ? m->src_kind
	           : m->copy_kind == GT_COPY_DTOH || m->copy_kind == GT_COPY_ATOH ? m->dst_kind
	                                                                          : -1;
	if ((m->flags & GT_COPY_ASYNC) && host == GT_MEM_PAGEABLE)
		flag_add(&p->pageable_async, m->start, m->end, m->bytes, m->stream_id, m->copy_kind);
	return add_op(p, m->device_id, OP_COPY, m->start, m->end, LBL_COPY | m->copy_kind, m->stream_id);
}

static int on_memset(struct findings_pass *p, const struct gt_memset *m)
{
	p->F->memsets++;
	if (m->end < m->start)
		return 0;
	if (!(m->flags & GT_COPY_ASYNC))
		flag_add(&p->sync_memsets, m->start, m->end, m->bytes, m->stream_id, m->mem_kind);
	return add_op(p, m->device_id, OP_MEMSET, m->start, m->end, LBL_MEMSET | m->mem_kind, m->stream_id);
}

static int push_block(struct findings_pass *p, uint64_t start, uint64_t end, uint32_t corr, int from_api)
{
	struct block *b = gt_tl_vec_push(&p->blocks);
	if (!b)
		return GT_ERR_NOMEM;
	b->start = start;
	b->end = end;
	b->corr = corr;
	b->from_api = (uint32_t)from_api;
	return 0;
}

static int on_api(struct findings_pass *p, const struct gt_reader *r, const struct gt_api *a)
{
	p->F->apis++;
	uint32_t id = known_id(r, a->name_id);
	if (id >= p->napi_kind && gt_grow_zeroed(&p->api_kind, &p->napi_kind, (size_t)id + 1, 1, 16))
		return GT_ERR_NOMEM;
	if (!p->api_kind[id]) {
		const char *n = gt_reader_string(r, id);
		p->api_kind[id] = gt_api_sync_kind(n) == GT_API_SYNC_CONTEXT ? 1 : 2;
	}
	if (p->api_kind[id] == 1 && a->end >= a->start)
		return push_block(p, a->start, a->end, a->correlation_id, 1);
	return 0;
}

static int on_clock(struct findings_pass *p, const struct gt_clock_sample *c)
{
	p->F->clock_samples++;
	struct clk *k = NULL;
	for (size_t i = 0; i < p->nclk; i++)
		if (p->clk[i].device == c->device_id)
			k = &p->clk[i];
	if (!k) {
		size_t cap = p->nclk;
		if (gt_grow_zeroed(&p->clk, &cap, p->nclk + 1, sizeof *p->clk, 16))
			return GT_ERR_NOMEM;
		k = &p->clk[p->nclk++];
		memset(k, 0, sizeof *k);
		k->device = c->device_id;
	}
	if (!k->n || c->sm_clock_mhz < k->sm_min)
		k->sm_min = c->sm_clock_mhz;
	if (!k->n || c->sm_clock_mhz > k->sm_max)
		k->sm_max = c->sm_clock_mhz;
	k->n++;
	k->reasons |= c->throttle_reasons;
	if (!(c->throttle_reasons & GT_CLK_GPU_IDLE)) {
		if (!k->busy_n || c->sm_clock_mhz < k->busy_min) {
			k->busy_min = c->sm_clock_mhz;
			k->busy_min_ts = c->timestamp;
		}
		if (!k->busy_n || c->sm_clock_mhz > k->busy_max) {
			k->busy_max = c->sm_clock_mhz;
			k->busy_max_ts = c->timestamp;
		}
		k->busy_n++;
	}
	if (c->throttle_reasons & GT_CLK_THROTTLING) {
		if (!k->throttle_n || c->timestamp < k->first_throttle)
			k->first_throttle = c->timestamp;
		k->throttle_n++;
		k->throttle_reasons |= c->throttle_reasons & GT_CLK_THROTTLING;
	}
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct findings_pass *p = ctx;
	struct gt_findings *F = p->F;
	gt_event_origin(&F->origin, ev);
	int rc = gt_bw_record(p->bw, r, ev);
	if (rc)
		return rc;
	switch (ev->type) {
	case GT_REC_KERNEL: return on_kernel(p, r, &ev->u.kernel);
	case GT_REC_MEMCPY: return on_memcpy(p, &ev->u.memcpy);
	case GT_REC_MEMSET: return on_memset(p, &ev->u.memset);
	case GT_REC_API: return on_api(p, r, &ev->u.api);
	case GT_REC_SYNC:
		F->syncs++;
		if (ev->u.sync.kind == GT_SYNC_CONTEXT && ev->u.sync.end >= ev->u.sync.start)
			return push_block(p, ev->u.sync.start, ev->u.sync.end, ev->u.sync.correlation_id, 0);
		return 0;
	case GT_REC_CLOCK_SAMPLE: return on_clock(p, &ev->u.clock_sample);
	case GT_REC_METRIC_SAMPLE:
	case GT_REC_LAUNCH_METRIC: p->metric_records++; return 0;
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		struct dropacc *a = &p->drop[d->reason < 8 ? d->reason : 0];
		a->records++;
		a->count += d->count;
		a->zero_count += d->count == 0;
		if (d->timestamp && (!a->first || d->timestamp < a->first))
			a->first = d->timestamp;
		return 0;
	}
	case GT_REC_PROCESS:
		if (ev->u.process.event == GT_PROCESS_TRACING_OFF) {
			p->tracing_off = 1;
			p->tracing_off_ts = ev->u.process.timestamp;
		}
		return 0;
	default: return 0;
	}
}

/* By severity (highest first), cost (largest first), id; findings that tie on all three (one rule's,
 * for two devices or kernels) stay in the order they were added, which qsort alone does not
 * promise: the array is sorted through pointers into it, whose order is that of adding. */
static int cmp_findings(const void *pa, const void *pb)
{
	const struct gt_finding *a = *(const struct gt_finding *const *)pa, *b = *(const struct gt_finding *const *)pb;
	if (a->severity != b->severity)
		return b->severity - a->severity;
	double x = isnan(a->cost_ns) ? -1 : a->cost_ns, y = isnan(b->cost_ns) ? -1 : b->cost_ns;
	if (x != y)
		return x < y ? 1 : -1;
	int c = strcmp(a->id, b->id);
	return c ? c : (a > b) - (a < b);
}

static int sort_findings(struct gt_findings *F)
{
	struct gt_finding **by = malloc(F->n * sizeof *by), *sorted = malloc(F->n * sizeof *sorted);
	if (!by || !sorted) {
		free(by);
		free(sorted);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < F->n; i++)
		by[i] = &F->f[i];
	qsort(by, F->n, sizeof *by, cmp_findings);
	for (size_t i = 0; i < F->n; i++)
		sorted[i] = *by[i];
	free(by);
	free(F->f);
	F->f = sorted;
	F->cap = F->n;
	return 0;
}

static void pass_release(struct findings_pass *p)
{
	for (size_t i = 0; i < p->ndev; i++)
		for (int k = 0; k < OP_KINDS; k++)
			gt_tl_vec_release(&p->dev[i].ops[k]);
	free(p->dev);
	gt_idmap_release(&p->dev_index);
	for (size_t i = 0; i < p->nk; i++)
		gt_growbuf_release(&p->k[i].buf);
	free(p->k);
	gt_tl_vec_release(&p->blocks);
	free(p->api_kind);
	free(p->clk);
	gt_bandwidth_release(&p->own_bw);
}

/* Sorts a device's arrays by start, and notes its span of GPU work (earliest start: the least of
 * the arrays' first; latest end) and the trace's GPU span over all devices. */
static int sort_device(struct gt_findings *F, struct devops *d)
{
	int seen = 0;
	for (int k = 0; k < OP_KINDS; k++) {
		if (gt_tl_vec_sort(&d->ops[k]))
			return GT_ERR_NOMEM;
		for (size_t j = 0; j < d->ops[k].n; j++) {
			const struct op *o = gt_tl_vec_at(&d->ops[k], j);
			if (!F->gpu_first || o->start < F->gpu_first)
				F->gpu_first = o->start;
			if (o->end > F->gpu_last)
				F->gpu_last = o->end;
			if (!seen || o->start < d->first)
				d->first = o->start;
			if (!seen || o->end > d->last)
				d->last = o->end;
			seen = 1;
		}
	}
	return 0;
}

/* Bandwidth's critical-path test (was the device doing anything else during a synchronous copy?)
 * answered from the arrays the pass already holds, rather than a second read of the trace. */
static void mark_busy(struct findings_pass *p)
{
	for (size_t i = 0; i < p->ndev; i++) {
		const struct devops *d = &p->dev[i];
		for (int k = 0; k < OP_KINDS; k++) {
			for (size_t j = 0; j < d->ops[k].n; j++) {
				const struct op *o = gt_tl_vec_at(&d->ops[k], j);
				gt_bw_mark_busy(p->bw, d->device, o->stream, o->start, o->end, k == OP_COPY);
			}
		}
	}
}

/* After the pass: the arrays sorted, bandwidth finished (the copy rules read its flags), every
 * rule of the table in order, and the findings sorted by severity, then cost. */
static int finish(struct findings_pass *p, const struct gt_reader *r)
{
	struct gt_findings *F = p->F;
	if (gt_trace_end(r, &F->complete, &F->lost_bytes, &F->synthetic))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < p->ndev; i++)
		if (sort_device(F, &p->dev[i]))
			return GT_ERR_NOMEM;
	int rc = gt_bw_end_pass(p->bw, r);
	if (rc < 0)
		return rc;
	if (rc == 1)
		mark_busy(p);
	if ((rc = gt_bw_finish(p->bw, r)) != 0)
		return rc;
	for (size_t i = 0; i < gt_findings_nrules; i++)
		if ((rc = gt_findings_rules[i].run(p, r, &gt_findings_rules[i])) != 0)
			return rc;
	if (F->n > 1 && (rc = sort_findings(F)) != 0)
		return rc;
	for (size_t i = 0; i < F->n; i++)
		F->by_severity[F->f[i].severity]++;
	return 0;
}

int gt_findings_begin(struct gt_findings *F, const char *path, const struct gt_findings_options *opt,
                      struct gt_bandwidth *bw)
{
	memset(F, 0, sizeof *F);
	if (opt)
		F->opt = *opt;
	else
		gt_findings_defaults(&F->opt);
	struct findings_pass *p = calloc(1, sizeof *p);
	if (!p || !(F->path = strdup(path))) {
		free(p);
		return GT_ERR_NOMEM;
	}
	F->state = p;
	p->F = F;
	gt_tl_vec_init(&p->blocks, sizeof(struct block));
	p->bw = bw ? bw : &p->own_bw;
	return bw ? 0 : gt_bw_init(&p->own_bw, path, NULL);
}

int gt_findings_record(void *F, const struct gt_reader *r, const struct gt_event *ev)
{
	return on_record(((struct gt_findings *)F)->state, r, ev);
}

static void state_free(struct gt_findings *F)
{
	if (!F->state)
		return;
	pass_release(F->state);
	free(F->state);
	F->state = NULL;
}

int gt_findings_finish(struct gt_findings *F, const struct gt_reader *r)
{
	if (!F->state)
		return GT_ERR_STATE;
	int rc = finish(F->state, r);
	state_free(F);
	return rc;
}

static int finish_pass(void *F, const struct gt_reader *r) { return gt_findings_finish(F, r); }

int gt_findings_run(struct gt_findings *F, const char *path, const struct gt_findings_options *opt)
{
	int rc = gt_findings_begin(F, path, opt, NULL);
	if (!rc)
		rc = gt_load_pass(path, gt_findings_record, finish_pass, F);
	state_free(F);
	return rc;
}

int gt_findings_max_severity(const struct gt_findings *F)
{
	int m = -1;
	for (size_t i = 0; i < F->n; i++)
		if (F->f[i].severity > m)
			m = F->f[i].severity;
	return m;
}

void gt_findings_release(struct gt_findings *F)
{
	if (!F)
		return;
	state_free(F);
	for (size_t i = 0; i < F->n; i++) {
		struct gt_finding *f = &F->f[i];
		free(f->what);
		free(f->where);
		free(f->kernel);
		free(f->kernel_name);
		free(f->cost_how);
		free(f->todo);
	}
	free(F->f);
	free(F->path);
	free(F->synthetic);
	memset(F, 0, sizeof *F);
}
