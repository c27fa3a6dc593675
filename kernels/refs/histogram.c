/* kernels/refs/histogram.c: the reference for histogram, a weighted histogram built with float
 * atomicAdd (kernels/shadow_kernels.h): counts[k] = before[k] + the sum of the values that fall in
 * bin k, in whatever order the threads arrive.
 *
 * The bin of each value is computed in float exactly as the kernel does (the bin is a decision, not
 * a rounding error: computing it in double would move values on bin edges). The sums are formed in
 * double from the float values, which is exact to far below a float ULP for the sizes involved, and
 * rounded to float once. The alternative orders are the float sums a GPU could legally produce:
 * index order, reverse order, thread-major block interleaving (every block's thread 0 first, then
 * every block's thread 1, ...: how warps of concurrently resident blocks may arrive), and seeded
 * shuffles. `gpuanalyze calibrate --kernel histogram` measures their spread against the double sums.
 */
#include "refs.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct gt_ref_output refs_histogram_outputs[1] = { {
	.param = 5,
	.type = GT_REF_F32,
	.tol = { .ulps = 144 },
	.name = "counts_weighted",
	.reason = "float atomicAdd sums each bin in arrival order, different on every run. Bins hold "
	          "values of one sign (0 is a bin edge), so the error is relative: recursive summation "
	          "of m terms in any order is within (m-1) u of the sum (u = 2^-24), a proven but loose "
	          "~7,000 ULP for the fullest bin of the default run (m = 3,477), while orders that are "
	          "not adversarial grow like sqrt(m). Measured on the default inputs (n = 100003, 64 "
	          "bins, both repetitions) over the 8 orders below and 400 further seeded shuffles, "
	          "against the double sums: worst 36 ULP. Bound = 36 x 4 margin = 144 ULP. Re-derive "
	          "with `gpuanalyze calibrate --kernel histogram` on captures from the GPU at hand, and "
	          "for other sizes (the spread grows with the number of values per bin)",
} };

const char *const refs_histogram_order_names[REFS_HISTOGRAM_ORDERS] = {
	"float, index order",
	"float, reverse index order",
	"float, blocks of 256 interleaved thread-major",
	"float, shuffle seed 1",
	"float, shuffle seed 2",
	"float, shuffle seed 3",
	"float, shuffle seed 4",
	"float, shuffle seed 5",
};

struct hist_args {
	const float *values;
	uint64_t n;
	float lo, hi;
	int32_t bins;
	float *counts;
};

static int hist_args(struct gt_ref_call *c, struct hist_args *a)
{
	int32_t n;
	if (gt_ref_i32(c, 1, &n) || gt_ref_f32(c, 2, &a->lo) || gt_ref_f32(c, 3, &a->hi) ||
	    gt_ref_i32(c, 4, &a->bins))
		return gt_ref_fail(c, "histogram(const float *values, int n, float lo, float hi, int bins, "
		                      "float *counts_weighted): a scalar is missing or of the wrong size");
	if (a->bins < 1)
		return gt_ref_fail(c, "bins = %d: the kernel needs at least one bin", a->bins);
	a->n = n > 0 ? (uint64_t)n : 0;
	a->values = gt_ref_ptr(c, 0, sizeof(float), a->n);
	a->counts = gt_ref_ptr(c, 5, sizeof(float), (uint64_t)a->bins);
	if (!a->values || !a->counts)
		return gt_ref_fail(c, "values holds fewer than n = %d floats, or counts_weighted fewer than "
		                      "bins = %d (or is misaligned for them)", n, a->bins);
	return 0;
}

/* The kernel's bin in float, -1 outside [lo, hi) (NaN included). The float-to-int conversion
 * saturates as the GPU's does (cvt.rzi.s32.f32), where C's cast would be undefined. */
static int32_t bin_of(float v, float lo, float hi, int32_t bins)
{
	if (!(v >= lo && v < hi))
		return -1;
	const float scale = (float)bins / (hi - lo);
	const float f = (v - lo) * scale;
	int32_t k = !(f >= 0.0f) ? 0 : f >= 2147483648.0f ? INT32_MAX : (int32_t)f;
	return k > bins - 1 ? bins - 1 : k;
}

int refs_histogram_run(struct gt_ref_call *c)
{
	struct hist_args a;
	if (hist_args(c, &a))
		return -1;
	double *sum = malloc((size_t)a.bins * sizeof *sum);
	if (!sum)
		return gt_ref_fail(c, "out of memory for %d bins", a.bins);
	for (int32_t k = 0; k < a.bins; k++)
		sum[k] = a.counts[k];
	for (uint64_t i = 0; i < a.n; i++) {
		int32_t k = bin_of(a.values[i], a.lo, a.hi, a.bins);
		if (k >= 0)
			sum[k] += a.values[i];
	}
	for (int32_t k = 0; k < a.bins; k++)
		a.counts[k] = (float)sum[k];
	free(sum);
	return 0;
}

/* Element i of order k's sequence of n, through a permutation when the order needs one. */
static uint64_t order_index(unsigned k, uint64_t j, uint64_t n, const uint32_t *perm)
{
	switch (k) {
	case 0: return j;
	case 1: return n - 1 - j;
	case 2: {
		/* Thread-major over blocks of 256: j walks (t, b) with b fastest. */
		const uint64_t blocks = (n + 255) / 256;
		const uint64_t full = n / 256, tail = n % 256;
		/* Thread positions t < tail exist in every block; the others in the full blocks only. */
		uint64_t t, b;
		if (j < tail * blocks) {
			t = j / blocks;
			b = j % blocks;
		} else {
			uint64_t r = j - tail * blocks;
			t = tail + r / full;
			b = r % full;
		}
		return b * 256 + t;
	}
	}
	return perm[j];
}

int refs_histogram_order(struct gt_ref_call *c, unsigned k)
{
	struct hist_args a;
	if (k >= REFS_HISTOGRAM_ORDERS)
		return gt_ref_fail(c, "no order %u", k);
	if (hist_args(c, &a))
		return -1;
	if (a.n > UINT32_MAX)
		return gt_ref_fail(c, "n = %llu is too large to shuffle", (unsigned long long)a.n);
	uint32_t *perm = NULL;
	if (k >= 3 && a.n) {
		perm = malloc(a.n * sizeof *perm);
		if (!perm)
			return gt_ref_fail(c, "out of memory for a permutation of %llu", (unsigned long long)a.n);
		for (uint64_t i = 0; i < a.n; i++)
			perm[i] = (uint32_t)i;
		uint64_t state = k - 2; /* seeds 1..5 */
		for (uint64_t i = a.n - 1; i > 0; i--) {
			uint64_t j = refs_splitmix64(&state) % (i + 1);
			uint32_t tmp = perm[i];
			perm[i] = perm[j];
			perm[j] = tmp;
		}
	}
	/* Float accumulation straight into the bins, as atomicAdd does. (atomicAdd also flushes
	 * subnormals to zero; the kernel's documented inputs never produce one.) */
	for (uint64_t j = 0; j < a.n; j++) {
		const float v = a.values[order_index(k, j, a.n, perm)];
		int32_t b = bin_of(v, a.lo, a.hi, a.bins);
		if (b >= 0)
			a.counts[b] = a.counts[b] + v;
	}
	free(perm);
	return 0;
}
