/* test_analyze_twosample.c: the two-sample statistics of analyze/blocks/twosample.c against SciPy 1.10.
 *
 * Mann-Whitney U: each expected statistic and p-value was computed with /usr/bin/python3 (SciPy
 * 1.10.1) by the expression written beside it; exact and asymptotic paths, ties, all-equal samples.
 * Bootstrap: the order-statistic shortcut gives the distribution of a full resample's median (odd n:
 * against the exact binomial probabilities; even n: against brute-force resampling), and the
 * percentile interval of a ratio of medians agrees with NumPy's brute-force bootstrap; seeds
 * reproduce; a sample scaled by 1.1 gives an interval at 1.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/stats.h"
#include "traces/gputrace.h"
#include "analyze/blocks/twosample.h"

/* Relative tolerance for p-values: SciPy evaluates the same closed forms in a slightly different
 * order of operations (and norm.sf through ndtr), so agreement is to a few ulps, not bits. */
#define P_TOL 1e-12

static void sort_d(double *x, size_t n) { gt_stats_sort_double(x, n); }

static void check_mwu(double *x, size_t n1, double *y, size_t n2, double u1, double p, int method)
{
	sort_d(x, n1);
	sort_d(y, n2);
	struct gt_mwu m;
	assert_int_equal(gt_mwu_sorted_double(x, n1, y, n2, &m), 0);
	assert_int_equal(m.method, method);
	assert_true(m.u1 == u1);
	if (fabs(m.p - p) > P_TOL * fabs(p))
		fail_msg("p = %.17g, SciPy %.17g", m.p, p);
}

static void test_mwu_exact(void **state)
{
	(void)state;
	/* mannwhitneyu([1,2,3,4,5], [6,7,8,9,10], alternative='two-sided', method='auto',
	 * use_continuity=True) -> (0.0, 0.007936507936507936): 2 / C(10, 5) */
	double x1[] = { 1, 2, 3, 4, 5 }, y1[] = { 6, 7, 8, 9, 10 };
	check_mwu(x1, 5, y1, 5, 0.0, 0.007936507936507936, GT_MWU_EXACT);
	/* mannwhitneyu([1.5,3.5,8,12], [2,4,5,9,10,11,13], ...) -> (10.0, 0.5272727272727272) */
	double x2[] = { 12, 1.5, 8, 3.5 }, y2[] = { 2, 4, 5, 9, 10, 11, 13 };
	check_mwu(x2, 4, y2, 7, 10.0, 0.5272727272727272, GT_MWU_EXACT);
	/* mannwhitneyu([105,230,517], [100+7*i for i in range(20)], ...) -> (40.0, 0.4042913608130999):
	 * one side small, the other beyond 8: still exact without ties */
	double x3[] = { 105, 230, 517 }, y3[20];
	for (int i = 0; i < 20; i++)
		y3[i] = 100 + 7 * i;
	check_mwu(x3, 3, y3, 20, 40.0, 0.4042913608130999, GT_MWU_EXACT);
	/* The statistic is U of the first sample: swapping the samples gives n1 n2 - U1 and the same p. */
	double x4[] = { 6, 7, 8, 9, 10 }, y4[] = { 1, 2, 3, 4, 5 };
	check_mwu(x4, 5, y4, 5, 25.0, 0.007936507936507936, GT_MWU_EXACT);
}

static void test_mwu_asymptotic(void **state)
{
	(void)state;
	/* mannwhitneyu([3,1,4,1,5,9,2,6], [5,3,5,8,9,7,9,3,2], ...) -> (22.5, 0.20702196820234253):
	 * ties, so the normal approximation with tie and continuity corrections */
	double x1[] = { 3, 1, 4, 1, 5, 9, 2, 6 }, y1[] = { 5, 3, 5, 8, 9, 7, 9, 3, 2 };
	check_mwu(x1, 8, y1, 9, 22.5, 0.20702196820234253, GT_MWU_ASYMPTOTIC);
	/* mannwhitneyu([10,12,15,18,21,25,26,31,33,40,41,45],
	 *              [14,16,17,19,20,22,23,24,27,28,29,30,32,34,35], ...) -> (95.0, 0.8262002033788082):
	 * no ties but both samples above 8 */
	double x2[] = { 10, 12, 15, 18, 21, 25, 26, 31, 33, 40, 41, 45 };
	double y2[] = { 14, 16, 17, 19, 20, 22, 23, 24, 27, 28, 29, 30, 32, 34, 35 };
	check_mwu(x2, 12, y2, 15, 95.0, 0.8262002033788082, GT_MWU_ASYMPTOTIC);
	/* mannwhitneyu([800]*5+[832]*30+[864]*10+[896]*2,
	 *              [832]*8+[864]*25+[896]*12+[928]*3, ...) -> (403.0, 9.465990854773418e-09):
	 * durations on a 32 ns grid, as CUPTI gives them on the H200 */
	double x3[47], y3[48];
	size_t i = 0, j = 0;
	for (int k = 0; k < 5; k++) x3[i++] = 800;
	for (int k = 0; k < 30; k++) x3[i++] = 832;
	for (int k = 0; k < 10; k++) x3[i++] = 864;
	for (int k = 0; k < 2; k++) x3[i++] = 896;
	for (int k = 0; k < 8; k++) y3[j++] = 832;
	for (int k = 0; k < 25; k++) y3[j++] = 864;
	for (int k = 0; k < 12; k++) y3[j++] = 896;
	for (int k = 0; k < 3; k++) y3[j++] = 928;
	check_mwu(x3, i, y3, j, 403.0, 9.465990854773418e-09, GT_MWU_ASYMPTOTIC);
	/* The same through the u64 entry point. */
	uint64_t a[47], b[48];
	for (size_t k = 0; k < i; k++) a[k] = (uint64_t)x3[k];
	for (size_t k = 0; k < j; k++) b[k] = (uint64_t)y3[k];
	struct gt_mwu m;
	assert_int_equal(gt_mwu_sorted_u64(a, i, b, j, &m), 0);
	assert_true(m.u1 == 403.0);
	assert_true(fabs(m.p - 9.465990854773418e-09) <= P_TOL * 9.465990854773418e-09);
	assert_true(m.ties);
}

static void test_mwu_degenerate(void **state)
{
	(void)state;
	/* mannwhitneyu([832]*6, [832]*9, ...) -> (27.0, 1.0): every value tied */
	double x[6], y[9];
	for (int i = 0; i < 6; i++) x[i] = 832;
	for (int i = 0; i < 9; i++) y[i] = 832;
	check_mwu(x, 6, y, 9, 27.0, 1.0, GT_MWU_ASYMPTOTIC);
	struct gt_mwu m;
	assert_int_equal(gt_mwu_sorted_double(x, 0, y, 9, &m), 0);
	assert_int_equal(m.method, GT_MWU_NONE);
	assert_true(isnan(m.p));
	/* Exact is capped: 3 against 20001 distinct values uses the approximation and says why. */
	size_t n = GT_MWU_EXACT_MAX + 1;
	uint64_t *big = malloc(n * sizeof *big);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = 2 * i + 1;
	uint64_t small[3] = { 10, 20, 30 };
	assert_int_equal(gt_mwu_sorted_u64(small, 3, big, n, &m), 0);
	assert_int_equal(m.method, GT_MWU_ASYMPTOTIC);
	assert_true(m.exact_capped);
	free(big);
}

/* Odd n: the bootstrap median is x[j] with probability P(Bin(n, (j+1)/n) >= k) - P(Bin(n, j/n) >= k),
 * k = (n + 1) / 2. For n = 7, from scipy.stats.binom.sf(3, 7, (j+1)/7) - binom.sf(3, 7, j/7):
 * j = 0..6 -> 0.010150046809941922, 0.09812359524639269, 0.2386262769521445, 0.3062001619830416,
 * (symmetric). 400000 replicates: each frequency within 5 standard errors. */
static void test_boot_median_odd_exact(void **state)
{
	(void)state;
	const double p[7] = { 0.010150046809941922, 0.09812359524639269, 0.2386262769521445,
		              0.3062001619830416,   0.2386262769521445,  0.09812359524639269,
		              0.010150046809941922 };
	uint64_t x[7] = { 10, 20, 30, 40, 50, 60, 70 };
	size_t count[7] = { 0 };
	const size_t R = 400000;
	struct gt_rng g;
	gt_rng_seed(&g, 1, 0);
	for (size_t r = 0; r < R; r++) {
		double m = gt_boot_median_u64(&g, x, 7);
		int j = (int)(m / 10) - 1;
		assert_true(j >= 0 && j < 7 && m == (double)x[j]);
		count[j]++;
	}
	for (int j = 0; j < 7; j++) {
		double f = (double)count[j] / (double)R, se = sqrt(p[j] * (1 - p[j]) / (double)R);
		if (fabs(f - p[j]) > 5 * se)
			fail_msg("x[%d]: frequency %.5f, exact %.5f (se %.5f)", j, f, p[j], se);
	}
}

/* Even n: the median of a resample is the mean of two order statistics; the shortcut's distribution
 * of that mean matches brute-force resampling (n indices drawn, sorted, middle two averaged). */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void test_boot_median_even(void **state)
{
	(void)state;
	enum { N = 6, R = 300000 };
	uint64_t x[N] = { 1, 2, 4, 8, 16, 32 };
	/* Values of (x[a] + x[b]) / 2 are distinct per pair, so a histogram keyed by 2 * median works. */
	static size_t fast[65], slow[65];
	struct gt_rng g;
	gt_rng_seed(&g, 7, 0);
	for (int r = 0; r < R; r++) {
		double m = gt_boot_median_u64(&g, x, N);
		fast[(int)(2 * m)]++;
		uint64_t s[N];
		for (int i = 0; i < N; i++)
			s[i] = x[gt_rng_u64(&g) % N];
		qsort(s, N, sizeof *s, cmp_u64);
		slow[s[N / 2 - 1] + s[N / 2]]++;
	}
	for (int v = 0; v < 65; v++) {
		double pf = (double)fast[v] / R, ps = (double)slow[v] / R;
		double se = sqrt((pf * (1 - pf) + ps * (1 - ps)) / R);
		if (fabs(pf - ps) > 5 * se + 1e-9)
			fail_msg("2*median %d: shortcut %.5f, brute force %.5f", v, pf, ps);
	}
}

/* The percentile interval of old/new medians agrees with NumPy's brute-force bootstrap: with
 *   old = [100 + 3i + (i*i) % 7 for i in range(41)], new = [110 + 3i + (3*i*i) % 11 for i in range(37)]
 * 2,000,000 resamples (numpy.random.default_rng(12345), np.median of each, np.percentile(old/new,
 * [2.5, 97.5])) give [0.82954545, 1.12738854]; the medians' ratio is 0.9470588235294117. B = 20000
 * here: the interval's ends are order statistics of a discrete set, so they agree within 0.01. */
static void test_boot_ratio_ci(void **state)
{
	(void)state;
	uint64_t old[41], new[37];
	for (int i = 0; i < 41; i++)
		old[i] = (uint64_t)(100 + 3 * i + (i * i) % 7);
	for (int i = 0; i < 37; i++)
		new[i] = (uint64_t)(110 + 3 * i + (3 * i * i) % 11);
	gt_stats_sort_u64(old, 41);
	gt_stats_sort_u64(new, 37);
	enum { B = 20000 };
	static double ratios[B], scratch[B];
	struct gt_rng g;
	gt_rng_seed(&g, 42, gt_rng_key("kernel"));
	struct gt_boot_ci ci;
	assert_int_equal(gt_boot_ratio_ci_u64(&g, old, 41, new, 37, B, ratios, scratch, &ci), 0);
	assert_int_equal(ci.b, B);
	assert_int_equal(ci.undefined, 0);
	if (fabs(ci.lo - 0.82954545) > 0.01 || fabs(ci.hi - 1.12738854) > 0.01)
		fail_msg("interval [%.6f, %.6f], NumPy [0.829545, 1.127389]", ci.lo, ci.hi);
	assert_true(ci.lo < 0.9470588235294117 && 0.9470588235294117 < ci.hi);
	/* Same seed, same key: the same interval, bit for bit, and the same replicates in order. */
	static double ratios2[B];
	struct gt_boot_ci ci2;
	gt_rng_seed(&g, 42, gt_rng_key("kernel"));
	assert_int_equal(gt_boot_ratio_ci_u64(&g, old, 41, new, 37, B, ratios2, scratch, &ci2), 0);
	assert_true(ci.lo == ci2.lo && ci.hi == ci2.hi);
	assert_memory_equal(ratios, ratios2, sizeof ratios);
	/* Another key gives other replicates. */
	gt_rng_seed(&g, 42, gt_rng_key("other"));
	assert_int_equal(gt_boot_ratio_ci_u64(&g, old, 41, new, 37, B, ratios2, scratch, &ci2), 0);
	assert_true(memcmp(ratios, ratios2, sizeof ratios) != 0);
}

/* A sample and the same sample scaled by 1.1 (distinct values): the interval of the ratio holds 1.1
 * and is narrow; a zero median on the denominator side makes the interval undefined, not infinite. */
static void test_boot_ratio_scaled(void **state)
{
	(void)state;
	enum { N = 2001, B = 2000 };
	static uint64_t a[N], b[N];
	for (int i = 0; i < N; i++) {
		a[i] = 100000 + (uint64_t)i * 10;
		b[i] = (uint64_t)llround(1.1 * (double)a[i]);
	}
	static double scratch[B];
	struct gt_rng g;
	gt_rng_seed(&g, 3, 0);
	struct gt_boot_ci ci;
	assert_int_equal(gt_boot_ratio_ci_u64(&g, b, N, a, N, B, NULL, scratch, &ci), 0);
	assert_true(ci.lo <= 1.1 && 1.1 <= ci.hi);
	assert_true(ci.hi - ci.lo < 0.03);
	uint64_t z[3] = { 0, 0, 5 };
	assert_int_equal(gt_boot_ratio_ci_u64(&g, a, N, z, 3, B, NULL, scratch, &ci), 0);
	assert_true(ci.undefined > 0);
	assert_true(isnan(ci.lo) && isnan(ci.hi));
	assert_int_equal(gt_boot_ratio_ci_u64(&g, a, 0, z, 3, B, NULL, scratch, &ci), GT_ERR_ARG);
}

/* Gamma deviates: mean and variance of Gamma(k) are k; checked for small and very large shapes,
 * which the bootstrap of a 10 M-launch kernel uses. */
static void test_rng_gamma(void **state)
{
	(void)state;
	const double shapes[] = { 0.5, 1, 3.5, 1e3, 5e6 };
	struct gt_rng g;
	gt_rng_seed(&g, 11, 0);
	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
		double k = shapes[s], sum = 0, sum2 = 0;
		const int R = 200000;
		for (int r = 0; r < R; r++) {
			double v = gt_rng_gamma(&g, k);
			assert_true(v > 0);
			sum += v;
			sum2 += v * v;
		}
		double mean = sum / R, var = sum2 / R - mean * mean;
		if (fabs(mean - k) > 5 * sqrt(k / R))
			fail_msg("Gamma(%g): mean %g", k, mean);
		if (fabs(var / k - 1) > 0.03)
			fail_msg("Gamma(%g): variance %g", k, var);
	}
	for (int r = 0; r < 100000; r++) {
		double u = gt_rng_uniform(&g);
		assert_true(u > 0 && u < 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mwu_exact),
		cmocka_unit_test(test_mwu_asymptotic),
		cmocka_unit_test(test_mwu_degenerate),
		cmocka_unit_test(test_boot_median_odd_exact),
		cmocka_unit_test(test_boot_median_even),
		cmocka_unit_test(test_boot_ratio_ci),
		cmocka_unit_test(test_boot_ratio_scaled),
		cmocka_unit_test(test_rng_gamma),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
