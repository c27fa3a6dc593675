/* diff_counters.h: diff's section on hardware counters: each kernel's DRAM bytes and FLOPs per
 * launch in BASE and NEW, flagged when they changed beyond GT_CEIL_COMPARE_TOL. Only when both
 * sides hold counters; otherwise diff's output is what it was without them. */
#ifndef GT_DIFF_COUNTERS_H
#define GT_DIFF_COUNTERS_H

#include "analyze/engines/ceiling.h"
#include "analyze/engines/ceiling_compare.h"
#include "analyze/output/doc.h"

#include <stddef.h>

struct gt_diff_counters {
	struct gt_ceil_analysis base, new;
	struct gt_ceil_compare cmp;
	int ran;                 /* base and new hold results to release */
	int have;                /* both sides hold counters: the section is shown */
};

/* Reads the counters of both sides' traces. 0; a negative GT_ERR_* (held, or GT_ERR_NOMEM). */
int gt_diff_counters_run(struct gt_diff_counters *dc, char *const *base, size_t nbase, char *const *new,
                         size_t nnew);
/* The section (text, Markdown: a heading, the rule and a table; JSON: the table "counters").
 * 0 or GT_ERR_*. Nothing when dc->have is 0. */
int gt_diff_counters_doc(struct gt_doc *d, const struct gt_diff_counters *dc);
void gt_diff_counters_release(struct gt_diff_counters *dc);

#endif
