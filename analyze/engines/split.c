/* split.c: units of work (NVTX ranges, intervals between host syncs, or the process) and where each
 * one's time went; the definitions are in split.h.
 *
 * One pass over the trace keeps, per event, only the interval (and for kernels the correlation id
 * and queued time; for launch calls the correlation id and start). Afterwards everything is sorted
 * by start (usually a check: each kind arrives nearly in order) and the units are visited in order
 * of start: a cursor per kind of interval (timeline.h) merges that kind into its union as the units
 * advance, and the kernel, copy and memset cursors are walked together for the overlap and the
 * union of all GPU work. The kernels overlapping a unit (for counts and launch latency) are found by
 * a sweep that keeps the kernels still running at the unit's start. So an interval is looked at
 * about once per unit it overlaps, however long the trace, and nothing the size of the trace is
 * built besides what was read. Where units overlap records many times over (a program that nests
 * or stacks its ranges, or runs kernels across many of them), indexes and unions answer each unit
 * in O(log n) instead, with the same numbers (see "units that overlap each other" below).
 */
#include "analyze/engines/split.h"
#include "analyze/blocks/event_origin.h"
#include "analyze/support/api_calls.h"

#include "analyze/support/failure.h"
#include "analyze/support/gallop.h"
#include "analyze/support/growbuf.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"
#include "analyze/blocks/timeline.h"
#include "analyze/blocks/wavelet.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum gt_split_dir gt_split_dir_of(int copy_kind)
{
	switch (copy_kind) {
	case GT_COPY_HTOD:
	case GT_COPY_HTOA: return GT_DIR_HTOD;
	case GT_COPY_DTOH:
	case GT_COPY_ATOH: return GT_DIR_DTOH;
	case GT_COPY_DTOD:
	case GT_COPY_DTOA:
	case GT_COPY_ATOD:
	case GT_COPY_ATOA: return GT_DIR_DTOD;
	case GT_COPY_PTOP: return GT_DIR_PTOP;
	default: return GT_DIR_OTHER;
	}
}

const char *gt_split_dir_name(enum gt_split_dir d)
{
	static const char *const n[GT_DIR_COUNT] = { "HtoD", "DtoH", "DtoD", "PtoP", "other" };
	return (unsigned)d < GT_DIR_COUNT ? n[d] : "?";
}

static const char *const metric_key[GT_M_COUNT] = {
	"wall_ns", "kernel_ns", "htod_ns", "dtoh_ns", "dtod_ns", "ptop_ns", "other_copy_ns",
	"memset_ns", "overlap_ns", "api_ns", "idle_ns", "launch_ns", "launch_queue_ns",
	"launch_start_ns",
};
static const char *const metric_title[GT_M_COUNT] = {
	"wall", "kernel", "HtoD", "DtoH", "DtoD", "PtoP", "other copy", "memset", "copy+kernel",
	"API", "GPU idle", "launch", "call->queued", "queued->start",
};

const char *gt_split_metric_key(enum gt_split_metric m)
{
	return (unsigned)m < GT_M_COUNT ? metric_key[m] : "?";
}

const char *gt_split_metric_title(enum gt_split_metric m)
{
	return (unsigned)m < GT_M_COUNT ? metric_title[m] : "?";
}

/* ---- what the pass keeps ------------------------------------------------------------------------ */

struct kern {
	uint64_t start, end;
	uint32_t corr;
	uint32_t wait;           /* start - queued, NO_QUEUED without GT_KERNEL_HAS_QUEUED (or when the
	                          * kernel waited 4.29 s or more, or queued is after start: not a time
	                          * this can stand for) */
};
#define NO_QUEUED UINT32_MAX

struct copy {
	uint64_t start, end;
	uint32_t dir, pad;
};

struct call {                    /* a launch API call, sorted by correlation id */
	uint64_t corr, start;
};

struct range {                   /* 24 bytes: a trace may mark millions */
	uint64_t start, end;
	uint32_t name_id;            /* the name's string id, below RANGE_FLAGS, and these bits: */
	uint32_t thread;
};
#define RANGE_NAMED 0x80000000u      /* in a named NVTX domain (a library's), not the default one */
#define RANGE_TOP 0x40000000u        /* set by choose(): not inside another range of its pool */
#define RANGE_FLAGS (RANGE_NAMED | RANGE_TOP)
#define RANGE_NAME(x) ((x)->name_id & ~RANGE_FLAGS)

struct span2 {
	uint64_t start, end;
};

struct name_count {
	uint64_t count, first;       /* depth-0 instances; start of the first */
};

struct pass {
	struct gt_split *s;
	const struct gt_split_options *o;
	struct gt_tl_vec kerns, copies, memsets, apis, calls, ranges, syncs;
	struct gt_tl_vec api_syncs;  /* synchronising API calls: the syncs of a trace without sync records */
	struct gt_tl_vec wopen, wclose;  /* recording windows' edges (span2, start = the time) */
	uint8_t *api_launch;         /* per API name id: 0 not yet known, then an enum api_class */
	size_t napi_launch;
	uint8_t *range_match;        /* per NVTX name id with options.range: 0 unknown, 1 yes, 2 no */
	size_t nrange_match;
	struct name_count *counts;   /* per NVTX name id: top-level instances of the pool (choose) */
	size_t ncounts;
	uint64_t t0, t1;             /* first start and last end of API calls, GPU work and syncs */
	int have_t;
	uint64_t proc_start, proc_end;
};

static inline void extent(struct pass *p, uint64_t start, uint64_t end)
{
	if (!p->have_t) {
		p->t0 = start;
		p->t1 = end;
		p->have_t = 1;
		return;
	}
	if (start < p->t0)
		p->t0 = start;
	if (end > p->t1)
		p->t1 = end;
}

static int push_span(struct gt_tl_vec *v, uint64_t start, uint64_t end)
{
	struct span2 *x = gt_tl_vec_push(v);
	if (!x)
		return GT_ERR_NOMEM;
	x->start = start;
	x->end = end;
	return 0;
}

enum api_class { API_LAUNCH = 1, API_OTHER, API_SYNC };

/* What the API call named by id does, for the split: launches kernels, synchronises, or neither.
 * Resolved once per name; -1 without memory. */
static int api_class(struct pass *p, const struct gt_reader *r, uint32_t id)
{
	if (id >= p->napi_launch && gt_grow_zeroed(&p->api_launch, &p->napi_launch, (size_t)id + 1, 1, 64))
		return -1;
	if (!p->api_launch[id]) {
		const char *n = gt_reader_string(r, id);
		p->api_launch[id] = strstr(n, "Launch") || strstr(n, "launch") ? API_LAUNCH
		                    : gt_api_sync_kind(n) != GT_API_SYNC_NONE    ? API_SYNC
		                                                                : API_OTHER;
	}
	return p->api_launch[id];
}

/* A string id the trace never defined (a damaged record) names nothing: it is taken as 0, so that
 * the tables indexed by id stay as small as the trace's strings. */
static uint32_t known_id(const struct gt_reader *r, uint32_t id)
{
	return id <= gt_reader_string_count(r) ? id : 0;
}

/* Every closed range is kept (marks and ranges never closed are not units): which ones are top-level,
 * and so which name is the default, can only be told once all are read. */
static int on_nvtx(struct pass *p, const struct gt_reader *r, const struct gt_nvtx *n)
{
	struct gt_split *s = p->s;
	s->nvtx_read++;
	if (n->kind == GT_NVTX_MARK || n->end == 0 || n->end < n->start)
		return 0;
	struct range *x = gt_tl_vec_push(&p->ranges);
	if (!x)
		return GT_ERR_NOMEM;
	x->start = n->start;
	x->end = n->end;
	uint32_t id = known_id(r, n->name_id);
	x->name_id = (id & RANGE_FLAGS ? 0 : id) | (n->domain_id ? RANGE_NAMED : 0);
	x->thread = n->thread_id;
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct pass *p = ctx;
	struct gt_split *s = p->s;
	gt_event_origin(&s->origin, ev);
	switch (ev->type) {
	case GT_REC_KERNEL: {
		const struct gt_kernel *k = &ev->u.kernel;
		s->kernels++;
		if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start) {
			s->kernels_bad++;
			return 0;
		}
		struct kern *x = gt_tl_vec_push(&p->kerns);
		if (!x)
			return GT_ERR_NOMEM;
		x->start = k->start;
		x->end = k->end;
		x->corr = k->correlation_id;
		x->wait = NO_QUEUED;
		if ((k->flags & GT_KERNEL_HAS_QUEUED) && k->queued && k->queued <= k->start &&
		    k->start - k->queued < NO_QUEUED)
			x->wait = (uint32_t)(k->start - k->queued);
		extent(p, k->start, k->end);
		return 0;
	}
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		s->copies++;
		if (m->end < m->start) {
			s->copies_bad++;
			return 0;
		}
		struct copy *x = gt_tl_vec_push(&p->copies);
		if (!x)
			return GT_ERR_NOMEM;
		x->start = m->start;
		x->end = m->end;
		x->dir = gt_split_dir_of(m->copy_kind);
		x->pad = 0;
		s->dir_copies[x->dir]++;
		extent(p, m->start, m->end);
		return 0;
	}
	case GT_REC_MEMSET: {
		const struct gt_memset *m = &ev->u.memset;
		s->memsets++;
		if (m->end < m->start) {
			s->memsets_bad++;
			return 0;
		}
		extent(p, m->start, m->end);
		return push_span(&p->memsets, m->start, m->end);
	}
	case GT_REC_API: {
		const struct gt_api *a = &ev->u.api;
		s->apis++;
		if (a->end < a->start)
			return 0;
		extent(p, a->start, a->end);
		int l = api_class(p, r, known_id(r, a->name_id));
		if (l < 0)
			return GT_ERR_NOMEM;
		if (l == API_SYNC && push_span(&p->api_syncs, a->end, a->start)) /* keyed by its end */
			return GT_ERR_NOMEM;
		if (l == API_LAUNCH) {
			struct call *c = gt_tl_vec_push(&p->calls);
			if (!c)
				return GT_ERR_NOMEM;
			c->corr = a->correlation_id;
			c->start = a->start;
		}
		return push_span(&p->apis, a->start, a->end);
	}
	case GT_REC_SYNC: {
		const struct gt_sync *y = &ev->u.sync;
		s->syncs_read++;
		if (y->end < y->start)
			return 0;
		extent(p, y->start, y->end);
		if (y->kind != GT_SYNC_STREAM && y->kind != GT_SYNC_CONTEXT && y->kind != GT_SYNC_EVENT)
			return 0;
		/* Keyed by its end: that is where it cuts the timeline. */
		return push_span(&p->syncs, y->end, y->start);
	}
	case GT_REC_NVTX: return on_nvtx(p, r, &ev->u.nvtx);
	case GT_REC_PROCESS: {
		const struct gt_process *pr = &ev->u.process;
		if (!pr->timestamp)
			return 0;
		if (pr->event == GT_PROCESS_START)
			p->proc_start = pr->timestamp;
		else if (pr->event == GT_PROCESS_EXIT || pr->event == GT_PROCESS_SIGNAL ||
		         pr->event == GT_PROCESS_EXEC)
			p->proc_end = pr->timestamp;
		else if (pr->event == GT_PROCESS_WINDOW_OPEN)
			return push_span(&p->wopen, pr->timestamp, 0);
		else if (pr->event == GT_PROCESS_WINDOW_CLOSE)
			return push_span(&p->wclose, pr->timestamp, 0);
		return 0;
	}
	default: return 0;
	}
}

/* ---- after the pass ----------------------------------------------------------------------------- */

/* The unions of each kind of interval, as cursors (timeline.h) that walk forward with the units:
 * no interval is kept twice, and units that do not overlap need no memory however long. */
struct cursors {
	struct gt_tl_cursor k, d[GT_DIR_COUNT], copy, m, a;
};

static void cursors_init(struct cursors *c, const struct pass *p)
{
	memset(c, 0, sizeof *c);
	gt_tl_cursor_init(&c->k, p->kerns.buf.p, p->kerns.n, p->kerns.size, 0, 0);
	for (int d = 0; d < GT_DIR_COUNT; d++)
		gt_tl_cursor_init(&c->d[d], p->copies.buf.p, p->copies.n, p->copies.size, offsetof(struct copy, dir),
		                  (uint32_t)d);
	gt_tl_cursor_init(&c->copy, p->copies.buf.p, p->copies.n, p->copies.size, 0, 0);
	gt_tl_cursor_init(&c->m, p->memsets.buf.p, p->memsets.n, p->memsets.size, 0, 0);
	gt_tl_cursor_init(&c->a, p->apis.buf.p, p->apis.n, p->apis.size, 0, 0);
}

static void cursors_release(struct cursors *c)
{
	gt_tl_cursor_release(&c->k);
	for (int d = 0; d < GT_DIR_COUNT; d++)
		gt_tl_cursor_release(&c->d[d]);
	gt_tl_cursor_release(&c->copy);
	gt_tl_cursor_release(&c->m);
	gt_tl_cursor_release(&c->a);
}

struct gpu_window {
	uint64_t kernel, copy, memset, overlap, busy;
};

static uint64_t inter(struct gt_tl_span x, struct gt_tl_span y)
{
	uint64_t s = x.start > y.start ? x.start : y.start, e = x.end < y.end ? x.end : y.end;
	return e > s ? e - s : 0;
}

/* Within [a, b): the unions of kernels, copies and memsets, the time a copy and a kernel ran at
 * once, and the union of all three, from the three cursors' spans merged in order of start. The
 * overlap of a span with the other kind needs only that kind's latest span: an earlier one ended
 * before the latest began (each kind's spans are disjoint). */
static int gpu_window(struct cursors *c, uint64_t a, uint64_t b, uint64_t next_a, struct gpu_window *w)
{
	struct gt_tl_cursor *cur[3] = { &c->k, &c->copy, &c->m };
	struct gt_tl_span x[3], last[3];
	int has[3];
	memset(w, 0, sizeof *w);
	memset(last, 0, sizeof last);
	for (int i = 0; i < 3; i++) {
		gt_tl_cursor_begin(cur[i], a, b, next_a);
		if ((has[i] = gt_tl_cursor_next(cur[i], &x[i])) < 0)
			return has[i];
	}
	uint64_t cs = 0, ce = 0;
	int open = 0;
	for (;;) {
		int i = -1;
		for (int j = 0; j < 3; j++)
			if (has[j] && (i < 0 || x[j].start < x[i].start))
				i = j;
		if (i < 0)
			break;
		struct gt_tl_span sp = x[i];
		uint64_t len = sp.end - sp.start;
		if (i == 0) {
			w->kernel += len;
			w->overlap += inter(sp, last[1]);
		} else if (i == 1) {
			w->copy += len;
			w->overlap += inter(sp, last[0]);
		} else {
			w->memset += len;
		}
		last[i] = sp;
		if (open && sp.start <= ce) {
			if (sp.end > ce)
				ce = sp.end;
		} else {
			if (open)
				w->busy += ce - cs;
			cs = sp.start;
			ce = sp.end;
			open = 1;
		}
		if ((has[i] = gt_tl_cursor_next(cur[i], &x[i])) < 0)
			return has[i];
	}
	if (open)
		w->busy += ce - cs;
	return 0;
}

/* Launch calls by correlation id, one per id (the earliest start: a runtime call encloses the
 * driver call it makes, and both may carry the id). */
static int prepare_calls(struct gt_tl_vec *calls)
{
	if (gt_tl_vec_sort(calls))
		return GT_ERR_NOMEM;
	size_t k = 0;
	for (size_t i = 0; i < calls->n; i++) {
		struct call *c = gt_tl_vec_at(calls, i);
		if (k && ((struct call *)gt_tl_vec_at(calls, k - 1))->corr == c->corr) {
			struct call *prev = gt_tl_vec_at(calls, k - 1);
			if (c->start < prev->start)
				prev->start = c->start;
			continue;
		}
		*(struct call *)gt_tl_vec_at(calls, k++) = *c;
	}
	calls->n = k;
	return 0;
}

/* gt_gallop_lower's test: does call i come before correlation id *corr? */
static int corr_before(const void *ctx, size_t i, const void *corr)
{
	return ((const struct call *)ctx)[i].corr < *(const uint64_t *)corr;
}

/* The call of correlation id corr, searched from *hint outwards (kernels come in start order, which
 * is nearly correlation order, so the search is usually a step or two). NULL if absent. */
static const struct call *find_call(const struct gt_tl_vec *calls, uint64_t corr, size_t *hint)
{
	size_t n = calls->n;
	if (!n)
		return NULL;
	const struct call *c = calls->buf.p;
	size_t i = *hint < n ? *hint : n - 1;
	if (c[i].corr == corr)
		return &c[i];
	size_t lo = gt_gallop_lower(n, i, corr_before, c, &corr);
	if (lo < n && c[lo].corr == corr) {
		*hint = lo;
		return &c[lo];
	}
	return NULL;
}

/* The sweep over kernels (or copies) sorted by start, for units visited in start order: `next` is
 * the first record not yet entered; `active` those entered that may still overlap a later unit. */
struct sweep {
	const struct gt_tl_vec *v;
	size_t next;
	size_t *active;
	size_t nactive, cap;
	uint64_t work;           /* records looked at over all units (see measure) */
};

static void sweep_release(struct sweep *w) { free(w->active); }

/* Calls fn for every record overlapping [a, b) (start < b and end > a; for a unit of zero length,
 * start <= a < end). Units must come with a non-decreasing a. */
static int sweep_unit(struct sweep *w, uint64_t a, uint64_t b, int (*fn)(void *, const void *), void *ctx)
{
	const struct gt_tl_vec *v = w->v;
	/* Enter the records that start before a: they stay active while they might reach a later
	 * unit. */
	while (w->next < v->n) {
		const uint64_t *x = gt_tl_vec_at(v, w->next);
		if (x[0] >= a)
			break;
		if (x[1] > a) {
			if (w->nactive == w->cap) {
				size_t cap = w->cap ? w->cap * 2 : 64;
				size_t *q = realloc(w->active, cap * sizeof *q);
				if (!q)
					return GT_ERR_NOMEM;
				w->active = q;
				w->cap = cap;
			}
			w->active[w->nactive++] = w->next;
		}
		w->next++;
	}
	size_t k = 0;
	w->work += w->nactive;
	for (size_t i = 0; i < w->nactive; i++) {
		const uint64_t *x = gt_tl_vec_at(v, w->active[i]);
		if (x[1] <= a)
			continue; /* ended before this unit: no later unit starts earlier */
		w->active[k++] = w->active[i];
		int rc = fn(ctx, x);
		if (rc)
			return rc;
	}
	w->nactive = k;
	uint64_t lim = b > a ? b : a + 1;
	for (size_t j = w->next; j < v->n; j++) {
		const uint64_t *x = gt_tl_vec_at(v, j);
		if (x[0] >= lim)
			break;
		w->work++;
		int rc = fn(ctx, x);
		if (rc)
			return rc;
	}
	return 0;
}

struct unit_acc {
	const struct gt_tl_vec *calls;
	size_t hint;
	double *lat[3];
	size_t nlat[3], cap;
	uint64_t count;
	struct gt_split *s;
};

static int push_lat(struct unit_acc *u, int which, double v)
{
	if (u->nlat[which] == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		for (int i = 0; i < 3; i++) {
			double *q = realloc(u->lat[i], cap * sizeof *q);
			if (!q)
				return GT_ERR_NOMEM;
			u->lat[i] = q;
		}
		u->cap = cap;
	}
	u->lat[which][u->nlat[which]++] = v;
	return 0;
}

static int visit_kernel(void *ctx, const void *rec)
{
	struct unit_acc *u = ctx;
	const struct kern *k = rec;
	u->count++;
	const struct call *c = find_call(u->calls, k->corr, &u->hint);
	if (!c)
		return 0;
	/* Differences in integers: timestamps near 2^61 lose nanoseconds as doubles. */
	if (push_lat(u, 0, (double)(int64_t)(k->start - c->start)))
		return GT_ERR_NOMEM;
	if (k->wait != NO_QUEUED) {
		uint64_t queued = k->start - k->wait;
		if (push_lat(u, 1, (double)(int64_t)(queued - c->start)) || push_lat(u, 2, (double)k->wait))
			return GT_ERR_NOMEM;
	}
	return 0;
}

static int visit_count(void *ctx, const void *rec)
{
	(void)rec;
	(*(uint64_t *)ctx)++;
	return 0;
}

static double median_of(double *x, size_t n)
{
	if (!n)
		return NAN;
	if (n < 32) {
		/* a unit's few launches: insertion sort, not qsort's set-up */
		for (size_t i = 1; i < n; i++) {
			double v = x[i];
			size_t j = i;
			while (j > 0 && x[j - 1] > v) {
				x[j] = x[j - 1];
				j--;
			}
			x[j] = v;
		}
	} else {
		gt_stats_sort_double(x, n);
	}
	return gt_stats_percentile_double(x, n, 50);
}

/* Each kernel's launch pairing, counted once over the trace (not per unit). */
static void count_pairs(struct gt_split *s, const struct gt_tl_vec *kerns, const struct gt_tl_vec *calls)
{
	size_t hint = 0;
	for (size_t i = 0; i < kerns->n; i++) {
		const struct kern *k = gt_tl_vec_at(kerns, i);
		if (find_call(calls, k->corr, &hint)) {
			s->launches_paired++;
			s->launches_queued += k->wait != NO_QUEUED;
		}
	}
}

/* The recording windows, paired in one merge of the sorted opens and closes: each open ends at the
 * first close after it, or at the end of the run; an open inside a window already open is ignored.
 * Into out when given (window mode's units), and counted either way. */
static int make_windows(struct pass *p, struct gt_tl_vec *out)
{
	struct gt_split *s = p->s;
	uint64_t run_end = p->proc_end ? p->proc_end : p->t1;
	uint64_t run_start = p->proc_start ? p->proc_start : p->t0;
	s->run_ns = run_end > run_start ? run_end - run_start : 0;
	size_t j = 0;
	uint64_t covered_to = 0;
	for (size_t i = 0; i < p->wopen.n; i++) {
		uint64_t open = ((const struct span2 *)gt_tl_vec_at(&p->wopen, i))->start;
		if (open < covered_to)
			continue;
		while (j < p->wclose.n && ((const struct span2 *)gt_tl_vec_at(&p->wclose, j))->start < open)
			j++;
		uint64_t close = j < p->wclose.n ? ((const struct span2 *)gt_tl_vec_at(&p->wclose, j))->start
		                                 : run_end;
		if (close <= open)
			continue;
		covered_to = close;
		s->windows++;
		s->window_ns += close - open;
		if (!out)
			continue;
		struct range *x = gt_tl_vec_push(out);
		if (!x)
			return GT_ERR_NOMEM;
		memset(x, 0, sizeof *x);
		x->start = open;
		x->end = close;
	}
	return 0;
}

/* The units' intervals, by start, in sync, window and process mode (in NVTX mode the ranges are the
 * units). */
static int make_units(struct pass *p, struct gt_tl_vec *out)
{
	struct gt_split *s = p->s;
	if (s->mode == GT_SPLIT_WINDOW)
		return make_windows(p, out);
	if (s->mode == GT_SPLIT_SYNC) {
		/* An interval holds GPU work when a kernel, copy or memset covers some of it. */
		struct cursors c;
		cursors_init(&c, p);
		int rc = 0;
		uint64_t prev = p->t0;
		for (size_t i = 0; i <= p->syncs.n; i++) {
			uint64_t cut;
			if (i < p->syncs.n)
				cut = ((const struct span2 *)gt_tl_vec_at(&p->syncs, i))->start; /* its end */
			else
				cut = p->t1;
			if (cut <= prev)
				continue;
			struct gpu_window gw;
			if ((rc = gpu_window(&c, prev, cut, cut, &gw)) != 0)
				break;
			if (gw.busy == 0) {
				s->empty_dropped++;
			} else {
				struct range *x = gt_tl_vec_push(out);
				if (!x) {
					rc = GT_ERR_NOMEM;
					break;
				}
				memset(x, 0, sizeof *x);
				x->start = prev;
				x->end = cut;
			}
			prev = cut;
		}
		cursors_release(&c);
		return rc;
	}
	if (!p->have_t && !(p->proc_start && p->proc_end > p->proc_start))
		return 0;
	struct range *x = gt_tl_vec_push(out);
	if (!x)
		return GT_ERR_NOMEM;
	memset(x, 0, sizeof *x);
	if (p->proc_start && p->proc_end > p->proc_start) {
		x->start = p->proc_start;
		x->end = p->proc_end;
	} else {
		x->start = p->t0;
		x->end = p->t1;
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	const struct gt_split_name *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Marks the top-level ranges of the pool (pool_default: the default domain's only): those not
 * inside an earlier range of the pool on the same thread. The ranges are sorted by start; among
 * ranges that start together the longest comes first, so that a parent is seen before the child
 * that begins with it. Returns how many there are. */

/* Each run of ranges with one start, stably by end descending (gt_tl_sort_ties). */
static uint64_t range_end_of(const void *rec, void *ctx)
{
	(void)ctx;
	return ((const struct range *)rec)->end;
}

/* Each thread's furthest range end so far, by thread id in an open-addressed table: a program may
 * mark ranges on any number of threads. */
struct thread_end {
	uint32_t thread, used;
	uint64_t end;
};

struct thread_ends {
	struct thread_end *slot;
	size_t cap, n;             /* cap a power of two, at most half full */
};

static size_t thread_slot(const struct thread_ends *t, uint32_t thread)
{
	size_t h = (size_t)(((uint64_t)thread * 0x9e3779b97f4a7c15ull) >> 32) & (t->cap - 1);
	while (t->slot[h].used && t->slot[h].thread != thread)
		h = (h + 1) & (t->cap - 1);
	return h;
}

/* The entry of thread (end 0 when new), or NULL when out of memory. */
static struct thread_end *thread_end_of(struct thread_ends *t, uint32_t thread)
{
	if (2 * (t->n + 1) > t->cap) {
		struct thread_ends g = { calloc(t->cap ? t->cap * 2 : 16, sizeof *g.slot), t->cap ? t->cap * 2 : 16, t->n };
		if (!g.slot)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i].used)
				g.slot[thread_slot(&g, t->slot[i].thread)] = t->slot[i];
		free(t->slot);
		*t = g;
	}
	struct thread_end *e = &t->slot[thread_slot(t, thread)];
	if (!e->used) {
		*e = (struct thread_end){ thread, 1, 0 };
		t->n++;
	}
	return e;
}

static int mark_top(struct gt_tl_vec *v, int pool_default, size_t *ntop)
{
	struct thread_ends te = { NULL, 0, 0 };
	*ntop = 0;
	for (size_t i = 0; i < v->n; i++) {
		struct range *x = gt_tl_vec_at(v, i);
		x->name_id &= ~RANGE_TOP;
		if (pool_default && (x->name_id & RANGE_NAMED))
			continue;
		struct thread_end *e = thread_end_of(&te, x->thread);
		if (!e) {
			free(te.slot);
			return GT_ERR_NOMEM;
		}
		if (x->start >= e->end || e->end == 0) {
			x->name_id |= RANGE_TOP;
			(*ntop)++;
		}
		if (x->end > e->end)
			e->end = x->end;
	}
	free(te.slot);
	return 0;
}

/* Which mode; in NVTX mode which name, with p->ranges filtered down to the units. */
static int choose(struct pass *p, const struct gt_reader *r)
{
	struct gt_split *s = p->s;
	if (gt_tl_sort_ties(p->ranges.buf.p, p->ranges.n, sizeof(struct range), range_end_of, NULL))
		return GT_ERR_NOMEM;
	/* The pool the default comes from: the program's own ranges (the default domain) when it marked
	 * any; libraries mark theirs in named domains (NCCL does), and an unclosed one of those would
	 * otherwise make every range of the program look nested. */
	int pool_default = 0;
	for (size_t i = 0; i < p->ranges.n && !pool_default; i++)
		pool_default = !(((const struct range *)gt_tl_vec_at(&p->ranges, i))->name_id & RANGE_NAMED);
	size_t ntop;
	if (mark_top(&p->ranges, pool_default, &ntop))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < p->ranges.n; i++) {
		const struct range *x = gt_tl_vec_at(&p->ranges, i);
		if (!(x->name_id & RANGE_TOP))
			continue;
		uint32_t id = RANGE_NAME(x);
		if (id >= p->ncounts &&
		    gt_grow_zeroed(&p->counts, &p->ncounts, (size_t)id + 1, sizeof *p->counts, 64))
			return GT_ERR_NOMEM;
		struct name_count *c = &p->counts[id];
		if (!c->count)
			c->first = x->start; /* sorted by start: the first seen is the earliest */
		c->count++;
	}
	size_t nn = 0;
	for (size_t i = 0; i < p->ncounts; i++)
		nn += p->counts[i].count > 0;
	if (nn) {
		if (!(s->names = calloc(nn, sizeof *s->names)))
			return GT_ERR_NOMEM;
		for (size_t i = 0; i < p->ncounts; i++) {
			if (!p->counts[i].count)
				continue;
			struct gt_split_name *n = &s->names[s->nnames++];
			n->count = p->counts[i].count;
			if (!(n->name = strdup(gt_reader_string(r, (uint32_t)i))))
				return GT_ERR_NOMEM;
		}
		qsort(s->names, s->nnames, sizeof *s->names, cmp_names);
	}
	uint32_t want = 0;
	int have = 0;
	if (p->o->range) {
		/* Every closed range of that name, in any domain and at any depth. */
		for (size_t i = 0; i < p->ranges.n; i++) {
			const struct range *x = gt_tl_vec_at(&p->ranges, i);
			uint32_t id = RANGE_NAME(x);
			if (id >= p->nrange_match &&
			    gt_grow_zeroed(&p->range_match, &p->nrange_match, (size_t)id + 1, 1, 64))
				return GT_ERR_NOMEM;
			if (!p->range_match[id])
				p->range_match[id] = strcmp(gt_reader_string(r, id), p->o->range) == 0 ? 1 : 2;
			have |= p->range_match[id] == 1;
		}
		if (!have) {
			char list[512] = "";
			size_t len = 0;
			for (size_t i = 0; i < s->nnames && len < sizeof list - 64; i++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s' (%llu)", i ? ", " : "",
				                        s->names[i].name, (unsigned long long)s->names[i].count);
			return gt_fail(GT_ERR_ARG, "no NVTX range named '%s' in trace '%s' (%s%s)", p->o->range,
			               s->path, s->nnames ? "top-level ranges: " : "it has no NVTX ranges",
			               s->nnames ? list : "");
		}
		s->range_given = 1;
		if (!(s->range = strdup(p->o->range)))
			return GT_ERR_NOMEM;
	} else if (nn) {
		/* The most frequent top-level name; ties to the one whose first instance starts first. */
		uint64_t best = 0, first = 0;
		for (size_t i = 0; i < p->ncounts; i++) {
			const struct name_count *c = &p->counts[i];
			if (!c->count)
				continue;
			if (c->count > best || (c->count == best && c->first < first)) {
				best = c->count;
				first = c->first;
				want = (uint32_t)i;
			}
		}
		if (!(s->range = strdup(gt_reader_string(r, want))))
			return GT_ERR_NOMEM;
		have = 1;
	}
	if (have) {
		s->mode = GT_SPLIT_NVTX;
		s->range_domain_default = pool_default;
		size_t k = 0;
		for (size_t i = 0; i < p->ranges.n; i++) {
			const struct range *x = gt_tl_vec_at(&p->ranges, i);
			int ok = p->o->range ? p->range_match[RANGE_NAME(x)] == 1
			                     : (x->name_id & RANGE_TOP) && RANGE_NAME(x) == want;
			if (ok)
				*(struct range *)gt_tl_vec_at(&p->ranges, k++) = *x;
		}
		p->ranges.n = k;
		return 0;
	}
	s->mode = p->wopen.n ? GT_SPLIT_WINDOW : p->syncs.n ? GT_SPLIT_SYNC : GT_SPLIT_PROCESS;
	s->syncs = p->syncs.n;
	return 0;
}

/* The statistics of one column (metric m of every unit). Most columns are whole nanoseconds, and a
 * unit's latency median is a whole or a half: twice the values are integers, which take stats.h's
 * integer path (a radix sort keeps a million units fast) before the results are halved again.
 * Halving is exact in binary floating point, so the statistics are those of the values themselves.
 * Negative values (a launch call timestamped after its kernel's start) take the double path. The
 * column is gathered from the units into the scratch arrays directly: a transposed copy of every
 * column would be 112 bytes more per unit, and first touches of memory are what cost most here. */
static void column_stats(struct gt_stats *st, const struct gt_split_unit *units, size_t n, int m, double *dscratch,
                         uint64_t *iscratch)
{
	size_t k = 0;
	int ok = 1, half = 0;
	for (size_t i = 0; i < n; i++) {
		double v = units[i].v[m];
		if (isnan(v))
			continue;
		double t = 2 * v;
		/* Only a value that fits is converted: a negative one (a kernel that started before its
		 * launch call returned) is undefined as uint64_t (found by fuzz_structured). */
		int whole = v >= 0 && t < 0x1p63 && t == (double)(uint64_t)t;
		ok &= whole;
		if (whole)
			half |= v != (double)(uint64_t)v;
		dscratch[k++] = v;
	}
	if (!ok) {
		gt_stats_compute_double(st, dscratch, k);
		return;
	}
	for (size_t i = 0; i < k; i++)
		iscratch[i] = (uint64_t)(half ? 2 * dscratch[i] : dscratch[i]);
	gt_stats_compute_u64(st, iscratch, k);
	if (half) {
		double *f[] = { &st->total, &st->min, &st->max, &st->mean, &st->stddev, &st->median, &st->mad,
			        &st->mad_scaled, &st->p25, &st->p75, &st->p90, &st->p99, &st->iqr, &st->outlier_limit };
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			*f[i] /= 2;
	}
}

/* Every column's statistics, one column at a time. */
static int unit_stats(struct gt_split *s)
{
	size_t n = s->nunits ? s->nunits : 1;
	struct gt_growbuf db = { 0 }, ub = { 0 };
	if (gt_growbuf_reserve(&db, n * sizeof(double)) || gt_growbuf_reserve(&ub, n * sizeof(uint64_t))) {
		gt_growbuf_release(&db);
		gt_growbuf_release(&ub);
		return GT_ERR_NOMEM;
	}
	for (int m = 0; m < GT_M_COUNT; m++)
		column_stats(&s->st[m], s->units, s->nunits, m, db.p, ub.p);
	gt_growbuf_release(&db);
	gt_growbuf_release(&ub);
	return 0;
}

/* ---- units that overlap each other ---------------------------------------------------------------
 * The sweeps and the cursors look at a record once for every unit it overlaps: about once in a real
 * trace, whose units follow one another, but N times over when a program nests N units, starts N at
 * one instant, or runs a kernel across N of them, so N^2 in all. Where that happens the same
 * numbers come from structures that answer each unit in O(log n) without visiting its records:
 * indexes for the kernels' and copies' counts and the launch medians (built once the sweeps have
 * looked at more records than a budget allows), and unions with prefix sums for the times (built when
 * some unit starts before an earlier one ended). The walks stay the path of real traces: they keep
 * nothing the size of the trace. */

struct oitem {                   /* a record for an index: its interval and its value */
	uint64_t start, end;
	double v;
};

struct okey {                    /* the same by (end, start), with its value's rank */
	uint64_t end, start, rank;
};

/* What a sweep visits for [a, lim), counted from two orders: the records that start before lim (a
 * prefix by start) less those that start before a and end by a (a prefix by (end, start), inside
 * the first). With values, wavelet matrices over their ranks in both orders give the k-th smallest
 * of that difference. */
struct oindex {
	size_t n;
	uint64_t *start;         /* by start */
	struct okey *q;          /* by (end, start) */
	double *val;             /* values by rank; NULL: counts only */
	struct gt_wavelet wp, wq;
};

static void oindex_release(struct oindex *x)
{
	free(x->start);
	free(x->q);
	free(x->val);
	gt_wavelet_release(&x->wp);
	gt_wavelet_release(&x->wq);
	memset(x, 0, sizeof *x);
}

struct vrank {
	double v;
	size_t i;
};

static int cmp_vrank(const void *pa, const void *pb)
{
	const struct vrank *a = pa, *b = pb;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The ranks of the values (ties by position) into x->val and x->q, and the matrix of the order by
 * start. */
static int oindex_rank(struct oindex *x, const struct oitem *it, uint32_t *ranks)
{
	size_t n = x->n;
	struct vrank *vr = malloc((n ? n : 1) * sizeof *vr);
	if (!vr || !(x->val = malloc((n ? n : 1) * sizeof *x->val))) {
		free(vr);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		vr[i] = (struct vrank){ it[i].v, i };
	qsort(vr, n, sizeof *vr, cmp_vrank);
	for (size_t r = 0; r < n; r++) {
		x->val[r] = vr[r].v;
		ranks[vr[r].i] = (uint32_t)r;
		x->q[vr[r].i].rank = r;
	}
	free(vr);
	return gt_wavelet_build(&x->wp, ranks, n);
}

/* From n items sorted by start; values: rank them too. */
static int oindex_build(struct oindex *x, const struct oitem *it, size_t n, int values)
{
	memset(x, 0, sizeof *x);
	x->n = n;
	size_t m = n ? n : 1;
	uint32_t *ranks = NULL;
	int rc = GT_ERR_NOMEM;
	if (n > UINT32_MAX || !(x->start = malloc(m * sizeof *x->start)) || !(x->q = malloc(m * sizeof *x->q)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		x->start[i] = it[i].start;
		x->q[i] = (struct okey){ it[i].end, it[i].start, 0 };
	}
	if (values && (!(ranks = malloc(m * sizeof *ranks)) || oindex_rank(x, it, ranks)))
		goto out;
	/* stable by end over records by start: by (end, start) */
	if (gt_tl_sort(x->q, n, sizeof *x->q))
		goto out;
	if (values) {
		for (size_t i = 0; i < n; i++)
			ranks[i] = (uint32_t)x->q[i].rank;
		if (gt_wavelet_build(&x->wq, ranks, n))
			goto out;
	}
	rc = 0;
out:
	free(ranks);
	if (rc)
		oindex_release(x);
	return rc;
}

/* The two prefixes for [a, lim), lim > a: *ip records start before lim, *jq of them start before a
 * and end by a. */
static void oindex_span(const struct oindex *x, uint64_t a, uint64_t lim, size_t *ip, size_t *jq)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->start[mid] < lim)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ip = lo;
	lo = 0;
	hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct okey *k = &x->q[mid];
		if (k->end < a || (k->end == a && k->start < a))
			lo = mid + 1;
		else
			hi = mid;
	}
	*jq = lo;
}

static uint64_t oindex_count(const struct oindex *x, uint64_t a, uint64_t lim)
{
	size_t i, j;
	oindex_span(x, a, lim, &i, &j);
	return i - j;
}

/* The median of the values, as median_of takes it from the sorted values (stats.c's 'linear' rule
 * at 50 %: the middle one, or b - (b - a) / 2 of the middle two). */
static double oindex_median(const struct oindex *x, uint64_t a, uint64_t lim)
{
	size_t i, j;
	oindex_span(x, a, lim, &i, &j);
	size_t c = i - j;
	if (!c)
		return NAN;
	size_t h = (c - 1) / 2;
	double lo = x->val[gt_wavelet_kth_diff(&x->wp, i, &x->wq, j, h)];
	if (c % 2)
		return lo;
	double hi = x->val[gt_wavelet_kth_diff(&x->wp, i, &x->wq, j, h + 1)];
	return hi - (hi - lo) * 0.5;
}

/* The indexes that stand in for the sweeps: every kernel and copy (counts), and per latency the
 * kernels that have it (paired with their call; the queued two also with queued times). */
struct findex {
	struct oindex kern, copy, lat[3];
	int built;
};

static void findex_release(struct findex *f)
{
	oindex_release(&f->kern);
	oindex_release(&f->copy);
	for (int m = 0; m < 3; m++)
		oindex_release(&f->lat[m]);
}

/* The kernels' items for latency m (-1: all of them, value 0). */
static size_t kernel_items(const struct pass *p, int m, struct oitem *it)
{
	size_t n = 0, hint = 0;
	for (size_t i = 0; i < p->kerns.n; i++) {
		const struct kern *k = gt_tl_vec_at(&p->kerns, i);
		double v = 0;
		if (m >= 0) {
			const struct call *c = find_call(&p->calls, k->corr, &hint);
			if (!c || (m > 0 && k->wait == NO_QUEUED))
				continue;
			if (m == 0)
				v = (double)(int64_t)(k->start - c->start);
			else if (m == 1)
				v = (double)(int64_t)(k->start - k->wait - c->start);
			else
				v = (double)k->wait;
		}
		it[n++] = (struct oitem){ k->start, k->end, v };
	}
	return n;
}

static int findex_build(struct findex *f, const struct pass *p)
{
	size_t most = p->kerns.n > p->copies.n ? p->kerns.n : p->copies.n;
	struct oitem *it = malloc((most ? most : 1) * sizeof *it);
	if (!it)
		return GT_ERR_NOMEM;
	int rc = oindex_build(&f->kern, it, kernel_items(p, -1, it), 0);
	for (int m = 0; m < 3 && !rc; m++)
		rc = oindex_build(&f->lat[m], it, kernel_items(p, m, it), 1);
	if (!rc) {
		for (size_t i = 0; i < p->copies.n; i++) {
			const struct copy *c = gt_tl_vec_at(&p->copies, i);
			it[i] = (struct oitem){ c->start, c->end, 0 };
		}
		rc = oindex_build(&f->copy, it, p->copies.n, 0);
	}
	free(it);
	f->built = !rc;
	return rc;
}

/* A unit's counts and launch medians from the indexes: what sweep_unit visits for [a, b). */
static void unit_from_index(const struct findex *f, struct gt_split_unit *x)
{
	uint64_t a = x->start, lim = x->end > a ? x->end : a + 1;
	double *v = x->v;
	if (lim <= a) {
		/* a zero-length unit at the clock's last nanosecond: nothing starts before it and
		 * ends after it */
		v[GT_M_LAUNCH] = v[GT_M_LAUNCH_QUEUE] = v[GT_M_LAUNCH_START] = NAN;
		return;
	}
	x->kernels = oindex_count(&f->kern, a, lim);
	x->copies = oindex_count(&f->copy, a, lim);
	v[GT_M_LAUNCH] = oindex_median(&f->lat[0], a, lim);
	v[GT_M_LAUNCH_QUEUE] = oindex_median(&f->lat[1], a, lim);
	v[GT_M_LAUNCH_START] = oindex_median(&f->lat[2], a, lim);
}

/* The unions of each kind (gpu_window's and the cursors'), for units that overlap each other. */
struct unions {
	struct gt_tl_union k, copy, d[GT_DIR_COUNT], m, a, kc, kcm, all;
};

static void unions_release(struct unions *u)
{
	gt_tl_union_release(&u->k);
	gt_tl_union_release(&u->copy);
	for (int d = 0; d < GT_DIR_COUNT; d++)
		gt_tl_union_release(&u->d[d]);
	gt_tl_union_release(&u->m);
	gt_tl_union_release(&u->a);
	gt_tl_union_release(&u->kc);
	gt_tl_union_release(&u->kcm);
	gt_tl_union_release(&u->all);
}

static int unions_build(struct unions *u, const struct pass *p)
{
	memset(u, 0, sizeof *u);
	const struct gt_tl_vec *k = &p->kerns, *c = &p->copies, *m = &p->memsets, *a = &p->apis;
	if (gt_tl_union_build(&u->k, k->buf.p, k->n, k->size) || gt_tl_union_build(&u->copy, c->buf.p, c->n, c->size) ||
	    gt_tl_union_build(&u->m, m->buf.p, m->n, m->size) || gt_tl_union_build(&u->a, a->buf.p, a->n, a->size))
		return GT_ERR_NOMEM;
	for (int d = 0; d < GT_DIR_COUNT; d++)
		if (gt_tl_union_reserve(&u->d[d], p->s->dir_copies[d]))
			return GT_ERR_NOMEM;
	for (size_t i = 0; i < c->n; i++) {
		const struct copy *x = gt_tl_vec_at(c, i);
		if (gt_tl_union_add(&u->d[x->dir], x->start, x->end))
			return GT_ERR_NOMEM;
	}
	if (gt_tl_union_intersect(&u->k, &u->copy, &u->kc) || gt_tl_union_merge(&u->k, &u->copy, &u->kcm) ||
	    gt_tl_union_merge(&u->kcm, &u->m, &u->all))
		return GT_ERR_NOMEM;
	return 0;
}

/* A unit's times from the unions: what gpu_window and the cursors give for [a, b). */
static void unit_from_unions(const struct unions *u, uint64_t a, uint64_t b, double *v)
{
	v[GT_M_KERNEL] = (double)gt_tl_union_cover(&u->k, a, b);
	for (int d = 0; d < GT_DIR_COUNT; d++)
		v[GT_M_HTOD + d] = (double)gt_tl_union_cover(&u->d[d], a, b);
	v[GT_M_MEMSET] = (double)gt_tl_union_cover(&u->m, a, b);
	v[GT_M_OVERLAP] = (double)gt_tl_union_cover(&u->kc, a, b);
	v[GT_M_API] = (double)gt_tl_union_cover(&u->a, a, b);
	v[GT_M_IDLE] = (double)(b - a) - (double)gt_tl_union_cover(&u->all, a, b);
}

/* Does a measured unit start before an earlier one ends? (Then the cursors would keep and rewalk
 * what the earlier one read.) */
static int units_overlap(const struct gt_tl_vec *uv, size_t first)
{
	uint64_t reach = 0;
	for (size_t i = first; i < uv->n; i++) {
		const struct range *r = gt_tl_vec_at(uv, i);
		if (i > first && r->start < reach)
			return 1;
		if (r->end > reach)
			reach = r->end;
	}
	return 0;
}

/* A unit's counts and launch medians by the sweeps. */
static int unit_by_sweep(struct sweep *ks, struct sweep *cs, struct unit_acc *acc, struct gt_split_unit *x)
{
	acc->count = 0;
	acc->nlat[0] = acc->nlat[1] = acc->nlat[2] = 0;
	uint64_t ncopies = 0;
	int rc;
	if ((rc = sweep_unit(ks, x->start, x->end, visit_kernel, acc)) != 0 ||
	    (rc = sweep_unit(cs, x->start, x->end, visit_count, &ncopies)) != 0)
		return rc;
	x->kernels = acc->count;
	x->copies = ncopies;
	x->v[GT_M_LAUNCH] = median_of(acc->lat[0], acc->nlat[0]);
	x->v[GT_M_LAUNCH_QUEUE] = median_of(acc->lat[1], acc->nlat[1]);
	x->v[GT_M_LAUNCH_START] = median_of(acc->lat[2], acc->nlat[2]);
	return 0;
}

/* A unit's times by the cursors; next_a: the next unit's start, what these windows may drop. */
static int unit_by_cursors(struct cursors *c, uint64_t a, uint64_t b, uint64_t next_a, double *v)
{
	struct gpu_window gw;
	int rc;
	if ((rc = gpu_window(c, a, b, next_a, &gw)) != 0)
		return rc;
	for (int d = 0; d < GT_DIR_COUNT; d++) {
		uint64_t t = 0;
		if ((rc = gt_tl_cursor_sum(&c->d[d], a, b, next_a, &t)) != 0)
			return rc;
		v[GT_M_HTOD + d] = (double)t;
	}
	uint64_t api = 0;
	if ((rc = gt_tl_cursor_sum(&c->a, a, b, next_a, &api)) != 0)
		return rc;
	v[GT_M_KERNEL] = (double)gw.kernel;
	v[GT_M_MEMSET] = (double)gw.memset;
	v[GT_M_OVERLAP] = (double)gw.overlap;
	v[GT_M_API] = (double)api;
	v[GT_M_IDLE] = (double)(b - a) - (double)gw.busy;
	return 0;
}

static int measure(struct pass *p, struct gt_tl_vec *uv)
{
	struct gt_split *s = p->s;
	s->units_total = uv->n;
	size_t first = p->o->warmup < uv->n ? (size_t)p->o->warmup : uv->n;
	s->warmup_dropped = first;
	size_t n = uv->n - first;
	if (gt_growbuf_reserve(&s->units_buf, (n ? n : 1) * sizeof *s->units))
		return GT_ERR_NOMEM;
	s->units = s->units_buf.p;
	struct sweep ks = { &p->kerns, 0, NULL, 0, 0, 0 }, cs = { &p->copies, 0, NULL, 0, 0, 0 };
	struct unit_acc acc = { .calls = &p->calls, .s = s };
	struct cursors c;
	cursors_init(&c, p);
	struct findex fx;
	memset(&fx, 0, sizeof fx);
	/* A sweep looks at each record about once, and at each unit's own: past this, units overlap
	 * records many times over. */
	uint64_t budget = 8 * ((uint64_t)p->kerns.n + p->copies.n + uv->n) + 65536;
	struct unions un;
	int overlap = units_overlap(uv, first), rc = 0;
	if (overlap && (rc = unions_build(&un, p)) != 0)
		goto out;
	for (size_t i = first; i < uv->n && !rc; i++) {
		const struct range *r = gt_tl_vec_at(uv, i);
		uint64_t a = r->start, b = r->end;
		struct gt_split_unit *x = &s->units[s->nunits++];
		memset(x, 0, sizeof *x);
		x->index = i;
		x->start = a;
		x->end = b;
		x->thread_id = r->thread;
		x->v[GT_M_WALL] = (double)(b - a);
		if (!fx.built && ks.work + cs.work > budget && (rc = findex_build(&fx, p)) != 0)
			break;
		if (fx.built)
			unit_from_index(&fx, x);
		else if ((rc = unit_by_sweep(&ks, &cs, &acc, x)) != 0)
			break;
		uint64_t next_a = i + 1 < uv->n ? ((const struct range *)gt_tl_vec_at(uv, i + 1))->start : UINT64_MAX;
		if (overlap)
			unit_from_unions(&un, a, b, x->v);
		else
			rc = unit_by_cursors(&c, a, b, next_a, x->v);
	}
out:
	if (overlap)
		unions_release(&un);
	findex_release(&fx);
	sweep_release(&ks);
	sweep_release(&cs);
	cursors_release(&c);
	for (int i = 0; i < 3; i++)
		free(acc.lat[i]);
	if (rc)
		return rc;
	return unit_stats(s);
}

static void pass_release(struct pass *p)
{
	gt_tl_vec_release(&p->kerns);
	gt_tl_vec_release(&p->copies);
	gt_tl_vec_release(&p->memsets);
	gt_tl_vec_release(&p->apis);
	gt_tl_vec_release(&p->calls);
	gt_tl_vec_release(&p->ranges);
	gt_tl_vec_release(&p->syncs);
	gt_tl_vec_release(&p->api_syncs);
	gt_tl_vec_release(&p->wopen);
	gt_tl_vec_release(&p->wclose);
	free(p->api_launch);
	free(p->range_match);
	free(p->counts);
}

static int finish(struct pass *p, const struct gt_reader *r)
{
	struct gt_split *s = p->s;
	if (gt_trace_end(r, &s->complete, &s->lost_bytes, &s->synthetic))
		return GT_ERR_NOMEM;
	/* Sync records are off by default (CUPTI's sync kind costs every launch): a trace
	 * without them is cut at its synchronising API calls instead, which the defaults record. */
	if (!p->syncs.n) {
		struct gt_tl_vec v = p->syncs;
		p->syncs = p->api_syncs;
		p->api_syncs = v;
	}
	if (gt_tl_vec_sort(&p->kerns) || gt_tl_vec_sort(&p->copies) || gt_tl_vec_sort(&p->memsets) ||
	    gt_tl_vec_sort(&p->apis) || gt_tl_vec_sort(&p->ranges) || gt_tl_vec_sort(&p->syncs) ||
	    gt_tl_vec_sort(&p->wopen) || gt_tl_vec_sort(&p->wclose) || prepare_calls(&p->calls))
		return GT_ERR_NOMEM;
	int rc = choose(p, r);
	if (rc)
		return rc;
	if (s->mode != GT_SPLIT_WINDOW && (rc = make_windows(p, NULL)) != 0)
		return rc; /* counted for the coverage line; the units are others */
	count_pairs(s, &p->kerns, &p->calls);
	struct gt_tl_vec uv;
	gt_tl_vec_init(&uv, sizeof(struct range));
	if (s->mode != GT_SPLIT_NVTX)
		rc = make_units(p, &uv); /* in NVTX mode the ranges are the units */
	if (!rc)
		rc = measure(p, s->mode == GT_SPLIT_NVTX ? &p->ranges : &uv);
	gt_tl_vec_release(&uv);
	return rc;
}

/* The pass and the options it was begun with, between gt_split_begin and gt_split_finish. */
struct split_state {
	struct pass p;
	struct gt_split_options o;
};

int gt_split_begin(struct gt_split *s, const char *path, const struct gt_split_options *o)
{
	memset(s, 0, sizeof *s);
	struct split_state *st = calloc(1, sizeof *st);
	if (!st || !(s->path = strdup(path))) {
		free(st);
		return GT_ERR_NOMEM;
	}
	s->state = st;
	st->o = *o;
	struct pass *p = &st->p;
	p->s = s;
	p->o = &st->o;
	gt_tl_vec_init(&p->kerns, sizeof(struct kern));
	gt_tl_vec_init(&p->copies, sizeof(struct copy));
	gt_tl_vec_init(&p->memsets, sizeof(struct span2));
	gt_tl_vec_init(&p->apis, sizeof(struct span2));
	gt_tl_vec_init(&p->calls, sizeof(struct call));
	gt_tl_vec_init(&p->ranges, sizeof(struct range));
	gt_tl_vec_init(&p->syncs, sizeof(struct span2));
	gt_tl_vec_init(&p->api_syncs, sizeof(struct span2));
	gt_tl_vec_init(&p->wopen, sizeof(struct span2));
	gt_tl_vec_init(&p->wclose, sizeof(struct span2));
	return 0;
}

int gt_split_record(void *s, const struct gt_reader *r, const struct gt_event *ev)
{
	return on_record(&((struct gt_split *)s)->state->p, r, ev);
}

static void state_free(struct gt_split *s)
{
	if (!s->state)
		return;
	pass_release(&s->state->p);
	free(s->state);
	s->state = NULL;
}

int gt_split_finish(struct gt_split *s, const struct gt_reader *r)
{
	if (!s->state)
		return GT_ERR_STATE;
	int rc = finish(&s->state->p, r);
	state_free(s);
	return rc;
}

static int finish_pass(void *s, const struct gt_reader *r) { return gt_split_finish(s, r); }

int gt_split_run(struct gt_split *s, const char *path, const struct gt_split_options *o)
{
	int rc = gt_split_begin(s, path, o);
	if (rc)
		return rc;
	rc = gt_load_pass(path, gt_split_record, finish_pass, s);
	state_free(s);
	return rc;
}

void gt_split_release(struct gt_split *s)
{
	if (!s)
		return;
	state_free(s);
	free(s->range);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i].name);
	free(s->names);
	gt_growbuf_release(&s->units_buf);
	free(s->path);
	free(s->synthetic);
	memset(s, 0, sizeof *s);
}
