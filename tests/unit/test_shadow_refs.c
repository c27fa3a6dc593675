/* test_shadow_refs.c: the references in refs.so (kernels/refs/) against synthetic captures of the
 * kernels in kernels/shadow_kernels.cu and kernels/splat_render.cu.
 *
 * Until captures recorded on the H200 are committed, the captures are built here: the inputs as the
 * programs generate them (the same LCG and recipes, smaller sizes), and in place of the GPU's
 * outputs a float emulation of each kernel as kernels/shadow_kernels.h specifies it: the correct
 * kernels, and the broken variants with their defects (saxpy_nobounds writes the padding past n,
 * reduce_sum_nosync adds a stale shared-memory value in block 3, softmax_rows_badmask writes NaN
 * in fully masked rows). The tests check that every correct kernel passes, that every broken
 * variant fails where its first error is documented to show, that the references' declared
 * tolerances hold for their own alternative orders, that calibrate's numbers are what its method
 * says, and that references refuse launches outside their contract.
 *
 * `test_shadow_refs --write-fixtures DIR` writes kernels.gtrace, kernels_broken.gtrace and
 * histogram.gtrace for tests/cli/test_shadow_kernels.sh.
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
#include <unistd.h>

#include "analyze/shadow/calibrate.h"
#include "analyze/support/diag.h"
#include "analyze/shadow/shadow.h"
#include "traces/gputrace.h"
#include "kernels/shadow_kernels.h"
#include "kernels/splat.h"
#include "tests/unit/test_shadow_synth.h"

#define K_SAXPY "_Z5saxpyifPKfPf"
#define K_SAXPY_NB "_Z14saxpy_noboundsifPKfPf"
#define K_REDUCE "_Z10reduce_sumPKfPfi"
#define K_REDUCE_NS "_Z17reduce_sum_nosyncPKfPfi"
#define K_HIST "_Z9histogramPKfiffiPf"
#define K_SOFTMAX "_Z12softmax_rowsPKfPKhPfii"
#define K_SOFTMAX_BM "_Z20softmax_rows_badmaskPKfPKhPfii"
#define K_COMPOSITE "_Z9compositePK5SplatiP6float4ii"

/* Sizes: the programs' recipes, smaller so that the sanitizer run stays quick. */
#define N 20011           /* saxpy, reduce, histogram: not a multiple of 256 */
#define ROWS 16
#define COLS 1000
#define SPLATS 1024
#define W 256
#define H 144
#define STALE_BLOCK 3     /* reduce_sum_nosync's emulated race */

/* ---- kernels/common.cuh's LCG ---------------------------------------------------------------- */
struct lcg {
	uint64_t s;
};
static uint32_t lcg_next(struct lcg *g)
{
	g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->s >> 32);
}
static struct lcg lcg_make(uint64_t seed)
{
	struct lcg g = { seed ^ 0x9e3779b97f4a7c15ull };
	lcg_next(&g);
	return g;
}
static float lcg_uniform(struct lcg *g) { return (float)(lcg_next(g) >> 8) * (1.0f / 16777216.0f); }
static float lcg_range(struct lcg *g, float lo, float hi) { return lo + (hi - lo) * lcg_uniform(g); }

static void poison(void *p, size_t bytes) { memset(p, 0xff, bytes); }

static uint64_t base_of(int k) { return 0x7f0000000000ull + ((uint64_t)k << 28); }

/* ---- saxpy ------------------------------------------------------------------------------------- */
static int write_saxpy(struct gt_writer *w, uint64_t id, int rep, int broken)
{
	const size_t alloc = (N + 255) / 256 * 256;
	float *x = malloc(alloc * 4), *y = malloc(alloc * 4), *ya = malloc(alloc * 4);
	if (!x || !y || !ya)
		return GT_ERR_NOMEM;
	struct lcg g = lcg_make(1000 + (uint64_t)rep);
	const float a = 1.5f + 0.25f * (float)rep;
	for (size_t i = 0; i < alloc; i++) {
		const int pad = i >= N;
		x[i] = pad ? SHADOW_PAD_X : lcg_range(&g, -4, 4);
		y[i] = pad ? SHADOW_PAD_Y : lcg_range(&g, -4, 4);
		ya[i] = !pad || broken ? fmaf(a, x[i], y[i]) : y[i];
	}
	struct synth_param p[4] = { synth_i32(N), synth_f32(a), synth_ptr(base_of(1), 0, alloc * 4, x, x),
		                    synth_ptr(base_of(2), 0, alloc * 4, y, ya) };
	struct synth_launch l = { broken ? K_SAXPY_NB : K_SAXPY, id, (uint32_t)rep,
		                  { (uint32_t)(alloc / 256), 1, 1 }, { 256, 1, 1 }, 0, 0 };
	int rc = synth_capture(w, &l, p, 4);
	free(x);
	free(y);
	free(ya);
	return rc;
}

/* ---- reduce_sum: the documented float tree; the broken variant's block 3 adds a stale value ------- */
static void reduce_level(const float *in, size_t n, unsigned block, float *partial, int stale)
{
	const unsigned grid = (unsigned)((n + 2 * block - 1) / (2 * block));
	float s[1024], prev[1024];
	memset(prev, 0, sizeof prev);
	for (unsigned b = 0; b < grid; b++) {
		const size_t base = (size_t)b * 2 * block;
		for (size_t t = 0; t < block; t++) {
			const float lo = base + t < n ? in[base + t] : 0.0f;
			const float hi = base + t + block < n ? in[base + t + block] : 0.0f;
			s[t] = lo + hi;
		}
		float keep[1024];
		memcpy(keep, s, block * sizeof *s);
		if (stale && b == STALE_BLOCK)
			s[block / 2 + 5] = prev[block / 2 + 5]; /* read before its owner stored it */
		for (unsigned stride = block / 2; stride > 0; stride /= 2)
			for (unsigned t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		partial[b] = s[0];
		memcpy(prev, keep, block * sizeof *s); /* what this block leaves in shared memory */
	}
}

static int write_reduce(struct gt_writer *w, uint64_t *id, int rep, int broken)
{
	const unsigned block = SHADOW_REDUCE_BLOCK, grid1 = (N + 2 * block - 1) / (2 * block);
	float *in = malloc(N * 4), *p0b = malloc(grid1 * 4), *p0a = malloc(grid1 * 4);
	float *p1b = malloc(grid1 * 4), *p1a = malloc(grid1 * 4);
	if (!in || !p0b || !p0a || !p1b || !p1a)
		return GT_ERR_NOMEM;
	struct lcg g = lcg_make(2000 + (uint64_t)rep);
	for (int i = 0; i < N; i++)
		in[i] = lcg_range(&g, -2, 2);
	poison(p0b, grid1 * 4);
	poison(p0a, grid1 * 4);
	poison(p1b, grid1 * 4);
	poison(p1a, grid1 * 4);
	reduce_level(in, N, block, p0a, broken);
	/* Level 0: input -> p0. Level 1: p0 (as the GPU left it) -> p1, one block. */
	struct synth_param a[3] = { synth_ptr(base_of(3), 0, N * 4, in, in),
		                    synth_ptr(base_of(4), 0, grid1 * 4, p0b, p0a), synth_i32(N) };
	struct synth_launch l0 = { broken ? K_REDUCE_NS : K_REDUCE, (*id)++, (uint32_t)(2 * rep),
		                   { grid1, 1, 1 }, { block, 1, 1 }, block * 4, 0 };
	int rc = synth_capture(w, &l0, a, 3);
	reduce_level(p0a, grid1, block, p1a, 0);
	struct synth_param b[3] = { synth_ptr(base_of(4), 0, grid1 * 4, p0a, p0a),
		                    synth_ptr(base_of(5), 0, grid1 * 4, p1b, p1a), synth_i32((int32_t)grid1) };
	struct synth_launch l1 = { broken ? K_REDUCE_NS : K_REDUCE, (*id)++, (uint32_t)(2 * rep + 1),
		                   { 1, 1, 1 }, { block, 1, 1 }, block * 4, 0 };
	if (!rc)
		rc = synth_capture(w, &l1, b, 3);
	free(in);
	free(p0b);
	free(p0a);
	free(p1b);
	free(p1a);
	return rc;
}

/* ---- histogram: float atomics, emulated as additions in a shuffled order ------------------------- */
static int hist_bin(float v, float lo, float hi, int bins)
{
	if (!(v >= lo && v < hi))
		return -1;
	const float scale = (float)bins / (hi - lo);
	int k = (int)((v - lo) * scale);
	return k > bins - 1 ? bins - 1 : k;
}

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int write_histogram(struct gt_writer *w, uint64_t id, int rep)
{
	const int bins = SHADOW_HISTOGRAM_BINS;
	const float lo = SHADOW_HISTOGRAM_LO, hi = SHADOW_HISTOGRAM_HI;
	float *v = malloc(N * 4), counts0[SHADOW_HISTOGRAM_BINS] = { 0 }, counts[SHADOW_HISTOGRAM_BINS] = { 0 };
	uint32_t *perm = malloc(N * sizeof *perm);
	if (!v || !perm)
		return GT_ERR_NOMEM;
	struct lcg g = lcg_make(4000 + (uint64_t)rep);
	for (int i = 0; i < N; i++) {
		float u = lcg_uniform(&g);
		u = u + lcg_uniform(&g);
		u = u + lcg_uniform(&g);
		u = u + lcg_uniform(&g);
		v[i] = (u - 2.0f) * 2.5f;
		if (i % 997 == 0)
			v[i] = lo + (float)(i / 997 % bins) * ((hi - lo) / (float)bins);
	}
	const float special[] = { lo, hi, NAN, INFINITY, -INFINITY, nextafterf(hi, lo), nextafterf(lo, -INFINITY) };
	for (int k = 0; k < 7; k++)
		v[1 + k] = special[k];
	/* The arrival order: a shuffle no reference order uses (seeds 1000 + rep). */
	for (int i = 0; i < N; i++)
		perm[i] = (uint32_t)i;
	uint64_t st = 1000 + (uint64_t)rep;
	for (int i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(mix(&st) % (uint64_t)(i + 1)), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < N; i++) {
		int k = hist_bin(v[perm[i]], lo, hi, bins);
		if (k >= 0)
			counts[k] += v[perm[i]];
	}
	struct synth_param p[6] = { synth_ptr(base_of(6), 0, N * 4, v, v), synth_i32(N), synth_f32(lo), synth_f32(hi),
		                    synth_i32(bins), synth_ptr(base_of(7), 0, sizeof counts, counts0, counts) };
	struct synth_launch l = { K_HIST, id, (uint32_t)rep, { (N + 255) / 256, 1, 1 }, { 256, 1, 1 }, 0, 0 };
	int rc = synth_capture(w, &l, p, 6);
	free(v);
	free(perm);
	return rc;
}

/* ---- softmax_rows: the kernel's float order; badmask forgets the fully masked rows ---------------- */
static void softmax_emulate(const float *x, const unsigned char *mask, float *out, int rows, int cols,
                            unsigned block, int badmask)
{
	float s[1024];
	for (int r = 0; r < rows; r++) {
		const float *xr = x + (size_t)r * cols;
		const unsigned char *mr = mask + (size_t)r * cols;
		float *o = out + (size_t)r * cols, m = -INFINITY;
		for (int c = 0; c < cols; c++)
			if (mr[c] && xr[c] > m)
				m = xr[c];
		if (!badmask && m == -INFINITY) {
			for (int c = 0; c < cols; c++)
				o[c] = 0.0f;
			continue;
		}
		for (unsigned t = 0; t < block; t++) {
			float acc = 0.0f;
			for (int c = (int)t; c < cols; c += (int)block)
				acc += expf((mr[c] ? xr[c] : -INFINITY) - m);
			s[t] = acc;
		}
		for (unsigned stride = block / 2; stride > 0; stride /= 2)
			for (unsigned t = 0; t < stride; t++)
				s[t] = s[t] + s[t + stride];
		for (int c = 0; c < cols; c++)
			o[c] = expf((mr[c] ? xr[c] : -INFINITY) - m) / s[0];
	}
}

static int write_softmax(struct gt_writer *w, uint64_t id, int rep, int broken)
{
	const size_t count = (size_t)ROWS * COLS;
	float *x = malloc(count * 4), *ob = malloc(count * 4), *oa = malloc(count * 4);
	unsigned char *mask = malloc(count);
	if (!x || !ob || !oa || !mask)
		return GT_ERR_NOMEM;
	const float big[3] = { 1000.0f, 999.0f, -1000.0f };
	struct lcg g = lcg_make(3000 + (uint64_t)rep);
	for (int r = 0; r < ROWS; r++) {
		for (int c = 0; c < COLS; c++) {
			const size_t i = (size_t)r * COLS + (size_t)c;
			float v = lcg_range(&g, -8, 8);
			unsigned char keep = lcg_next(&g) % 4 != 0;
			if (r == 0 || r == 3) {
				v = big[c % 3];
				keep = r == 0 || c % 3 != 0;
			} else if (r == 1 || r == ROWS - 1) {
				keep = 0;
			} else if (r == 2) {
				keep = c == COLS / 2;
			}
			x[i] = v;
			mask[i] = keep;
		}
	}
	poison(ob, count * 4);
	softmax_emulate(x, mask, oa, ROWS, COLS, SHADOW_SOFTMAX_BLOCK, broken);
	struct synth_param p[5] = { synth_ptr(base_of(8), 0, count * 4, x, x), synth_ptr(base_of(9), 0, count, mask, mask),
		                    synth_ptr(base_of(10), 0, count * 4, ob, oa), synth_i32(ROWS), synth_i32(COLS) };
	struct synth_launch l = { broken ? K_SOFTMAX_BM : K_SOFTMAX, id, (uint32_t)rep, { ROWS, 1, 1 },
		                  { SHADOW_SOFTMAX_BLOCK, 1, 1 }, SHADOW_SOFTMAX_BLOCK * 4, 0 };
	int rc = synth_capture(w, &l, p, 5);
	free(x);
	free(ob);
	free(oa);
	free(mask);
	return rc;
}

/* ---- composite: the kernel's float arithmetic, with the multiply-adds nvcc fuses ------------------ */
static int cmp_depth(const void *a, const void *b)
{
	const Splat *x = a, *y = b;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static void make_scene(Splat *v, int n, int w, int h)
{
	struct lcg g = lcg_make(42);
	for (int i = 0; i < n; i++) {
		float u = lcg_uniform(&g);
		v[i].x = lcg_range(&g, 0, (float)w);
		v[i].y = lcg_range(&g, 0, (float)h);
		v[i].sigma = 1.0f + 15.0f * u * u * u;
		v[i].opacity = lcg_range(&g, 0.3f, 0.95f);
		v[i].r = lcg_uniform(&g);
		v[i].g = lcg_uniform(&g);
		v[i].b = lcg_uniform(&g);
		v[i].depth = lcg_uniform(&g);
	}
	qsort(v, (size_t)n, sizeof *v, cmp_depth); /* depths are distinct here: stable or not alike */
}

static void composite_emulate(const Splat *sp, int n, float *img, int w, int h)
{
	const float cut = (float)SPLAT_CUTOFF_G, inv_window = (float)(1.0 / (1.0 - SPLAT_CUTOFF_G));
	for (int py = 0; py < h; py++) {
		for (int px = 0; px < w; px++) {
			const float cx = (float)px + 0.5f, cy = (float)py + 0.5f;
			float cr = 0, cg = 0, cb = 0, t = 1;
			for (int i = 0; i < n; i++) {
				const Splat *s = &sp[i];
				const float r = 3.0f * s->sigma + 1.0f;
				if (fabsf(cx - s->x) > r + 1 || fabsf(cy - s->y) > r + 1)
					continue; /* the kernel's cull: the weight is <= 0 there anyway */
				const float qz = 0.5f / (s->sigma * s->sigma);
				const float dx = cx - s->x, dy = cy - s->y;
				const float wgt = (expf(-fmaf(dx, dx, dy * dy) * qz) - cut) * inv_window;
				if (wgt > 0.0f) {
					const float alpha = s->opacity * wgt;
					cr = fmaf(t * alpha, s->r, cr);
					cg = fmaf(t * alpha, s->g, cg);
					cb = fmaf(t * alpha, s->b, cb);
					t *= 1.0f - alpha;
				}
			}
			float *q = img + 4 * ((size_t)py * w + px);
			q[0] = cr;
			q[1] = cg;
			q[2] = cb;
			q[3] = 1.0f - t;
		}
	}
}

static int write_composite(struct gt_writer *w, uint64_t id)
{
	Splat *sp = malloc(SPLATS * sizeof *sp);
	const size_t bytes = (size_t)W * H * 16;
	float *ib = malloc(bytes), *ia = malloc(bytes);
	if (!sp || !ib || !ia)
		return GT_ERR_NOMEM;
	make_scene(sp, SPLATS, W, H);
	poison(ib, bytes);
	composite_emulate(sp, SPLATS, ia, W, H);
	struct synth_param p[5] = { synth_ptr(base_of(11), 0, SPLATS * sizeof *sp, sp, sp), synth_i32(SPLATS),
		                    synth_ptr(base_of(12), 0, bytes, ib, ia), synth_i32(W), synth_i32(H) };
	struct synth_launch l = { K_COMPOSITE, id, 0, { W / SPLAT_TILE, H / SPLAT_TILE, 1 },
		                  { SPLAT_TILE, SPLAT_TILE, 1 }, 0, 0 };
	int rc = synth_capture(w, &l, p, 5);
	free(sp);
	free(ib);
	free(ia);
	return rc;
}

/* ---- the fixtures ------------------------------------------------------------------------------ */
static const char *const fixture_names[] = { "kernels", "kernels_broken", "histogram", NULL };

static int write_fixture(const char *name, const char *path)
{
	struct gt_writer *w = synth_open(path, "test_shadow_refs: kernels/ inputs, float emulations in place "
	                                       "of the GPU", 0);
	if (!w)
		return GT_ERR_IO;
	uint64_t id = 1;
	int rc = 0;
	if (!strcmp(name, "kernels") || !strcmp(name, "kernels_broken")) {
		const int broken = !strcmp(name, "kernels_broken");
		rc = write_saxpy(w, id++, 0, broken);
		if (!rc)
			rc = write_reduce(w, &id, 0, broken);
		if (!rc)
			rc = write_histogram(w, id++, 0);
		if (!rc)
			rc = write_softmax(w, id++, 0, broken);
		if (!rc && !broken)
			rc = write_composite(w, id++);
	} else if (!strcmp(name, "histogram")) {
		for (int rep = 0; rep < 2 && !rc; rep++)
			rc = write_histogram(w, id++, rep);
	} else {
		rc = GT_ERR_ARG;
	}
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static char tmpdir[64];
static struct gt_refs *refs;

static const char *fixture(const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s.gtrace", tmpdir, name);
	return path;
}

static int setup(void **state)
{
	(void)state;
	const char *build = getenv("GT_BUILD") ? getenv("GT_BUILD") : "build";
	char path[512], err[512];
	snprintf(path, sizeof path, "%s/kernels/refs.so", build);
	if (gt_refs_load(&refs, path, err, sizeof err) != 0) {
		fprintf(stderr, "test_shadow_refs: cannot load %s: %s (the top Makefile must include "
		        "kernels/refs/module.mk)\n", path, err);
		return -1;
	}
	snprintf(tmpdir, sizeof tmpdir, "/tmp/gt_shadow_refs_XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	for (int i = 0; fixture_names[i]; i++)
		if (write_fixture(fixture_names[i], fixture(fixture_names[i])) != 0)
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; fixture_names[i]; i++)
		unlink(fixture(fixture_names[i]));
	rmdir(tmpdir);
	gt_refs_free(refs);
	return 0;
}

static const struct gt_shadow_result *launch_of(const struct gt_shadow_report *rep, const char *kernel, int nth)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->launches[i].kernel, kernel) && nth-- == 0)
			return &rep->launches[i];
	fail_msg("no launch %d of %s", nth, kernel);
	return NULL;
}

/* ---- shadow on the kernels ----------------------------------------------------------------------- */

static void test_correct_kernels_pass(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	assert_int_equal(gt_shadow_run(fixture("kernels"), refs, NULL, &rep), 0);
	assert_int_equal(rep.n, 6);
	for (size_t i = 0; i < rep.n; i++) {
		if (rep.launches[i].status != GT_SHADOW_PASS)
			fail_msg("%s: %s: %s", rep.launches[i].kernel, gt_shadow_status_name(rep.launches[i].status),
			         rep.launches[i].why);
	}
	assert_true(gt_shadow_all_passed(&rep));
	/* reduce level 1 writes partial[0] only: the rest is NaN poison, untouched, and passes as such. */
	const struct gt_shadow_result *r1 = launch_of(&rep, K_REDUCE, 1);
	const unsigned grid1 = (N + 1023) / 1024;
	assert_int_equal(r1->outputs[0].cmp.elements, grid1);
	assert_int_equal(r1->outputs[0].cmp.unchanged, grid1 - 1);
	/* reduce is exact: every partial bit-identical. */
	const struct gt_shadow_result *r0 = launch_of(&rep, K_REDUCE, 0);
	assert_int_equal(r0->outputs[0].cmp.hist[0], grid1);
	/* saxpy's padding is expected unchanged and is. */
	const struct gt_shadow_result *s = launch_of(&rep, K_SAXPY, 0);
	assert_int_equal(s->outputs[0].cmp.unchanged, (N + 255) / 256 * 256 - N);
	gt_shadow_report_release(&rep);
}

static void test_broken_variants_caught(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	assert_int_equal(gt_shadow_run(fixture("kernels_broken"), refs, NULL, &rep), 0);
	assert_false(gt_shadow_all_passed(&rep));

	/* saxpy_nobounds: every padding element written; the first and the worst at y[n]. */
	const struct gt_shadow_result *s = launch_of(&rep, K_SAXPY_NB, 0);
	assert_int_equal(s->status, GT_SHADOW_FAIL);
	assert_ptr_equal(s->ref, gt_refs_find(refs, K_SAXPY_NB, "saxpy_nobounds(int, float, float const*, float*)"));
	assert_string_equal(s->ref->kernel, "saxpy_nobounds");
	assert_int_equal(s->outputs[0].cmp.first_mismatch, N);
	assert_int_equal(s->outputs[0].cmp.worst.index, N);
	assert_int_equal(s->outputs[0].cmp.mismatches, (N + 255) / 256 * 256 - N);
	assert_true(s->outputs[0].cmp.worst.gpu == (double)fmaf(1.5f, SHADOW_PAD_X, SHADOW_PAD_Y));
	assert_true(s->outputs[0].cmp.worst.ref == (double)SHADOW_PAD_Y);

	/* reduce_sum_nosync: block 3 used a stale value; level 1 sums what level 0 left, correctly. */
	const struct gt_shadow_result *r0 = launch_of(&rep, K_REDUCE_NS, 0);
	assert_int_equal(r0->status, GT_SHADOW_FAIL);
	assert_int_equal(r0->outputs[0].cmp.first_mismatch, STALE_BLOCK);
	assert_int_equal(r0->outputs[0].cmp.mismatches, 1);
	assert_int_equal(r0->outputs[0].cmp.worst.index, STALE_BLOCK);
	assert_int_equal(launch_of(&rep, K_REDUCE_NS, 1)->status, GT_SHADOW_PASS);

	/* softmax_rows_badmask: the fully masked rows 1 and ROWS-1 are NaN; the first at out[COLS]. */
	const struct gt_shadow_result *m = launch_of(&rep, K_SOFTMAX_BM, 0);
	assert_int_equal(m->status, GT_SHADOW_FAIL);
	assert_int_equal(m->outputs[0].cmp.first_mismatch, COLS);
	assert_int_equal(m->outputs[0].cmp.worst.index, COLS);
	assert_true(m->outputs[0].cmp.worst.ulps == GT_ULP_INFINITE);
	assert_true(isnan(m->outputs[0].cmp.worst.gpu));
	assert_true(m->outputs[0].cmp.worst.ref == 0.0);
	assert_int_equal(m->outputs[0].cmp.mismatches, 2 * COLS);
	assert_int_equal(m->outputs[0].cmp.hist[GT_ULP_BUCKET_NONFINITE], 2 * COLS);

	/* histogram has no broken variant: it passes here too. */
	assert_int_equal(launch_of(&rep, K_HIST, 0)->status, GT_SHADOW_PASS);
	assert_int_equal(rep.count[GT_SHADOW_FAIL], 3);
	assert_int_equal(rep.count[GT_SHADOW_PASS], 2);
	gt_shadow_report_release(&rep);
}

/* ---- the references directly ------------------------------------------------------------------- */

struct call {
	struct gt_ref_call c;
	struct gt_ref_param p[8];
};

static void call_init(struct call *k, unsigned nparams, unsigned grid, unsigned block)
{
	memset(k, 0, sizeof *k);
	k->c.abi = GT_REF_ABI;
	k->c.nparams = nparams;
	k->c.params = k->p;
	k->c.grid[0] = grid;
	k->c.grid[1] = k->c.grid[2] = 1;
	k->c.block[0] = block;
	k->c.block[1] = k->c.block[2] = 1;
}

static void call_scalar(struct call *k, unsigned i, const void *v, uint32_t size)
{
	k->p[i] = (struct gt_ref_param){ .kind = GT_REF_PARAM_SCALAR, .size = size, .value = v };
}

static void call_ptr(struct call *k, unsigned i, void *data, uint64_t bytes)
{
	k->p[i] = (struct gt_ref_param){ .kind = GT_REF_PARAM_POINTER, .size = 8, .data = data, .bytes = bytes };
}

static const struct gt_ref *ref_named(const char *name)
{
	for (unsigned i = 0; i < refs->table->count; i++)
		if (!strcmp(refs->table->refs[i].kernel, name))
			return &refs->table->refs[i];
	fail_msg("no reference %s", name);
	return NULL;
}

static void test_composite_is_the_definition(void **state)
{
	(void)state;
	enum { n = 300, w = 64, h = 40 };
	Splat *sp = malloc(n * sizeof *sp);
	float *img = malloc((size_t)w * h * 16);
	make_scene(sp, n, w, h);
	sp[7].sigma = -1.0f; /* no box: applied to every pixel, as the definition does */
	int32_t nn = n, ww = w, hh = h;
	struct call k;
	call_init(&k, 5, 1, 1);
	call_ptr(&k, 0, sp, n * sizeof *sp);
	call_scalar(&k, 1, &nn, 4);
	call_ptr(&k, 2, img, (size_t)w * h * 16);
	call_scalar(&k, 3, &ww, 4);
	call_scalar(&k, 4, &hh, 4);
	assert_int_equal(ref_named("composite")->run(&k.c), 0);
	/* Bit for bit what splat_reference_pixel() computes, pixel by pixel. */
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double o[4];
			splat_reference_pixel(sp, n, x, y, o);
			for (int c = 0; c < 4; c++)
				if ((float)o[c] != img[4 * ((size_t)y * w + x) + c])
					fail_msg("pixel (%d, %d) channel %d: %.9g vs %.9g", x, y, c, (double)img[4 * ((size_t)y * w + x) + c],
					         o[c]);
		}
	free(sp);
	free(img);
}

static void test_references_refuse_outside_contract(void **state)
{
	(void)state;
	float buf[64] = { 0 }, lo = -4, hi = 4;
	unsigned char mask[64];
	memset(mask, 1, sizeof mask);
	int32_t n = 64, zero = 0, rows = 4, cols = 16, big = 65;
	struct call k;

	call_init(&k, 3, 1, 3); /* reduce with a block that is no power of two */
	call_ptr(&k, 0, buf, sizeof buf);
	call_ptr(&k, 1, buf, sizeof buf);
	call_scalar(&k, 2, &n, 4);
	assert_int_not_equal(ref_named("reduce_sum")->run(&k.c), 0);
	assert_non_null(strstr(k.c.message, "power of two"));

	call_init(&k, 6, 1, 256); /* histogram without bins */
	call_ptr(&k, 0, buf, sizeof buf);
	call_scalar(&k, 1, &n, 4);
	call_scalar(&k, 2, &lo, 4);
	call_scalar(&k, 3, &hi, 4);
	call_scalar(&k, 4, &zero, 4);
	call_ptr(&k, 5, buf, sizeof buf);
	assert_int_not_equal(ref_named("histogram")->run(&k.c), 0);
	assert_non_null(strstr(k.c.message, "at least one bin"));

	call_init(&k, 4, 1, 256); /* saxpy with n beyond the buffers */
	float a = 2;
	call_scalar(&k, 0, &big, 4);
	call_scalar(&k, 1, &a, 4);
	call_ptr(&k, 2, buf, sizeof buf);
	call_ptr(&k, 3, buf, sizeof buf);
	assert_int_not_equal(ref_named("saxpy")->run(&k.c), 0);
	assert_non_null(strstr(k.c.message, "fewer than n = 65"));
	call_scalar(&k, 1, &a, 8); /* a scalar of the wrong size */
	assert_int_not_equal(ref_named("saxpy")->run(&k.c), 0);

	float logits[64] = { 0 }, out[64];
	logits[17] = NAN; /* a valid NaN logit: outside softmax's contract */
	call_init(&k, 5, (unsigned)rows, 256);
	call_ptr(&k, 0, logits, sizeof logits);
	call_ptr(&k, 1, mask, sizeof mask);
	call_ptr(&k, 2, out, sizeof out);
	call_scalar(&k, 3, &rows, 4);
	call_scalar(&k, 4, &cols, 4);
	assert_int_not_equal(ref_named("softmax_rows")->run(&k.c), 0);
	assert_non_null(strstr(k.c.message, "logits[17] is NaN"));
	mask[17] = 0; /* masked: irrelevant */
	assert_int_equal(ref_named("softmax_rows")->run(&k.c), 0);
}

/* ---- calibrate ------------------------------------------------------------------------------------ */

static void calibrate(const char *trace, const char *kernel, uint64_t seed, struct gt_calib_report *rep)
{
	struct gt_name_filter f = { 0 };
	char err[128];
	assert_int_equal(gt_name_filter_set(&f, kernel, err, sizeof err), 0);
	struct gt_calib_options opt;
	gt_calib_options_default(&opt);
	opt.seed = seed;
	int rc = gt_calib_run(fixture(trace), refs, &f, &opt, rep);
	if (rc)
		fail_msg("calibrate %s: %d: %s", kernel, rc, rep->error);
	gt_name_filter_release(&f);
}

static void test_declared_tolerances_hold_for_the_orders(void **state)
{
	(void)state;
	/* Every alternative order (and the GPU stand-in) of each reference lies within the
	 * tolerance the reference declares: the tolerances are at least what they claim. */
	static const char *const kernels[] = { "^histogram", "^softmax_rows\\(", "^composite", "^saxpy\\(" };
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		struct gt_calib_report rep;
		calibrate("kernels", kernels[i], 7, &rep);
		assert_int_equal(rep.launches, 1);
		assert_int_equal(rep.noutputs, 1);
		const struct gt_calib_output *o = &rep.outputs[0];
		assert_int_equal(o->nsources, 1 + rep.ref->norders);
		assert_int_equal(o->nonfinite, 0);
		if (o->rejected_correct[GT_CALIB_DECLARED])
			fail_msg("%s: the declared tolerance rejects %llu correct elements (worst %.0f ULP)", kernels[i],
			         (unsigned long long)o->rejected_correct[GT_CALIB_DECLARED], o->st.max);
		assert_int_equal(o->rejected_correct[GT_CALIB_BOUND], 0);
		gt_calib_report_release(&rep);
	}
}

static void test_calibrate_histogram(void **state)
{
	(void)state;
	struct gt_calib_report rep;
	calibrate("histogram", "histogram", 7, &rep);
	assert_int_equal(rep.launches, 2);
	assert_int_equal(rep.skipped, 0);
	assert_string_equal(rep.ref->kernel, "histogram");
	const struct gt_calib_output *o = &rep.outputs[0];
	assert_int_equal(o->param, 5);
	assert_int_equal(o->nsources, 2 * (1 + 8));
	assert_true(o->has_bound);
	assert_true(o->st.max > 0);
	assert_int_equal(o->bound, (uint64_t)ceil(o->st.max * 4));
	assert_true(o->st.median <= o->st.p99 && o->st.p99 <= o->st.max);
	assert_int_equal(o->rejected_correct[GT_CALIB_BOUND], 0);
	/* Planted: a quarter of the eligible elements, give or take the rounding of each result. */
	assert_true(o->nplanted + o->rounded_back <= (uint64_t)(0.25 * (double)o->eligible) + o->nsources);
	assert_true(o->nplanted + o->rounded_back + o->nsources >= (uint64_t)(0.25 * (double)o->eligible));
	uint64_t sum = 0;
	for (int d = 0; d < o->ndecades; d++)
		sum += o->dec_planted[d];
	assert_int_equal(sum, o->nplanted);
	assert_int_equal(o->decade0, -6);
	assert_int_equal(o->ndecades, 5);
	/* The flat 1% rule accepts every planted error below 1%, the calibrated bound none above 1e-4. */
	assert_int_equal(o->dec_accepted[3][GT_CALIB_REL_1PCT], o->dec_planted[3]);
	assert_int_equal(o->dec_accepted[2][GT_CALIB_REL_1PCT], o->dec_planted[2]);
	assert_int_equal(o->dec_accepted[4][GT_CALIB_BOUND], 0);
	assert_int_equal(o->dec_accepted[3][GT_CALIB_BOUND], 0);
	assert_int_equal(o->dec_accepted[2][GT_CALIB_BOUND], 0);
	assert_true(o->accepted[GT_CALIB_REL_1PCT] > o->accepted[GT_CALIB_BOUND]);
	assert_true(o->accepted[GT_CALIB_REL_1PCT] >= o->accepted[GT_CALIB_REL_1E5]);
	uint64_t acc[GT_CALIB_RULES], planted = o->nplanted, decs[GT_CALIB_DECADES];
	memcpy(acc, o->accepted, sizeof acc);
	memcpy(decs, o->dec_planted, sizeof decs);
	gt_calib_report_release(&rep);

	/* The same seed gives the same plants; another seed others. */
	calibrate("histogram", "histogram", 7, &rep);
	assert_memory_equal(acc, rep.outputs[0].accepted, sizeof acc);
	assert_int_equal(planted, rep.outputs[0].nplanted);
	gt_calib_report_release(&rep);
	calibrate("histogram", "histogram", 8, &rep);
	assert_memory_not_equal(decs, rep.outputs[0].dec_planted, sizeof decs);
	gt_calib_report_release(&rep);
}

static void test_calibrate_refuses(void **state)
{
	(void)state;
	struct gt_name_filter f = { 0 };
	char err[128];
	struct gt_calib_options opt;
	gt_calib_options_default(&opt);
	struct gt_calib_report rep;
	assert_int_equal(gt_name_filter_set(&f, "softmax|histogram", err, sizeof err), 0);
	assert_int_equal(gt_calib_run(fixture("kernels"), refs, &f, &opt, &rep), GT_ERR_ARG);
	assert_non_null(strstr(rep.error, "several kernels"));
	gt_calib_report_release(&rep);
	assert_int_equal(gt_name_filter_set(&f, "no_such_kernel", err, sizeof err), 0);
	assert_int_equal(gt_calib_run(fixture("kernels"), refs, &f, &opt, &rep), GT_ERR_ARG);
	assert_non_null(strstr(rep.error, "no captured launch"));
	gt_calib_report_release(&rep);
	gt_name_filter_release(&f);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0) {
		for (int i = 0; fixture_names[i]; i++) {
			char path[1024];
			snprintf(path, sizeof path, "%s/%s.gtrace", argv[2], fixture_names[i]);
			int rc = write_fixture(fixture_names[i], path);
			if (rc) {
				fprintf(stderr, "test_shadow_refs: cannot write %s: %s\n", path, gt_strerror(rc));
				return 1;
			}
		}
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_kernels_pass),
		cmocka_unit_test(test_broken_variants_caught),
		cmocka_unit_test(test_composite_is_the_definition),
		cmocka_unit_test(test_references_refuse_outside_contract),
		cmocka_unit_test(test_declared_tolerances_hold_for_the_orders),
		cmocka_unit_test(test_calibrate_histogram),
		cmocka_unit_test(test_calibrate_refuses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
