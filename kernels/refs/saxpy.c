/* kernels/refs/saxpy.c: the reference for saxpy (and for saxpy_nobounds, which must compute the same).
 *
 * saxpy(int n, float a, const float *x, float *y): y[i] = fmaf(a, x[i], y[i]) for i < n, y[i] for
 * i >= n untouched (kernels/shadow_kernels.h). The reference computes a * x + y in double and rounds
 * to float. It writes exactly the n elements of the contract, whatever the launch, so a launch whose
 * grid does not cover n fails as surely as saxpy_nobounds' writes into the padding past n do: the
 * padding is compared too (the whole allocation), and the reference leaves it as it was.
 */
#include "refs.h"

#include <math.h>

const struct gt_ref_output refs_saxpy_outputs[1] = { {
	.param = 3,
	.type = GT_REF_F32,
	.tol = { .ulps = 1 },
	.name = "y",
	.reason = "one fused multiply-add per element, rounded once on the GPU (fmaf). The reference "
	          "forms a * x exactly in double and rounds a * x + y to double, then to float: the two "
	          "roundings can differ from fmaf's one by 1 ULP where the double lands on a float "
	          "rounding tie, and nowhere else. So: at most 1 ULP; anything more is a wrong element",
} };

int refs_saxpy_run(struct gt_ref_call *c)
{
	int32_t n;
	float a;
	if (gt_ref_i32(c, 0, &n) || gt_ref_f32(c, 1, &a))
		return gt_ref_fail(c, "saxpy(int n, float a, const float *x, float *y): n or a is not "
		                      "a 4-byte scalar");
	uint64_t count = n > 0 ? (uint64_t)n : 0;
	const float *x = gt_ref_ptr(c, 2, sizeof(float), count);
	float *y = gt_ref_ptr(c, 3, sizeof(float), count);
	if (!x || !y)
		return gt_ref_fail(c, "x or y holds fewer than n = %d floats (or is misaligned for them)", n);
	for (uint64_t i = 0; i < count; i++)
		y[i] = (float)fma((double)a, (double)x[i], (double)y[i]);
	return 0;
}
