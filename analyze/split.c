/* split.c: units of work (NVTX ranges, intervals between host syncs, or the process) and where each
 * one's time went; the definitions are in split.h.
 *
 * One pass over the trace keeps, per event, only the interval (and for kernels the correlation id
 * and queued time; for launch calls the correlation id and start). Afterwards everything is sorted
 * by start, the unions are built once, and each unit asks them how much of its interval they cover
 * (gt_tl_union_cover, O(log n)), so the cost per unit does not grow with the trace. The kernels
 * overlapping a unit (for counts and launch latency) are found by a sweep over the units in start
 * order that keeps the kernels still running at the unit's start: a kernel is looked at about once
 * per unit it overlaps, however long the trace.
 */
#include "split.h"

#include "diag.h"
#include "load.h"
#include "timeline.h"

#include <math.h>
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
	uint64_t start, end, queued; /* queued: 0 unless GT_KERNEL_HAS_QUEUED */
	uint32_t corr, pad;
};

struct copy {
	uint64_t start, end;
	uint32_t dir, pad;
};

struct call {                    /* a launch API call, sorted by correlation id */
	uint64_t corr, start;
};

struct range {
	uint64_t start, end;
	uint32_t name_id, thread;
};

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
	uint8_t *api_launch;         /* per API name id: 0 not yet known, 1 a launch, 2 not */
	size_t napi_launch;
	uint8_t *range_match;        /* per NVTX name id with options.range: 0 unknown, 1 yes, 2 no */
	size_t nrange_match;
	struct name_count *counts;   /* per NVTX name id, depth 0 */
	size_t ncounts;
	uint64_t t0, t1;             /* first start and last end of API calls, GPU work and syncs */
	int have_t;
	uint64_t proc_start, proc_end;
	int error;
};

static int grow_bytes(void **p, size_t *n, size_t need, size_t elem)
{
	if (need <= *n)
		return 0;
	size_t m = *n ? *n : 64;
	while (m < need)
		m *= 2;
	char *q = realloc(*p, m * elem);
	if (!q)
		return GT_ERR_NOMEM;
	memset(q + *n * elem, 0, (m - *n) * elem);
	*p = q;
	*n = m;
	return 0;
}

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

/* Is the API call named by id one that launches kernels? Resolved once per name. */
static int is_launch(struct pass *p, const struct gt_reader *r, uint32_t id)
{
	if (id >= p->napi_launch && grow_bytes((void **)&p->api_launch, &p->napi_launch, (size_t)id + 1, 1))
		return -1;
	if (!p->api_launch[id]) {
		const char *n = gt_reader_string(r, id);
		p->api_launch[id] = strstr(n, "Launch") || strstr(n, "launch") ? 1 : 2;
	}
	return p->api_launch[id] == 1;
}

static int on_nvtx(struct pass *p, const struct gt_reader *r, const struct gt_nvtx *n)
{
	struct gt_split *s = p->s;
	s->nvtx_read++;
	if (n->kind == GT_NVTX_MARK || n->end == 0 || n->end < n->start)
		return 0;
	int keep = 0;
	if (n->depth == 0) {
		if (n->name_id >= p->ncounts &&
		    grow_bytes((void **)&p->counts, &p->ncounts, (size_t)n->name_id + 1, sizeof *p->counts))
			return GT_ERR_NOMEM;
		struct name_count *c = &p->counts[n->name_id];
		if (!c->count || n->start < c->first)
			c->first = n->start;
		c->count++;
		keep = 1;
	}
	if (p->o->range) {
		uint32_t id = n->name_id;
		if (id >= p->nrange_match &&
		    grow_bytes((void **)&p->range_match, &p->nrange_match, (size_t)id + 1, 1))
			return GT_ERR_NOMEM;
		if (!p->range_match[id])
			p->range_match[id] = strcmp(gt_reader_string(r, id), p->o->range) == 0 ? 1 : 2;
		keep = p->range_match[id] == 1;
	}
	if (!keep)
		return 0;
	struct range *x = gt_tl_vec_push(&p->ranges);
	if (!x)
		return GT_ERR_NOMEM;
	x->start = n->start;
	x->end = n->end;
	x->name_id = n->name_id;
	x->thread = n->thread_id;
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct pass *p = ctx;
	struct gt_split *s = p->s;
	uint64_t t = gt_tl_event_time(ev);
	if (t && (!s->origin || t < s->origin))
		s->origin = t;
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
		x->queued = (k->flags & GT_KERNEL_HAS_QUEUED) ? k->queued : 0;
		x->corr = k->correlation_id;
		x->pad = 0;
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
		int l = is_launch(p, r, a->name_id);
		if (l < 0)
			return GT_ERR_NOMEM;
		if (l) {
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
		return 0;
	}
	default: return 0;
	}
}

/* ---- after the pass ----------------------------------------------------------------------------- */

struct unions {
	struct gt_tl_union k, c[GT_DIR_COUNT], copy, m, a, kc, g, tmp;
};

static void unions_release(struct unions *u)
{
	gt_tl_union_release(&u->k);
	for (int d = 0; d < GT_DIR_COUNT; d++)
		gt_tl_union_release(&u->c[d]);
	gt_tl_union_release(&u->copy);
	gt_tl_union_release(&u->m);
	gt_tl_union_release(&u->a);
	gt_tl_union_release(&u->kc);
	gt_tl_union_release(&u->g);
	gt_tl_union_release(&u->tmp);
}

static int build_unions(struct pass *p, struct unions *u)
{
	if (gt_tl_union_build(&u->k, p->kerns.buf.p, p->kerns.n, p->kerns.size) ||
	    gt_tl_union_build(&u->m, p->memsets.buf.p, p->memsets.n, p->memsets.size) ||
	    gt_tl_union_build(&u->a, p->apis.buf.p, p->apis.n, p->apis.size) ||
	    gt_tl_union_build(&u->copy, p->copies.buf.p, p->copies.n, p->copies.size))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < p->copies.n; i++) {
		const struct copy *c = gt_tl_vec_at(&p->copies, i);
		if (gt_tl_union_add(&u->c[c->dir], c->start, c->end))
			return GT_ERR_NOMEM;
	}
	if (gt_tl_union_intersect(&u->k, &u->copy, &u->kc) || gt_tl_union_merge(&u->k, &u->copy, &u->tmp) ||
	    gt_tl_union_merge(&u->tmp, &u->m, &u->g))
		return GT_ERR_NOMEM;
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
	/* Gallop to a range [lo, end) that holds the first entry >= corr, then bisect it. */
	size_t lo, end, step = 1;
	if (c[i].corr < corr) {
		size_t hi = lo = i + 1;
		while (hi < n && c[hi].corr < corr) {
			lo = hi + 1;
			hi = lo + step;
			step *= 2;
		}
		end = hi < n ? hi + 1 : n;
	} else {
		size_t hi = lo = i; /* c[hi] > corr */
		while (lo > 0 && c[lo - 1].corr >= corr) {
			hi = lo - 1;
			lo = hi > step ? hi - step : 0;
			step *= 2;
		}
		end = hi + 1;
	}
	while (lo < end) {
		size_t mid = lo + (end - lo) / 2;
		if (c[mid].corr < corr)
			lo = mid + 1;
		else
			end = mid;
	}
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
	int counting_pairs;          /* count paired launches (each kernel once, on the first visit) */
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
	if (k->queued) {
		if (push_lat(u, 1, (double)(int64_t)(k->queued - c->start)) ||
		    push_lat(u, 2, (double)(int64_t)(k->start - k->queued)))
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
	gt_stats_sort_double(x, n);
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
			s->launches_queued += k->queued != 0;
		}
	}
}

/* The units' intervals, by start, in sync and process mode (in NVTX mode the ranges are the
 * units). */
static int make_units(struct pass *p, const struct unions *u, struct gt_tl_vec *out)
{
	struct gt_split *s = p->s;
	if (s->mode == GT_SPLIT_SYNC) {
		uint64_t prev = p->t0;
		for (size_t i = 0; i <= p->syncs.n; i++) {
			uint64_t cut;
			if (i < p->syncs.n)
				cut = ((const struct span2 *)gt_tl_vec_at(&p->syncs, i))->start; /* its end */
			else
				cut = p->t1;
			if (cut <= prev)
				continue;
			if (gt_tl_union_cover(&u->g, prev, cut) == 0) {
				s->empty_dropped++;
			} else {
				struct range *x = gt_tl_vec_push(out);
				if (!x)
					return GT_ERR_NOMEM;
				memset(x, 0, sizeof *x);
				x->start = prev;
				x->end = cut;
			}
			prev = cut;
		}
		return 0;
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

/* Which mode, and in NVTX mode which name (filtering p->ranges down to it). */
static int choose(struct pass *p, const struct gt_reader *r)
{
	struct gt_split *s = p->s;
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
		for (size_t i = 0; i < p->ranges.n; i++) {
			const struct range *x = gt_tl_vec_at(&p->ranges, i);
			if (x->name_id < p->nrange_match && p->range_match[x->name_id] == 1) {
				have = 1;
				break;
			}
		}
		if (!have) {
			char list[512] = "";
			size_t len = 0;
			for (size_t i = 0; i < s->nnames && len < sizeof list - 64; i++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s' (%llu)", i ? ", " : "",
				                        s->names[i].name, (unsigned long long)s->names[i].count);
			return gt_error("no NVTX range named '%s' in trace '%s' (%s%s)", p->o->range, s->path,
			                s->nnames ? "top-level ranges: " : "it has no NVTX ranges",
			                s->nnames ? list : "");
		}
		s->range_given = 1;
		if (!(s->range = strdup(p->o->range)))
			return GT_ERR_NOMEM;
	} else if (nn) {
		/* The most frequent depth-0 name; ties to the one whose first instance starts first. */
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
		size_t k = 0;
		for (size_t i = 0; i < p->ranges.n; i++) {
			const struct range *x = gt_tl_vec_at(&p->ranges, i);
			int ok = p->o->range ? x->name_id < p->nrange_match && p->range_match[x->name_id] == 1
			                     : x->name_id == want;
			if (ok)
				*(struct range *)gt_tl_vec_at(&p->ranges, k++) = *x;
		}
		p->ranges.n = k;
		return 0;
	}
	s->mode = p->syncs.n ? GT_SPLIT_SYNC : GT_SPLIT_PROCESS;
	s->syncs = p->syncs.n;
	return 0;
}

static int measure(struct pass *p, const struct unions *u, struct gt_tl_vec *uv)
{
	struct gt_split *s = p->s;
	s->units_total = uv->n;
	size_t first = p->o->warmup < uv->n ? (size_t)p->o->warmup : uv->n;
	s->warmup_dropped = first;
	size_t n = uv->n - first;
	if (!(s->units = calloc(n ? n : 1, sizeof *s->units)))
		return GT_ERR_NOMEM;
	struct sweep ks = { &p->kerns, 0, NULL, 0, 0 }, cs = { &p->copies, 0, NULL, 0, 0 };
	struct unit_acc acc = { .calls = &p->calls, .s = s };
	int rc = 0;
	for (size_t i = 0; i < uv->n && !rc; i++) {
		const struct range *r = gt_tl_vec_at(uv, i);
		uint64_t a = r->start, b = r->end;
		/* Warm-up units are still swept (the sweep must see every unit in order) but not kept. */
		acc.count = 0;
		acc.nlat[0] = acc.nlat[1] = acc.nlat[2] = 0;
		uint64_t ncopies = 0;
		if ((rc = sweep_unit(&ks, a, b, visit_kernel, &acc)) != 0 ||
		    (rc = sweep_unit(&cs, a, b, visit_count, &ncopies)) != 0)
			break;
		if (i < first)
			continue;
		struct gt_split_unit *x = &s->units[s->nunits++];
		x->index = i;
		x->start = a;
		x->end = b;
		x->thread_id = r->thread;
		x->kernels = acc.count;
		x->copies = ncopies;
		double *v = x->v;
		v[GT_M_WALL] = (double)(b - a);
		v[GT_M_KERNEL] = (double)gt_tl_union_cover(&u->k, a, b);
		for (int d = 0; d < GT_DIR_COUNT; d++)
			v[GT_M_HTOD + d] = (double)gt_tl_union_cover(&u->c[d], a, b);
		v[GT_M_MEMSET] = (double)gt_tl_union_cover(&u->m, a, b);
		v[GT_M_OVERLAP] = (double)gt_tl_union_cover(&u->kc, a, b);
		v[GT_M_API] = (double)gt_tl_union_cover(&u->a, a, b);
		v[GT_M_IDLE] = (double)(b - a - gt_tl_union_cover(&u->g, a, b));
		v[GT_M_LAUNCH] = median_of(acc.lat[0], acc.nlat[0]);
		v[GT_M_LAUNCH_QUEUE] = median_of(acc.lat[1], acc.nlat[1]);
		v[GT_M_LAUNCH_START] = median_of(acc.lat[2], acc.nlat[2]);
	}
	sweep_release(&ks);
	sweep_release(&cs);
	for (int i = 0; i < 3; i++)
		free(acc.lat[i]);
	if (rc)
		return rc;
	double *vals = malloc((s->nunits ? s->nunits : 1) * sizeof *vals);
	if (!vals)
		return GT_ERR_NOMEM;
	for (int m = 0; m < GT_M_COUNT; m++) {
		size_t k = 0;
		for (size_t i = 0; i < s->nunits; i++)
			if (!isnan(s->units[i].v[m]))
				vals[k++] = s->units[i].v[m];
		gt_stats_compute_double(&s->st[m], vals, k);
	}
	free(vals);
	return 0;
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
	free(p->api_launch);
	free(p->range_match);
	free(p->counts);
}

static int finish(struct pass *p, const struct gt_reader *r)
{
	struct gt_split *s = p->s;
	struct gt_tail t;
	gt_reader_tail(r, &t);
	s->complete = t.complete;
	s->lost_bytes = t.lost_bytes;
	const char *syn = gt_load_synthetic(r);
	if (syn && !(s->synthetic = strdup(syn)))
		return GT_ERR_NOMEM;
	if (gt_tl_vec_sort(&p->kerns) || gt_tl_vec_sort(&p->copies) || gt_tl_vec_sort(&p->memsets) ||
	    gt_tl_vec_sort(&p->apis) || gt_tl_vec_sort(&p->ranges) || gt_tl_vec_sort(&p->syncs) ||
	    prepare_calls(&p->calls))
		return GT_ERR_NOMEM;
	int rc = choose(p, r);
	if (rc)
		return rc;
	count_pairs(s, &p->kerns, &p->calls);
	struct unions u;
	memset(&u, 0, sizeof u);
	struct gt_tl_vec uv;
	gt_tl_vec_init(&uv, sizeof(struct range));
	if (!(rc = build_unions(p, &u))) {
		if (s->mode == GT_SPLIT_NVTX)
			rc = 0; /* the ranges are the units */
		else
			rc = make_units(p, &u, &uv);
		if (!rc)
			rc = measure(p, &u, s->mode == GT_SPLIT_NVTX ? &p->ranges : &uv);
	}
	gt_tl_vec_release(&uv);
	unions_release(&u);
	return rc;
}

int gt_split_run(struct gt_split *s, const char *path, const struct gt_split_options *o)
{
	memset(s, 0, sizeof *s);
	if (!(s->path = strdup(path)))
		return GT_ERR_NOMEM;
	struct pass p;
	memset(&p, 0, sizeof p);
	p.s = s;
	p.o = o;
	gt_tl_vec_init(&p.kerns, sizeof(struct kern));
	gt_tl_vec_init(&p.copies, sizeof(struct copy));
	gt_tl_vec_init(&p.memsets, sizeof(struct span2));
	gt_tl_vec_init(&p.apis, sizeof(struct span2));
	gt_tl_vec_init(&p.calls, sizeof(struct call));
	gt_tl_vec_init(&p.ranges, sizeof(struct range));
	gt_tl_vec_init(&p.syncs, sizeof(struct span2));
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc) {
		pass_release(&p);
		return rc;
	}
	rc = gt_load_stream(r, on_record, &p);
	if (!rc)
		rc = finish(&p, r);
	gt_reader_close(r);
	pass_release(&p);
	return rc;
}

void gt_split_release(struct gt_split *s)
{
	if (!s)
		return;
	free(s->range);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i].name);
	free(s->names);
	free(s->units);
	free(s->path);
	free(s->synthetic);
	memset(s, 0, sizeof *s);
}
