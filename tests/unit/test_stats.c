/* test_stats.c: common/stats.c against values computed once with NumPy 1.24.2 and SciPy 1.10.1.
 *
 * Each expected value is followed by the Python expression that produced it (with
 * `import numpy as np, scipy.stats as st` and x = np.array(<the vector>)), run with
 * /usr/bin/python3 on Debian 12. Values are printed there with repr(), which round-trips.
 *
 * Tolerances: median, MAD, percentiles, IQR, min, max and outlier counts are compared exactly:
 * stats.c performs the same floating-point operations as NumPy (numpy.median's (a + b) / 2,
 * _lerp's two-sided interpolation), so they agree to the last bit. The mean and the standard
 * deviation are sums, which NumPy adds in a different order (pairwise); they are compared with a
 * relative tolerance of 1e-14 (about 45 units in the last place, far below any difference a
 * person could read in a report, far above the reordering error of these short vectors).
 * MADx1.4826 is compared exactly with 1.4826 * MAD (the definition), and with SciPy's
 * scale='normal' (1 / Phi^-1(3/4) = 1.482602218505602) to a relative 2e-6, the difference between
 * the two constants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"
#include "traces/gputrace.h"

#define REL_SUMS 1e-14
#define REL_SCIPY_NORMAL 2e-6

static void exact(double got, double want, const char *what)
{
	if (got == want || (isnan(got) && isnan(want)))
		return;
	fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void close_rel(double got, double want, double rel, const char *what)
{
	if (isnan(got) && isnan(want))
		return;
	if (fabs(got - want) <= rel * fabs(want))
		return;
	fail_msg("%s: got %.17g, want %.17g (relative tolerance %g)", what, got, want, rel);
}

struct expect {
	double median, mad, mad_normal, p25, p75, p90, p99, iqr, mean, stddev, min, max, total;
	size_t outliers;
	int rule;
};

static void check(const double *v, size_t n, const struct expect *e)
{
	double *x = malloc((n ? n : 1) * sizeof *x);
	assert_non_null(x);
	memcpy(x, v, n * sizeof *x);
	struct gt_stats s;
	assert_int_equal(gt_stats_compute_double(&s, x, n), 0);
	assert_int_equal(s.n, n);
	exact(s.median, e->median, "median");
	exact(s.mad, e->mad, "MAD");
	exact(s.mad_scaled, 1.4826 * e->mad, "MADx1.4826");
	close_rel(s.mad_scaled, e->mad_normal, REL_SCIPY_NORMAL, "MAD vs scale='normal'");
	exact(s.p25, e->p25, "p25");
	exact(s.p75, e->p75, "p75");
	exact(s.p90, e->p90, "p90");
	exact(s.p99, e->p99, "p99");
	exact(s.iqr, e->iqr, "IQR");
	exact(s.min, e->min, "min");
	exact(s.max, e->max, "max");
	close_rel(s.total, e->total, REL_SUMS, "total");
	close_rel(s.mean, e->mean, REL_SUMS, "mean");
	close_rel(s.stddev, e->stddev, REL_SUMS, "stddev");
	assert_int_equal(s.outliers, e->outliers);
	assert_int_equal(s.outlier_rule, e->rule);
	/* The percentile function agrees with the struct, on the sorted sample. */
	exact(gt_stats_percentile_double(x, n, 90), e->p90, "percentile(90)");
	free(x);
}

/* n = 1: every location statistic is the value; stddev is undefined (n - 1 = 0). */
static void test_n1(void **state)
{
	(void)state;
	static const double v[] = { 7.0 };
	struct expect e = {
		.median = 7.0,     /* np.median(x) */
		.mad = 0.0,        /* st.median_abs_deviation(x) */
		.mad_normal = 0.0, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 7.0, .p75 = 7.0, .p90 = 7.0, .p99 = 7.0, /* np.percentile(x, 25/75/90/99) */
		.iqr = 0.0,
		.mean = 7.0,       /* np.mean(x) */
		.stddev = NAN,     /* np.std(x, ddof=1) -> nan (with a RuntimeWarning) */
		.min = 7.0, .max = 7.0, .total = 7.0,
		.outliers = 0, .rule = GT_OUTLIER_NONE,
	};
	check(v, 1, &e);
}

/* n = 2: the median is the mean of the two, the MAD half their difference. */
static void test_n2(void **state)
{
	(void)state;
	static const double v[] = { 3.0, 10.0 };
	struct expect e = {
		.median = 6.5,                   /* np.median(x) */
		.mad = 3.5,                      /* st.median_abs_deviation(x) */
		.mad_normal = 5.189107764769607, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 4.75,                     /* np.percentile(x, 25) */
		.p75 = 8.25,                     /* np.percentile(x, 75) */
		.p90 = 9.3,                      /* np.percentile(x, 90) */
		.p99 = 9.93,                     /* np.percentile(x, 99) */
		.iqr = 3.5,                      /* np.percentile(x,75)-np.percentile(x,25) */
		.mean = 6.5,                     /* np.mean(x) */
		.stddev = 4.949747468305833,     /* np.std(x, ddof=1) */
		.min = 3.0, .max = 10.0, .total = 13.0,
		.outliers = 0,                   /* np.sum(np.abs(x-np.median(x)) > 3*1.4826*mad) */
		.rule = GT_OUTLIER_MAD,
	};
	check(v, 2, &e);
}

/* Odd n, unsorted input. */
static void test_odd(void **state)
{
	(void)state;
	static const double v[] = { 5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0 };
	struct expect e = {
		.median = 5.0,                   /* np.median(x) */
		.mad = 3.0,                      /* st.median_abs_deviation(x) */
		.mad_normal = 4.447806655516806, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 2.5,                      /* np.percentile(x, 25) */
		.p75 = 7.5,                      /* np.percentile(x, 75) */
		.p90 = 8.4,                      /* np.percentile(x, 90) */
		.p99 = 8.94,                     /* np.percentile(x, 99) */
		.iqr = 5.0,
		.mean = 5.0,                     /* np.mean(x) */
		.stddev = 3.1091263510296048,    /* np.std(x, ddof=1) */
		.min = 1.0, .max = 9.0, .total = 35.0,
		.outliers = 0, .rule = GT_OUTLIER_MAD,
	};
	check(v, 7, &e);
}

/* Even n, durations in ms with a warm-up-like tail; the interpolations are inexact in binary. */
static void test_even(void **state)
{
	(void)state;
	static const double v[] = { 4.1, 4.0, 4.2, 4.1, 4.0, 6.3, 4.1, 4.0, 4.2, 9.5 };
	struct expect e = {
		.median = 4.1,                     /* np.median(x) */
		.mad = 0.09999999999999964,        /* st.median_abs_deviation(x) */
		.mad_normal = 0.14826022185055968, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 4.025,                      /* np.percentile(x, 25) */
		.p75 = 4.2,                        /* np.percentile(x, 75) */
		.p90 = 6.619999999999998,          /* np.percentile(x, 90) */
		.p99 = 9.212,                      /* np.percentile(x, 99) */
		.iqr = 0.17499999999999982,        /* np.percentile(x,75)-np.percentile(x,25) */
		.mean = 4.85,                      /* np.mean(x) */
		.stddev = 1.7771700350088433,      /* np.std(x, ddof=1) */
		.min = 4.0, .max = 9.5, .total = 48.5,
		.outliers = 2, /* int(np.sum(np.abs(x-np.median(x)) > 3*1.4826*st.median_abs_deviation(x))) */
		.rule = GT_OUTLIER_MAD,
	};
	check(v, 10, &e);
}

/* A vector where NumPy's two-sided interpolation (from the nearer neighbour when the fraction is
 * >= 0.5) and the one-sided a + (b - a) t differ in the last bit, at p99: 9.616 one-sided. Found
 * by a random search over short vectors of one-decimal values. */
static void test_interpolation_side(void **state)
{
	(void)state;
	static const double v[] = { 9.7, 6.3, 6.9, 5.2 };
	struct expect e = {
		.median = 6.6,                    /* np.median(x) */
		.mad = 0.8500000000000001,        /* st.median_abs_deviation(x) */
		.mad_normal = 1.2602118857297617, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 6.025,                     /* np.percentile(x, 25) */
		.p75 = 7.6,                       /* np.percentile(x, 75) */
		.p90 = 8.86,                      /* np.percentile(x, 90) */
		.p99 = 9.615999999999998,         /* np.percentile(x, 99) */
		.iqr = 1.5749999999999993,        /* np.percentile(x,75)-np.percentile(x,25) */
		.mean = 7.0249999999999995,       /* np.mean(x) */
		.stddev = 1.917246289169269,      /* np.std(x, ddof=1) */
		.min = 5.2, .max = 9.7,
		.total = 28.099999999999998,      /* np.sum(x) */
		.outliers = 0, .rule = GT_OUTLIER_MAD,
	};
	check(v, 4, &e);
}

/* Ties: the middle falls between runs of equal values. */
static void test_ties(void **state)
{
	(void)state;
	static const double v[] = { 5.0, 2.0, 5.0, 3.0, 2.0, 5.0, 8.0, 2.0, 3.0, 5.0 };
	struct expect e = {
		.median = 4.0,                   /* np.median(x) */
		.mad = 1.0,                      /* st.median_abs_deviation(x) */
		.mad_normal = 1.482602218505602, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 2.25,                     /* np.percentile(x, 25) */
		.p75 = 5.0,                      /* np.percentile(x, 75) */
		.p90 = 5.299999999999999,        /* np.percentile(x, 90) */
		.p99 = 7.73,                     /* np.percentile(x, 99) */
		.iqr = 2.75,
		.mean = 4.0,                     /* np.mean(x) */
		.stddev = 1.9436506316151,       /* np.std(x, ddof=1) */
		.min = 2.0, .max = 8.0, .total = 40.0,
		.outliers = 0, .rule = GT_OUTLIER_MAD,
	};
	check(v, 10, &e);
}

/* All equal: no spread, and therefore no outliers (rule NONE). */
static void test_all_equal(void **state)
{
	(void)state;
	static const double v[] = { 4.0, 4.0, 4.0, 4.0, 4.0 };
	struct expect e = {
		.median = 4.0, .mad = 0.0, .mad_normal = 0.0, .p25 = 4.0, .p75 = 4.0, .p90 = 4.0,
		.p99 = 4.0, .iqr = 0.0, .mean = 4.0,
		.stddev = 0.0, /* np.std(x, ddof=1) */
		.min = 4.0, .max = 4.0, .total = 20.0, .outliers = 0, .rule = GT_OUTLIER_NONE,
	};
	check(v, 5, &e);
}

/* Outliers on both sides: 100 and -50 are more than 3 scaled MADs away, 13 is not. */
static void test_outliers(void **state)
{
	(void)state;
	static const double v[] = { 10.0, 11.0, 12.0, 10.0, 11.0, 13.0, 10.0,
		                    11.0, 12.0, 100.0, 11.0, 10.0, -50.0 };
	struct expect e = {
		.median = 11.0,                  /* np.median(x) */
		.mad = 1.0,                      /* st.median_abs_deviation(x) */
		.mad_normal = 1.482602218505602, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 10.0,                     /* np.percentile(x, 25) */
		.p75 = 12.0,                     /* np.percentile(x, 75) */
		.p90 = 12.8,                     /* np.percentile(x, 90) */
		.p99 = 89.55999999999992,        /* np.percentile(x, 99) */
		.iqr = 2.0,
		.mean = 13.153846153846153,      /* np.mean(x) */
		.stddev = 31.080128039864295,    /* np.std(x, ddof=1) */
		.min = -50.0, .max = 100.0, .total = 171.0,
		.outliers = 2, /* int(np.sum(np.abs(x-np.median(x)) > 3*1.4826*st.median_abs_deviation(x))) */
		.rule = GT_OUTLIER_MAD,
	};
	check(v, 13, &e);
}

/* MAD = 0 but not all equal: the mean-absolute-deviation rule finds the 100 and spares the 6. */
static void test_mad_zero_uses_mean_abs_deviation(void **state)
{
	(void)state;
	static const double v[] = { 5.0, 5.0, 5.0, 5.0, 5.0, 6.0, 100.0 };
	struct expect e = {
		.median = 5.0, .mad = 0.0, .mad_normal = 0.0,
		.p25 = 5.0,                   /* np.percentile(x, 25) */
		.p75 = 5.5,                   /* np.percentile(x, 75) */
		.p90 = 43.60000000000004,     /* np.percentile(x, 90) */
		.p99 = 94.35999999999996,     /* np.percentile(x, 99) */
		.iqr = 0.5,
		.mean = 18.714285714285715,   /* np.mean(x) */
		.stddev = 35.84556823241559,  /* np.std(x, ddof=1) */
		.min = 5.0, .max = 100.0, .total = 131.0,
		/* int(np.sum(np.abs(x-np.median(x)) > 3*np.sqrt(np.pi/2)*np.mean(np.abs(x-np.median(x))))) */
		.outliers = 1,
		.rule = GT_OUTLIER_MEANAD,
	};
	check(v, 7, &e);
}

/* The seed's worked example: 12 runs in run order, 3 dropped as warm-up by position, then median
 * 4.10, mean 4.33 pulled up by one 6.3 hiccup, which the outlier rule flags. */
static void test_seed_example_after_warmup(void **state)
{
	(void)state;
	static const double run_order[] = { 180, 9.5, 5.1, 4.1, 4.0, 4.2, 4.1, 4.0, 6.3, 4.1, 4.0, 4.2 };
	struct gt_sample s[12];
	for (int i = 0; i < 12; i++)
		s[i] = (struct gt_sample){ (uint64_t)i, (uint64_t)i };
	ptrdiff_t kept = gt_stats_drop_warmup(s, 12, 3);
	assert_int_equal(kept, 9);
	double x[9];
	for (int i = 0; i < 9; i++)
		x[i] = run_order[s[i].value];
	/* x = np.array([4.1, 4.0, 4.2, 4.1, 4.0, 6.3, 4.1, 4.0, 4.2]) */
	struct expect e = {
		.median = 4.1,                     /* np.median(x) */
		.mad = 0.09999999999999964,        /* st.median_abs_deviation(x) */
		.mad_normal = 0.14826022185055968, /* st.median_abs_deviation(x, scale='normal') */
		.p25 = 4.0,                        /* np.percentile(x, 25) */
		.p75 = 4.2,                        /* np.percentile(x, 75) */
		.p90 = 4.62,                       /* np.percentile(x, 90) */
		.p99 = 6.132,                      /* np.percentile(x, 99) */
		.iqr = 0.20000000000000018,        /* np.percentile(x,75)-np.percentile(x,25) */
		.mean = 4.333333333333333,         /* np.mean(x) */
		.stddev = 0.7416198487095663,      /* np.std(x, ddof=1) */
		.min = 4.0, .max = 6.3, .total = 39.0,
		.outliers = 1, .rule = GT_OUTLIER_MAD,
	};
	check(x, 9, &e);
}

/* n = 0: every value NaN, no outliers; NaN input is refused. */
static void test_empty_and_nan(void **state)
{
	(void)state;
	struct gt_stats s;
	gt_stats_compute_u64(&s, NULL, 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median) && isnan(s.mad) && isnan(s.p90) && isnan(s.p99) && isnan(s.min) &&
	            isnan(s.max) && isnan(s.mean) && isnan(s.stddev) && isnan(s.iqr));
	assert_int_equal(s.outliers, 0);
	assert_true(s.total == 0);
	assert_true(isnan(gt_stats_percentile_u64(NULL, 0, 50)));
	double bad[] = { 1.0, NAN, 2.0 };
	assert_int_equal(gt_stats_compute_double(&s, bad, 3), GT_ERR_ARG);
	assert_int_equal(s.n, 0);
}

/* Ten million durations, x_j = 10^12 + 1000 j for j = 0..N, N = 10^7 (n = N + 1 is odd), given in
 * the scrambled order j = 7919 i mod n (7919 is prime and does not divide n = 11 * 909091, so this
 * is a permutation). The span 10^12..10^12 + 10^10 needs three radix passes. Exact values:
 *   median = x_{N/2} = 10^12 + 5 * 10^9
 *   percentile p: h = N p / 100 is an integer for p = 25, 75, 90, 99, so the value is x_h:
 *     (n-1) * 0.9 and (n-1) * 0.99 round to exactly 9 * 10^6 and 9.9 * 10^6 in binary64
 *     (checked: repr(1e7*0.9) == '9000000.0', repr(1e7*0.99) == '9900000.0')
 *   MAD: the deviations 1000 |j - N/2| are 0 once and 1000 k twice for k = 1..N/2; sorted, the one
 *     at rank N/2 = 2 * (N/4) is 1000 * N/4 = 2.5 * 10^9
 *   mean = 10^12 + 1000 N/2 exactly; stddev = 1000 sqrt((N+1)(N+2)/12), the sample standard
 *     deviation of 0..N, = 2886751778.9608274 (1000*np.sqrt((N+1)*(N+2)/12)), to 1e-12 relative:
 *     a sum of 10^7 squares in double, blocked, keeps about 12 digits.
 *   outliers: the largest deviation, 5 * 10^9, is under 3 * 1.4826 * 2.5 * 10^9: none.
 * Under AddressSanitizer every scattered store of the radix sort also lands in shadow memory, which
 * made this one case take 80 s; there N = 10^6 (n = 101 * 9901, still a permutation; span 10^9,
 * still three passes; repr(1e6*0.99) == '990000.0'), where a memory error shows just the same. */
#if defined(__SANITIZE_ADDRESS__)
#define TEN_MILLION_N 1000000
#else
#define TEN_MILLION_N 10000000
#endif
static void test_ten_million(void **state)
{
	(void)state;
	const uint64_t N = TEN_MILLION_N, n = N + 1;
	const double base = 1e12, span = 1000.0 * (double)N;
	uint64_t *x = malloc(n * sizeof *x);
	assert_non_null(x);
	for (uint64_t i = 0; i < n; i++)
		x[i] = 1000000000000ull + 1000 * ((i * 7919) % n);
	struct gt_stats s;
	gt_stats_compute_u64(&s, x, n);
	for (uint64_t i = 0; i < n; i += 99991)
		assert_true(x[i] == 1000000000000ull + 1000 * i);
	assert_true(x[n - 1] == 1000000000000ull + 1000 * N);
	assert_int_equal(s.n, n);
	exact(s.median, base + span / 2, "median");
	exact(s.p25, base + span / 4, "p25");
	exact(s.p75, base + span * 3 / 4, "p75");
	exact(s.p90, base + span * 9 / 10, "p90");
	exact(s.p99, base + span * 99 / 100, "p99");
	exact(s.iqr, span / 2, "IQR");
	exact(s.min, base, "min");
	exact(s.max, base + span, "max");
	exact(s.mad, span / 4, "MAD");
	exact(s.mean, base + span / 2, "mean");
	double want_sd = 1000 * sqrt(((double)N + 1) * ((double)N + 2) / 12);
	if (N == 10000000)
		assert_true(fabs(want_sd - 2886751778.9608274) <= 1e-6);
	close_rel(s.stddev, want_sd, 1e-12, "stddev");
	assert_int_equal(s.outliers, 0);
	free(x);
}

/* The 32-bit path with the same construction on a smaller scale (n = 10^6 + 1, x_j = 3 j, span
 * 3 * 10^6: the radix sort, not the counting sort); and a narrow range (the counting sort). */
static void test_u32_paths(void **state)
{
	(void)state;
	const uint32_t N = 1000000, n = N + 1;
	uint32_t *x = malloc(n * sizeof *x);
	assert_non_null(x);
	for (uint32_t i = 0; i < n; i++)
		x[i] = 3 * (uint32_t)(((uint64_t)i * 7919) % n);
	struct gt_stats s;
	gt_stats_compute_u32(&s, x, n);
	for (uint32_t i = 1; i < n; i++)
		assert_true(x[i - 1] < x[i]);
	exact(s.median, 1.5e6, "median");
	exact(s.p90, 2.7e6, "p90"); /* x_{900000}: 1e6 * 0.9 rounds to exactly 900000 */
	exact(s.mad, 750000, "MAD");
	exact(s.mean, 1.5e6, "mean");
	/* Narrow range: 100000 values in 4000..4999, compared with qsort's order. */
	for (uint32_t i = 0; i < 100000; i++)
		x[i] = 4000 + (uint32_t)(((uint64_t)i * 7919) % 1000);
	gt_stats_sort_u32(x, 100000);
	for (uint32_t i = 1; i < 100000; i++)
		assert_true(x[i - 1] <= x[i]);
	assert_int_equal(x[0], 4000);
	assert_int_equal(x[99999], 4999);
	assert_int_equal(x[50000], 4500);
	free(x);
}

/* Durations above 2^32 keep their 64 bits through the sort. */
static void test_u64_sort_wide_values(void **state)
{
	(void)state;
	uint64_t x[300];
	for (int i = 0; i < 300; i++)
		x[i] = (uint64_t)((i * 37) % 300) << 33 | (uint64_t)i;
	gt_stats_sort_u64(x, 300);
	for (int i = 1; i < 300; i++)
		assert_true(x[i - 1] < x[i]);
	assert_true(x[299] >> 33 == 299);
}

/* Warm-up is dropped by position: the earliest starts, whatever their values, in any file order;
 * equal starts are broken by file order. */
static void test_warmup_by_position(void **state)
{
	(void)state;
	/* In start order the first three are the *fastest*: they must still be the ones dropped. */
	struct gt_sample a[] = { { 30, 5 }, { 10, 1 }, { 40, 9 }, { 20, 2 }, { 50, 8 }, { 35, 3 } };
	assert_int_equal(gt_stats_drop_warmup(a, 6, 3), 3);
	/* Kept, in their original order: starts 40, 50, 35 (values 9, 8, 3). */
	assert_true(a[0].start == 40 && a[0].value == 9);
	assert_true(a[1].start == 50 && a[1].value == 8);
	assert_true(a[2].start == 35 && a[2].value == 3);
	/* Ties on start: the one read first is the earlier. */
	struct gt_sample b[] = { { 10, 100 }, { 5, 1 }, { 10, 200 }, { 10, 300 } };
	assert_int_equal(gt_stats_drop_warmup(b, 4, 2), 2);
	assert_true(b[0].value == 200 && b[1].value == 300);
	/* Sorted input: a prefix. */
	struct gt_sample c[] = { { 1, 7 }, { 2, 6 }, { 3, 5 }, { 4, 4 } };
	assert_int_equal(gt_stats_drop_warmup(c, 4, 1), 3);
	assert_true(c[0].value == 6 && c[2].value == 4);
	/* More warm-up than samples: nothing left; none: everything. */
	assert_int_equal(gt_stats_drop_warmup(c, 3, 5), 0);
	struct gt_sample d[] = { { 2, 1 }, { 1, 2 } };
	assert_int_equal(gt_stats_drop_warmup(d, 2, 0), 2);
	assert_true(d[0].start == 2);
}

/* The streaming tracker agrees with the array version on a scrambled sequence. */
static void test_warmup_tracker_matches(void **state)
{
	(void)state;
	enum { N = 5000, W = 37 };
	static struct gt_sample x[N];
	for (size_t i = 0; i < N; i++)
		x[i] = (struct gt_sample){ (i * 7919) % 1000, i }; /* many equal starts */
	struct gt_warmup w;
	gt_warmup_init(&w, W);
	for (size_t i = 0; i < N; i++)
		gt_warmup_offer(&w, x[i].start, i);
	assert_int_equal(w.error, 0);
	size_t nw = gt_warmup_positions(&w);
	assert_int_equal(nw, W);
	/* Independently: starts 0..6 appear 5 times each (35 launches), so the 37 earliest are those
	 * and the first two launches, in file order, that start at 7. */
	size_t below7 = 0, at7 = 0, first7[2], seen7 = 0;
	for (size_t i = 0; i < N && seen7 < 2; i++)
		if (x[i].start == 7)
			first7[seen7++] = i;
	for (size_t i = 0; i < nw; i++) {
		uint64_t st = x[w.heap[i].pos].start;
		assert_true(st <= 7);
		below7 += st < 7;
		if (st == 7) {
			assert_true(w.heap[i].pos == first7[0] || w.heap[i].pos == first7[1]);
			at7++;
		}
	}
	assert_int_equal(below7, 35);
	assert_int_equal(at7, 2);
	assert_int_equal(gt_stats_drop_warmup(x, N, W), N - W);
	/* The kept values are exactly the positions the tracker did not name. */
	size_t j = 0, k = 0;
	for (size_t i = 0; i < N; i++) {
		if (j < nw && w.heap[j].pos == i) {
			j++;
			continue;
		}
		assert_int_equal(x[k++].value, i);
	}
	gt_warmup_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n1),
		cmocka_unit_test(test_n2),
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_interpolation_side),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_mad_zero_uses_mean_abs_deviation),
		cmocka_unit_test(test_seed_example_after_warmup),
		cmocka_unit_test(test_empty_and_nan),
		cmocka_unit_test(test_ten_million),
		cmocka_unit_test(test_u32_paths),
		cmocka_unit_test(test_u64_sort_wide_values),
		cmocka_unit_test(test_warmup_by_position),
		cmocka_unit_test(test_warmup_tracker_matches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
