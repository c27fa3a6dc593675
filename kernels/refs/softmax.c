/* kernels/refs/softmax.c: the reference for softmax_rows (and softmax_rows_badmask, which must compute
 * the same): a row-wise softmax over the valid elements of each row, all zeros for a fully masked row
 * (the DECLARED behaviour in kernels/shadow_kernels.h), masked elements exactly +0.
 *
 * In double: m = the row's maximum valid logit, e = exp(x - m), sum in double, out = e / sum rounded
 * to float once. A fully masked row (m = -inf) is all +0.0f; a NaN there never matches, which is how
 * softmax_rows_badmask is caught. NaN and +inf logits are outside the kernel's contract: the
 * reference refuses them rather than inventing an answer. The one alternative order is the kernel's
 * own float evaluation (per-thread strided sums, then the block tree) with glibc's expf, for
 * `gpuanalyze calibrate`.
 */
#include "refs.h"

#include <math.h>
#include <stdlib.h>

const struct gt_ref_output refs_softmax_outputs[1] = { {
	.param = 2,
	.type = GT_REF_F32,
	.tol = { .ulps = 32 },
	.name = "out",
	.reason = "sums of positive terms only, so a relative bound holds: CUDA's expf (2 ULP), the "
	          "rounding of x - m (up to 8 ULP of the result when |x - m| < 16: half an ULP of x - m "
	          "is an absolute error in the exponent), the row sum (per-thread sums of cols/256 terms, "
	          "then 8 tree levels: 12 roundings for cols <= 1024, u each), the division and the "
	          "reference's own rounding: at most 24 ULP, rounded up to 32. Measured: the kernel's "
	          "float order with glibc expf is within 3 ULP of the double reference on the default "
	          "inputs (64 x 1000, both repetitions); CUDA's expf may add 2, and 5 x 4 margin = 20 is "
	          "inside the bound. Masked outputs and fully masked rows must be exactly +0: a NaN or any "
	          "non-zero there fails",
} };

const char *const refs_softmax_order_names[REFS_SOFTMAX_ORDERS] = {
	"float, the kernel's order (strided per-thread sums, block tree), glibc expf",
};

struct softmax_args {
	const float *logits;
	const unsigned char *mask;
	float *out;
	uint64_t rows, cols;
};

static int softmax_args(struct gt_ref_call *c, struct softmax_args *a)
{
	int32_t rows, cols;
	if (gt_ref_i32(c, 3, &rows) || gt_ref_i32(c, 4, &cols))
		return gt_ref_fail(c, "softmax_rows(const float *logits, const unsigned char *mask, float "
		                      "*out, int rows, int cols): rows or cols is not a 4-byte scalar");
	a->rows = rows > 0 ? (uint64_t)rows : 0;
	a->cols = cols > 0 ? (uint64_t)cols : 0;
	const uint64_t count = a->rows * a->cols; /* both < 2^31: no overflow */
	a->logits = gt_ref_ptr(c, 0, sizeof(float), count);
	a->mask = gt_ref_ptr(c, 1, 1, count);
	a->out = gt_ref_ptr(c, 2, sizeof(float), count);
	if (!a->logits || !a->mask || !a->out)
		return gt_ref_fail(c, "logits, mask or out holds fewer than rows x cols = %llu elements "
		                      "(or is misaligned for them)", (unsigned long long)count);
	for (uint64_t i = 0; i < count; i++)
		if (a->mask[i] && (isnan(a->logits[i]) || a->logits[i] == INFINITY))
			return gt_ref_fail(c, "logits[%llu] is %s and valid: outside the kernel's contract",
			                   (unsigned long long)i, isnan(a->logits[i]) ? "NaN" : "+inf");
	return 0;
}

/*
 * The row's largest valid logit, the same in float and in double (it is one of the floats). A fully
 * masked row has none: -inf, and the row's output is written here, all +0, as the contract says.
 */
static float row_max(const float *x, const unsigned char *valid, float *out, uint64_t cols)
{
	float m = -INFINITY;
	for (uint64_t j = 0; j < cols; j++)
		if (valid[j] && x[j] > m)
			m = x[j];
	if (m == -INFINITY)
		for (uint64_t j = 0; j < cols; j++)
			out[j] = 0.0f;
	return m;
}

/* One valid row's softmax given its largest valid logit m; block is the kernel's block size. */
typedef void (*row_fn)(const float *x, const unsigned char *valid, float *out, uint64_t cols, float m,
                       unsigned block);

/* The walk over rows, written once: fully masked rows are done by row_max, the others by row. */
static void each_row(const struct softmax_args *a, row_fn row, unsigned block)
{
	for (uint64_t r = 0; r < a->rows; r++) {
		const float *x = a->logits + r * a->cols;
		const unsigned char *valid = a->mask + r * a->cols;
		float *out = a->out + r * a->cols;
		const float m = row_max(x, valid, out, a->cols);
		if (m != -INFINITY)
			row(x, valid, out, a->cols, m, block);
	}
}

/* The reference: double throughout, sums in index order, glibc exp. */
static void row_double(const float *x, const unsigned char *valid, float *out, uint64_t cols, float mf,
                       unsigned block)
{
	(void)block;
	const double m = mf;
	double sum = 0.0;
	for (uint64_t j = 0; j < cols; j++)
		if (valid[j])
			sum += exp((double)x[j] - m);
	for (uint64_t j = 0; j < cols; j++)
		out[j] = valid[j] ? (float)(exp((double)x[j] - m) / sum) : 0.0f;
}

/* The kernel's order in float: strided per-thread sums, then the block's tree. */
static void row_kernel_order(const float *x, const unsigned char *valid, float *out, uint64_t cols,
                             float m, unsigned block)
{
	float s[1024];
	for (unsigned t = 0; t < block; t++) {
		float acc = 0.0f;
		for (uint64_t j = t; j < cols; j += block)
			acc += expf((valid[j] ? x[j] : -INFINITY) - m);
		s[t] = acc;
	}
	for (unsigned stride = block / 2; stride > 0; stride /= 2)
		for (unsigned t = 0; t < stride; t++)
			s[t] = s[t] + s[t + stride];
	for (uint64_t j = 0; j < cols; j++)
		out[j] = expf((valid[j] ? x[j] : -INFINITY) - m) / s[0];
}

int refs_softmax_run(struct gt_ref_call *c)
{
	struct softmax_args a;
	if (softmax_args(c, &a))
		return -1;
	each_row(&a, row_double, 0);
	return 0;
}

int refs_softmax_order(struct gt_ref_call *c, unsigned k)
{
	struct softmax_args a;
	unsigned block;
	if (k >= REFS_SOFTMAX_ORDERS)
		return gt_ref_fail(c, "no order %u", k);
	if (softmax_args(c, &a) || refs_tree_block(c, &block))
		return -1;
	each_row(&a, row_kernel_order, block);
	return 0;
}
