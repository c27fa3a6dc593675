/* ranks.c: many traces of one job, one per process, compared rank by rank (definitions in ranks.h).
 *
 * Each trace is read twice. The first pass, here, takes its metadata, its clock pairings, its peer
 * copies and the intervals of its collective kernels, and feeds every kernel, copy and memset to two
 * summaries (summary.h): the rank's own and the one merged over all ranks. The second pass is
 * split.h's, which finds the rank's steps exactly as `gpuanalyze split` would, so the two commands
 * can never disagree about what a step is. Everything across ranks is computed afterwards from those
 * results: nothing per event is kept beyond what the summaries keep and the collectives' union.
 */
#include "analyze/engines/ranks.h"
#include "analyze/blocks/event_origin.h"

#include "analyze/support/failure.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "analyze/blocks/peaks.h"
#include "common/grow.h"
#include "common/stats.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *gt_link_kind_name(int kind)
{
	switch (kind) {
	case GT_LINK_NVLINK: return "nvlink";
	case GT_LINK_PCIE: return "pcie";
	default: return "unknown";
	}
}

int gt_ranks_is_collective(const char *name)
{
	const char *p = name;
	/* A mangled name: _Z [L] <length><identifier>..., or a nested one _ZN [qualifiers] <length>... */
	if (p[0] == '_' && p[1] == 'Z') {
		p += 2;
		if (*p == 'L')
			p++;
		if (*p == 'N') {
			p++;
			while (*p == 'r' || *p == 'V' || *p == 'K')
				p++;
		}
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return strncmp(p, "nccl", 4) == 0;
}

/* ---- the first pass ---------------------------------------------------------------------------- */

struct span {
	uint64_t start, end;
};

struct pass {
	struct gt_ranks *g;
	struct gt_rank *r;
	size_t index;            /* the rank's index in g->ranks while reading */
	uint8_t *coll;           /* per kernel name id: 0 not looked at, 1 collective, 2 not */
	size_t ncoll;
	struct gt_tl_vec comm;   /* struct span of collective kernels */
};

static struct gt_rank_peer *peer_of(struct gt_ranks *g, size_t rank, uint32_t src, uint32_t dst)
{
	for (size_t i = 0; i < g->npeers; i++) {
		struct gt_rank_peer *p = &g->peers[i];
		if (p->rank == rank && p->src == src && p->dst == dst)
			return p;
	}
	struct gt_rank_peer *q = realloc(g->peers, (g->npeers + 1) * sizeof *q);
	if (!q)
		return NULL;
	g->peers = q;
	struct gt_rank_peer *p = &g->peers[g->npeers++];
	memset(p, 0, sizeof *p);
	p->rank = rank;
	p->src = src;
	p->dst = dst;
	return p;
}

static int on_copy(struct pass *p, const struct gt_memcpy *m)
{
	if (m->flags & GT_COPY_TOOL)
		return 0;
	if (m->copy_kind != GT_COPY_PTOP && m->device_id == m->dst_device_id)
		return 0;
	struct gt_rank_peer *pe = peer_of(p->g, p->index, m->device_id, m->dst_device_id);
	if (!pe)
		return GT_ERR_NOMEM;
	pe->count++;
	pe->bytes += m->bytes;
	if (m->end <= m->start || !m->bytes) {
		pe->no_rate++;
		return 0;
	}
	double *rates = gt_grow(pe->rates, &pe->cap, pe->nrates, sizeof *rates, 16);
	if (!rates)
		return GT_ERR_NOMEM;
	pe->rates = rates;
	double ns = (double)(m->end - m->start);
	pe->time_ns += ns;
	pe->rates[pe->nrates++] = (double)m->bytes / ns; /* bytes per ns = decimal GB/s */
	return 0;
}

static int on_kernel(struct pass *p, const struct gt_reader *rd, const struct gt_kernel *k)
{
	if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end <= k->start)
		return 0;
	/* An id the trace never defined (a corrupt record) names no kernel: it must not make the
	 * table as large as the id (up to 4 GiB for one hostile record). */
	uint32_t id = k->name_id > gt_reader_string_count(rd) ? 0 : k->name_id;
	if (id >= p->ncoll && gt_grow_zeroed(&p->coll, &p->ncoll, (size_t)id + 1, 1, 64))
		return GT_ERR_NOMEM;
	if (!p->coll[id])
		p->coll[id] = gt_ranks_is_collective(gt_reader_string(rd, id)) ? 1 : 2;
	if (p->coll[id] != 1)
		return 0;
	struct span *s = gt_tl_vec_push(&p->comm);
	if (!s)
		return GT_ERR_NOMEM;
	s->start = k->start;
	s->end = k->end;
	p->r->comm_kernels++;
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *rd, const struct gt_event *ev)
{
	struct pass *p = ctx;
	struct gt_rank *r = p->r;
	gt_event_origin(&r->origin, ev);
	int rc;
	switch (ev->type) {
	case GT_REC_CLOCK_SYNC:
		r->clock_syncs++;
		return gt_align_add(&r->align, &ev->u.clock_sync);
	case GT_REC_KERNEL:
		r->kernels++;
		if ((rc = gt_summary_record(&r->summary, rd, ev)) != 0 ||
		    (rc = gt_summary_record(&p->g->merged, rd, ev)) != 0)
			return rc;
		return on_kernel(p, rd, &ev->u.kernel);
	case GT_REC_MEMCPY:
		r->copies++;
		if ((rc = gt_summary_record(&r->summary, rd, ev)) != 0 ||
		    (rc = gt_summary_record(&p->g->merged, rd, ev)) != 0)
			return rc;
		return on_copy(p, &ev->u.memcpy);
	case GT_REC_MEMSET:
		r->memsets++;
		if ((rc = gt_summary_record(&r->summary, rd, ev)) != 0 ||
		    (rc = gt_summary_record(&p->g->merged, rd, ev)) != 0)
			return rc;
		return 0;
	default:
		return 0;
	}
}

static char *dup_meta(const struct gt_reader *rd, const char *key, int *nomem)
{
	const char *v = gt_reader_meta(rd, key);
	if (!v)
		return NULL;
	char *s = strdup(v);
	if (!s)
		*nomem = 1;
	return s;
}

/* The DEVICE records, and the NVLink META keys of ranks.h for each. */
static int take_devices(struct gt_rank *r, const struct gt_reader *rd)
{
	size_t n = gt_reader_device_count(rd);
	if (!n)
		return 0;
	if (!(r->devices = calloc(n, sizeof *r->devices)))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		const struct gt_device *d = gt_reader_device_at(rd, i, &name);
		if (!d)
			continue;
		struct gt_rank_device *x = &r->devices[r->ndevices++];
		x->id = d->device_id;
		snprintf(x->name, sizeof x->name, "%s", name ? name : "");
		gt_device_uuid_string(d, x->uuid, sizeof x->uuid);
		x->peak_pcie = gt_device_peak_pcie_bw(d) / 1e9;
		char key[96];
		snprintf(key, sizeof key, "device.%u.nvlink.remote", d->device_id);
		const char *remote = gt_reader_meta(rd, key);
		if (!remote)
			continue;
		x->nvlink_known = 1;
		if (!(x->nvlink_remote = strdup(remote)))
			return GT_ERR_NOMEM;
		snprintf(key, sizeof key, "device.%u.pci_bus_id", d->device_id);
		const char *pci = gt_reader_meta(rd, key);
		snprintf(x->pci, sizeof x->pci, "%s", pci ? pci : "");
		snprintf(key, sizeof key, "device.%u.nvlink.link_gbps", d->device_id);
		const char *rate = gt_reader_meta(rd, key);
		char *end = NULL;
		double v = rate ? strtod(rate, &end) : 0;
		x->link_gbps = rate && end != rate && *end == '\0' && v > 0 && isfinite(v) ? v : 0;
	}
	return 0;
}

static int read_trace(struct gt_ranks *g, size_t index, const char *path)
{
	struct gt_rank *r = &g->ranks[index];
	struct pass p = { .g = g, .r = r, .index = index };
	gt_tl_vec_init(&p.comm, sizeof(struct span));
	if (!(r->path = strdup(path)))
		return GT_ERR_NOMEM;
	r->given = index;
	struct gt_reader *rd;
	int rc = gt_load_open(&rd, path);
	if (rc) {
		gt_tl_vec_release(&p.comm);
		return rc;
	}
	if ((rc = gt_summary_file_begin(&r->summary, path)) != 0 ||
	    (rc = gt_summary_file_begin(&g->merged, path)) != 0)
		goto out;
	if ((rc = gt_load_stream(rd, on_record, &p)) != 0)
		goto out;
	if ((rc = gt_summary_file_end(&r->summary, rd)) != 0 ||
	    (rc = gt_summary_file_end(&g->merged, rd)) != 0)
		goto out;
	int nomem = gt_trace_end(rd, &r->complete, &r->lost_bytes, &r->synthetic) != 0;
	r->rank_meta = dup_meta(rd, "process.rank", &nomem);
	r->rank_from = dup_meta(rd, "process.rank_from", &nomem);
	r->host = dup_meta(rd, "host.name", &nomem);
	r->pid = dup_meta(rd, "process.pid", &nomem);
	if (nomem) {
		rc = GT_ERR_NOMEM;
		goto out;
	}
	if ((rc = take_devices(r, rd)) != 0)
		goto out;
	gt_align_finish(&r->align);
	if ((rc = gt_tl_vec_sort(&p.comm)) == 0)
		rc = gt_tl_union_build(&r->comm, p.comm.buf.p, p.comm.n, sizeof(struct span));
out:
	gt_reader_close(rd);
	gt_tl_vec_release(&p.comm);
	free(p.coll);
	return rc;
}

/* ---- ranks ------------------------------------------------------------------------------------- */

/* A non-negative decimal integer, nothing else. */
static int parse_rank(const char *s, long long *out)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static void assign_ranks(struct gt_ranks *g)
{
	g->rank_source = GT_RANK_FROM_META;
	g->rank_why[0] = '\0';
	for (size_t i = 0; i < g->nranks && !g->rank_why[0]; i++) {
		struct gt_rank *r = &g->ranks[i];
		if (!r->rank_meta)
			snprintf(g->rank_why, sizeof g->rank_why,
			         "%s has no META process.rank (no launcher rank variable was set when it was "
			         "recorded)",
			         r->path);
		else if (parse_rank(r->rank_meta, &r->rank) != 0)
			snprintf(g->rank_why, sizeof g->rank_why,
			         "%s has META process.rank '%s', not a non-negative integer", r->path, r->rank_meta);
		for (size_t k = 0; k < i && !g->rank_why[0]; k++)
			if (g->ranks[k].rank == r->rank)
				snprintf(g->rank_why, sizeof g->rank_why, "%s and %s both say rank %lld",
				         g->ranks[k].path, r->path, r->rank);
	}
	if (!g->rank_why[0])
		return;
	g->rank_source = GT_RANK_FROM_ORDER;
	for (size_t i = 0; i < g->nranks; i++)
		g->ranks[i].rank = (long long)g->ranks[i].given;
}

static int cmp_rank(const void *pa, const void *pb)
{
	const struct gt_rank *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->given < b->given ? -1 : a->given > b->given;
}

/* Ranks are sorted after the first pass; the peer groups hold indices, so they follow. */
static int sort_ranks(struct gt_ranks *g)
{
	size_t *where = malloc((g->nranks ? g->nranks : 1) * sizeof *where);
	if (!where)
		return GT_ERR_NOMEM;
	qsort(g->ranks, g->nranks, sizeof *g->ranks, cmp_rank);
	for (size_t i = 0; i < g->nranks; i++)
		where[g->ranks[i].given] = i;
	for (size_t i = 0; i < g->npeers; i++)
		g->peers[i].rank = where[g->peers[i].rank];
	free(where);
	return 0;
}

static int cmp_str_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Ranks by host, then pid, then their order (so that a group of one identity lists its traces in
 * the order given to it). */
static int cmp_identity(const void *pa, const void *pb, void *ctx)
{
	const struct gt_rank *r = ctx;
	size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
	int c = cmp_str_null(r[i].host, r[j].host);
	c = c ? c : cmp_str_null(r[i].pid, r[j].pid);
	return c ? c : (i > j) - (i < j);
}

/* Counts the hosts, and warns once for each process identity (host and pid) that more than one
 * trace claims, naming its first two traces and how many more: one line per identity, whatever the
 * number of traces, in time O(n log n). GT_ERR_NOMEM. */
static int hosts_and_duplicates(struct gt_ranks *g)
{
	g->nhosts = 0;
	size_t *by = malloc((g->nranks ? g->nranks : 1) * sizeof *by);
	if (!by)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < g->nranks; i++)
		by[i] = i;
	qsort_r(by, g->nranks, sizeof *by, cmp_identity, g->ranks);
	for (size_t i = 0; i < g->nranks;) {
		const struct gt_rank *a = &g->ranks[by[i]];
		if (i == 0 || cmp_str_null(g->ranks[by[i - 1]].host, a->host))
			g->nhosts++;
		size_t j = i + 1;
		while (j < g->nranks && !cmp_str_null(g->ranks[by[j]].host, a->host) &&
		       !cmp_str_null(g->ranks[by[j]].pid, a->pid))
			j++;
		if (j - i >= 2 && a->pid && a->host) {
			const struct gt_rank *b = &g->ranks[by[i + 1]];
			if (j - i == 2)
				gt_fail_warn("%s and %s come from the same process (host %s, pid %s): the same "
				             "trace given twice?",
				             a->path, b->path, a->host, a->pid);
			else
				gt_fail_warn("%s, %s and %zu more come from the same process (host %s, pid %s): "
				             "the same trace given %zu times?",
				             a->path, b->path, j - i - 2, a->host, a->pid, j - i);
		}
		i = j;
	}
	free(by);
	g->one_host = g->nhosts == 1 && g->nranks && g->ranks[0].host;
	return 0;
}

/* ---- alignment ---------------------------------------------------------------------------------- */

static void align_ranks(struct gt_ranks *g)
{
	g->aligned = 0;
	double u1 = -1, u2 = -1; /* the two largest uncertainties */
	int unknown = 0;
	for (size_t i = 0; i < g->nranks; i++) {
		struct gt_rank *r = &g->ranks[i];
		if (r->align.state == GT_ALIGN_NONE)
			continue;
		int64_t h;
		if (gt_align_to_host(&r->align, r->origin, &h) == 0) {
			r->origin_host = h;
			if (!g->aligned || h < g->start_host)
				g->start_host = h;
		}
		g->aligned++;
		double u = r->align.uncertainty_ns;
		if (isnan(u)) {
			unknown = 1;
		} else if (u > u1) {
			u2 = u1;
			u1 = u;
		} else if (u > u2) {
			u2 = u;
		}
	}
	if (unknown || g->aligned < 2)
		g->lag_uncertainty_ns = NAN;
	else
		g->lag_uncertainty_ns = u1 + u2;
}

/* ---- kernel spread -------------------------------------------------------------------------------- */

static int cmp_row_name(const void *pa, const void *pb)
{
	const struct gt_summary_row *a = *(const struct gt_summary_row *const *)pa;
	const struct gt_summary_row *b = *(const struct gt_summary_row *const *)pb;
	return strcmp(a->name, b->name);
}

static double median_of(double *x, size_t n)
{
	struct gt_stats st;
	gt_stats_sort_double(x, n);
	gt_stats_from_sorted_double(&st, x, n);
	return st.median;
}

static int kernel_spread(struct gt_ranks *g)
{
	size_t n = g->merged.nkernels;
	if (!n)
		return 0;
	int rc = GT_ERR_NOMEM;
	const struct gt_summary_row ***by_name = calloc(g->nranks, sizeof *by_name);
	double *med = malloc(g->nranks * sizeof *med);
	if (!(g->spread = calloc(n, sizeof *g->spread)) || !by_name || !med)
		goto out;
	for (size_t i = 0; i < g->nranks; i++) {
		const struct gt_summary *s = &g->ranks[i].summary;
		if (!s->nkernels)
			continue;
		if (!(by_name[i] = malloc(s->nkernels * sizeof *by_name[i])))
			goto out;
		for (size_t k = 0; k < s->nkernels; k++)
			by_name[i][k] = &s->kernels[k];
		qsort(by_name[i], s->nkernels, sizeof *by_name[i], cmp_row_name);
	}
	for (size_t k = 0; k < n; k++) {
		struct gt_rank_spread *sp = &g->spread[g->nspread++];
		sp->row = &g->merged.kernels[k];
		sp->min = sp->median = sp->max = sp->ratio = NAN;
		size_t m = 0;
		for (size_t i = 0; i < g->nranks; i++) {
			if (!by_name[i])
				continue;
			const struct gt_summary_row *key = sp->row;
			const struct gt_summary_row **hit =
				bsearch(&key, by_name[i], g->ranks[i].summary.nkernels, sizeof *by_name[i], cmp_row_name);
			if (!hit || !(*hit)->st.n)
				continue;
			double v = (*hit)->st.median;
			if (!m || v < sp->min) {
				sp->min = v;
				sp->min_rank = i;
			}
			if (!m || v > sp->max) {
				sp->max = v;
				sp->max_rank = i;
			}
			med[m++] = v;
		}
		sp->nranks = m;
		if (m) {
			sp->median = median_of(med, m);
			sp->ratio = sp->min > 0 ? sp->max / sp->min : NAN;
		}
	}
	rc = 0;
out:
	for (size_t i = 0; by_name && i < g->nranks; i++)
		free(by_name[i]);
	free(by_name);
	free(med);
	return rc;
}

/* ---- steps -------------------------------------------------------------------------------------- */

/* split's pass, with its messages forgotten unless it fails: the first pass already warned about a
 * trace that ends early, so only a failure (a --range the trace lacks) is passed on, with what the
 * pass said before it. */
static int split_quiet(struct gt_split *s, const char *path, const struct gt_split_options *o)
{
	size_t mark = gt_fail_mark();
	int rc = gt_split_run(s, path, o);
	if (!rc)
		gt_fail_forget(mark);
	return rc;
}

static const char *mode_words(int mode)
{
	return mode == GT_SPLIT_NVTX ? "NVTX range" : mode == GT_SPLIT_SYNC ? "host synchronisations"
	     : mode == GT_SPLIT_WINDOW ? "recording windows" : "the whole process";
}

static int cmp_name_at(const void *pa, const void *pb)
{
	const struct gt_split_name *a = *(const struct gt_split_name *const *)pa;
	const struct gt_split_name *b = *(const struct gt_split_name *const *)pb;
	int c = strcmp(a->name, b->name);
	return c ? c : (a > b) - (a < b);
}

/* A split's top-level range names in order of name (equal names, which a damaged trace can hold, in
 * their order in the split), to be looked up by bisection: a program may mark any number of names,
 * and every rank's are looked up in every other's. NULL when out of memory. */
static const struct gt_split_name **names_by_name(const struct gt_split *s)
{
	const struct gt_split_name **v = malloc((s->nnames ? s->nnames : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->nnames; i++)
		v[i] = &s->names[i];
	qsort(v, s->nnames, sizeof *v, cmp_name_at);
	return v;
}

static uint64_t name_count(const struct gt_split_name **by_name, size_t n, const char *name, int *found)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && strcmp(by_name[lo]->name, name) == 0;
	return *found ? by_name[lo]->count : 0; /* the first of equal names, as a scan finds it */
}

/* The name of s0's that is top-level on every rank with the most instances in all (the first of
 * s0's order among equals), or NULL; GT_ERR_NOMEM into *rc. */
static const char *common_name(const struct gt_ranks *g, int *rc)
{
	const struct gt_split *s0 = &g->ranks[0].split;
	const struct gt_split_name ***by = calloc(g->nranks, sizeof *by);
	const char *best = NULL;
	*rc = GT_ERR_NOMEM;
	if (!by)
		return NULL;
	for (size_t i = 1; i < g->nranks; i++)
		if (!(by[i] = names_by_name(&g->ranks[i].split)))
			goto out;
	*rc = 0;
	uint64_t best_total = 0;
	for (size_t k = 0; k < s0->nnames; k++) {
		uint64_t total = s0->names[k].count;
		int everywhere = 1;
		for (size_t i = 1; i < g->nranks && everywhere; i++)
			total += name_count(by[i], g->ranks[i].split.nnames, s0->names[k].name, &everywhere);
		if (everywhere && (!best || total > best_total)) {
			best = s0->names[k].name;
			best_total = total;
		}
	}
out:
	for (size_t i = 0; i < g->nranks; i++)
		free(by[i]);
	free(by);
	return best;
}

/* Runs split on every rank and settles what a step is (ranks.h). 0 with steps_mode 0 and steps_why
 * when the ranks' steps cannot be matched. */
static int choose_steps(struct gt_ranks *g, const struct gt_ranks_options *o)
{
	struct gt_split_options so = { o->range, o->warmup };
	for (size_t i = 0; i < g->nranks; i++) {
		int rc = split_quiet(&g->ranks[i].split, g->ranks[i].path, &so);
		if (rc)
			return rc;
		g->ranks[i].have_split = 1;
	}
	if (!g->nranks)
		return 0;
	const struct gt_split *s0 = &g->ranks[0].split;
	for (size_t i = 1; i < g->nranks; i++) {
		const struct gt_split *s = &g->ranks[i].split;
		if (s->mode != s0->mode) {
			snprintf(g->steps_why, sizeof g->steps_why,
			         "not matched: rank %lld's steps are by %s%s%s%s, rank %lld's by %s%s%s%s",
			         g->ranks[0].rank, mode_words(s0->mode), s0->mode == GT_SPLIT_NVTX ? " '" : "",
			         s0->mode == GT_SPLIT_NVTX ? s0->range : "", s0->mode == GT_SPLIT_NVTX ? "'" : "",
			         g->ranks[i].rank, mode_words(s->mode), s->mode == GT_SPLIT_NVTX ? " '" : "",
			         s->mode == GT_SPLIT_NVTX ? s->range : "", s->mode == GT_SPLIT_NVTX ? "'" : "");
			return 0;
		}
	}
	if (s0->mode == GT_SPLIT_NVTX && !o->range) {
		int rc;
		const char *best = common_name(g, &rc);
		if (rc)
			return rc;
		if (!best) {
			snprintf(g->steps_why, sizeof g->steps_why,
			         "not matched: no top-level NVTX range is common to every rank (--range NAME picks "
			         "one)");
			return 0;
		}
		char *name = strdup(best);
		if (!name)
			return GT_ERR_NOMEM;
		struct gt_split_options again = { name, o->warmup };
		for (size_t i = 0; i < g->nranks; i++) {
			struct gt_rank *r = &g->ranks[i];
			if (strcmp(r->split.range, name) == 0)
				continue;
			gt_split_release(&r->split);
			r->have_split = 0;
			int rc = split_quiet(&r->split, r->path, &again);
			if (rc) {
				free(name);
				return rc;
			}
			r->have_split = 1;
			r->split.range_given = 0; /* chosen here, not by the user */
		}
		g->steps_range = name;
	} else if (s0->mode == GT_SPLIT_NVTX) {
		if (!(g->steps_range = strdup(s0->range)))
			return GT_ERR_NOMEM;
		g->steps_range_given = 1;
	}
	g->steps_mode = s0->mode;
	return 0;
}

/* Scratch space of straggler(): a row of R values, and each rank's ratios of the steps it was slowest in. */
struct scratch {
	double *tmp;
	double **ratios;
};

/* How many steps every rank has with the same indexes (matched from the first); says in steps_why
 * when the ranks' counts differ. */
static size_t common_steps(struct gt_ranks *g)
{
	size_t R = g->nranks;
	size_t n = SIZE_MAX, most = 0;
	for (size_t i = 0; i < R; i++) {
		size_t k = g->ranks[i].split.nunits;
		n = k < n ? k : n;
		most = k > most ? k : most;
	}
	/* Matched by index: the units of every rank run warmup, warmup + 1, ...; stop where they do not. */
	size_t m = 0;
	while (m < n) {
		uint64_t idx = g->ranks[0].split.units[m].index;
		size_t i = 1;
		while (i < R && g->ranks[i].split.units[m].index == idx)
			i++;
		if (i < R)
			break;
		m++;
	}
	if (most != m) {
		size_t len = strlen(g->steps_why);
		len += (size_t)snprintf(g->steps_why + len, sizeof g->steps_why - len,
		                        "the ranks have different numbers of steps (");
		for (size_t i = 0; i < R && len < sizeof g->steps_why - 64; i++)
			len += (size_t)snprintf(g->steps_why + len, sizeof g->steps_why - len, "%srank %lld: %zu",
			                        i ? ", " : "", g->ranks[i].rank, g->ranks[i].split.nunits);
		if (len < sizeof g->steps_why)
			snprintf(g->steps_why + len, sizeof g->steps_why - len, "): the first %zu compared", m);
	}
	return m;
}

/* Step s of every rank: its duration, its end on the common host clock and its time in communication
 * kernels; returns whether every rank spent some time communicating in it. */
static int step_times(struct gt_ranks *g, size_t s)
{
	size_t R = g->nranks;
	double *dur = &g->step_dur[s * R], *end = &g->step_end[s * R], *comm = &g->step_comm[s * R];
	int all_comm = g->have_comm;
	for (size_t i = 0; i < R; i++) {
		const struct gt_rank *r = &g->ranks[i];
		const struct gt_split_unit *u = &r->split.units[s];
		dur[i] = (double)(u->end - u->start);
		int64_t h;
		int64_t rel;
		end[i] = gt_align_to_host(&r->align, u->end, &h) == 0 && !__builtin_sub_overflow(h, g->start_host, &rel)
		             ? (double)rel : NAN;
		comm[i] = g->have_comm ? (double)gt_tl_union_cover(&r->comm, u->start, u->end) : NAN;
		if (!(comm[i] > 0))
			all_comm = 0;
	}
	return all_comm;
}

/* Step s's slowest rank (none on a tie): how much slower than the others' median, and how late it ends. */
static void step_slowest(struct gt_ranks *g, size_t s, struct scratch *sc)
{
	size_t R = g->nranks;
	struct gt_rank_step *st = &g->steps[s];
	const double *dur = &g->step_dur[s * R], *end = &g->step_end[s * R];
	double *tmp = sc->tmp;
	size_t w = 0, k;
	int tie = 0;
	for (size_t i = 1; i < R; i++) {
		if (dur[i] > dur[w]) {
			w = i;
			tie = 0;
		} else if (dur[i] == dur[w]) {
			tie = 1;
		}
	}
	st->dur_ns = dur[w];
	st->slowest = SIZE_MAX;
	st->others_ns = st->ratio = st->lag_ns = NAN;
	if (tie) {
		g->steps_tied++;
		return;
	}
	st->slowest = w;
	k = 0;
	for (size_t i = 0; i < R; i++)
		if (i != w)
			tmp[k++] = dur[i];
	st->others_ns = median_of(tmp, k);
	st->ratio = st->others_ns > 0 ? st->dur_ns / st->others_ns : NAN;
	k = 0;
	for (size_t i = 0; i < R; i++)
		if (i != w && !isnan(end[i]))
			tmp[k++] = end[i];
	st->lag_ns = !isnan(end[w]) && k ? end[w] - median_of(tmp, k) : NAN;
	struct gt_rank *sr = &g->ranks[w];
	sc->ratios[w][sr->slowest++] = st->ratio;
}

/* Step s's waited-for rank (none on a tie, or unless all communicate): the one least in communication,
 * the others waiting for it. */
static void step_waited(struct gt_ranks *g, size_t s, int all_comm, double *tmp)
{
	size_t R = g->nranks;
	struct gt_rank_step *st = &g->steps[s];
	const double *comm = &g->step_comm[s * R];
	st->waited = SIZE_MAX;
	st->wait_ns = st->wait_others_ns = NAN;
	if (!all_comm)
		return;
	size_t v = 0, k;
	int tie = 0;
	for (size_t i = 1; i < R; i++) {
		if (comm[i] < comm[v]) {
			v = i;
			tie = 0;
		} else if (comm[i] == comm[v]) {
			tie = 1;
		}
	}
	st->wait_ns = comm[v];
	if (tie) {
		g->waits_tied++;
		return;
	}
	k = 0;
	for (size_t i = 0; i < R; i++)
		if (i != v)
			tmp[k++] = comm[i];
	st->waited = v;
	st->wait_others_ns = median_of(tmp, k);
	g->ranks[v].waited_for++;
}

/* Each rank's median slowdown over the steps it was slowest in, and the ranks most often slowest and
 * most often waited for. */
static void rank_summaries(struct gt_ranks *g, double **ratios)
{
	for (size_t i = 0; i < g->nranks; i++) {
		struct gt_rank *r = &g->ranks[i];
		size_t k = 0;
		for (size_t j = 0; j < r->slowest; j++)
			if (!isnan(ratios[i][j]))
				ratios[i][k++] = ratios[i][j];
		r->slowest_ratio = k ? median_of(ratios[i], k) : NAN;
		if (r->slowest && (g->most_slowest == SIZE_MAX || r->slowest > g->ranks[g->most_slowest].slowest))
			g->most_slowest = i;
		if (r->waited_for &&
		    (g->most_waited == SIZE_MAX || r->waited_for > g->ranks[g->most_waited].waited_for))
			g->most_waited = i;
	}
}

/* Steps mode: per step matched across the ranks, the slowest rank and the waited-for one; per rank, how
 * often it was each. */
static int straggler(struct gt_ranks *g)
{
	size_t R = g->nranks;
	g->most_slowest = g->most_waited = SIZE_MAX;
	if (!g->steps_mode)
		return 0;
	g->warmup_steps = g->ranks[0].split.warmup_dropped;
	if (R < 2) {
		snprintf(g->steps_why, sizeof g->steps_why, "one rank: nothing to compare its steps with");
		return 0;
	}
	size_t m = common_steps(g);
	if (!m)
		return 0;
	g->steps = calloc(m, sizeof *g->steps);
	g->step_dur = malloc(m * R * sizeof *g->step_dur);
	g->step_end = malloc(m * R * sizeof *g->step_end);
	g->step_comm = malloc(m * R * sizeof *g->step_comm);
	struct scratch sc = { malloc(R * sizeof *sc.tmp), calloc(R, sizeof *sc.ratios) };
	int rc = GT_ERR_NOMEM;
	if (!g->steps || !g->step_dur || !g->step_end || !g->step_comm || !sc.tmp || !sc.ratios)
		goto out;
	for (size_t i = 0; i < R; i++)
		if (!(sc.ratios[i] = malloc(m * sizeof *sc.ratios[i])))
			goto out;
	for (size_t i = 0; i < R; i++)
		if (g->ranks[i].comm_kernels)
			g->have_comm = 1;
	for (size_t s = 0; s < m; s++) {
		g->steps[s].index = g->ranks[0].split.units[s].index;
		int all_comm = step_times(g, s);
		step_slowest(g, s, &sc);
		step_waited(g, s, all_comm, sc.tmp);
	}
	g->nsteps = m;
	rank_summaries(g, sc.ratios);
	rc = 0;
out:
	for (size_t i = 0; sc.ratios && i < R; i++)
		free(sc.ratios[i]);
	free(sc.ratios);
	free(sc.tmp);
	return rc;
}

/* ---- peer copies -------------------------------------------------------------------------------- */

static const struct gt_rank_device *device_of(const struct gt_rank *r, uint32_t id)
{
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].id == id)
			return &r->devices[i];
	return NULL;
}

/* Links in a remote list that are `what` ("switch"), or that reach the GPU at bus id `pci`. */
static unsigned count_links(const char *list, const char *what, const char *pci)
{
	unsigned n = 0;
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		while (len && *p == ' ') {
			p++;
			len--;
		}
		while (len && p[len - 1] == ' ')
			len--;
		if (what && len == strlen(what) && strncmp(p, what, len) == 0)
			n++;
		if (pci && pci[0] && len == 4 + strlen(pci) && strncmp(p, "gpu:", 4) == 0 &&
		    strncasecmp(p + 4, pci, len - 4) == 0)
			n++;
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

int gt_ranks_link_peak(const struct gt_rank *r, uint32_t src, uint32_t dst, double *peak_gbps,
                       unsigned *links)
{
	*peak_gbps = NAN;
	*links = 0;
	const struct gt_rank_device *a = device_of(r, src), *b = device_of(r, dst);
	if (!a || !b || !a->nvlink_known || !b->nvlink_known)
		return GT_LINK_UNKNOWN;
	unsigned direct = count_links(a->nvlink_remote, NULL, b->pci);
	unsigned sa = count_links(a->nvlink_remote, "switch", NULL);
	unsigned sb = count_links(b->nvlink_remote, "switch", NULL);
	unsigned n = direct + (sa < sb ? sa : sb);
	if (n) {
		if (!(a->link_gbps > 0) || !(b->link_gbps > 0))
			return GT_LINK_UNKNOWN;
		*links = n;
		*peak_gbps = n * (a->link_gbps < b->link_gbps ? a->link_gbps : b->link_gbps);
		return GT_LINK_NVLINK;
	}
	if (a->peak_pcie > 0 && b->peak_pcie > 0) {
		*peak_gbps = a->peak_pcie < b->peak_pcie ? a->peak_pcie : b->peak_pcie;
		return GT_LINK_PCIE;
	}
	return GT_LINK_UNKNOWN;
}

static int cmp_peer(const void *pa, const void *pb)
{
	const struct gt_rank_peer *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return a->dst < b->dst ? -1 : a->dst > b->dst;
}

static void finish_peers(struct gt_ranks *g)
{
	if (g->npeers) /* qsort with a null array is undefined even for 0 elements */
		qsort(g->peers, g->npeers, sizeof *g->peers, cmp_peer);
	for (size_t i = 0; i < g->npeers; i++) {
		struct gt_rank_peer *p = &g->peers[i];
		p->median = p->p10 = p->p90 = p->min = p->max = NAN;
		if (p->nrates) {
			struct gt_stats st;
			gt_stats_sort_double(p->rates, p->nrates);
			gt_stats_from_sorted_double(&st, p->rates, p->nrates);
			p->median = st.median;
			p->min = st.min;
			p->max = st.max;
			p->p10 = gt_stats_percentile_double(p->rates, p->nrates, 10);
			p->p90 = st.p90;
		}
		p->link = gt_ranks_link_peak(&g->ranks[p->rank], p->src, p->dst, &p->peak, &p->links);
		p->pct = p->peak > 0 ? 100 * p->median / p->peak : NAN;
		free(p->rates);
		p->rates = NULL;
		p->nrates = p->cap = 0;
	}
}

/* ---- the whole -------------------------------------------------------------------------------- */

int gt_ranks_run(struct gt_ranks *g, char *const *paths, size_t n, const struct gt_ranks_options *o)
{
	memset(g, 0, sizeof *g);
	g->most_slowest = g->most_waited = SIZE_MAX;
	g->lag_uncertainty_ns = NAN;
	int rc = GT_ERR_NOMEM;
	if (gt_summary_init(&g->merged, o->warmup) != 0)
		goto fail;
	if (n && !(g->ranks = calloc(n, sizeof *g->ranks)))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		struct gt_rank *r = &g->ranks[i];
		gt_align_init(&r->align);
		gt_tl_union_init(&r->comm);
		r->slowest_ratio = NAN;
		if (gt_summary_init(&r->summary, o->warmup) != 0)
			goto fail;
		g->nranks = i + 1;
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = read_trace(g, i, paths[i])) != 0) {
			if (rc != GT_ERR_NOMEM && !gt_failed())
				rc = gt_fail(rc, "cannot read trace '%s': %s", paths[i], gt_strerror(rc));
			goto fail;
		}
		if ((rc = gt_summary_finish(&g->ranks[i].summary, NULL)) != 0)
			goto fail;
		gt_summary_sort(&g->ranks[i].summary, GT_SORT_TOTAL);
	}
	if ((rc = gt_summary_finish(&g->merged, NULL)) != 0)
		goto fail;
	gt_summary_sort(&g->merged, GT_SORT_TOTAL);
	assign_ranks(g);
	if ((rc = sort_ranks(g)) != 0)
		goto fail;
	if ((rc = hosts_and_duplicates(g)) != 0)
		goto fail;
	align_ranks(g);
	if ((rc = kernel_spread(g)) != 0)
		goto fail;
	if ((rc = choose_steps(g, o)) != 0)
		goto fail;
	if ((rc = straggler(g)) != 0)
		goto fail;
	finish_peers(g);
	return 0;
fail:
	gt_ranks_release(g);
	return rc;
}

void gt_ranks_release(struct gt_ranks *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nranks; i++) {
		struct gt_rank *r = &g->ranks[i];
		free(r->path);
		free(r->rank_meta);
		free(r->rank_from);
		free(r->host);
		free(r->pid);
		for (size_t k = 0; k < r->ndevices; k++)
			free(r->devices[k].nvlink_remote);
		free(r->devices);
		free(r->synthetic);
		gt_align_release(&r->align);
		gt_summary_release(&r->summary);
		gt_split_release(&r->split);
		gt_tl_union_release(&r->comm);
	}
	free(g->ranks);
	gt_summary_release(&g->merged);
	free(g->spread);
	free(g->steps_range);
	free(g->steps);
	free(g->step_dur);
	free(g->step_end);
	free(g->step_comm);
	for (size_t i = 0; i < g->npeers; i++)
		free(g->peers[i].rates);
	free(g->peers);
	memset(g, 0, sizeof *g);
}
