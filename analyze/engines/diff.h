/* diff.h: A/B comparison of two traces, kernel by kernel, with a verdict a CI job can gate on.
 * (Speed, from recorded durations; compare.h checks a kernel's output values instead.)
 *
 * The engine behind `gpuanalyze diff BASE NEW`. For each kernel name present in both traces it
 * compares the GPU durations (samples.h: end - start from CUPTI's activity timestamps, bad
 * timestamps excluded, warm-up dropped by position in each trace):
 *
 *   speedup      median(BASE) / median(NEW): ratios go one way, old over new, and both medians are
 *                printed beside it. > 1: NEW is faster; written "1.23x faster" (the speedup) or
 *                "1.10x slower" (its inverse, new / old).
 *   interval     the 95% bootstrap percentile interval of the speedup (twosample.h): B replicates,
 *                both traces resampled independently, from a random stream seeded by --seed and
 *                the kernel's name.
 *   p            two-sided Mann-Whitney U p-value (twosample.h; SciPy's mannwhitneyu).
 *   verdict      with threshold t (--threshold, default 5%) and L = 1 + t, [lo, hi] the interval:
 *                  UNCLEAR  either side has fewer than min_samples durations (default 10), or a
 *                           median is 0 (the ratio is undefined);
 *                  SLOWER   hi < 1 / L, i.e. the whole interval of new / old is above 1 + t, and
 *                           p < alpha (0.05);
 *                  FASTER   lo > L, i.e. the whole interval of old / new is above 1 + t, and
 *                           p < alpha;
 *                  SAME     1 / L <= lo and hi <= L: the whole interval within the threshold;
 *                  UNCLEAR  otherwise: the interval straddles 1 + t or 1 / (1 + t), or it lies
 *                           beyond but the rank test does not reject (p >= alpha).
 *                A verdict of SLOWER is a change larger than the threshold with 95% confidence,
 *                not merely a detectable one; SAME is an equivalence claim at the same level.
 *   geomean      over the kernels present on both sides with a defined ratio: exp(mean(log
 *                speedup)), with the percentile interval of the same statistic over the kernels'
 *                bootstrap replicates (replicate b of every kernel together) and the same rule
 *                without the rank test (it has none).
 * Kernels present on one side only are listed with their n and median; they have no verdict.
 *
 * Pooled runs (gt_diff_run_pooled): several traces per side, such as repeated runs of one benchmark,
 * count as one sample per side: the union of each kernel's launches over the side's runs, after
 * each run's own warm-up. Runs of one side recorded with another gputrace version or on other
 * device models are still pooled, and said (gt_diff_runs.mixed) so that the caller can warn.
 *
 * Split units (split.h): when both traces mark their work with the same NVTX range (split's NVTX
 * mode, the same range name on both sides), each unit's wall time, GPU kernel busy time, copy time
 * by direction and API time are compared the same way, one row per quantity, the units after the
 * first `warmup` of each trace (by position) being the samples. A row whose quantity is 0 in every
 * unit on both sides is left out. These rows count for the exit status like kernels.
 */
#ifndef GT_DIFF_H
#define GT_DIFF_H

#include "analyze/support/filter.h"
#include "analyze/blocks/samples.h"
#include "analyze/blocks/twosample.h"

#include <stddef.h>
#include <stdint.h>

enum gt_verdict { GT_VERDICT_SAME = 0, GT_VERDICT_FASTER, GT_VERDICT_SLOWER, GT_VERDICT_UNCLEAR };
#define GT_NVERDICTS 4
const char *gt_verdict_name(int v); /* "SAME", "FASTER", "SLOWER", "UNCLEAR" */

struct gt_diff_options {
	double threshold;        /* t, as a fraction: 0.05 for 5% */
	uint64_t warmup;         /* per kernel, per trace */
	uint64_t seed;
	size_t resamples;        /* B */
	size_t min_samples;      /* per side, for any verdict but UNCLEAR */
	double alpha;            /* the rank test's level */
	const struct gt_name_filter *filter; /* NULL: every kernel */
	int no_units;            /* 1: leave split units out (they cost split's memory and work per trace) */
};
/* Threshold 5%, warm-up 0, seed 1, B = 2000, at least 10 samples, alpha 0.05, no filter. */
void gt_diff_options_default(struct gt_diff_options *o);

enum gt_diff_side { GT_DIFF_BOTH = 0, GT_DIFF_BASE_ONLY = 1, GT_DIFF_NEW_ONLY = 2 };

struct gt_diff_row {
	int side;                /* enum gt_diff_side */
	int unit;                /* 1: a split-unit quantity ("render_frame: wall"), not a kernel */
	const struct gt_kernel_sample *base, *new; /* NULL on the side that lacks it */
	const char *name, *display;
	double speedup;          /* median base / median new; NaN when undefined or one-sided */
	struct gt_boot_ci ci;    /* of the speedup */
	struct gt_mwu mwu;       /* base as the first sample */
	int verdict;             /* enum gt_verdict; both sides only */
	char why[160];           /* one line: what decided the verdict */
};

/* The runs pooled on one side (gt_diff_run_pooled). */
struct gt_diff_runs {
	size_t n;                /* 1: one trace, as `diff BASE NEW` */
	const char *const *paths; /* the caller's n paths (NULL after gt_diff_run: base.path names it) */
	char mixed[1024];        /* "" or the first two runs whose gputrace version or device models
	                          * differ, with what each was recorded with */
};

struct gt_diff {
	struct gt_diff_options opt;
	struct gt_samples base, new;
	struct gt_diff_runs base_runs, new_runs;
	struct gt_diff_row *rows; /* kernels on both sides first (SLOWER, UNCLEAR, FASTER, SAME; within
	                           * each, by total time in BASE, descending), then base only, then new
	                           * only; then the split-unit rows */
	size_t nrows, nboth, nbase_only, nnew_only;
	size_t count[GT_NVERDICTS];  /* kernels on both sides, by verdict */
	size_t ucount[GT_NVERDICTS]; /* split-unit rows, by verdict */
	/* split units: rows with unit = 1 follow the kernels' rows when units_done */
	int units_done;
	char units_note[200];    /* why not, or which range and how many units */
	char *unit_range;        /* the NVTX range name */
	size_t units_base, units_new; /* units compared (after warm-up) */
	struct gt_kernel_sample *ubase, *unew; /* one per quantity compared */
	size_t nunit_rows;
	/* geometric mean over the kernels on both sides with a defined ratio */
	size_t geo_k;
	double geo_speedup, geo_lo, geo_hi;
	int geo_verdict;
	char geo_why[160];
};

/* Loads both traces and compares them, split units included: 0; a negative GT_ERR_* with the
 * failure held (failure.h: a trace that cannot be read); GT_ERR_NOMEM, perhaps unheld. d is released
 * by gt_diff_release in every case. */
int gt_diff_run(struct gt_diff *d, const char *base, const char *new, const struct gt_diff_options *o);
/* The same with several runs per side, pooled: a kernel's samples on a side are its launches in
 * all of that side's runs, each run's warm-up dropped on its own; split units likewise, when every
 * run is cut by the same NVTX range. Cost: that of reading every run, O(n log n) in all records.
 * base and new must outlive d (d->base_runs.paths points at them). nbase, nnew >= 1. */
int gt_diff_run_pooled(struct gt_diff *d, const char *const *base, size_t nbase, const char *const *new,
                       size_t nnew, const struct gt_diff_options *o);
/* The comparison alone, on samples already loaded and finished (d takes them over). */
int gt_diff_compute(struct gt_diff *d, struct gt_samples *base, struct gt_samples *new,
                    const struct gt_diff_options *o);
void gt_diff_release(struct gt_diff *d);

/* The verdict rule above on one interval; p NaN skips the rank test (the geometric mean). why
 * (may be NULL) receives one line. */
int gt_diff_verdict(double lo, double hi, double p, const struct gt_diff_options *o, char *why,
                    size_t len);
/* "1.23x faster", "1.10x slower", "1.00x (equal medians)", "n/a", into buf (2 decimals). */
const char *gt_diff_change(double speedup, char *buf, size_t len);
/* 1 when the exit status should be GT_EXIT_CHECK: a SLOWER row, kernel or split unit (or, strict,
 * an UNCLEAR one). */
int gt_diff_failed(const struct gt_diff *d, int strict);

#endif
