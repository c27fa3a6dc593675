/* stats_nsys_kexec.c: cuda_kern_exec_trace and cuda_kern_exec_sum (stats_nsys.h): each kernel
 * with the API call that launched it. The calls and kernels are kept while the trace streams, then
 * joined by correlation id (both sorted by it; the earliest call of an id, the calls having been
 * sorted by start first), which makes the launches; the summary sorts the launches by group and
 * takes the statistics of each run.
 */
#include "analyze/engines/stats_nsys_internal.h"
#include "analyze/blocks/launch_join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call {                    /* 48 bytes */
	uint64_t key, start, end, tid;
	const char *name;
	uint32_t corr, pid;
};

struct kern {                    /* 64 bytes */
	uint64_t corr, start, end;
	const char *name, *dem;
	uint32_t dev, grid[3], block[3], pad;
};

struct id {                      /* what cuda_kern_exec_sum groups launches by: 32 bytes */
	uint64_t tid;
	uint32_t pid, dev;
	const char *api, *kname;
};

struct launch {                  /* 104 bytes */
	uint64_t key;            /* the call's start */
	uint64_t api_start, api_end, k_start, k_end;
	struct id id;
	const char *kdem;
	uint32_t grid[3], block[3];
};

struct five {
	double avg, med, min, max, stddev;
};

struct group {
	struct id id;
	uint64_t count, qcount;
	const char *kdem;
	double total;            /* the sum of total times, for the order of the rows */
	struct five t, a, q, k;
};

struct kx_state {                /* while streaming: the two sides of the join */
	struct gt_tl_vec calls, kerns;
};

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	struct kx_state *kx = st->groups;
	if (ev->type == GT_REC_API) {
		const struct gt_api *a = &ev->u.api;
		rep->trace.records++;
		if (a->end < a->start) {
			rep->trace.bad_times++;
			return 0;
		}
		const char *name = nsys_name(st, r, a->name_id, 0);
		struct call *c = name ? gt_tl_vec_push(&kx->calls) : NULL;
		if (!c)
			return GT_ERR_NOMEM;
		*c = (struct call){ a->start, a->start, a->end, a->thread_id, name, a->correlation_id, a->process_id };
	} else if (ev->type == GT_REC_KERNEL) {
		const struct gt_kernel *k = &ev->u.kernel;
		rep->trace.records++;
		if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start) {
			rep->trace.bad_times++;
			return 0;
		}
		const char *name = nsys_name(st, r, k->name_id, 0), *dem = nsys_name(st, r, k->name_id, 1);
		struct kern *x = name && dem ? gt_tl_vec_push(&kx->kerns) : NULL;
		if (!x)
			return GT_ERR_NOMEM;
		*x = (struct kern){ k->correlation_id, k->start, k->end, name, dem, k->device_id,
			            { k->grid_x, k->grid_y, k->grid_z }, { k->block_x, k->block_y, k->block_z }, 0 };
	}
	return 0;
}

static int add_launch(void *ctx, const void *call, const void *kern)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	const struct call *c = call;
	const struct kern *k = kern;
	if (k->end < c->start) { /* a kernel that ended before its launch began */
		rep->trace.bad_times++;
		return 0;
	}
	struct launch *l = gt_tl_vec_push(&st->recs);
	if (!l)
		return GT_ERR_NOMEM;
	*l = (struct launch){ c->start, c->start, c->end, k->start, k->end, { c->tid, c->pid, k->dev, c->name, k->name },
		              k->dem, { k->grid[0], k->grid[1], k->grid[2] }, { k->block[0], k->block[1], k->block[2] } };
	return 0;
}

/* The launches, into st->recs, sorted by the call's start. */
static int join(struct gt_nsys_report *rep, struct kx_state *kx)
{
	struct nsys_state *st = rep->state;
	int rc = gt_launch_join(&kx->calls, offsetof(struct call, corr), &kx->kerns, add_launch, rep,
	                        &rep->trace.no_call);
	return rc ? rc : gt_tl_vec_sort(&st->recs) ? GT_ERR_NOMEM : 0;
}

static int cmp_id(const struct id *a, const struct id *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	int c = strcmp(a->api, b->api);
	return c ? c : strcmp(a->kname, b->kname);
}

static int cmp_launch(const void *pa, const void *pb)
{
	const struct launch *a = pa, *b = pb;
	return cmp_id(&a->id, &b->id);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return cmp_id(&a->id, &b->id);
}

static struct five five_of(uint64_t *v, size_t n)
{
	struct gt_stats s;
	if (!n)
		return (struct five){ NAN, NAN, NAN, NAN, NAN };
	gt_stats_compute_u64(&s, v, n);
	return (struct five){ s.mean, s.median, s.min, s.max, s.stddev };
}

static int groups(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	size_t n = st->recs.n;
	struct launch *l = st->recs.buf.p;
	if (n)
		qsort(l, n, sizeof *l, cmp_launch);
	uint64_t *v = malloc((n ? n : 1) * sizeof *v);
	struct group *g = malloc((n ? n : 1) * sizeof *g);
	if (!v || !g) {
		free(v);
		free(g);
		return GT_ERR_NOMEM;
	}
	size_t ng = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, q = 0;
		while (j < n && !cmp_id(&l[i].id, &l[j].id))
			j++;
		struct group *x = &g[ng++];
		memset(x, 0, sizeof *x);
		x->id = l[i].id, x->count = j - i, x->kdem = l[i].kdem;
		for (size_t m = i; m < j; m++)
			x->total += (double)(v[m - i] = l[m].k_end - l[m].api_start);
		x->t = five_of(v, j - i);
		for (size_t m = i; m < j; m++)
			v[m - i] = l[m].api_end - l[m].api_start;
		x->a = five_of(v, j - i);
		for (size_t m = i; m < j; m++)
			if (l[m].k_start > l[m].api_end)
				v[q++] = l[m].k_start - l[m].api_end;
		x->qcount = q;
		x->q = five_of(v, q);
		for (size_t m = i; m < j; m++)
			v[m - i] = l[m].k_end - l[m].k_start;
		x->k = five_of(v, j - i);
		i = j;
	}
	free(v);
	if (ng)
		qsort(g, ng, sizeof *g, cmp_group);
	st->groups = g;
	rep->nrows = ng;
	for (size_t i = 0; i < ng; i++)
		rep->total += g[i].total;
	return 0;
}

int nsys_kexec_run(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	struct kx_state kx;
	gt_tl_vec_init(&kx.calls, sizeof(struct call));
	gt_tl_vec_init(&kx.kerns, sizeof(struct kern));
	gt_tl_vec_init(&st->recs, sizeof(struct launch));
	st->groups = &kx;
	int rc = gt_stats_trace_read(&rep->trace, on_record, rep);
	st->groups = NULL;
	if (!rc)
		rc = join(rep, &kx);
	gt_tl_vec_release(&kx.calls);
	gt_tl_vec_release(&kx.kerns);
	if (rc)
		return rc;
	if (rep->kind == GT_NSYS_KERN_EXEC_SUM) {
		rc = groups(rep);
		gt_tl_vec_release(&st->recs);
		return rc;
	}
	rep->nrows = st->recs.n;
	return 0;
}

static void dims(struct nsys_state *st, const uint32_t *d, struct gt_nsys_cell *c)
{
	snprintf(st->buf, sizeof st->buf, "%u %u %u", d[0], d[1], d[2]);
	nsys_str(c, st->buf);
}

static void trace_cell(struct nsys_state *st, const struct launch *l, size_t col, struct gt_nsys_cell *c)
{
	int queued = l->k_start > l->api_end;
	switch (col) {
	case 0: nsys_u64(c, l->api_start); break;
	case 1: nsys_u64(c, l->api_end - l->api_start); break;
	case 2: if (queued) nsys_u64(c, l->api_end); break;
	case 3: if (queued) nsys_u64(c, l->k_start - l->api_end); break;
	case 4: nsys_u64(c, l->k_start); break;
	case 5: nsys_u64(c, l->k_end - l->k_start); break;
	case 6: nsys_u64(c, l->k_end - l->api_start); break;
	case 7: nsys_u64(c, l->id.pid); break;
	case 8: nsys_u64(c, l->id.tid); break;
	case 9: nsys_u64(c, l->id.dev); break;
	case 10: nsys_str(c, l->id.api); break;
	case 11: dims(st, l->grid, c); break;
	case 12: dims(st, l->block, c); break;
	case 13: nsys_str(c, l->id.kname); break;
	default: nsys_str(c, l->kdem); break;
	}
}

static void five_cell(const struct five *f, size_t i, struct gt_nsys_cell *c)
{
	const double v[] = { f->avg, f->med, f->min, f->max, f->stddev };
	if (!isnan(v[i]))
		nsys_num(c, v[i], 1, i == 2 || i == 3 ? 0 : 1);
}

static void sum_cell(const struct group *g, size_t col, struct gt_nsys_cell *c)
{
	switch (col) {
	case 0: nsys_u64(c, g->id.pid); return;
	case 1: nsys_u64(c, g->id.tid); return;
	case 2: nsys_u64(c, g->id.dev); return;
	case 3: nsys_u64(c, g->count); return;
	case 4: nsys_u64(c, g->qcount); return;
	case 25: nsys_str(c, g->id.api); return;
	case 26: nsys_str(c, g->id.kname); return;
	case 27: nsys_str(c, g->kdem); return;
	default: break;
	}
	const struct five *f[] = { &g->t, &g->a, &g->q, &g->k };
	five_cell(f[(col - 5) / 5], (col - 5) % 5, c);
}

void nsys_kexec_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	struct nsys_state *st = rep->state;
	if (rep->kind == GT_NSYS_KERN_EXEC_SUM)
		sum_cell(&((const struct group *)st->groups)[row], col, c);
	else
		trace_cell(st, gt_tl_vec_at(&st->recs, row), col, c);
}
