/* findings_rules_kernels.c: the kernels family: the spread of one kernel's durations, where a
 * single median would mislead: a first launch far slower than the rest (warm-up left in the
 * data), and durations in two groups split by a wide gap. Only kernels launched at least
 * GT_FINDINGS_MIN_LAUNCHES times are judged: fewer leave no "rest" to compare with.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"
#include "analyze/support/kname.h"
#include "common/grow.h"
#include "common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel whose first launch was slow. */
struct kfind {
	uint32_t id;
	double excess, ratio, first, median;
	uint32_t stream;
	uint64_t start, n;
	double total;
};

static int cmp_kfind(const void *a, const void *b)
{
	const struct kfind *x = a, *y = b;
	return (x->excess < y->excess) - (x->excess > y->excess);
}

/* The kernels whose first launch was slow, as found. */
struct kfinds {
	struct kfind *v;
	size_t n, cap;
};

/* Sorts kernel a's durations, once, and sets the median of the launches other than the first and
 * the durations' sum. One sort serves both rules, whichever runs first. */
static void kernel_ready(struct kacc *a)
{
	if (a->ready)
		return;
	a->ready = 1;
	a->total = 0;
	for (size_t i = 0; i < a->n; i++)
		a->total += (double)a->d[i];
	gt_stats_sort_u64(a->d, a->n);
	/* The median of the launches other than the first: its value is taken out of the sorted
	 * durations (shifted to the end) and put back afterwards. */
	size_t lo = 0, hi = a->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->d[mid] < a->first_dur)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t m = a->n - 1;
	memmove(a->d + lo, a->d + lo + 1, (m - lo) * sizeof *a->d);
	a->median_rest = gt_stats_percentile_u64(a->d, m, 50);
	memmove(a->d + lo + 1, a->d + lo, (m - lo) * sizeof *a->d);
	a->d[lo] = a->first_dur;
}

/* Adds kernel id to the slow first launches when its first took first_ratio times the others' median. */
static int note_first_launch(struct kfinds *s, const struct gt_findings_options *o, size_t id,
                             const struct kacc *a)
{
	double med = a->median_rest;
	if (!(med > 0 && (double)a->first_dur >= o->first_ratio * med))
		return 0;
	struct kfind *q = gt_grow(s->v, &s->cap, s->n, sizeof *q, 16);
	if (!q)
		return GT_ERR_NOMEM;
	s->v = q;
	struct kfind *k = &s->v[s->n++];
	k->id = (uint32_t)id;
	k->first = (double)a->first_dur;
	k->median = med;
	k->excess = k->first - med;
	k->ratio = k->first / med;
	k->stream = a->first_stream;
	k->start = a->first_start;
	k->n = a->n;
	k->total = a->total;
	return 0;
}

/* The bimodal finding of kernel id (durations sorted): two groups split by a wide gap. */
static int bimodal(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule, size_t id,
                   const struct kacc *a)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	if (a->n < o->bimodal_min || a->n < 2)
		return 0;
	/* The widest gap in the sorted durations that leaves bimodal_share on each side. */
	size_t need = (size_t)ceil(o->bimodal_share * (double)a->n);
	if (need < 1)
		need = 1;
	double best = 0;
	size_t split = 0;
	for (size_t i = need - 1; i + need < a->n; i++) {
		if (!a->d[i])
			continue;
		double ratio = (double)a->d[i + 1] / (double)a->d[i];
		if (ratio > best) {
			best = ratio;
			split = i;
		}
	}
	if (best < o->bimodal_ratio)
		return 0;
	size_t nfast = split + 1, nslowg = a->n - nfast;
	double mfast = gt_stats_percentile_u64(a->d, nfast, 50);
	double mslow = gt_stats_percentile_u64(a->d + nfast, nslowg, 50);
	double cost = (mslow - mfast) * (double)nslowg;
	char *name = gt_kernel_short_name(gt_reader_string(r, (uint32_t)id));
	if (!name)
		return GT_ERR_NOMEM;
	char pc[64];
	int rc = gt_fd_add(F, rule, GT_SEV_WARNING,
	                   gt_fd_fmt("kernel %s has two groups of durations: %zu launches with median %.3f us and %zu "
	                             "with median %.3f us, split by a gap of %.2fx between %.3f and %.3f us",
	                             name, nfast, mfast / 1e3, nslowg, mslow / 1e3, best, (double)a->d[split] / 1e3,
	                             (double)a->d[split + 1] / 1e3),
	                   gt_fd_fmt("kernel %s, stream %u (of its first launch)", name, a->first_stream), cost,
	                   gt_fd_fmt("the slow group's excess over the fast group's median, times its launches (%s)",
	                             gt_fd_pct_of_span(F, cost, pc, sizeof pc)),
	                   gt_fd_fmt("Find what differs between the groups (input sizes, launch configuration, kernels "
	                             "running beside it, clocks) and report them apart: one median of both hides it"));
	if (rc) {
		free(name);
		return rc;
	}
	gt_fd_last(F)->kernel = name;
	gt_fd_last(F)->stream = a->first_stream;
	gt_fd_last(F)->count = nslowg;
	if (!(gt_fd_last(F)->kernel_name = strdup(gt_reader_string(r, (uint32_t)id))))
		return GT_ERR_NOMEM;
	return 0;
}

/* The first-launch finding: the slow first launches (at least one), the costliest first. */
static int first_launch(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule,
                        struct kfinds *s)
{
	struct gt_findings *F = p->F;
	const struct gt_findings_options *o = &F->opt;
	struct kfind *slow = s->v;
	size_t nslow = s->n;
	qsort(slow, nslow, sizeof *slow, cmp_kfind);
	char list[2048] = "";
	size_t n = 0;
	double excess = 0;
	int warn = 0;
	for (size_t i = 0; i < nslow; i++) {
		excess += slow[i].excess;
		warn |= slow[i].excess >= o->warn_pct / 100 * slow[i].total;
		if (i < 5 && n < sizeof list) {
			char *d = gt_kernel_short_name(gt_reader_string(r, slow[i].id));
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s: first %.3f us, %.1fx the median %.3f us of the other %llu",
			                      i ? "; " : "", d ? d : "?", slow[i].first / 1e3, slow[i].ratio,
			                      slow[i].median / 1e3, (unsigned long long)(slow[i].n - 1));
			free(d);
		}
	}
	char *top = gt_kernel_short_name(gt_reader_string(r, slow[0].id));
	char t[64];
	int rc = gt_fd_add(F, rule, warn ? GT_SEV_WARNING : GT_SEV_INFO,
	                   gt_fd_fmt("%zu %s first launch took at least %.1fx the median of the other launches "
	                             "(warm-up still in the data): %s%s",
	                             nslow, nslow == 1 ? "kernel's" : "kernels'", o->first_ratio, list,
	                             nslow > 5 ? "; ..." : ""),
	                   gt_fd_fmt("kernel %s, first launch %s, stream %u", top ? top : "?",
	                             gt_fd_at(slow[0].start, F->origin, t, sizeof t),
	                             slow[0].stream),
	                   excess,
	                   gt_fd_fmt("each first launch's excess over the median of the others, summed"),
	                   gt_fd_fmt("Drop warm-up by position when timing (gpuanalyze summary/diff --warmup 1 or more), "
	                             "run untimed iterations first, and consider CUDA_MODULE_LOADING=EAGER to load "
	                             "modules before the first launch"));
	if (rc) {
		free(top);
		return rc;
	}
	gt_fd_last(F)->kernel = top;
	gt_fd_set_where(gt_fd_last(F), slow[0].start, F->origin, slow[0].stream);
	gt_fd_last(F)->count = nslow;
	if (!(gt_fd_last(F)->kernel_name = strdup(gt_reader_string(r, slow[0].id))))
		return GT_ERR_NOMEM;
	return 0;
}

/* Per kernel, durations in two groups. */
int gt_fd_bimodal(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	int rc = 0;
	for (size_t id = 0; id < p->nk && !rc; id++) {
		struct kacc *a = &p->k[id];
		if (a->n < GT_FINDINGS_MIN_LAUNCHES)
			continue;
		kernel_ready(a);
		rc = bimodal(p, r, rule, id, a);
	}
	return rc;
}

/* The kernels whose first launch was slow, in one finding. */
int gt_fd_first_launch(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct kfinds slow = { NULL, 0, 0 };
	int rc = 0;
	for (size_t id = 0; id < p->nk && !rc; id++) {
		struct kacc *a = &p->k[id];
		if (a->n < GT_FINDINGS_MIN_LAUNCHES)
			continue;
		kernel_ready(a);
		rc = note_first_launch(&slow, &p->F->opt, id, a);
	}
	if (!rc && slow.n)
		rc = first_launch(p, r, rule, &slow);
	free(slow.v);
	return rc;
}
