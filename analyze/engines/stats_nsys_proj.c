/* stats_nsys_proj.c: nvtx_gpu_proj_trace and nvtx_gpu_proj_sum (stats_nsys.h): NVTX ranges
 * projected onto the GPU. A GPU operation (kernel, copy, memset) belongs to a range when the API
 * call that launched it (by correlation id, the earliest call of the id) started inside the range
 * (start <= t < end) and, for a push/pop range, on its thread; the range's projection runs from the
 * earliest start of its operations to the latest end.
 *
 * The launches are sorted twice, by (thread, call start) for push/pop ranges and by call start for
 * start/end ones, each with a segment tree of (min start, max end); a range's operations are then
 * a contiguous run found by two binary searches, and its projection one O(log n) query, however
 * deeply ranges nest.
 */
#include "analyze/engines/stats_nsys_internal.h"
#include "analyze/blocks/launch_join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call {                    /* 24 bytes */
	uint64_t key, start;
	uint32_t corr, thread;
};

struct op {                      /* 24 bytes */
	uint64_t corr, start, end;
};

struct launch {                  /* 40 bytes */
	uint64_t key, t, start, end; /* key: the sort key of the moment; t: the call's start */
	uint32_t thread, pad;
};

struct span {
	uint64_t mn, mx;
};

struct proj {                    /* a range's projection */
	uint64_t start, end, nops;
};

struct row {                     /* a range with GPU operations: a push/pop one (se = 0) or not */
	uint32_t se, idx;
};

struct pgroup {
	const char *name;
	uint32_t se;
	uint64_t n, ops;
	double proj_total, range_total, level_sum, child_sum;
	double avg, med, min, max, stddev;
};

struct proj_state {
	struct gt_tl_vec calls, ops, se; /* se: start/end ranges (struct nsys_pp, no tree) */
	struct proj *pp_proj, *se_proj;
	struct row *rows;
	struct pgroup *groups;
};

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	struct proj_state *ps = st->proj;
	switch (ev->type) {
	case GT_REC_PROCESS:
		if (!st->pid)
			st->pid = ev->u.process.pid;
		return 0;
	case GT_REC_API: {
		const struct gt_api *a = &ev->u.api;
		rep->trace.records++;
		struct call *c = gt_tl_vec_push(&ps->calls);
		if (!c)
			return GT_ERR_NOMEM;
		*c = (struct call){ a->start, a->start, a->correlation_id, (uint32_t)a->thread_id };
		return 0;
	}
	case GT_REC_KERNEL:
	case GT_REC_MEMCPY:
	case GT_REC_MEMSET: {
		uint64_t s, e, corr;
		rep->trace.records++;
		if (ev->type == GT_REC_KERNEL) {
			const struct gt_kernel *k = &ev->u.kernel;
			if (k->flags & GT_KERNEL_BAD_TIMES)
				e = 0, s = 1;
			else
				s = k->start, e = k->end;
			corr = k->correlation_id;
		} else if (ev->type == GT_REC_MEMCPY) {
			const struct gt_memcpy *m = &ev->u.memcpy;
			if (m->flags & GT_COPY_TOOL) {
				rep->trace.tool_copies++;
				return 0;
			}
			s = m->start, e = m->end, corr = m->correlation_id;
		} else {
			s = ev->u.memset.start, e = ev->u.memset.end, corr = ev->u.memset.correlation_id;
		}
		if (e < s) {
			rep->trace.bad_times++;
			return 0;
		}
		struct op *o = gt_tl_vec_push(&ps->ops);
		if (!o)
			return GT_ERR_NOMEM;
		*o = (struct op){ corr, s, e };
		return 0;
	}
	case GT_REC_NVTX: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		if (!gt_stats_trace_nvtx(&rep->trace, n, 0))
			return 0;
		const char *name = nsys_name(st, r, n->name_id, 0);
		int se = n->kind == GT_NVTX_START_END;
		struct nsys_pp *p = name ? gt_tl_vec_push(se ? &ps->se : &st->recs) : NULL;
		if (!p)
			return GT_ERR_NOMEM;
		*p = (struct nsys_pp){ se ? n->start : UINT64_MAX - n->end, n->start, n->end, name, 0, n->thread_id, 0, 0, 0 };
		return 0;
	}
	default:
		return 0;
	}
}

static int add_launch(void *out, const void *call, const void *op)
{
	const struct call *c = call;
	const struct op *o = op;
	struct launch *l = gt_tl_vec_push(out);
	if (!l)
		return GT_ERR_NOMEM;
	*l = (struct launch){ c->start, c->start, o->start, o->end, c->thread, 0 };
	return 0;
}

/* The launches (operations with their calls), by call start, into out. */
static int join(struct gt_nsys_report *rep, struct proj_state *ps, struct gt_tl_vec *out)
{
	int rc = gt_launch_join(&ps->calls, offsetof(struct call, corr), &ps->ops, add_launch, out,
	                        &rep->trace.no_call);
	return rc ? rc : gt_tl_vec_sort(out) ? GT_ERR_NOMEM : 0;
}

/* A segment tree of (min start, max end) over n launches: leaves at [n, 2n). */
static struct span *tree_build(const struct launch *l, size_t n)
{
	struct span *t = malloc((2 * n + 1) * sizeof *t);
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++)
		t[n + i] = (struct span){ l[i].start, l[i].end };
	for (size_t i = n; i-- > 1;)
		t[i] = (struct span){ t[2 * i].mn < t[2 * i + 1].mn ? t[2 * i].mn : t[2 * i + 1].mn,
			              t[2 * i].mx > t[2 * i + 1].mx ? t[2 * i].mx : t[2 * i + 1].mx };
	return t;
}

static struct proj tree_query(const struct span *t, size_t n, size_t lo, size_t hi)
{
	struct proj p = { UINT64_MAX, 0, hi - lo };
	for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1) {
			p.start = t[lo].mn < p.start ? t[lo].mn : p.start;
			p.end = t[lo].mx > p.end ? t[lo].mx : p.end;
			lo++;
		}
		if (hi & 1) {
			hi--;
			p.start = t[hi].mn < p.start ? t[hi].mn : p.start;
			p.end = t[hi].mx > p.end ? t[hi].mx : p.end;
		}
	}
	return p;
}

/* The first launch at or after (thread, t) in launches sorted by (thread, t); by_thread 0: by t. */
static size_t lower(const struct launch *l, size_t n, int by_thread, uint32_t thread, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int before = by_thread && l[mid].thread != thread ? l[mid].thread < thread : l[mid].t < t;
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Projects the n ranges r onto launches l (nl of them, sorted to match by_thread) into out. */
static int project(const struct nsys_pp *r, size_t n, const struct launch *l, size_t nl, int by_thread,
                   struct proj *out)
{
	struct span *t = tree_build(l, nl);
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t lo = lower(l, nl, by_thread, r[i].thread, r[i].start);
		size_t hi = lower(l, nl, by_thread, r[i].thread, r[i].end);
		out[i] = tree_query(t, nl, lo, hi > lo ? hi : lo);
	}
	free(t);
	return 0;
}

static const struct nsys_state *sort_state; /* qsort has no context: set around the one sort */

static const struct nsys_pp *range_of(const struct nsys_state *st, const struct row *w)
{
	const struct proj_state *ps = st->proj;
	return w->se ? (const struct nsys_pp *)gt_tl_vec_at(&ps->se, w->idx) : (const struct nsys_pp *)gt_tl_vec_at(&st->recs, w->idx);
}

static const struct proj *proj_of(const struct nsys_state *st, const struct row *w)
{
	const struct proj_state *ps = st->proj;
	return w->se ? &ps->se_proj[w->idx] : &ps->pp_proj[w->idx];
}

static int cmp_row_name(const struct nsys_state *st, const struct row *a, const struct row *b)
{
	if (a->se != b->se)
		return a->se < b->se ? -1 : 1;
	return strcmp(range_of(st, a)->name, range_of(st, b)->name);
}

static int cmp_rows(const void *a, const void *b) { return cmp_row_name(sort_state, a, b); }

static int cmp_groups(const void *pa, const void *pb)
{
	const struct pgroup *a = pa, *b = pb;
	if (a->proj_total != b->proj_total)
		return a->proj_total > b->proj_total ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->se > b->se) - (a->se < b->se);
}

static int summarize(struct gt_nsys_report *rep, size_t nrows)
{
	struct nsys_state *st = rep->state;
	struct proj_state *ps = st->proj;
	struct row *w = ps->rows;
	if (nrows) {
		sort_state = st;
		qsort(w, nrows, sizeof *w, cmp_rows);
		sort_state = NULL;
	}
	uint64_t *v = malloc((nrows ? nrows : 1) * sizeof *v);
	struct pgroup *g = calloc(nrows ? nrows : 1, sizeof *g);
	if (!v || !g) {
		free(v);
		free(g);
		return GT_ERR_NOMEM;
	}
	size_t ng = 0;
	for (size_t i = 0; i < nrows;) {
		size_t j = i;
		struct pgroup *x = &g[ng++];
		x->name = range_of(st, &w[i])->name;
		x->se = w[i].se;
		for (; j < nrows && !cmp_row_name(st, &w[i], &w[j]); j++) {
			const struct nsys_pp *r = range_of(st, &w[j]);
			const struct proj *p = proj_of(st, &w[j]);
			v[j - i] = p->end - p->start;
			x->proj_total += (double)v[j - i];
			x->range_total += (double)(r->end - r->start);
			x->ops += p->nops;
			x->level_sum += r->level;
			x->child_sum += r->nchild;
		}
		x->n = j - i;
		struct gt_stats s;
		gt_stats_compute_u64(&s, v, j - i);
		x->avg = s.mean, x->med = s.median, x->min = s.min, x->max = s.max, x->stddev = s.stddev;
		rep->total += x->proj_total;
		i = j;
	}
	free(v);
	if (ng)
		qsort(g, ng, sizeof *g, cmp_groups);
	ps->groups = g;
	rep->nrows = ng;
	return 0;
}

static void proj_release(struct proj_state *ps)
{
	gt_tl_vec_release(&ps->calls);
	gt_tl_vec_release(&ps->ops);
}

void nsys_proj_release(struct proj_state *ps)
{
	if (!ps)
		return;
	proj_release(ps);
	gt_tl_vec_release(&ps->se);
	free(ps->pp_proj);
	free(ps->se_proj);
	free(ps->rows);
	free(ps->groups);
	free(ps);
}

int nsys_proj_run(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	struct proj_state *ps = calloc(1, sizeof *ps);
	if (!ps)
		return GT_ERR_NOMEM;
	st->proj = ps;
	gt_tl_vec_init(&ps->calls, sizeof(struct call));
	gt_tl_vec_init(&ps->ops, sizeof(struct op));
	gt_tl_vec_init(&ps->se, sizeof(struct nsys_pp));
	gt_tl_vec_init(&st->recs, sizeof(struct nsys_pp));
	struct gt_tl_vec lv;
	gt_tl_vec_init(&lv, sizeof(struct launch));
	int rc = gt_stats_trace_read(&rep->trace, on_record, rep);
	if (!rc && (st->recs.n >= UINT32_MAX || ps->se.n >= UINT32_MAX))
		rc = GT_ERR_NOMEM; /* rows are 32-bit */
	if (!rc)
		rc = join(rep, ps, &lv);
	proj_release(ps);
	if (!rc)
		rc = nsys_pp_tree(&st->recs);
	if (!rc && gt_tl_vec_sort(&ps->se)) /* by start */
		rc = GT_ERR_NOMEM;
	size_t npp = st->recs.n, nse = ps->se.n;
	if (!rc && (!(ps->pp_proj = malloc((npp ? npp : 1) * sizeof *ps->pp_proj)) ||
	            !(ps->se_proj = malloc((nse ? nse : 1) * sizeof *ps->se_proj)) ||
	            !(ps->rows = malloc((npp + nse ? npp + nse : 1) * sizeof *ps->rows))))
		rc = GT_ERR_NOMEM;
	if (!rc) /* start/end ranges: launches by call start, as join left them */
		rc = project(ps->se.buf.p, nse, lv.buf.p, lv.n, 0, ps->se_proj);
	if (!rc) {
		struct launch *l = lv.buf.p;
		for (size_t i = 0; i < lv.n; i++)
			l[i].key = l[i].thread;
		if (gt_tl_vec_sort(&lv)) /* by thread, then call start: the sort is stable */
			rc = GT_ERR_NOMEM;
	}
	if (!rc)
		rc = project(st->recs.buf.p, npp, lv.buf.p, lv.n, 1, ps->pp_proj);
	gt_tl_vec_release(&lv);
	if (rc)
		return rc;
	size_t n = 0;
	for (size_t i = 0; i < npp; i++)
		if (ps->pp_proj[i].nops)
			ps->rows[n++] = (struct row){ 0, (uint32_t)i };
	for (size_t i = 0; i < nse; i++)
		if (ps->se_proj[i].nops)
			ps->rows[n++] = (struct row){ 1, (uint32_t)i };
	if (rep->kind == GT_NSYS_GPU_PROJ_SUM)
		return summarize(rep, n);
	rep->nrows = n;
	return 0;
}

static void trace_cell(struct nsys_state *st, const struct row *w, size_t col, struct gt_nsys_cell *c)
{
	const struct nsys_pp *r = range_of(st, w);
	const struct proj *p = proj_of(st, w);
	switch (col) {
	case 0: nsys_str(c, r->name); break;
	case 1: nsys_u64(c, p->start); break;
	case 2: nsys_u64(c, p->end - p->start); break;
	case 3: nsys_u64(c, r->start); break;
	case 4: nsys_u64(c, r->end - r->start); break;
	case 5: nsys_str(c, w->se ? "StartEnd" : "PushPop"); break;
	case 6: if (st->pid) nsys_u64(c, st->pid); break;
	case 7: nsys_u64(c, r->thread); break;
	case 8: nsys_u64(c, p->nops); break;
	case 9: nsys_u64(c, r->level); break;
	case 10: nsys_u64(c, r->nchild); break;
	case 11: nsys_u64(c, w->se ? st->recs.n + w->idx + 1 : (uint64_t)w->idx + 1); break;
	case 12: if (r->parent) nsys_u64(c, r->parent); break;
	default:
		if (w->se) {
			snprintf(st->buf, sizeof st->buf, ":%llu", (unsigned long long)(st->recs.n + w->idx + 1));
			nsys_str(c, st->buf);
		} else {
			nsys_range_stack(st, st->recs.buf.p, w->idx, c);
		}
		break;
	}
}

static void sum_cell(const struct pgroup *g, size_t col, struct gt_nsys_cell *c)
{
	switch (col) {
	case 0: nsys_str(c, g->name); break;
	case 1: nsys_str(c, g->se ? "StartEnd" : "PushPop"); break;
	case 2: nsys_num(c, g->proj_total, 1, 0); break;
	case 3: nsys_num(c, g->range_total, 1, 0); break;
	case 4: nsys_u64(c, g->n); break;
	case 5: nsys_num(c, g->avg, 1, 1); break;
	case 6: nsys_num(c, g->med, 1, 1); break;
	case 7: nsys_num(c, g->min, 1, 0); break;
	case 8: nsys_num(c, g->max, 1, 0); break;
	case 9: if (!isnan(g->stddev)) nsys_num(c, g->stddev, 1, 1); break;
	case 10: nsys_u64(c, g->ops); break;
	case 11: nsys_num(c, (double)g->ops / (double)g->n, 1, 1); break;
	case 12: nsys_num(c, g->level_sum / (double)g->n, 1, 1); break;
	default: nsys_num(c, g->child_sum / (double)g->n, 1, 1); break;
	}
}

void nsys_proj_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	struct nsys_state *st = rep->state;
	const struct proj_state *ps = st->proj;
	if (rep->kind == GT_NSYS_GPU_PROJ_SUM)
		sum_cell(&ps->groups[row], col, c);
	else
		trace_cell(st, &ps->rows[row], col, c);
}
