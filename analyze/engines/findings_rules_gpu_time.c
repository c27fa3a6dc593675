/* findings_rules_gpu_time.c: the gpu_time family: how each device's GPU span (its first
 * operation's start to its last one's end) was used: idle gaps between its operations, and slices
 * of the span that its work covered too thinly (as nsys's gpu_time_util rule).
 *
 * A device's three arrays of operations (kernels, copies, memsets), each sorted by start, are
 * merged on the fly: one walk in time order finds the idle gaps (and what ran on either side), and
 * another spreads the union of busy time over the slices, with no union kept.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"
#include "analyze/support/kname.h"

#include <stdio.h>
#include <stdlib.h>

/* The three arrays of a device in start order. */
struct merged {
	const struct op *v[OP_KINDS];
	size_t n[OP_KINDS], i[OP_KINDS];
};

static void merged_init(struct merged *m, const struct devops *d)
{
	for (int k = 0; k < OP_KINDS; k++) {
		m->v[k] = d->ops[k].buf.p;
		m->n[k] = d->ops[k].n;
		m->i[k] = 0;
	}
}

static const struct op *merged_next(struct merged *m)
{
	int best = -1;
	for (int k = 0; k < OP_KINDS; k++)
		if (m->i[k] < m->n[k] && (best < 0 || m->v[k][m->i[k]].start < m->v[best][m->i[best]].start))
			best = k;
	return best < 0 ? NULL : &m->v[best][m->i[best]++];
}

/* What a label names, for "where". */
static const char *label_text(const struct gt_reader *r, uint32_t label, char *buf, size_t len)
{
	if (LBL_KIND(label) == LBL_COPY)
		snprintf(buf, len, "a %s copy", gt_copy_kind_name((int)(label & 0xff)));
	else if (LBL_KIND(label) == LBL_MEMSET)
		snprintf(buf, len, "a memset");
	else {
		char *d = gt_kernel_short_name(gt_reader_string(r, label));
		snprintf(buf, len, "kernel %s", d ? d : gt_reader_string(r, label));
		free(d);
	}
	return buf;
}

/* Slice i of ns over [s0, s1) starts here (slice ns: s1); rounding to the ns as the ends do. */
static uint64_t slice_lo(uint64_t s0, uint64_t s1, double len, unsigned ns, unsigned i)
{
	return i >= ns ? s1 : s0 + (uint64_t)(len * i);
}

/* Adds the busy span [a, b) to the slices it crosses. */
static void spread(double *busy, unsigned ns, uint64_t s0, uint64_t s1, double len, uint64_t a, uint64_t b)
{
	if (b <= a)
		return;
	unsigned k = (unsigned)((double)(a - s0) / len);
	if (k >= ns)
		k = ns - 1;
	while (k > 0 && slice_lo(s0, s1, len, ns, k) > a)
		k--;
	while (k + 1 < ns && slice_lo(s0, s1, len, ns, k + 1) <= a)
		k++;
	for (; k < ns; k++) {
		uint64_t lo = slice_lo(s0, s1, len, ns, k), hi = slice_lo(s0, s1, len, ns, k + 1);
		if (lo >= b)
			break;
		uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
		if (y > x)
			busy[k] += (double)(y - x);
	}
}

struct gap {
	uint64_t start, end;
	uint32_t before, after, before_stream, after_stream;
};

/* Keeps g among the three longest gaps in top (longest first), ntop of them so far. */
static void keep_longest(struct gap top[3], size_t *ntop, const struct gap *g)
{
	uint64_t len = g->end - g->start;
	size_t j;
	if (*ntop < 3)
		j = (*ntop)++;
	else if (len > top[2].end - top[2].start)
		j = 2;
	else
		j = 3;
	if (j < 3) {
		top[j] = *g;
		while (j > 0 && len > top[j - 1].end - top[j - 1].start) {
			struct gap x = top[j];
			top[j] = top[j - 1];
			top[j - 1] = x;
			j--;
		}
	}
}

/* The idle-gaps finding of a device (n > 0 operations). */
static int idle_gaps(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule,
                     const struct devops *d)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	/* Idle gaps, with what ran on either side: the operation that reached furthest before the
	 * gap and the one that ends it. */
	struct merged mg;
	merged_init(&mg, d);
	const struct op *op = merged_next(&mg);
	uint64_t maxend = op->end, count = 0;
	uint32_t before = op->label, before_stream = op->stream;
	double total = 0;
	struct gap top[3];
	size_t ntop = 0;
	while ((op = merged_next(&mg))) {
		if (op->start >= maxend + o->gap_ns) {
			struct gap g = { maxend, op->start, before, op->label, before_stream, op->stream };
			count++;
			total += (double)(g.end - g.start);
			keep_longest(top, &ntop, &g);
		}
		if (op->end > maxend) {
			maxend = op->end;
			before = op->label;
			before_stream = op->stream;
		}
	}
	if (!count)
		return 0;
	char where[1024], a[256], b[256], t[64], pc[64];
	size_t w = 0;
	for (size_t j = 0; j < ntop && w < sizeof where; j++)
		w += (size_t)snprintf(where + w, sizeof where - w, "%s%.3f ms %s, after %s (stream %u), before %s (stream %u)",
		                      j ? "; " : "", (double)(top[j].end - top[j].start) / 1e6,
		                      gt_fd_at(top[j].start, F->origin, t, sizeof t),
		                      label_text(r, top[j].before, a, sizeof a), top[j].before_stream,
		                      label_text(r, top[j].after, b, sizeof b), top[j].after_stream);
	if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, total),
	              gt_fd_fmt("device %u: %llu %s of at least %.3f ms with no GPU work (%.3f ms in all) between "
	                        "its first and last operation",
	                        d->device, (unsigned long long)count, gt_fd_pl(count, "gap", "gaps"), (double)o->gap_ns / 1e6,
	                        total / 1e6),
	              gt_fd_fmt("the longest: %s", where), total,
	              gt_fd_fmt("the gaps' summed length (%s): GPU time nothing used",
	                        gt_fd_pct_of_span(F, total, pc, sizeof pc)),
	              gt_fd_fmt("See what the host did in those gaps (gpuanalyze dump --type api): CPU work, "
	                        "allocation or synchronisation between launches; queue work ahead, overlap host "
	                        "work with the GPU, move allocations out of the loop, or use CUDA graphs")))
		return GT_ERR_NOMEM;
	gt_fd_set_where(gt_fd_last(F), top[0].start, F->origin, top[0].after_stream);
	gt_fd_last(F)->count = count;
	return 0;
}

/* Busy time of each of the ns slices (len ns each) of [s0, s1): the union of the device's operations,
 * walked once in start order, spread over the slices each merged span crosses. */
static void busy_slices(const struct devops *d, double *busy, unsigned ns, uint64_t s0, uint64_t s1, double len)
{
	struct merged mg;
	merged_init(&mg, d);
	const struct op *op = merged_next(&mg);
	uint64_t cs = op->start, ce = op->end;
	for (;;) {
		op = merged_next(&mg);
		if (op && op->start <= ce) {
			if (op->end > ce)
				ce = op->end;
			continue;
		}
		spread(busy, ns, s0, s1, len, cs, ce);
		if (!op)
			break;
		cs = op->start;
		ce = op->end;
	}
}

/* The low-utilization finding of a device (n > 0 operations): the slices of its GPU span less busy
 * than the threshold. */
static int low_utilization(struct findings_pass *p, const struct findings_rule *rule, const struct devops *d)
{
	uint64_t s0 = d->first, s1 = d->last;
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	unsigned ns = o->slices;
	if (!(s1 > s0 && ns > 0 && s1 - s0 >= ns))
		return 0;
	double len = (double)(s1 - s0) / ns;
	double *busy = calloc(ns, sizeof *busy);
	if (!busy)
		return GT_ERR_NOMEM;
	busy_slices(d, busy, ns, s0, s1, len);
	uint64_t regions = 0, low = 0, worst_at = 0;
	double idle = 0, low_time = 0, worst = 101;
	int in = 0;
	for (unsigned i = 0; i < ns; i++) {
		uint64_t a = slice_lo(s0, s1, len, ns, i), b = slice_lo(s0, s1, len, ns, i + 1);
		double util = b > a ? 100.0 * busy[i] / (double)(b - a) : 100;
		if (util < o->util_pct) {
			low++;
			low_time += (double)(b - a);
			idle += (double)(b - a) - busy[i];
			regions += !in;
			in = 1;
			if (util < worst) {
				worst = util;
				worst_at = a;
			}
		} else {
			in = 0;
		}
	}
	free(busy);
	if (!low)
		return 0;
	char t[64], pc[64];
	if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, idle),
	              gt_fd_fmt("device %u: %llu of %u slices of its GPU span (%.3f ms each) were less than "
	                        "%.0f%% busy, in %llu %s, %.3f ms in all; the least busy was %.1f%% busy",
	                        d->device, (unsigned long long)low, ns, len / 1e6, o->util_pct,
	                        (unsigned long long)regions, gt_fd_pl(regions, "region", "regions"), low_time / 1e6, worst),
	              gt_fd_fmt("the least busy slice %s", gt_fd_at(worst_at, F->origin, t, sizeof t)), idle,
	              gt_fd_fmt("the idle time inside those slices (%s)", gt_fd_pct_of_span(F, idle, pc, sizeof pc)),
	              gt_fd_fmt("Look at the timeline there (gpuanalyze split, or export): launch more work per "
	                        "call, batch small kernels, overlap copies with compute, or run independent "
	                        "work on more streams")))
		return GT_ERR_NOMEM;
	gt_fd_set_where(gt_fd_last(F), worst_at, F->origin, -1);
	gt_fd_last(F)->count = low;
	return 0;
}

/* Per device, its idle gaps. */
int gt_fd_idle_gaps(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	for (size_t i = 0; i < p->ndev; i++) {
		int rc = p->dev[i].n ? idle_gaps(p, r, rule, &p->dev[i]) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* Per device, its slices of low utilisation. */
int gt_fd_low_utilization(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	(void)r;
	for (size_t i = 0; i < p->ndev; i++) {
		int rc = p->dev[i].n ? low_utilization(p, rule, &p->dev[i]) : 0;
		if (rc)
			return rc;
	}
	return 0;
}
