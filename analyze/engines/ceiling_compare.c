/* ceiling_compare.c: per-launch counts of two ceiling analyses, kernel by kernel
 * (ceiling_compare.h). NEW's kernels are sorted by name once, so each of BASE's is a binary search. */
#include "analyze/engines/ceiling_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
	const struct gt_ceil_kernel *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

/* (new - old) / old; NaN when either is not measured, or old is 0 and new is not. */
static double change(double old, double new)
{
	if (!isfinite(old) || !isfinite(new))
		return NAN;
	if (old == 0)
		return new == 0 ? 0 : NAN;
	return (new - old) / old;
}

/* Beyond the tolerance, or from nothing to something. */
static int beyond(double old, double new, double ch)
{
	if (!isfinite(old) || !isfinite(new))
		return 0;
	return isnan(ch) ? 1 : fabs(ch) > GT_CEIL_COMPARE_TOL;
}

int gt_ceil_compare(struct gt_ceil_compare *out, const struct gt_ceil_analysis *base,
                    const struct gt_ceil_analysis *new)
{
	memset(out, 0, sizeof *out);
	const struct gt_ceil_kernel **idx = malloc((new->nkernels ? new->nkernels : 1) * sizeof *idx);
	if (!idx || !(out->rows = calloc(base->nkernels ? base->nkernels : 1, sizeof *out->rows))) {
		free(idx);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < new->nkernels; i++)
		idx[i] = &new->kernels[i];
	qsort(idx, new->nkernels, sizeof *idx, cmp_name);
	for (size_t i = 0; i < base->nkernels; i++) {
		const struct gt_ceil_kernel *b = &base->kernels[i], key = { .name = b->name }, *kp = &key;
		const struct gt_ceil_kernel **hit = bsearch(&kp, idx, new->nkernels, sizeof *idx, cmp_name);
		if (!hit)
			continue;
		const struct gt_ceil_kernel *n = *hit;
		int bytes = isfinite(b->dram_bytes) && isfinite(n->dram_bytes);
		int flops = isfinite(b->flops) && isfinite(n->flops);
		if (!bytes && !flops)
			continue;
		struct gt_ceil_compare_row *r = &out->rows[out->n++];
		r->name = b->name;
		r->base_bytes = b->dram_bytes;
		r->new_bytes = n->dram_bytes;
		r->bytes_change = change(b->dram_bytes, n->dram_bytes);
		r->base_flops = b->flops;
		r->new_flops = n->flops;
		r->flops_change = change(b->flops, n->flops);
		r->changed = beyond(b->dram_bytes, n->dram_bytes, r->bytes_change) ||
		             beyond(b->flops, n->flops, r->flops_change);
		out->changed += r->changed;
	}
	free(idx);
	return 0;
}

void gt_ceil_compare_release(struct gt_ceil_compare *c)
{
	if (!c)
		return;
	free(c->rows);
	memset(c, 0, sizeof *c);
}
