/* ceiling_compare.h: two ceiling analyses side by side, kernel by kernel: DRAM bytes and FLOPs per
 * launch in each, and whether either changed by more than a stated tolerance.
 *
 * For `gpuanalyze diff` when both sides hold hardware counters. The counts are the work a kernel
 * does per launch, not its speed: a change beyond the tolerance says the kernel moves or computes
 * a different amount (another algorithm, size or caching), which a duration change alone does not.
 */
#ifndef GT_CEILING_COMPARE_H
#define GT_CEILING_COMPARE_H

#include "analyze/engines/ceiling.h"

#include <stddef.h>

/* A relative change of a per-launch count beyond this is flagged (10% of the larger side: replayed
 * counts repeat within a few per cent, sampled ones carry their apportioning's error). */
#define GT_CEIL_COMPARE_TOL 0.10

struct gt_ceil_compare_row {
	const char *name;        /* the kernel's (mangled), owned by the base analysis */
	double base_bytes, new_bytes, bytes_change; /* DRAM bytes per launch; change (new-old)/old; NaN */
	double base_flops, new_flops, flops_change;
	int changed;             /* either change beyond the tolerance */
};

struct gt_ceil_compare {
	struct gt_ceil_compare_row *rows; /* kernels on both sides with a count on both, base order */
	size_t n;
	size_t changed;
};

/* Fills out from base and new (which must outlive it). 0 or GT_ERR_NOMEM. */
int gt_ceil_compare(struct gt_ceil_compare *out, const struct gt_ceil_analysis *base,
                    const struct gt_ceil_analysis *new);
void gt_ceil_compare_release(struct gt_ceil_compare *c);

#endif
