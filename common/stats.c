/* stats.c: the statistics defined in stats.h, and dropping warm-up by position.
 *
 * Everything works on a sample sorted once. Durations (integer ns) are sorted without comparisons:
 * a counting sort when one kernel's durations span less than 64 K ns (the common case), otherwise
 * the LSD radix sort of radix.h over the bits that vary, which for kernel durations means two or three linear
 * passes. Summary reaches its throughput target because no comparison sort runs over millions of
 * launches. The MAD needs no second sort: the deviations from the median, read outwards from the
 * median's position in the sorted sample, are two ascending runs, and their median is found by
 * merging the runs halfway. Outliers are counted by binary search for the same reason.
 *
 * The three element types (double, uint64_t, uint32_t) share one implementation through at();
 * each public function passes a constant kind, so the compiler specialises the loops.
 */
#include "common/stats.h"

#include "common/radix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_DOUBLE, K_U64, K_U32 };

static inline double at(const void *x, enum kind k, size_t i)
{
	switch (k) {
	case K_U64: return (double)((const uint64_t *)x)[i];
	case K_U32: return (double)((const uint32_t *)x)[i];
	default: return ((const double *)x)[i];
	}
}

/* NumPy's 'linear' quantile, step for step (numpy/lib/function_base.py, _quantile and _lerp in
 * 1.24): the virtual index (n - 1) * q, and the interpolation written from whichever neighbour is
 * nearer, so that a test can compare with NumPy exactly. */
static double quantile(const void *x, enum kind k, size_t n, double q)
{
	if (n == 0)
		return NAN;
	double h = (double)(n - 1) * q;
	if (h >= (double)(n - 1))
		return at(x, k, n - 1);
	if (h <= 0)
		return at(x, k, 0);
	double lo = floor(h);
	size_t i = (size_t)lo;
	double t = h - lo;
	double a = at(x, k, i), b = at(x, k, i + 1), d = b - a;
	return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

double gt_stats_percentile_double(const double *x, size_t n, double p)
{
	return quantile(x, K_DOUBLE, n, p / 100.0);
}

double gt_stats_percentile_u64(const uint64_t *x, size_t n, double p)
{
	return quantile(x, K_U64, n, p / 100.0);
}

/* numpy.median: the middle value, or the mean of the two middle values computed as (a + b) / 2. */
static double median(const void *x, enum kind k, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return at(x, k, n / 2);
	return (at(x, k, n / 2 - 1) + at(x, k, n / 2)) / 2;
}

/* First index whose value is >= v (n if none). */
static size_t lower_bound(const void *x, enum kind k, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (at(x, k, mid) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The median of |x_i - med|. Left of split the deviations med - x_i grow as i falls; from split on,
 * x_i - med grow as i rises. Merging the two runs up to rank n / 2 finds the middle deviations. */
static double mad_sorted(const void *x, enum kind k, size_t n, double med, size_t split)
{
	size_t want_lo = (n - 1) / 2, want_hi = n / 2;
	size_t l = split, r = split; /* next left element is x[l - 1], next right is x[r] */
	double v_lo = 0, v_hi = 0;
	for (size_t rank = 0; rank <= want_hi; rank++) {
		double dl = l > 0 ? med - at(x, k, l - 1) : INFINITY;
		double dr = r < n ? at(x, k, r) - med : INFINITY;
		double v;
		if (dl <= dr) {
			v = dl;
			l--;
		} else {
			v = dr;
			r++;
		}
		if (rank == want_lo)
			v_lo = v;
		if (rank == want_hi)
			v_hi = v;
	}
	return n % 2 ? v_lo : (v_lo + v_hi) / 2;
}

/* Values with |x - med| > lim, by binary search on each side of the median. The deviations are
 * computed exactly as mad_sorted() computes them, so the count agrees with a direct scan. */
static size_t count_beyond(const void *x, enum kind k, size_t n, double med, double lim)
{
	/* Left: the first index whose deviation med - x is <= lim; everything before it is beyond. */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (med - at(x, k, mid) > lim)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t left = lo;
	/* Right: the first index whose deviation x - med is > lim; everything from it on is beyond. */
	lo = left;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (at(x, k, mid) - med > lim)
			hi = mid;
		else
			lo = mid + 1;
	}
	return left + (n - lo);
}

/* Sums of x - shift and of (x - shift)^2 in one pass, in blocks of 4096 so that rounding error grows
 * with the number of blocks, not with n. */
static void sums_blocked(const void *x, enum kind k, size_t n, double shift, double *sum,
                         double *sumsq)
{
	double total = 0, total2 = 0;
	for (size_t b = 0; b < n; b += 4096) {
		size_t e = n - b < 4096 ? n : b + 4096;
		double part = 0, part2 = 0;
		for (size_t i = b; i < e; i++) {
			double d = at(x, k, i) - shift;
			part += d;
			part2 += d * d;
		}
		total += part;
		total2 += part2;
	}
	*sum = total;
	*sumsq = total2;
}

static void stats_sorted(struct gt_stats *s, const void *x, enum kind k, size_t n)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	if (n == 0) {
		s->min = s->max = s->mean = s->stddev = s->median = s->mad = s->mad_scaled = NAN;
		s->p25 = s->p75 = s->p90 = s->p99 = s->iqr = s->outlier_limit = NAN;
		s->outlier_rule = GT_OUTLIER_NONE;
		return;
	}
	s->min = at(x, k, 0);
	s->max = at(x, k, n - 1);
	if (k == K_U64) {
		/* Exact integer sum, rounded once. */
		const uint64_t *u = x;
		unsigned __int128 sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += u[i];
		s->total = (double)sum;
	} else if (k == K_U32) {
		const uint32_t *u = x;
		unsigned __int128 sum = 0;
		for (size_t b = 0; b < n; b += 1u << 20) {
			size_t e = n - b < (1u << 20) ? n : b + (1u << 20);
			uint64_t part = 0; /* 2^20 values of < 2^32 cannot overflow 64 bits */
			for (size_t i = b; i < e; i++)
				part += u[i];
			sum += part;
		}
		s->total = (double)sum;
	} else {
		double sq;
		sums_blocked(x, k, n, 0, &s->total, &sq);
	}
	s->mean = s->total / (double)n;
	if (n > 1) {
		/* Corrected two-pass variance: the second term removes what rounding left in the mean. */
		double m2, c;
		sums_blocked(x, k, n, s->mean, &c, &m2);
		double var = (m2 - c * c / (double)n) / (double)(n - 1);
		s->stddev = sqrt(var > 0 ? var : 0);
	} else {
		s->stddev = NAN;
	}
	s->median = median(x, k, n);
	s->p25 = quantile(x, k, n, 25 / 100.0);
	s->p75 = quantile(x, k, n, 75 / 100.0);
	s->p90 = quantile(x, k, n, 90 / 100.0);
	s->p99 = quantile(x, k, n, 99 / 100.0);
	s->iqr = s->p75 - s->p25;
	size_t split = lower_bound(x, k, n, s->median);
	s->mad = mad_sorted(x, k, n, s->median, split);
	s->mad_scaled = GT_MAD_SCALE * s->mad;
	if (s->mad > 0) {
		s->outlier_rule = GT_OUTLIER_MAD;
		s->outlier_limit = GT_OUTLIER_MADS * s->mad_scaled;
	} else {
		/* More than half the sample equals the median. Mean absolute deviation from the median,
		 * scaled to estimate the standard deviation of normal data (Iglewicz and Hoaglin). */
		double meanad = 0;
		for (size_t i = 0; i < n; i++)
			meanad += fabs(at(x, k, i) - s->median);
		meanad /= (double)n;
		if (meanad > 0) {
			s->outlier_rule = GT_OUTLIER_MEANAD;
			s->outlier_limit = GT_OUTLIER_MADS * GT_MEANAD_SCALE * meanad;
		} else {
			s->outlier_rule = GT_OUTLIER_NONE;
			s->outlier_limit = NAN;
		}
	}
	s->outliers = s->outlier_rule == GT_OUTLIER_NONE
	                      ? 0
	                      : count_beyond(x, k, n, s->median, s->outlier_limit);
}

void gt_stats_from_sorted_double(struct gt_stats *s, const double *x, size_t n)
{
	stats_sorted(s, x, K_DOUBLE, n);
}

void gt_stats_from_sorted_u64(struct gt_stats *s, const uint64_t *x, size_t n)
{
	stats_sorted(s, x, K_U64, n);
}

void gt_stats_from_sorted_u32(struct gt_stats *s, const uint32_t *x, size_t n)
{
	stats_sorted(s, x, K_U32, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void gt_stats_sort_double(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof *x, cmp_double);
}

/* The integer sorts, written once for both widths. First pass: min, max and the bits that differ.
 * A narrow range (one kernel's durations, typically) is counted into a 64 K table and written
 * back in order; a wide one goes to the radix sort (radix.h), which sorts over the bits that vary. */
#define DEFINE_INT_SORT(NAME, T)                                                                   \
	static int cmp_##NAME(const void *a, const void *b)                                        \
	{                                                                                          \
		T x = *(const T *)a, y = *(const T *)b;                                            \
		return (x > y) - (x < y);                                                          \
	}                                                                                          \
	void gt_stats_sort_##NAME(T *x, size_t n)                                                  \
	{                                                                                          \
		if (n < 2)                                                                         \
			return;                                                                    \
		T lo = x[0], hi = x[0];                                                            \
		uint64_t diff = 0;                                                                 \
		for (size_t i = 1; i < n; i++) {                                                   \
			diff |= (uint64_t)(x[i] ^ x[0]);                                           \
			lo = x[i] < lo ? x[i] : lo;                                                \
			hi = x[i] > hi ? x[i] : hi;                                                \
		}                                                                                  \
		if (!diff)                                                                         \
			return;                                                                    \
		if (n < 64) {                                                                      \
			qsort(x, n, sizeof *x, cmp_##NAME);                                        \
			return;                                                                    \
		}                                                                                  \
		if ((uint64_t)(hi - lo) < 65536) {                                                 \
			uint32_t *count = calloc((size_t)(hi - lo) + 1, sizeof *count);            \
			if (count && n <= UINT32_MAX) {                                            \
				for (size_t i = 0; i < n; i++)                                     \
					count[x[i] - lo]++;                                        \
				size_t o = 0;                                                      \
				for (size_t v = 0; v <= (size_t)(hi - lo); v++)                    \
					for (uint32_t c = count[v]; c; c--)                        \
						x[o++] = (T)(lo + v);                              \
				free(count);                                                       \
				return;                                                            \
			}                                                                          \
			free(count);                                                               \
		}                                                                                  \
		if (gt_radix_sort(x, n, sizeof *x))                                                \
			qsort(x, n, sizeof *x, cmp_##NAME); /* no memory for the scratch copy */   \
	}

DEFINE_INT_SORT(u64, uint64_t)
DEFINE_INT_SORT(u32, uint32_t)

int gt_stats_compute_double(struct gt_stats *s, double *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i])) {
			stats_sorted(s, x, K_DOUBLE, 0);
			return GT_STATS_ERR_ARG;
		}
	}
	gt_stats_sort_double(x, n);
	stats_sorted(s, x, K_DOUBLE, n);
	return 0;
}

void gt_stats_compute_u64(struct gt_stats *s, uint64_t *x, size_t n)
{
	gt_stats_sort_u64(x, n);
	stats_sorted(s, x, K_U64, n);
}

void gt_stats_compute_u32(struct gt_stats *s, uint32_t *x, size_t n)
{
	gt_stats_sort_u32(x, n);
	stats_sorted(s, x, K_U32, n);
}

/* ---- warm-up ------------------------------------------------------------------------------ */

/* Heap order: (start, pos), later is greater; heap[0] is the latest of the earliest. */
static int later(const struct gt_warmup_entry *a, const struct gt_warmup_entry *b)
{
	return a->start != b->start ? a->start > b->start : a->pos > b->pos;
}

static void sift_down(struct gt_warmup_entry *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && later(&h[l], &h[m]))
			m = l;
		if (r < n && later(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		struct gt_warmup_entry t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(struct gt_warmup_entry *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!later(&h[i], &h[p]))
			return;
		struct gt_warmup_entry t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

void gt_warmup_init(struct gt_warmup *w, size_t want)
{
	memset(w, 0, sizeof *w);
	w->want = want;
}

void gt_warmup_reset(struct gt_warmup *w) { w->n = 0; }

void gt_warmup_release(struct gt_warmup *w)
{
	free(w->heap);
	memset(w, 0, sizeof *w);
}

void gt_warmup_offer_slow(struct gt_warmup *w, uint64_t start, size_t pos)
{
	struct gt_warmup_entry e = { start, pos };
	if (w->want == 0)
		return;
	if (w->n < w->want) {
		/* The heap grows with the launches seen, so a large --warmup costs nothing up front. */
		if (w->n == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 8;
			if (cap > w->want)
				cap = w->want;
			struct gt_warmup_entry *h = realloc(w->heap, cap * sizeof *h);
			if (!h) {
				w->error = GT_STATS_ERR_NOMEM;
				return;
			}
			w->heap = h;
			w->cap = cap;
		}
		w->heap[w->n] = e;
		sift_up(w->heap, w->n++);
	} else if (later(&w->heap[0], &e)) {
		w->heap[0] = e;
		sift_down(w->heap, w->n, 0);
	}
}

static int cmp_pos(const void *a, const void *b)
{
	size_t x = ((const struct gt_warmup_entry *)a)->pos, y = ((const struct gt_warmup_entry *)b)->pos;
	return (x > y) - (x < y);
}

size_t gt_warmup_positions(struct gt_warmup *w)
{
	if (w->n > 1)
		qsort(w->heap, w->n, sizeof *w->heap, cmp_pos);
	return w->n;
}

/* The common case, starts already in order, is a prefix. Otherwise the tracker finds the warmup
 * earliest (start, position) pairs: O(n log warmup), and warm-up counts are small. */
ptrdiff_t gt_stats_drop_warmup(struct gt_sample *x, size_t n, size_t warmup)
{
	if (warmup == 0)
		return (ptrdiff_t)n;
	if (warmup >= n)
		return 0;
	size_t sorted = 1;
	while (sorted < n && x[sorted - 1].start <= x[sorted].start)
		sorted++;
	if (sorted == n) {
		memmove(x, x + warmup, (n - warmup) * sizeof *x);
		return (ptrdiff_t)(n - warmup);
	}
	struct gt_warmup w;
	gt_warmup_init(&w, warmup);
	for (size_t i = 0; i < n; i++)
		gt_warmup_offer(&w, x[i].start, i);
	if (w.error) {
		gt_warmup_release(&w);
		return GT_STATS_ERR_NOMEM;
	}
	size_t nw = gt_warmup_positions(&w), out = 0, j = 0;
	for (size_t i = 0; i < n; i++) {
		if (j < nw && w.heap[j].pos == i) {
			j++;
			continue;
		}
		x[out++] = x[i];
	}
	gt_warmup_release(&w);
	return (ptrdiff_t)out;
}
