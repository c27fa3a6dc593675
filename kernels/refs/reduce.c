/* kernels/refs/reduce.c: the reference for reduce_sum (and reduce_sum_nosync, which must compute the
 * same): one level of a block tree reduction, partial[b] = the sum of in[b*2B .. b*2B + 2B) in the
 * kernel's documented float order (kernels/shadow_kernels.h).
 *
 * This is the one reference here that computes in float, on purpose. The kernel's evaluation order
 * is part of its contract (a fixed tree, no atomics), so the float sum in that order is the exact
 * answer and any departure is a bug: with a tolerance of 0 the replay sees even a stale
 * shared-memory value of 1e-7 that reduce_sum_nosync may add. A double reference would need an
 * input-dependent bound instead (for 1024 values in [-2, 2): gamma_10 * sum |x|, about 6e-4
 * absolute), which a stale value smaller than that would pass.
 */
#include "refs.h"

const struct gt_ref_output refs_reduce_outputs[1] = { {
	.param = 1,
	.type = GT_REF_F32,
	.tol = { 0 },
	.name = "partial",
	.reason = "exact: the reference adds in float in the kernel's documented order (s[t] = lo + hi, "
	          "then the tree with strides B/2 .. 1), which the kernel's contract fixes; float "
	          "additions in a fixed order are deterministic on the GPU and the CPU alike",
} };

int refs_tree_block(struct gt_ref_call *c, unsigned *block)
{
	unsigned b = c->block[0];
	if (c->block[1] != 1 || c->block[2] != 1 || b < 2 || b > 1024 || (b & (b - 1)) != 0)
		return gt_ref_fail(c, "block (%u, %u, %u): the kernel wants a 1-D block of a power of two "
		                      "in [2, 1024]", c->block[0], c->block[1], c->block[2]);
	*block = b;
	return 0;
}

uint64_t refs_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int refs_reduce_run(struct gt_ref_call *c)
{
	int32_t n;
	unsigned block;
	if (gt_ref_i32(c, 2, &n))
		return gt_ref_fail(c, "reduce_sum(const float *in, float *partial, int n): n is not a "
		                      "4-byte scalar");
	if (refs_tree_block(c, &block))
		return -1;
	uint64_t count = n > 0 ? (uint64_t)n : 0, grid = c->grid[0];
	if (c->grid[1] != 1 || c->grid[2] != 1)
		return gt_ref_fail(c, "grid (%u, %u, %u): the kernel wants a 1-D grid", c->grid[0], c->grid[1],
		                   c->grid[2]);
	const float *in = gt_ref_ptr(c, 0, sizeof(float), count);
	float *partial = gt_ref_ptr(c, 1, sizeof(float), grid);
	if (!in || !partial)
		return gt_ref_fail(c, "in holds fewer than n = %d floats, or partial fewer than grid = %llu "
		                      "(or is misaligned for them)", n, (unsigned long long)grid);
	float s[1024];
	for (uint64_t b = 0; b < grid; b++) {
		const uint64_t base = b * 2 * block;
		for (uint64_t t = 0; t < block; t++) {
			const float lo = base + t < count ? in[base + t] : 0.0f;
			const float hi = base + t + block < count ? in[base + t + block] : 0.0f;
			s[t] = lo + hi;
		}
		for (unsigned stride = block / 2; stride > 0; stride /= 2)
			for (unsigned t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		partial[b] = s[0];
	}
	return 0;
}
