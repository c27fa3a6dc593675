/* test_shadow.c: the shadow replay engine (analyze/shadow/shadow.c) on synthetic saxpy captures.
 *
 * Until captures recorded on a GPU are committed, the traces here mimic what the recorder writes for
 * a saxpy launch (kernels/shadow_kernels.h: n = 1000 floats in allocations of 1024, the padding
 * filled with 1.0 and 1234.5): a correct one, one with a planted error at a known index, one that
 * writes past n (saxpy_nobounds), one whose input the kernel changed, one not fully captured, one
 * whose buffer is missing, one of a kernel without a reference. The references are in-process
 * tables, so these tests need no library; test_refs_library_loads covers dlopen.
 *
 * `test_shadow --write-fixtures DIR` writes the same traces as files for tests/cli/test_shadow.sh.
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
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/support/diag.h"
#include "analyze/shadow/shadow.h"
#include "traces/gputrace.h"
#include "tests/unit/test_shadow_synth.h"

#define SAXPY "_Z5saxpyifPKfPf"
#define SAXPY_NB "_Z14saxpy_noboundsifPKfPf"
#define UNKNOWN "_Z7unknownPf"
#define N 1000
#define ALLOC 1024
#define PLANT 517
#define X_BASE 0x7f0000000000ull
#define Y_BASE 0x7f0000100000ull

/* ---- an in-process reference: saxpy as kernels/refs/saxpy.c computes it ------------------------ */

static int saxpy_run(struct gt_ref_call *c)
{
	int32_t n;
	float a;
	if (gt_ref_i32(c, 0, &n) || gt_ref_f32(c, 1, &a))
		return gt_ref_fail(c, "bad scalars");
	const float *x = gt_ref_ptr(c, 2, 4, (uint64_t)n);
	float *y = gt_ref_ptr(c, 3, 4, (uint64_t)n);
	if (!x || !y)
		return gt_ref_fail(c, "x or y holds fewer than n = %d floats", n);
	for (int i = 0; i < n; i++)
		y[i] = (float)fma((double)a, (double)x[i], (double)y[i]);
	return 0;
}

static const struct gt_ref_output saxpy_out[] = {
	{ .param = 3, .type = GT_REF_F32, .tol = { .ulps = 1 }, .name = "y", .reason = "fmaf vs double: 1 ULP" },
};
static const struct gt_ref test_refs[] = {
	{ .kernel = "saxpy", .nparams = 4, .run = saxpy_run, .outputs = saxpy_out, .noutputs = 1 },
	{ .kernel = "saxpy_nobounds", .nparams = 4, .run = saxpy_run, .outputs = saxpy_out, .noutputs = 1 },
};
static const struct gt_ref_table test_table = { GT_REF_ABI, sizeof(struct gt_ref), "test", 2, test_refs };

/* ---- the fixtures -------------------------------------------------------------------------- */

struct saxpy_case {
	float x[ALLOC], y[ALLOC], x_after[ALLOC], y_after[ALLOC];
	float a;
};

static uint32_t lcg_state;
static float lcg_range(float lo, float hi)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lo + (hi - lo) * (float)(lcg_state >> 8) * (1.0f / 16777216.0f);
}

enum saxpy_kind { CORRECT, PLANTED, NOBOUNDS, INPUT_CHANGED };

static void saxpy_make(struct saxpy_case *s, float a, uint32_t seed, enum saxpy_kind kind)
{
	lcg_state = seed;
	s->a = a;
	for (int i = 0; i < ALLOC; i++) {
		s->x[i] = i < N ? lcg_range(-4, 4) : 1.0f;
		s->y[i] = i < N ? lcg_range(-4, 4) : 1234.5f;
		/* The GPU: one fmaf per element below n (all of the last block without the bounds check). */
		s->y_after[i] = i < N || kind == NOBOUNDS ? fmaf(a, s->x[i], s->y[i]) : s->y[i];
		s->x_after[i] = s->x[i];
	}
	if (kind == PLANTED)
		s->y_after[PLANT] *= 1.001f;
	if (kind == INPUT_CHANGED)
		s->x_after[3] = 42.0f;
}

static int write_saxpy(struct gt_writer *w, const char *kernel, uint64_t id, uint32_t launch,
                       const struct saxpy_case *s, uint32_t y_status, uint32_t flags, int missing_blob)
{
	struct synth_param p[4] = {
		synth_i32(N), synth_f32(s->a),
		synth_ptr(X_BASE, 0, sizeof s->x, s->x, s->x_after),
		synth_ptr(Y_BASE, 0, sizeof s->y, s->y, s->y_after),
	};
	p[3].status = y_status;
	if (y_status != GT_PARAM_OK)
		p[3].before = p[3].after = NULL;
	p[3].before_blob_missing = missing_blob;
	struct synth_launch l = { kernel, id, launch, { ALLOC / 256, 1, 1 }, { 256, 1, 1 }, 0, flags };
	return synth_capture(w, &l, p, 4);
}

static const char *const fixture_names[] = {
	"saxpy_ok", "saxpy_planted", "saxpy_nobounds", "saxpy_noref", "saxpy_incomplete",
	"saxpy_input_changed", "saxpy_missing_blob", "no_captures", "composite_wide", NULL,
};

/* The splat renderer's composite launch with splats that each cover the whole 256 x 256 image:
 * the reference's work is pixels x splats (4096 x 65536, about 2.7e8 steps, seconds of CPU), which
 * grows faster than its input. The GPU's image is left black: the replay is to be stopped, not
 * compared. */
#define WIDE_SPLATS 4096
#define WIDE_SIDE 256
static int write_composite_wide(struct gt_writer *w)
{
	size_t nsplat = WIDE_SPLATS * 8, npix = (size_t)WIDE_SIDE * WIDE_SIDE * 4;
	float *splats = malloc(nsplat * sizeof *splats), *image = calloc(npix, sizeof *image);
	if (!splats || !image) {
		free(splats);
		free(image);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < WIDE_SPLATS; i++) {
		float *q = splats + 8 * i; /* x, y, sigma, opacity, r, g, b, depth */
		q[0] = q[1] = WIDE_SIDE / 2.0f;
		q[2] = 100000.0f;
		q[3] = 0.01f;
		q[4] = q[5] = q[6] = 0.5f;
		q[7] = (float)i;
	}
	struct synth_param p[5] = {
		synth_ptr(X_BASE, 0, nsplat * sizeof *splats, splats, splats), synth_i32(WIDE_SPLATS),
		synth_ptr(Y_BASE, 0, npix * sizeof *image, image, image), synth_i32(WIDE_SIDE), synth_i32(WIDE_SIDE),
	};
	struct synth_launch l = { "_Z9compositePK5SplatiP6float4ii", 1, 0, { 16, 16, 1 }, { 16, 16, 1 }, 0, 0 };
	int rc = synth_capture(w, &l, p, 5);
	free(splats);
	free(image);
	return rc;
}

/* Writes fixture `name` at path: 0 or a negative GT_ERR_*. */
static int write_fixture(const char *name, const char *path)
{
	struct gt_writer *w = synth_open(path, "test_shadow: synthetic saxpy captures", 0);
	if (!w)
		return GT_ERR_IO;
	struct saxpy_case *s = malloc(sizeof *s);
	if (!s) {
		gt_writer_abandon(w);
		return GT_ERR_NOMEM;
	}
	int rc = 0;
	if (!strcmp(name, "saxpy_ok")) {
		saxpy_make(s, 2.5f, 1, CORRECT);
		rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_OK, 0, 0);
		if (!rc)
			rc = gt_writer_flush(w); /* the second launch in a chunk of its own */
		saxpy_make(s, -0.75f, 2, CORRECT);
		if (!rc)
			rc = write_saxpy(w, SAXPY, 2, 1, s, GT_PARAM_OK, 0, 0);
	} else if (!strcmp(name, "saxpy_planted")) {
		/* A device and versions, as a recorded trace names them, for the report's "recorded on". */
		struct gt_device d;
		memset(&d, 0, sizeof d);
		d.cc_major = 9;
		rc = gt_writer_device(w, &d, "Synthetic GPU");
		if (!rc)
			rc = gt_writer_meta(w, "cuda.driver", "0.0 (none)");
		saxpy_make(s, 2.5f, 1, PLANTED);
		if (!rc)
			rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_OK, 0, 0);
	} else if (!strcmp(name, "saxpy_nobounds")) {
		saxpy_make(s, 2.5f, 1, NOBOUNDS);
		rc = write_saxpy(w, SAXPY_NB, 1, 0, s, GT_PARAM_OK, 0, 0);
	} else if (!strcmp(name, "saxpy_noref")) {
		saxpy_make(s, 2.5f, 1, CORRECT);
		rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_OK, 0, 0);
		struct synth_param p = synth_ptr(Y_BASE, 0, sizeof s->y, s->y, s->y_after);
		struct synth_launch l = { UNKNOWN, 2, 0, { 4, 1, 1 }, { 256, 1, 1 }, 0, 0 };
		if (!rc)
			rc = synth_capture(w, &l, &p, 1);
	} else if (!strcmp(name, "saxpy_incomplete")) {
		saxpy_make(s, 2.5f, 1, CORRECT);
		rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_TOO_LARGE, GT_CAPTURE_INCOMPLETE, 0);
	} else if (!strcmp(name, "saxpy_input_changed")) {
		saxpy_make(s, 2.5f, 1, INPUT_CHANGED);
		rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_OK, 0, 0);
	} else if (!strcmp(name, "saxpy_missing_blob")) {
		saxpy_make(s, 2.5f, 1, CORRECT);
		rc = write_saxpy(w, SAXPY, 1, 0, s, GT_PARAM_OK, 0, 1);
	} else if (!strcmp(name, "composite_wide")) {
		rc = write_composite_wide(w);
	} else if (!strcmp(name, "no_captures")) {
		struct gt_kernel k;
		memset(&k, 0, sizeof k);
		k.start = 1000;
		k.end = 2000;
		k.name_id = gt_writer_intern(w, SAXPY);
		rc = gt_writer_add(w, GT_REC_KERNEL, &k);
	} else {
		rc = GT_ERR_ARG;
	}
	free(s);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static char tmpdir[64];

static const char *fixture(const char *name)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s.gtrace", tmpdir, name);
	return path;
}

static struct gt_refs *test_refs_load(void)
{
	struct gt_refs *r;
	char err[256];
	assert_int_equal(gt_refs_from_table(&r, &test_table, err, sizeof err), 0);
	return r;
}

static void run_fixture(const char *name, struct gt_shadow_report *rep)
{
	struct gt_refs *refs = test_refs_load();
	assert_int_equal(gt_shadow_run(fixture(name), refs, NULL, rep), 0);
	gt_refs_free(refs);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/gt_shadow_XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	for (int i = 0; fixture_names[i]; i++)
		if (write_fixture(fixture_names[i], fixture(fixture_names[i])) != 0)
			return -1;
	/* The engine's words on unreadable traces are said (gt_diag_flush) in the analyzer's voice;
	 * keep the test log quiet. */
	gt_diag_set_stream(fopen("/dev/null", "w"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; fixture_names[i]; i++)
		unlink(fixture(fixture_names[i]));
	rmdir(tmpdir);
	FILE *f = gt_diag_stream();
	gt_diag_set_stream(NULL);
	if (f && f != stderr)
		fclose(f);
	return 0;
}

/* ---- the verdicts -------------------------------------------------------------------------- */

static void test_correct_launches_pass(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_ok", &rep);
	assert_int_equal(rep.n, 2);
	assert_int_equal(rep.count[GT_SHADOW_PASS], 2);
	assert_true(gt_shadow_all_passed(&rep));
	const struct gt_shadow_result *r = &rep.launches[1];
	assert_int_equal(r->capture_id, 2);
	assert_int_equal(r->launch_index, 1);
	assert_string_equal(r->kernel, SAXPY);
	assert_int_equal(r->noutputs, 1);
	/* The whole allocation from the pointer: padding included. */
	assert_int_equal(r->outputs[0].cmp.elements, ALLOC);
	assert_int_equal(r->outputs[0].cmp.mismatches, 0);
	assert_int_equal(r->outputs[0].cmp.hist[0] + r->outputs[0].cmp.hist[1], ALLOC);
	/* x is an input: all of it is compared exactly, and it is unchanged. */
	assert_int_equal(r->nother, 2);
	assert_int_equal(r->other[0].param, 2);
	assert_int_equal(r->other[0].bytes, ALLOC * 4);
	assert_int_equal(r->other[0].differing, 0);
	assert_int_equal(r->other[1].param, 3);
	assert_int_equal(r->other[1].bytes, 0); /* y is an output from its first byte */
	assert_string_equal(rep.info.synthetic, "test_shadow: synthetic saxpy captures");
	gt_shadow_report_release(&rep);
}

static void test_planted_error_found(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_planted", &rep);
	assert_int_equal(rep.n, 1);
	const struct gt_shadow_result *r = &rep.launches[0];
	assert_int_equal(r->status, GT_SHADOW_FAIL);
	const struct gt_compare_result *c = &r->outputs[0].cmp;
	assert_int_equal(c->mismatches, 1);
	assert_int_equal(c->first_mismatch, PLANT);
	assert_int_equal(c->worst.index, PLANT);
	assert_false(c->worst.pass);
	/* Both values as they are: the GPU's is the reference's times 1.001 (in float). */
	struct saxpy_case *s = malloc(sizeof *s);
	saxpy_make(s, 2.5f, 1, PLANTED);
	float g, ref = fmaf(2.5f, s->x[PLANT], s->y[PLANT]);
	memcpy(&g, &(uint32_t){ (uint32_t)c->worst.gpu_bits }, 4);
	assert_true(g == s->y_after[PLANT]);
	assert_true(c->worst.ref == (double)ref);
	assert_true(fabs(c->worst.abs_err - fabs((double)g - (double)ref)) == 0);
	assert_true(c->worst.ulps > 1000);
	free(s);
	assert_string_equal(rep.info.recorded_on, "Synthetic GPU (cc 9.0); driver 0.0 (none)");
	assert_false(gt_shadow_all_passed(&rep));
	assert_non_null(strstr(r->why, "first at [517]"));
	gt_shadow_report_release(&rep);
}

static void test_write_past_n_found(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_nobounds", &rep);
	const struct gt_shadow_result *r = &rep.launches[0];
	assert_string_equal(r->kernel, SAXPY_NB);
	assert_ptr_equal(r->ref, &test_refs[1]);
	assert_int_equal(r->status, GT_SHADOW_FAIL);
	const struct gt_compare_result *c = &r->outputs[0].cmp;
	/* Every padding element was written: fmaf(2.5, 1, 1234.5) = 1237 where 1234.5 should be. */
	assert_int_equal(c->mismatches, ALLOC - N);
	assert_int_equal(c->first_mismatch, N);
	assert_int_equal(c->worst.index, N); /* all the same distance: the first */
	assert_true(c->worst.gpu == 1237.0 && c->worst.ref == 1234.5);
	assert_int_equal(c->worst.ulps, gt_ulps_f32(1237.0f, 1234.5f));
	gt_shadow_report_release(&rep);
}

static void test_input_changed_fails(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_input_changed", &rep);
	const struct gt_shadow_result *r = &rep.launches[0];
	assert_int_equal(r->status, GT_SHADOW_FAIL);
	assert_int_equal(r->outputs[0].cmp.mismatches, 0); /* y is right */
	assert_int_equal(r->other[0].param, 2);
	assert_in_range(r->other[0].differing, 1, 4); /* bytes of x[3] */
	assert_int_equal(r->other[0].first / 4, 3);
	assert_non_null(strstr(r->why, "outside the declared outputs"));
	gt_shadow_report_release(&rep);
}

static void test_no_reference_not_passed(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_noref", &rep);
	assert_int_equal(rep.n, 2);
	assert_int_equal(rep.launches[0].status, GT_SHADOW_PASS);
	assert_int_equal(rep.launches[1].status, GT_SHADOW_NO_REF);
	assert_int_equal(rep.count[GT_SHADOW_NO_REF], 1);
	assert_int_equal(rep.count[GT_SHADOW_PASS], 1);
	assert_false(gt_shadow_all_passed(&rep));
	/* A capture without a reference needs no buffers: only saxpy's four were reassembled. */
	assert_int_equal(rep.info.blob_bytes_read, 4 * ALLOC * 4);
	gt_shadow_report_release(&rep);
}

static void test_incomplete_and_missing(void **state)
{
	(void)state;
	struct gt_shadow_report rep;
	run_fixture("saxpy_incomplete", &rep);
	assert_int_equal(rep.launches[0].status, GT_SHADOW_INCOMPLETE);
	assert_non_null(strstr(rep.launches[0].why, "parameter 3: over the capture's byte cap"));
	assert_false(gt_shadow_all_passed(&rep));
	gt_shadow_report_release(&rep);

	run_fixture("saxpy_missing_blob", &rep);
	assert_int_equal(rep.launches[0].status, GT_SHADOW_ERROR);
	assert_non_null(strstr(rep.launches[0].why, "is not in the trace"));
	gt_shadow_report_release(&rep);

	run_fixture("no_captures", &rep);
	assert_int_equal(rep.n, 0);
	assert_int_equal(rep.info.captures, 0);
	assert_false(gt_shadow_all_passed(&rep)); /* nothing checked is not a pass */
	gt_shadow_report_release(&rep);
}

static void test_filter_selects(void **state)
{
	(void)state;
	struct gt_refs *refs = test_refs_load();
	struct gt_name_filter f = { 0 };
	char err[128];
	assert_int_equal(gt_name_filter_set(&f, "unknown", err, sizeof err), 0);
	struct gt_shadow_report rep;
	assert_int_equal(gt_shadow_run(fixture("saxpy_noref"), refs, &f, &rep), 0);
	assert_int_equal(rep.info.captures, 2);
	assert_int_equal(rep.info.selected, 1);
	assert_int_equal(rep.n, 1);
	assert_int_equal(rep.launches[0].status, GT_SHADOW_NO_REF);
	assert_int_equal(rep.info.blob_bytes_read, 0);
	gt_shadow_report_release(&rep);
	gt_name_filter_release(&f);
	gt_refs_free(refs);
}

static void test_unreadable_trace(void **state)
{
	(void)state;
	struct gt_refs *refs = test_refs_load();
	struct gt_shadow_report rep;
	assert_int_equal(gt_shadow_run("/nonexistent/x.gtrace", refs, NULL, &rep), GT_ERR_IO);
	assert_true(gt_failed());
	gt_diag_flush(); /* the held words, as the command would say them */
	gt_shadow_report_release(&rep);
	gt_refs_free(refs);
}

/* ---- memory: blobs are kept only while a capture needs them ------------------------------------ */

static void test_blobs_freed_after_use(void **state)
{
	(void)state;
	char path[256];
	snprintf(path, sizeof path, "%s/many.gtrace", tmpdir);
	struct gt_writer *w = synth_open(path, "test_shadow: many captures", 64 << 10);
	assert_non_null(w);
	struct saxpy_case *s = malloc(sizeof *s);
	uint64_t x_ids[2] = { 0, 0 };
	for (int k = 0; k < 10; k++) {
		saxpy_make(s, 1.0f + (float)k, 100 + (uint32_t)k, CORRECT);
		struct synth_param p[4] = {
			synth_i32(N), synth_f32(s->a),
			synth_ptr(X_BASE, 0, sizeof s->x, s->x, s->x_after),
			synth_ptr(Y_BASE, 0, sizeof s->y, s->y, s->y_after),
		};
		if (k == 0) {
			p[2].ids = x_ids;
		} else if (k == 9) {
			/* The last launch uses the first one's x blobs: they must be kept until here. */
			saxpy_make(s, 1.0f + (float)k, 100, CORRECT);
			p[2].reuse_before = x_ids[0];
			p[2].reuse_after = x_ids[1];
		}
		struct synth_launch l = { SAXPY, (uint64_t)k + 1, (uint32_t)k, { 4, 1, 1 }, { 256, 1, 1 }, 0, 0 };
		assert_int_equal(synth_capture(w, &l, p, 4), 0);
		assert_int_equal(gt_writer_flush(w), 0);
	}
	free(s);
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_shadow_report rep;
	struct gt_refs *refs = test_refs_load();
	assert_int_equal(gt_shadow_run(path, refs, NULL, &rep), 0);
	assert_int_equal(rep.n, 10);
	assert_int_equal(rep.count[GT_SHADOW_PASS], 10);
	const uint64_t buf = ALLOC * 4;
	/* 9 launches with 4 blobs, the last with 2 of its own. */
	assert_int_equal(rep.info.blob_bytes_read, (9 * 4 + 2) * buf);
	/* At most: one launch's 4 blobs + 2 working copies, and the first launch's x kept (2). */
	assert_true(rep.info.peak_bytes <= (4 + 2 + 2) * buf);
	assert_true(rep.info.peak_bytes >= (4 + 2) * buf);
	gt_shadow_report_release(&rep);
	gt_refs_free(refs);
	unlink(path);
}

/* ---- working copies -------------------------------------------------------------------------- */

static void test_aliased_pointers_share_a_copy(void **state)
{
	(void)state;
	float before[64], after[64];
	for (int i = 0; i < 64; i++)
		before[i] = after[i] = (float)i;
	struct gt_shadow_param p[2];
	memset(p, 0, sizeof p);
	for (int i = 0; i < 2; i++) {
		p[i].pointer = 1;
		p[i].cp.kind = GT_PARAM_POINTER;
		p[i].cp.size = 8;
		p[i].cp.alloc_base = X_BASE;
		p[i].cp.alloc_bytes = sizeof before;
		p[i].before = (const uint8_t *)before;
		p[i].after = (const uint8_t *)after;
	}
	p[1].offset = 16 * 4;
	p[1].group = 0;
	struct gt_shadow_launch l;
	memset(&l, 0, sizeof l);
	l.kernel = "k";
	l.ready = 1;
	l.nparams = 2;
	l.params = p;
	struct gt_shadow_call c;
	assert_int_equal(gt_shadow_call_init(&c, &l), 0);
	assert_ptr_equal((uint8_t *)c.call.params[1].data, (uint8_t *)c.call.params[0].data + 64);
	assert_int_equal(c.call.params[1].bytes, sizeof before - 64);
	assert_int_equal(c.call.params[1].offset, 64);
	assert_int_equal(c.bytes, sizeof before); /* one copy */
	((float *)c.call.params[1].data)[0] = -1;
	assert_true(((float *)c.call.params[0].data)[16] == -1);
	gt_shadow_call_reset(&c);
	assert_true(((float *)c.call.params[0].data)[16] == 16);
	gt_shadow_call_release(&c);
}

/* ---- reference tables ---------------------------------------------------------------------- */

static int refuses(const struct gt_ref_table *t, int want, const char *msg)
{
	struct gt_refs *r;
	char err[512];
	int rc = gt_refs_from_table(&r, t, err, sizeof err);
	if (rc != want || !strstr(err, msg)) {
		print_error("got %d '%s', wanted %d with '%s'\n", rc, err, want, msg);
		return 0;
	}
	return 1;
}

static void test_tables_validated(void **state)
{
	(void)state;
	struct gt_ref_output out = saxpy_out[0];
	struct gt_ref ref = test_refs[0];
	ref.outputs = &out;
	struct gt_ref_table t = { GT_REF_ABI, sizeof(struct gt_ref), "t", 1, &ref };
	struct gt_refs *r;
	char err[512];
	assert_int_equal(gt_refs_from_table(&r, &t, err, sizeof err), 0);
	gt_refs_free(r);

	t.abi = GT_REF_ABI + 1;
	assert_true(refuses(&t, GT_ERR_VERSION, "ABI 2"));
	t.abi = GT_REF_ABI;
	t.ref_size = 8;
	assert_true(refuses(&t, GT_ERR_VERSION, "rebuild"));
	t.ref_size = sizeof(struct gt_ref);
	assert_true(refuses(NULL, GT_ERR_ARG, "returned NULL"));

	out.reason = NULL;
	assert_true(refuses(&t, GT_ERR_ARG, "tolerance but no reason"));
	out.reason = "r";
	out.type = GT_REF_I32;
	assert_true(refuses(&t, GT_ERR_ARG, "integers compare exactly"));
	out.tol.ulps = 0;
	assert_int_equal(gt_refs_from_table(&r, &t, err, sizeof err), 0); /* exact integers: fine */
	gt_refs_free(r);
	out.type = 77;
	assert_true(refuses(&t, GT_ERR_ARG, "unknown type"));
	out.type = GT_REF_F32;
	out.tol.abs = -1;
	assert_true(refuses(&t, GT_ERR_ARG, "negative, NaN or infinite"));
	out.tol.abs = NAN;
	assert_true(refuses(&t, GT_ERR_ARG, "negative, NaN or infinite"));
	out.tol.abs = INFINITY;
	assert_true(refuses(&t, GT_ERR_ARG, "negative, NaN or infinite"));
	out.tol.abs = 0;
	out.param = 4;
	assert_true(refuses(&t, GT_ERR_ARG, "parameter 4 of 4"));
	out.param = 3;
	ref.run = NULL;
	assert_true(refuses(&t, GT_ERR_ARG, "no run function"));
	ref.run = saxpy_run;
	ref.noutputs = 0;
	assert_true(refuses(&t, GT_ERR_ARG, "declares no outputs"));
	ref.noutputs = 1;
	ref.norders = 2;
	assert_true(refuses(&t, GT_ERR_ARG, "without an order function"));
	ref.norders = 0;
	ref.kernel = "";
	assert_true(refuses(&t, GT_ERR_ARG, "names no kernel"));
	ref.kernel = "saxpy";
	struct gt_ref_output two[2] = { saxpy_out[0], saxpy_out[0] };
	ref.outputs = two;
	ref.noutputs = 2;
	assert_true(refuses(&t, GT_ERR_ARG, "declared twice"));
}

static void test_names_matched(void **state)
{
	(void)state;
	static const struct {
		const char *mangled, *demangled, *base;
	} cases[] = {
		{ SAXPY, "saxpy(int, float, float const*, float*)", "saxpy" },
		{ "_Z3fooIiEvPT_", "void foo<int>(int*)", "foo<int>" },
		{ "_ZN2ns3barEv", "ns::bar()", "ns::bar" },
		{ "_ZN12_GLOBAL__N_13bazEv", "(anonymous namespace)::baz()", "(anonymous namespace)::baz" },
		{ "_Z1fIN2ns1AIiEEEvT_", "void f<ns::A<int> >(ns::A<int>)", "f<ns::A<int> >" },
		{ "plain_c_kernel", "plain_c_kernel", "plain_c_kernel" },
		/* No demangler: the source name of simple mangled names. */
		{ SAXPY, SAXPY, "saxpy" },
		{ "_ZN2ns3barEv", "_ZN2ns3barEv", "ns::bar" },
		{ "_ZNK2ns3barEv", "_ZNK2ns3barEv", "ns::bar" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *b = gt_kernel_base_name(cases[i].mangled, cases[i].demangled);
		assert_non_null(b);
		assert_string_equal(b, cases[i].base);
		free(b);
	}
	struct gt_refs *r = test_refs_load();
	const char *nb_dem = "saxpy_nobounds(int, float, float const*, float*)";
	assert_ptr_equal(gt_refs_find(r, SAXPY, "saxpy(int, float, float const*, float*)"), &test_refs[0]);
	/* "saxpy" is a base name, not a prefix: saxpy_nobounds finds its own entry. */
	assert_ptr_equal(gt_refs_find(r, SAXPY_NB, nb_dem), &test_refs[1]);
	assert_null(gt_refs_find(r, UNKNOWN, "unknown(float*)"));
	assert_null(gt_refs_find(r, "_Z9saxpy_extifPKfPf", "saxpy_ext(int, float, float const*, float*)"));
	gt_refs_free(r);
}

/* ---- the library loader ---------------------------------------------------------------------- */

/* gt_ref_ptr hands out a buffer only when it holds the elements asked for and is aligned for them:
 * a forged capture's odd offset into a float buffer is NULL, not a misaligned float pointer. */
static void test_ref_ptr_alignment(void **state)
{
	(void)state;
	_Alignas(16) unsigned char buf[64];
	struct gt_ref_param p[1] = { { .kind = GT_REF_PARAM_POINTER, .size = 8, .data = buf, .bytes = sizeof buf } };
	struct gt_ref_call c = { .abi = GT_REF_ABI, .kernel = "k", .params = p, .nparams = 1 };
	assert_ptr_equal(gt_ref_ptr(&c, 0, sizeof(float), 16), buf);
	assert_null(gt_ref_ptr(&c, 0, sizeof(float), 17)); /* fewer than asked */
	assert_null(gt_ref_ptr(&c, 1, 1, 1));              /* no such parameter */
	p[0].data = buf + 6, p[0].bytes = sizeof buf - 6;
	assert_null(gt_ref_ptr(&c, 0, sizeof(float), 1));  /* misaligned for floats */
	assert_ptr_equal(gt_ref_ptr(&c, 0, 2, 4), buf + 6);  /* aligned for 16-bit words */
	assert_ptr_equal(gt_ref_ptr(&c, 0, 1, 58), buf + 6);
	assert_ptr_equal(gt_ref_ptr(&c, 0, 6, 1), buf + 6);  /* 6-byte records: 2-aligned is enough */
	p[0].data = buf + 8, p[0].bytes = sizeof buf - 8;
	assert_ptr_equal(gt_ref_ptr(&c, 0, 12, 4), buf + 8); /* 12-byte records: 4-aligned */
	assert_null(gt_ref_ptr(&c, 0, 32, 1));             /* 32-byte records: 16-aligned */
	p[0].data = buf + 16, p[0].bytes = sizeof buf - 16;
	assert_ptr_equal(gt_ref_ptr(&c, 0, 32, 1), buf + 16);
}

static void test_refs_library_loads(void **state)
{
	(void)state;
	const char *build = getenv("GT_BUILD") ? getenv("GT_BUILD") : "build";
	char path[512], err[512];
	snprintf(path, sizeof path, "%s/kernels/refs.so", build);
	if (access(path, R_OK) != 0)
		fail_msg("%s is missing: the top Makefile must include kernels/refs/module.mk", path);
	struct gt_refs *r;
	assert_int_equal(gt_refs_load(&r, path, err, sizeof err), 0);
	assert_int_equal(r->table->abi, GT_REF_ABI);
	assert_int_equal(r->table->count, 8);
	assert_non_null(gt_refs_find(r, SAXPY, "saxpy(int, float, float const*, float*)"));
	assert_non_null(gt_refs_find(r, "_Z9compositePK5SplatiP6float4ii",
	                             "composite(Splat const*, int, float4*, int, int)"));
	assert_string_equal(r->path, path);
	gt_refs_free(r);

	/* A file that is no library, a missing file, and a library of another ABI. */
	assert_int_equal(gt_refs_load(&r, "tests/unit/test_shadow.c", err, sizeof err), GT_ERR_IO);
	assert_non_null(strstr(err, "not a loadable library"));
	assert_null(r);
	assert_int_equal(gt_refs_load(&r, "/nonexistent/refs.so", err, sizeof err), GT_ERR_IO);
	snprintf(path, sizeof path, "%s/tests/shadow/badabi.so", build);
	assert_int_equal(gt_refs_load(&r, path, err, sizeof err), GT_ERR_VERSION);
	assert_non_null(strstr(err, "reference ABI 2; this gpuanalyze reads ABI 1"));
	/* A name without a slash is a file in the current directory, never a library search. */
	assert_int_equal(gt_refs_load(&r, "libm.so.6", err, sizeof err), GT_ERR_IO);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0) {
		for (int i = 0; fixture_names[i]; i++) {
			char path[1024];
			snprintf(path, sizeof path, "%s/%s.gtrace", argv[2], fixture_names[i]);
			int rc = write_fixture(fixture_names[i], path);
			if (rc) {
				fprintf(stderr, "test_shadow: cannot write %s: %s\n", path, gt_strerror(rc));
				return 1;
			}
		}
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct_launches_pass),
		cmocka_unit_test(test_planted_error_found),
		cmocka_unit_test(test_write_past_n_found),
		cmocka_unit_test(test_input_changed_fails),
		cmocka_unit_test(test_no_reference_not_passed),
		cmocka_unit_test(test_incomplete_and_missing),
		cmocka_unit_test(test_filter_selects),
		cmocka_unit_test(test_unreadable_trace),
		cmocka_unit_test(test_blobs_freed_after_use),
		cmocka_unit_test(test_aliased_pointers_share_a_copy),
		cmocka_unit_test(test_tables_validated),
		cmocka_unit_test(test_names_matched),
		cmocka_unit_test(test_ref_ptr_alignment),
		cmocka_unit_test(test_refs_library_loads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
