/* twosample.h: statistics that compare two samples of durations: a seeded bootstrap confidence
 * interval for the ratio of their medians, and the Mann-Whitney U rank test.
 *
 * stats.h describes one sample; `gpuanalyze diff` needs to say whether two differ, and these are
 * the two answers it gives (gpuanalyze(1) repeats the definitions):
 *
 *   bootstrap    B replicates; in each, both samples are resampled with replacement (n values drawn
 *                from n, independently for the two samples) and the ratio of the resamples' medians
 *                is taken. The interval is the percentile interval: the 2.5th and 97.5th percentiles
 *                of the B ratios by NumPy's 'linear' rule (stats.h). A replicate's median is drawn
 *                without drawing the n values: the k-th smallest of n indices drawn uniformly from
 *                0..n-1 is floor(n * U(k)), where U(k), the k-th smallest of n uniforms, follows
 *                Beta(k, n - k + 1); the (k+1)-th is U(k) plus (1 - U(k)) times the smallest of the
 *                n - k uniforms above it. This is the same distribution as a full resample's median
 *                and costs O(1) per replicate whatever n is, so a kernel with 10 M launches is as
 *                cheap to bootstrap as one with 20.
 *   random       xoshiro256** seeded through splitmix64 from the user's seed and a key (diff uses
 *                the kernel's name), so one seed gives the same intervals on every machine and a
 *                kernel's interval does not depend on the other kernels. Normal deviates by
 *                Marsaglia's polar method, gamma deviates by Marsaglia and Tsang's method, beta as
 *                G1 / (G1 + G2).
 *   Mann-Whitney U  two-sided, as scipy.stats.mannwhitneyu(x, y, alternative='two-sided',
 *                method='auto', use_continuity=True) in SciPy 1.10: U1 = R1 - n1 (n1 + 1) / 2 with
 *                R1 the sum of x's mid-ranks in the pooled sample; U = max(U1, n1 n2 - U1).
 *                'auto': the exact null distribution when the pooled sample has no ties and
 *                n1 <= 8 or n2 <= 8 (here also only while the larger is <= GT_MWU_EXACT_MAX, beyond
 *                which the normal approximation is used and the result says so); otherwise the
 *                normal approximation with tie correction and continuity correction:
 *                z = (U - n1 n2 / 2 - 0.5) / sqrt(n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))),
 *                p = 2 * P(Z > z), clipped to [0, 1]. Exact: p = 2 * P(U' >= U) under the null,
 *                clipped to [0, 1].
 *
 * Samples are sorted ascending (the callers hold them sorted for stats.h anyway) and hold no NaN.
 */
#ifndef GT_TWOSAMPLE_H
#define GT_TWOSAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* ---- random numbers ------------------------------------------------------------------------ */
struct gt_rng {
	uint64_t s[4];
};

/* Seeds from (seed, key): splitmix64 over seed ^ key fills the state. */
void gt_rng_seed(struct gt_rng *g, uint64_t seed, uint64_t key);
uint64_t gt_rng_u64(struct gt_rng *g);
double gt_rng_uniform(struct gt_rng *g);               /* in (0, 1): never 0, never 1 */
double gt_rng_normal(struct gt_rng *g);                /* standard normal */
double gt_rng_gamma(struct gt_rng *g, double shape);   /* shape > 0, scale 1 */
double gt_rng_beta(struct gt_rng *g, double a, double b);
/* FNV-1a of a string: the key diff derives a kernel's stream from. */
uint64_t gt_rng_key(const char *s);

/* ---- bootstrap ----------------------------------------------------------------------------- */
/* One replicate of the median of a sorted sample of n >= 1 values (u64 or double). */
double gt_boot_median_u64(struct gt_rng *g, const uint64_t *x, size_t n);
double gt_boot_median_double(struct gt_rng *g, const double *x, size_t n);

#define GT_BOOT_LEVEL 0.95

struct gt_boot_ci {
	double lo, hi;           /* the percentile interval; NaN when it is undefined */
	size_t b;                /* replicates drawn */
	size_t undefined;        /* replicates whose denominator median was 0 (ratio undefined) */
};

/* Ratio of medians num / den, bootstrapped: B replicates from g. The ratios are written to
 * ratios[0..B-1] in the order drawn (when not NULL; for a geometric mean across kernels) before the
 * interval is computed on a sorted copy in scratch (B doubles). When any replicate has a zero
 * denominator the interval is NaN and `undefined` counts them. Returns 0, or GT_ERR_ARG for an empty
 * sample or B == 0. */
int gt_boot_ratio_ci_u64(struct gt_rng *g, const uint64_t *num, size_t n_num, const uint64_t *den,
                         size_t n_den, size_t B, double *ratios, double *scratch,
                         struct gt_boot_ci *out);
/* The percentile interval of B replicates, sorted in place: [lo, hi] at level GT_BOOT_LEVEL. */
void gt_boot_percentile_ci(double *reps, size_t B, double *lo, double *hi);

/* ---- Mann-Whitney U ------------------------------------------------------------------------ */
#define GT_MWU_EXACT_MAX 10000 /* exact only while the larger sample is at most this */

enum gt_mwu_method { GT_MWU_NONE = 0, GT_MWU_EXACT = 1, GT_MWU_ASYMPTOTIC = 2 };

struct gt_mwu {
	double u1;               /* U of the first sample (SciPy's statistic) */
	double p;                /* two-sided p-value; NaN when a sample is empty */
	double z;                /* asymptotic: the standardised statistic; NaN for exact */
	double tie_term;         /* sum over tie groups of t^3 - t */
	int ties;                /* the pooled sample has ties */
	int method;              /* enum gt_mwu_method */
	int exact_capped;        /* SciPy would have used the exact distribution; too large here */
};

/* The test on sorted x (n1) and y (n2). Returns 0, or GT_ERR_NOMEM (exact table). With n1 or n2 0
 * the result has p = NaN, method NONE. */
int gt_mwu_sorted_u64(const uint64_t *x, size_t n1, const uint64_t *y, size_t n2, struct gt_mwu *out);
int gt_mwu_sorted_double(const double *x, size_t n1, const double *y, size_t n2, struct gt_mwu *out);
const char *gt_mwu_method_name(int method); /* "exact", "asymptotic", "none" */

#endif
