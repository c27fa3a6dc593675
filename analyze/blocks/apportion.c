/* apportion.c: the rule of apportion.h, as a sweep over each device's launches and samples.
 *
 * Launch starts and ends, sorted, cut a device's time into pieces; the running count and the sum
 * of (group + 1) of the launches running name the owner of a piece where exactly one runs. Busy
 * time before any instant is a prefix sum over the pieces, so each sample's busy time is two
 * binary searches. The samples' rates then change only at their own ends, so one merge of the
 * pieces with those ends integrates every rate over every piece.
 */
#include "analyze/blocks/apportion.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SHARED UINT32_MAX

struct piece {
	uint64_t start, end;
	uint32_t owner;          /* a group, SHARED */
};

struct lev {                 /* a launch's start or end */
	uint64_t t;
	int32_t delta;           /* +1 start, -1 end */
	uint32_t group;
};

struct sev {                 /* a sample's start or end */
	uint64_t t;
	double rate;             /* + at the start, - at the end */
	int32_t delta;
	uint32_t slot;
};

static int cmp_launch(const void *pa, const void *pb)
{
	const struct gt_ap_launch *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct gt_ap_sample *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int cmp_lev(const void *pa, const void *pb)
{
	const struct lev *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > b->delta) - (a->delta < b->delta);
}

static int cmp_sev(const void *pa, const void *pb)
{
	const struct sev *a = pa, *b = pb;
	return (a->t > b->t) - (a->t < b->t);
}

/* Busy ns before t: pieces are disjoint and ordered, pre[k] the busy ns of pieces 0..k-1. */
static double busy_before(const struct piece *p, const double *pre, size_t np, uint64_t t)
{
	size_t lo = 0, hi = np; /* first piece starting at or after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	const struct piece *q = &p[lo - 1];
	return pre[lo - 1] + (double)((t < q->end ? t : q->end) - q->start);
}

/* One device: launches l[0..nl), samples s[0..ns). */
static int one_device(const struct gt_ap_launch *l, size_t nl, const struct gt_ap_sample *s, size_t ns,
                      struct gt_ap_out *o)
{
	int rc = GT_ERR_NOMEM;
	struct lev *le = malloc((2 * nl + 1) * sizeof *le);
	struct piece *pc = malloc((2 * nl + 1) * sizeof *pc);
	double *pre = malloc((2 * nl + 1) * sizeof *pre);
	struct sev *se = malloc((2 * ns + 1) * sizeof *se);
	double *rate = calloc(o->nslots + 1, sizeof *rate);
	int64_t *cover = calloc(o->nslots + 1, sizeof *cover);
	if (!le || !pc || !pre || !se || !rate || !cover)
		goto out;
	size_t nle = 0;
	for (size_t i = 0; i < nl; i++) {
		if (l[i].end <= l[i].start || l[i].group >= o->ngroups)
			continue;
		le[nle++] = (struct lev){ l[i].start, +1, l[i].group };
		le[nle++] = (struct lev){ l[i].end, -1, l[i].group };
	}
	qsort(le, nle, sizeof *le, cmp_lev);
	size_t np = 0;
	int64_t running = 0;
	uint64_t gsum = 0, prev = 0;
	for (size_t i = 0; i < nle;) {
		uint64_t t = le[i].t;
		if (running > 0 && t > prev) {
			uint32_t owner = running == 1 ? (uint32_t)(gsum - 1) : SHARED;
			if (np && pc[np - 1].end == prev && pc[np - 1].owner == owner)
				pc[np - 1].end = t;
			else
				pc[np++] = (struct piece){ prev, t, owner };
		}
		for (; i < nle && le[i].t == t; i++) {
			running += le[i].delta;
			gsum += le[i].delta > 0 ? (uint64_t)le[i].group + 1 : -((uint64_t)le[i].group + 1);
		}
		prev = t;
	}
	/* Each launch's time alone and shared: the pieces it owns, and the rest of it. */
	double acc = 0;
	for (size_t k = 0; k < np; k++) {
		pre[k] = acc;
		double len = (double)(pc[k].end - pc[k].start);
		acc += len;
		if (pc[k].owner != SHARED)
			o->solo_ns[pc[k].owner] += len;
	}
	for (size_t i = 0; i < nl; i++)
		if (l[i].end > l[i].start && l[i].group < o->ngroups)
			o->shared_ns[l[i].group] += (double)(l[i].end - l[i].start);
	/* (shared_ns holds the total until the solo time is taken out below) */
	size_t nse = 0;
	for (size_t i = 0; i < ns; i++) {
		double v = s[i].value;
		if (s[i].end <= s[i].start || !isfinite(v) || v < 0 || s[i].slot >= o->nslots) {
			o->skipped++;
			continue;
		}
		double busy = busy_before(pc, pre, np, s[i].end) - busy_before(pc, pre, np, s[i].start);
		if (!(busy > 0)) {
			o->idle[s[i].slot] += v;
			continue;
		}
		se[nse++] = (struct sev){ s[i].start, v / busy, +1, s[i].slot };
		se[nse++] = (struct sev){ s[i].end, -v / busy, -1, s[i].slot };
	}
	qsort(se, nse, sizeof *se, cmp_sev);
	size_t e = 0;
	for (size_t k = 0; k < np; k++) {
		uint64_t pos = pc[k].start;
		for (;;) {
			for (; e < nse && se[e].t <= pos; e++) {
				uint32_t sl = se[e].slot;
				rate[sl] += se[e].rate;
				if ((cover[sl] += se[e].delta) <= 0) {
					cover[sl] = 0;
					rate[sl] = 0; /* no drift left behind by + and - of one rate */
				}
			}
			uint64_t to = e < nse && se[e].t < pc[k].end ? se[e].t : pc[k].end;
			double len = (double)(to - pos);
			for (size_t sl = 0; len > 0 && sl < o->nslots; sl++) {
				if (!cover[sl])
					continue;
				if (pc[k].owner == SHARED) {
					o->concurrent[sl] += rate[sl] * len;
				} else {
					o->amount[(size_t)pc[k].owner * o->nslots + sl] += rate[sl] * len;
					o->covered[(size_t)pc[k].owner * o->nslots + sl] += len;
				}
			}
			if (to == pc[k].end)
				break;
			pos = to;
		}
	}
	rc = 0;
out:
	free(le);
	free(pc);
	free(pre);
	free(se);
	free(rate);
	free(cover);
	return rc;
}

int gt_apportion(struct gt_ap_launch *l, size_t nl, struct gt_ap_sample *s, size_t ns, struct gt_ap_out *out)
{
	if (nl) /* the arrays may be NULL when empty (a trace with samples and no kernel) */
		qsort(l, nl, sizeof *l, cmp_launch);
	if (ns)
		qsort(s, ns, sizeof *s, cmp_sample);
	/* shared_ns is built as total minus alone, per call: keep what earlier calls added apart. */
	double *before = malloc((out->ngroups ? out->ngroups : 1) * 2 * sizeof *before);
	if (!before)
		return GT_ERR_NOMEM;
	for (size_t g = 0; g < out->ngroups; g++) {
		before[2 * g] = out->solo_ns[g];
		before[2 * g + 1] = out->shared_ns[g];
		out->solo_ns[g] = out->shared_ns[g] = 0;
	}
	size_t i = 0, j = 0;
	int rc = 0;
	while (!rc && (i < nl || j < ns)) {
		uint32_t dev = i < nl && (j >= ns || l[i].device <= s[j].device) ? l[i].device : s[j].device;
		size_t i2 = i, j2 = j;
		while (i2 < nl && l[i2].device == dev)
			i2++;
		while (j2 < ns && s[j2].device == dev)
			j2++;
		rc = one_device(nl ? l + i : NULL, i2 - i, ns ? s + j : NULL, j2 - j, out);
		i = i2;
		j = j2;
	}
	for (size_t g = 0; g < out->ngroups; g++) {
		double total = out->shared_ns[g];
		out->shared_ns[g] = before[2 * g + 1] + (total - out->solo_ns[g]);
		out->solo_ns[g] += before[2 * g];
	}
	free(before);
	return rc;
}
