/* twosample.c: the bootstrap interval for a ratio of medians and the Mann-Whitney U test, as
 * twosample.h defines them.
 *
 * Both work on sorted samples: the bootstrap draws order statistics instead of resamples (O(1) per
 * replicate), and the rank test reads mid-ranks off a merge of the two sorted samples (O(n1 + n2),
 * no pooled copy, no sort). The exact null distribution of U is the coefficient list of the
 * Gaussian binomial coefficient [n1 + n2 choose m]_q, built by multiplying and dividing by
 * (1 - q^j) in 128-bit integers, so its counts are exact for every size it is used for.
 */
#include "analyze/blocks/twosample.h"

#include "traces/gputrace.h"
#include "common/fnv.h"
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void gt_rng_seed(struct gt_rng *g, uint64_t seed, uint64_t key)
{
	uint64_t x = seed ^ key;
	for (int i = 0; i < 4; i++)
		g->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t gt_rng_u64(struct gt_rng *g)
{
	uint64_t *s = g->s;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* The 53 top bits as (k + 0.5) / 2^53: strictly inside (0, 1), so log() never sees 0. */
double gt_rng_uniform(struct gt_rng *g)
{
	return ((double)(gt_rng_u64(g) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double gt_rng_normal(struct gt_rng *g)
{
	/* Marsaglia's polar method; the second deviate is dropped so that the stream's use does not
	 * depend on hidden state. */
	for (;;) {
		double u = 2 * gt_rng_uniform(g) - 1, v = 2 * gt_rng_uniform(g) - 1;
		double s = u * u + v * v;
		if (s > 0 && s < 1)
			return u * sqrt(-2 * log(s) / s);
	}
}

double gt_rng_gamma(struct gt_rng *g, double shape)
{
	if (shape < 1) {
		/* Gamma(a) = Gamma(a + 1) * U^(1/a). */
		double u = gt_rng_uniform(g);
		return gt_rng_gamma(g, shape + 1) * pow(u, 1 / shape);
	}
	/* Marsaglia and Tsang (2000), "A simple method for generating gamma variables". */
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			x = gt_rng_normal(g);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = gt_rng_uniform(g), x2 = x * x;
		if (u < 1 - 0.0331 * x2 * x2)
			return d * v;
		if (log(u) < 0.5 * x2 + d * (1 - v + log(v)))
			return d * v;
	}
}

double gt_rng_beta(struct gt_rng *g, double a, double b)
{
	double x = gt_rng_gamma(g, a), y = gt_rng_gamma(g, b);
	return x / (x + y);
}

uint64_t gt_rng_key(const char *s)
{
	return gt_fnv1a64_str(s);
}

/* ---- bootstrap ----------------------------------------------------------------------------- */

static size_t index_of(double u, size_t n)
{
	double f = floor(u * (double)n);
	if (!(f >= 0))
		return 0;
	if (f >= (double)n)
		return n - 1;
	return (size_t)f;
}

/* The indices of the order statistics a bootstrap median needs: the k-th smallest of n draws with
 * replacement (k = (n + 1) / 2 for odd n; k = n / 2 and k + 1 for even n), 0-based into the sorted
 * sample. */
static void median_indices(struct gt_rng *g, size_t n, size_t *i1, size_t *i2)
{
	if (n == 1) {
		*i1 = *i2 = 0;
		return;
	}
	size_t k = n % 2 ? (n + 1) / 2 : n / 2;
	double u1 = gt_rng_beta(g, (double)k, (double)(n - k + 1));
	*i1 = index_of(u1, n);
	if (n % 2) {
		*i2 = *i1;
		return;
	}
	/* The smallest of the n - k draws above u1: u1 + (1 - u1) * (1 - V^(1 / (n - k))). */
	double v = gt_rng_uniform(g);
	double u2 = u1 + (1 - u1) * -expm1(log(v) / (double)(n - k));
	*i2 = index_of(u2, n);
	if (*i2 < *i1)
		*i2 = *i1; /* rounding at the top end; the order statistics are ordered */
}

double gt_boot_median_u64(struct gt_rng *g, const uint64_t *x, size_t n)
{
	size_t a, b;
	median_indices(g, n, &a, &b);
	return a == b ? (double)x[a] : ((double)x[a] + (double)x[b]) / 2;
}

double gt_boot_median_double(struct gt_rng *g, const double *x, size_t n)
{
	size_t a, b;
	median_indices(g, n, &a, &b);
	return a == b ? x[a] : (x[a] + x[b]) / 2;
}

void gt_boot_percentile_ci(double *reps, size_t B, double *lo, double *hi)
{
	gt_stats_sort_double(reps, B);
	double tail = (1 - GT_BOOT_LEVEL) / 2 * 100;
	*lo = gt_stats_percentile_double(reps, B, tail);
	*hi = gt_stats_percentile_double(reps, B, 100 - tail);
}

int gt_boot_ratio_ci_u64(struct gt_rng *g, const uint64_t *num, size_t n_num, const uint64_t *den,
                         size_t n_den, size_t B, double *ratios, double *scratch,
                         struct gt_boot_ci *out)
{
	out->lo = out->hi = NAN;
	out->b = 0;
	out->undefined = 0;
	if (!n_num || !n_den || !B)
		return GT_ERR_ARG;
	for (size_t b = 0; b < B; b++) {
		double a = gt_boot_median_u64(g, num, n_num);
		double d = gt_boot_median_u64(g, den, n_den);
		double r;
		if (d > 0) {
			r = a / d;
		} else {
			out->undefined++;
			r = 0;
		}
		scratch[b] = r;
		if (ratios)
			ratios[b] = d > 0 ? r : NAN;
	}
	out->b = B;
	if (out->undefined)
		return 0;
	gt_boot_percentile_ci(scratch, B, &out->lo, &out->hi);
	return 0;
}

/* ---- Mann-Whitney U ------------------------------------------------------------------------ */

const char *gt_mwu_method_name(int method)
{
	switch (method) {
	case GT_MWU_EXACT: return "exact";
	case GT_MWU_ASYMPTOTIC: return "asymptotic";
	default: return "none";
	}
}

/* P(U' >= u) under the null for sample sizes m <= 8 and n, from the exact counts. The counts of U'
 * = k are the coefficients of [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); each
 * partial product is itself a q-binomial coefficient, so every division is exact. */
static int mwu_exact_sf(size_t m, size_t n, double u, double *p)
{
	size_t top = m * n;
	/* Multiplying by (1 - q^(n+i)) before dividing by (1 - q^i) reaches degree i n + i: m more
	 * than the result's m n. */
	__int128 *c = calloc(top + m + 1, sizeof *c);
	if (!c)
		return GT_ERR_NOMEM;
	c[0] = 1;
	size_t deg = 0;
	for (size_t i = 1; i <= m; i++) {
		size_t j = n + i;
		deg += j;
		for (size_t k = deg; k >= j; k--)
			c[k] -= c[k - j];
		for (size_t k = i; k <= deg; k++)
			c[k] += c[k - i];
		deg -= i;
	}
	/* By symmetry P(U' >= u) = P(U' <= m n - u), summed from the left as SciPy does. */
	long double total = 0, below = 0;
	double lim = (double)top - u;
	for (size_t k = 0; k <= top; k++) {
		total += (long double)c[k];
		if ((double)k <= lim)
			below += (long double)c[k];
	}
	free(c);
	*p = (double)(below / total);
	return 0;
}

static int mwu_finish(size_t n1, size_t n2, double u1, double tie_term, struct gt_mwu *out)
{
	out->u1 = u1;
	out->tie_term = tie_term;
	out->ties = tie_term > 0;
	double nn = (double)n1 * (double)n2;
	double u = fmax(u1, nn - u1);
	int exact = !out->ties && (n1 <= 8 || n2 <= 8);
	if (exact && (n1 > GT_MWU_EXACT_MAX || n2 > GT_MWU_EXACT_MAX)) {
		exact = 0;
		out->exact_capped = 1;
	}
	if (exact) {
		size_t m = n1 < n2 ? n1 : n2, n = n1 < n2 ? n2 : n1;
		double sf;
		int rc = mwu_exact_sf(m, n, u, &sf);
		if (rc)
			return rc;
		out->method = GT_MWU_EXACT;
		out->p = fmin(1.0, 2 * sf);
		return 0;
	}
	out->method = GT_MWU_ASYMPTOTIC;
	double n = (double)(n1 + n2);
	double s = sqrt(nn / 12 * ((n + 1) - tie_term / (n * (n - 1))));
	double num = u - nn / 2 - 0.5;
	if (!(s > 0)) {
		/* Every value equal: U is its mean, the numerator -0.5, z = -inf and p = 1 in SciPy. */
		out->z = num < 0 ? -INFINITY : num > 0 ? INFINITY : NAN;
		out->p = num <= 0 ? 1.0 : 0.0;
		return 0;
	}
	out->z = num / s;
	/* 2 * P(Z > z) = erfc(z / sqrt(2)). */
	out->p = fmin(1.0, fmax(0.0, erfc(out->z / M_SQRT2)));
	return 0;
}

static void mwu_empty(struct gt_mwu *out)
{
	memset(out, 0, sizeof *out);
	out->u1 = out->p = out->z = NAN;
	out->method = GT_MWU_NONE;
}

/* The merge walk shared by both element types: U1 and the tie term, from tie groups read off the
 * two sorted samples. U1 = sum over x of (#y below it + half the #y equal to it), which is
 * R1 - n1 (n1 + 1) / 2 written with integers and halves only, so it is exact. Each type's walk comes
 * with its public entry, gt_mwu_sorted_u64 and gt_mwu_sorted_double (twosample.h), which differ in
 * nothing else. */
#define MWU_SORTED(T, NAME)                                                                        \
	static void mwu_walk_##NAME(const T *x, size_t n1, const T *y, size_t n2, double *u1,      \
	                            double *tie_term)                                              \
	{                                                                                          \
		size_t i = 0, j = 0;                                                               \
		double u = 0, tt = 0;                                                              \
		while (i < n1 || j < n2) {                                                         \
			T v = i < n1 && (j >= n2 || x[i] <= y[j]) ? x[i] : y[j];                   \
			size_t tx = 0, ty = 0, ylt = j;                                            \
			while (i < n1 && x[i] == v) {                                              \
				i++;                                                               \
				tx++;                                                              \
			}                                                                          \
			while (j < n2 && y[j] == v) {                                              \
				j++;                                                               \
				ty++;                                                              \
			}                                                                          \
			u += (double)tx * ((double)ylt + 0.5 * (double)ty);                        \
			double t = (double)(tx + ty);                                              \
			if (t > 1)                                                                 \
				tt += t * t * t - t;                                               \
		}                                                                                  \
		*u1 = u;                                                                           \
		*tie_term = tt;                                                                    \
	}                                                                                          \
	int gt_mwu_sorted_##NAME(const T *x, size_t n1, const T *y, size_t n2, struct gt_mwu *out) \
	{                                                                                          \
		mwu_empty(out);                                                                    \
		if (!n1 || !n2)                                                                    \
			return 0;                                                                  \
		double u1, tt;                                                                     \
		mwu_walk_##NAME(x, n1, y, n2, &u1, &tt);                                           \
		return mwu_finish(n1, n2, u1, tt, out);                                            \
	}
MWU_SORTED(uint64_t, u64)
MWU_SORTED(double, double)
