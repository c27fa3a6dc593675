/* common/stats.h: the tool's statistics, each one defined here once, and warm-up dropped by position.
 *
 * Every number gpuanalyze and `gputrace replay` print about a distribution of durations comes from
 * struct gt_stats, so the definitions below are the definitions of the whole tool (gpuanalyze(1)
 * repeats them):
 *
 *   median       the middle value of the sorted sample; the mean of the two middle values when n is
 *                even (numpy.median).
 *   MAD          median absolute deviation: the median of |x_i - median| (scipy.stats.
 *                median_abs_deviation, scale=1). Printed raw and scaled by GT_MAD_SCALE = 1.4826,
 *                which makes it estimate the standard deviation of normal data; labelled so.
 *   percentiles  NumPy's default 'linear' rule (Hyndman and Fan's definition 7): with the sample
 *                sorted, h = (n - 1) * p / 100, lo = floor(h); the value is x[lo] interpolated
 *                towards x[lo + 1] by h - lo (x[n - 1] when h >= n - 1). Computed with NumPy's own
 *                two-sided interpolation so that results agree to the last bit.
 *   IQR          p75 - p25, both by the rule above.
 *   mean         sum / n;  stddev: sample standard deviation, sqrt(sum (x - mean)^2 / (n - 1)).
 *   outliers     values more than 3 scaled MADs from the median: |x - median| > 3 * 1.4826 * MAD.
 *                When MAD is 0 (more than half the sample equals the median; common with a coarse
 *                GPU timer) that rule would call every other value an outlier, so the spread is
 *                estimated instead by 1.2533 (= sqrt(pi/2)) times the mean absolute deviation from
 *                the median, as Iglewicz and Hoaglin's modified z-score does; if that is 0 too (all
 *                values equal) there are no outliers. outlier_rule says which rule applied.
 *
 * n = 0 gives NaN for every value (printed "n/a"); n = 1 gives stddev NaN (n - 1 = 0), MAD 0 and no
 * outliers. NaN inputs are refused (a duration is never NaN; refusing keeps every definition above
 * meaningful). Functions whose name says "sorted" trust that the caller sorted ascending.
 */
#ifndef GT_STATS_H
#define GT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* common/ is below every stage and includes nothing of the project, so it names its two error
 * returns itself; they equal traces/gputrace.h's GT_STATS_ERR_NOMEM and GT_STATS_ERR_ARG (analyze/engines/summary.c
 * asserts so at compile time), and callers pass them on as those. */
#define GT_STATS_ERR_NOMEM (-2)
#define GT_STATS_ERR_ARG (-8)

#define GT_MAD_SCALE 1.4826
#define GT_MEANAD_SCALE 1.2533141373155003 /* sqrt(pi / 2) */
#define GT_OUTLIER_MADS 3.0

enum gt_outlier_rule {
	GT_OUTLIER_NONE = 0,   /* n == 0, or every value equal */
	GT_OUTLIER_MAD = 1,    /* |x - median| > 3 * 1.4826 * MAD */
	GT_OUTLIER_MEANAD = 2, /* MAD was 0: |x - median| > 3 * 1.2533 * mean |x - median| */
};

struct gt_stats {
	size_t n;
	double total;            /* sum of the values (0 when n == 0) */
	double min, max;
	double mean, stddev;     /* stddev: sample (n - 1) */
	double median;
	double mad;              /* raw */
	double mad_scaled;       /* GT_MAD_SCALE * mad */
	double p25, p75, p90, p99;
	double iqr;              /* p75 - p25 */
	size_t outliers;
	double outlier_limit;    /* a value counts when |x - median| > outlier_limit (NaN: rule NONE) */
	int outlier_rule;        /* enum gt_outlier_rule */
};

/* Sorts x in place and fills s. Returns 0, or GT_STATS_ERR_ARG (s->n = 0, all NaN) when a value is NaN. */
int gt_stats_compute_double(struct gt_stats *s, double *x, size_t n);
/* Sorts x in place and fills s. Always succeeds. (Durations in ns fit 32 bits up to 4.29 s; the
 * summary keeps them so, which halves its memory.) */
void gt_stats_compute_u64(struct gt_stats *s, uint64_t *x, size_t n);
void gt_stats_compute_u32(struct gt_stats *s, uint32_t *x, size_t n);
/* The same on a sample the caller already sorted ascending (and, for doubles, without NaN). */
void gt_stats_from_sorted_double(struct gt_stats *s, const double *x, size_t n);
void gt_stats_from_sorted_u64(struct gt_stats *s, const uint64_t *x, size_t n);
void gt_stats_from_sorted_u32(struct gt_stats *s, const uint32_t *x, size_t n);

/* Percentile p (0..100) of a sorted sample by the 'linear' rule above; NaN when n == 0. */
double gt_stats_percentile_double(const double *x, size_t n, double p);
double gt_stats_percentile_u64(const uint64_t *x, size_t n, double p);

/* Sort ascending. Integers: a counting sort when max - min < 65536 (one kernel's durations usually
 * are), otherwise an LSD radix sort over the bits that vary, in at most 11-bit digits (two passes
 * for a spread of 4 ms); qsort only when the radix sort's scratch buffer cannot be had. */
void gt_stats_sort_u64(uint64_t *x, size_t n);
void gt_stats_sort_u32(uint32_t *x, size_t n);
void gt_stats_sort_double(double *x, size_t n);

/* ---- warm-up, by position ------------------------------------------------------------------
 * A sample in the order the trace holds it: records arrive out of order (CUPTI hands over buffers,
 * streams interleave), so "the first N launches" means the N earliest by start time, ties broken by
 * the order in the file. Never by value: dropping the slowest runs is a different, biased statistic. */
struct gt_sample {
	uint64_t start;          /* when it began (ns); orders the warm-up */
	uint64_t value;          /* what is measured (ns) */
};

/* Removes the warmup earliest samples, keeping the others in their order. Returns how many remain,
 * or a negative GT_STATS_ERR_NOMEM (x unchanged). */
ptrdiff_t gt_stats_drop_warmup(struct gt_sample *x, size_t n, size_t warmup);

/* The same rule while streaming, without keeping every start: offer each launch's (start, pos) in
 * the order read, pos increasing (the summary uses the launch's index in its duration array); the
 * tracker keeps the `want` earliest in a max-heap. In the common case (starts arrive in order, the
 * heap is full) an offer is one comparison. */
struct gt_warmup_entry {
	uint64_t start;
	size_t pos;
};

struct gt_warmup {
	size_t want;
	size_t n, cap;
	struct gt_warmup_entry *heap; /* heap[0]: the latest of the earliest seen */
	int error;                    /* GT_STATS_ERR_NOMEM once an allocation failed */
};

void gt_warmup_init(struct gt_warmup *w, size_t want);
void gt_warmup_reset(struct gt_warmup *w); /* forget the launches offered; keep the memory */
void gt_warmup_release(struct gt_warmup *w);
void gt_warmup_offer_slow(struct gt_warmup *w, uint64_t start, size_t pos);
static inline void gt_warmup_offer(struct gt_warmup *w, uint64_t start, size_t pos)
{
	if (w->n == w->want && (w->want == 0 || start >= w->heap[0].start))
		return; /* not among the earliest; ties go to the one read first */
	gt_warmup_offer_slow(w, start, pos);
}
/* Sorts the tracked launches by pos and returns how many there are; their positions are
 * w->heap[i].pos, ascending. The tracker must be reset before the next offer. */
size_t gt_warmup_positions(struct gt_warmup *w);

#endif
