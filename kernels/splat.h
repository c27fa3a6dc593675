/*
 * kernels/splat.h: the splat renderer's data layout and the exact definition of what its `composite`
 * kernel computes, with a double-precision CPU reference for one pixel.
 *
 * Shared by kernels/splat_render.cu (the GPU side and its --check) and by whoever writes a CPU
 * reference for shadow replay: the kernel's arguments are `(const Splat *splats, int n, float4
 * *image, int w, int h)`, and a captured `splats` allocation is an array of the struct below.
 * Plain C (C99 and C++17), no CUDA types, so a reference library can include it.
 *
 * The definition, per pixel (px, py) with 0 <= px < w, 0 <= py < h:
 *   centre      cx = px + 0.5, cy = py + 0.5
 *   for i = 0 .. n-1, in array order (the array is already sorted front to back):
 *     d2     = (cx - x_i)^2 + (cy - y_i)^2
 *     g      = exp(-d2 / (2 sigma_i^2))
 *     w      = (g - SPLAT_CUTOFF_G) / (1 - SPLAT_CUTOFF_G)       (a Gaussian windowed to 0 at 3 sigma)
 *     if w > 0:
 *       alpha = opacity_i * w
 *       C    += T * alpha * (r_i, g_i, b_i)                       (C starts at 0: black background)
 *       T    *= 1 - alpha                                         (T starts at 1)
 *   image[py * w + px] = (C.r, C.g, C.b, 1 - T)                   (float4, row-major, no padding)
 * There is no early termination, so every splat that covers a pixel contributes, and the result does
 * not depend on a threshold. The window makes the weight continuous at the cut-off radius, so a
 * float-versus-double disagreement about whether a pixel lies inside 3 sigma changes the result by
 * rounding only, not by a jump of exp(-4.5).
 *
 * The GPU evaluates this in float (expf, and the compiler may fuse multiply-adds); expect a small
 * difference from the double reference that grows with the number of splats covering a pixel.
 */
#ifndef GPUTRACE_KERNELS_SPLAT_H
#define GPUTRACE_KERNELS_SPLAT_H

#include <math.h>

/*
 * One 2-D Gaussian splat: 32 bytes, eight floats, no padding. `depth` only orders the array (the
 * program sorts by it once, front first); the kernel never reads it.
 */
typedef struct Splat {
	float x, y;    /* centre, in pixels (pixel (px, py) is the unit square at px..px+1, py..py+1) */
	float sigma;   /* standard deviation in pixels, > 0 */
	float opacity; /* peak opacity, in (0, 1] */
	float r, g, b; /* colour, linear, in [0, 1] */
	float depth;   /* sort key, smaller is nearer */
} Splat;

/* Splats are cut off at this many standard deviations; exp(-0.5 * 3^2) = exp(-4.5). */
#define SPLAT_CUTOFF_SIGMAS 3.0
#define SPLAT_CUTOFF_G 0.011108996538242306
/* The kernel's square tiles: one thread per pixel, one 16x16 block per tile. */
#define SPLAT_TILE 16

/* The definition above, in double, for one pixel. out[0..3] = r, g, b, alpha. */
static inline void splat_reference_pixel(const Splat *splats, int n, int px, int py, double out[4])
{
	double cx = px + 0.5, cy = py + 0.5;
	double cr = 0.0, cg = 0.0, cb = 0.0, t = 1.0;
	for (int i = 0; i < n; i++) {
		const Splat *s = &splats[i];
		double dx = cx - s->x, dy = cy - s->y;
		double sig = s->sigma;
		double g = exp(-(dx * dx + dy * dy) / (2.0 * sig * sig));
		double w = (g - SPLAT_CUTOFF_G) / (1.0 - SPLAT_CUTOFF_G);
		if (w > 0.0) {
			double alpha = s->opacity * w;
			cr += t * alpha * s->r;
			cg += t * alpha * s->g;
			cb += t * alpha * s->b;
			t *= 1.0 - alpha;
		}
	}
	out[0] = cr;
	out[1] = cg;
	out[2] = cb;
	out[3] = 1.0 - t;
}

#endif /* GPUTRACE_KERNELS_SPLAT_H */
