/* kernels/refs/composite.c: the reference for the splat renderer's composite kernel, the definition
 * in kernels/splat.h computed in double.
 *
 * splat_reference_pixel() walks every splat for one pixel; a 1280 x 720 frame of 16,384 splats would
 * take 15 billion steps that way. This reference walks the splats once, in array order, and updates
 * only the pixels of each splat's 3-sigma box (one pixel of slack) with the very same double
 * expressions, keeping every pixel's state (colour, transmittance) in double until the end. For each
 * pixel that is the same sequence of operations on the same splats in the same order as
 * splat_reference_pixel(), so the results are identical bit for bit: outside the box the window
 * weight is <= 0 and the definition skips the splat too. A splat whose box cannot be computed (a
 * non-finite position or a sigma <= 0) is applied to every pixel, as the definition does.
 *
 * The alternative orders emulate the kernel's float arithmetic with glibc's expf, without and with
 * the fused multiply-adds nvcc forms by default, for `gpuanalyze calibrate`.
 */
#include "refs.h"

#include "../splat.h"

#include <math.h>
#include <stdlib.h>

const struct gt_ref_output refs_composite_outputs[1] = { {
	.param = 2,
	.type = GT_REF_F32,
	.tol = { .abs = 2e-6, .ulps = 84 },
	.name = "image",
	.reason = "front-to-back compositing in float, against the double definition: each splat's "
	          "weight carries the rounding of d^2 / (2 sigma^2), CUDA's expf (2 ULP) and, near the "
	          "3-sigma cut-off, the cancellation g - exp(-4.5); the transmittance's relative error "
	          "grows by delta alpha / (1 - alpha) per splat; nvcc may fuse multiply-adds. Measured "
	          "with the kernel's float arithmetic (glibc expf, with and without FMA) on the default "
	          "scene (16,384 splats, 1280 x 720, all 3,686,400 channels): worst 21 ULP and worst "
	          "4.2e-7 absolute. Bound = 4 x each: 84 ULP, or 2e-6 absolute for channels near 0, "
	          "where a weight just inside the cut-off on one side and just outside on the other "
	          "makes ULPs meaningless (the seed's |x| < 1e-6 is black)",
} };

const char *const refs_composite_order_names[REFS_COMPOSITE_ORDERS] = {
	"float, no FMA contraction, glibc expf",
	"float, FMA contraction as nvcc -fmad=true, glibc expf",
};

struct composite_args {
	const Splat *splats;
	uint64_t n;
	float *image;
	int32_t w, h;
};

static int composite_args(struct gt_ref_call *c, struct composite_args *a)
{
	int32_t n;
	if (gt_ref_i32(c, 1, &n) || gt_ref_i32(c, 3, &a->w) || gt_ref_i32(c, 4, &a->h))
		return gt_ref_fail(c, "composite(const Splat *splats, int n, float4 *image, int w, int h): "
		                      "n, w or h is not a 4-byte scalar");
	a->n = n > 0 ? (uint64_t)n : 0;
	if (a->w < 0)
		a->w = 0;
	if (a->h < 0)
		a->h = 0;
	a->splats = gt_ref_ptr(c, 0, sizeof(Splat), a->n);
	a->image = gt_ref_ptr(c, 2, 4 * sizeof(float), (uint64_t)a->w * (uint64_t)a->h);
	if (!a->splats || !a->image)
		return gt_ref_fail(c, "splats holds fewer than n = %llu splats, or image fewer than w x h = "
		                      "%d x %d float4 (or is misaligned for them)", (unsigned long long)a->n, a->w, a->h);
	return 0;
}

/* The pixel rows and columns a splat can touch (half-open), or the whole image when its box cannot
 * be computed. */
static void box(const Splat *s, int32_t w, int32_t h, int32_t r[4])
{
	r[0] = 0;
	r[1] = w;
	r[2] = 0;
	r[3] = h;
	double rad = SPLAT_CUTOFF_SIGMAS * (double)s->sigma * (1.0 + 1e-6) + 1.0;
	if (!isfinite(s->x) || !isfinite(s->y) || !(s->sigma > 0) || !isfinite(rad))
		return;
	double x0 = floor(s->x - rad - 0.5), x1 = ceil(s->x + rad + 0.5);
	double y0 = floor(s->y - rad - 0.5), y1 = ceil(s->y + rad + 0.5);
	r[0] = x0 > 0 ? (x0 < w ? (int32_t)x0 : w) : 0;
	r[1] = x1 > 0 ? (x1 < w ? (int32_t)x1 : w) : 0;
	r[2] = y0 > 0 ? (y0 < h ? (int32_t)y0 : h) : 0;
	r[3] = y1 > 0 ? (y1 < h ? (int32_t)y1 : h) : 0;
}

int refs_composite_run(struct gt_ref_call *c)
{
	struct composite_args a;
	if (composite_args(c, &a))
		return -1;
	const uint64_t pixels = (uint64_t)a.w * (uint64_t)a.h;
	double *st = malloc((pixels ? pixels : 1) * 4 * sizeof *st); /* r, g, b, transmittance */
	if (!st)
		return gt_ref_fail(c, "out of memory for %llu pixels", (unsigned long long)pixels);
	for (uint64_t p = 0; p < pixels; p++) {
		st[4 * p] = st[4 * p + 1] = st[4 * p + 2] = 0.0;
		st[4 * p + 3] = 1.0;
	}
	for (uint64_t i = 0; i < a.n; i++) {
		const Splat *s = &a.splats[i];
		int32_t r[4];
		box(s, a.w, a.h, r);
		for (int32_t py = r[2]; py < r[3]; py++) {
			for (int32_t px = r[0]; px < r[1]; px++) {
				/* The expressions of splat_reference_pixel(), verbatim. */
				double cx = px + 0.5, cy = py + 0.5;
				double dx = cx - s->x, dy = cy - s->y;
				double sig = s->sigma;
				double g = exp(-(dx * dx + dy * dy) / (2.0 * sig * sig));
				double wt = (g - SPLAT_CUTOFF_G) / (1.0 - SPLAT_CUTOFF_G);
				if (wt > 0.0) {
					double *q = st + 4 * ((uint64_t)py * (uint64_t)a.w + (uint64_t)px);
					double alpha = s->opacity * wt;
					q[0] += q[3] * alpha * s->r;
					q[1] += q[3] * alpha * s->g;
					q[2] += q[3] * alpha * s->b;
					q[3] *= 1.0 - alpha;
				}
			}
		}
	}
	for (uint64_t p = 0; p < pixels; p++) {
		a.image[4 * p] = (float)st[4 * p];
		a.image[4 * p + 1] = (float)st[4 * p + 1];
		a.image[4 * p + 2] = (float)st[4 * p + 2];
		a.image[4 * p + 3] = (float)(1.0 - st[4 * p + 3]);
	}
	free(st);
	return 0;
}

int refs_composite_order(struct gt_ref_call *c, unsigned k)
{
	struct composite_args a;
	if (k >= REFS_COMPOSITE_ORDERS)
		return gt_ref_fail(c, "no order %u", k);
	if (composite_args(c, &a))
		return -1;
	const int fma_on = k == 1;
	const uint64_t pixels = (uint64_t)a.w * (uint64_t)a.h;
	float *st = malloc((pixels ? pixels : 1) * 4 * sizeof *st);
	if (!st)
		return gt_ref_fail(c, "out of memory for %llu pixels", (unsigned long long)pixels);
	for (uint64_t p = 0; p < pixels; p++) {
		st[4 * p] = st[4 * p + 1] = st[4 * p + 2] = 0.0f;
		st[4 * p + 3] = 1.0f;
	}
	const float cut = (float)SPLAT_CUTOFF_G, inv_window = (float)(1.0 / (1.0 - SPLAT_CUTOFF_G));
	for (uint64_t i = 0; i < a.n; i++) {
		const Splat *s = &a.splats[i];
		/* What the kernel keeps per splat in shared memory. */
		const float qx = s->x, qy = s->y, qz = 0.5f / (s->sigma * s->sigma), qw = s->opacity;
		int32_t r[4];
		box(s, a.w, a.h, r);
		for (int32_t py = r[2]; py < r[3]; py++) {
			for (int32_t px = r[0]; px < r[1]; px++) {
				const float cx = (float)px + 0.5f, cy = (float)py + 0.5f;
				const float dx = cx - qx, dy = cy - qy;
				const float d2 = fma_on ? fmaf(dx, dx, dy * dy) : dx * dx + dy * dy;
				const float wgt = (expf(-d2 * qz) - cut) * inv_window;
				if (wgt > 0.0f) {
					float *q = st + 4 * ((uint64_t)py * (uint64_t)a.w + (uint64_t)px);
					const float alpha = qw * wgt, ta = q[3] * alpha;
					if (fma_on) {
						q[0] = fmaf(ta, s->r, q[0]);
						q[1] = fmaf(ta, s->g, q[1]);
						q[2] = fmaf(ta, s->b, q[2]);
					} else {
						q[0] = q[0] + ta * s->r;
						q[1] = q[1] + ta * s->g;
						q[2] = q[2] + ta * s->b;
					}
					q[3] *= 1.0f - alpha;
				}
			}
		}
	}
	for (uint64_t p = 0; p < pixels; p++) {
		a.image[4 * p] = st[4 * p];
		a.image[4 * p + 1] = st[4 * p + 1];
		a.image[4 * p + 2] = st[4 * p + 2];
		a.image[4 * p + 3] = 1.0f - st[4 * p + 3];
	}
	free(st);
	return 0;
}
