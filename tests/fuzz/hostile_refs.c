/* hostile_refs.c: a reference library (gputrace-ref(3)) built to hurt `gpuanalyze shadow` and
 * `calibrate`, for fuzz_structured and tests/cli/test_shadow_hostile_refs.sh.
 *
 * A reference library is code the user chose to load, so it can always crash the analyzer by
 * crashing itself. What it must not be able to do by behaving badly within its contract is make
 * the analyzer misbehave: its table's strings (library name, kernel names, descriptions, output
 * names, reasons, order names) and its refusal messages reach every report format, and its run and
 * order functions may refuse, return odd codes, write NaN, infinities and noise into every byte they
 * are given (outputs and inputs alike), ask gt_ref_ptr for impossible sizes, leave `message` without
 * a terminating NUL, and scribble over the call's own fields (nparams, the parameter table's data
 * and byte counts), which the analyzer must not trust afterwards.
 *
 * The table passes gpuanalyze's checks: it names kernels that fuzz_structured's traces capture (its
 * fixed hostile names), with outputs of every element type. What a run does is chosen by the launch:
 * behaviour = (launch_index + $HOSTILE_BEHAVIOUR) % NBEHAVIOURS, so the fuzzer reaches each one
 * and a test can choose.
 *
 * Built with -DHOSTILE_VARIANT=N, the table is malformed in one way each (N = 1..), for the
 * refusal tests: gpuanalyze must refuse it with one line and status 2.
 */
#include "analyze/shadow/gputrace_ref.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef HOSTILE_VARIANT
#define HOSTILE_VARIANT 0
#endif

#define NBEHAVIOURS 9

/* H(hostile, plain): built with -DHOSTILE_PLAIN, every string the library shows is a plain one, so
 * that the test can compare each output's structure with its twin's (escaping_check.py). */
#ifdef HOSTILE_PLAIN
#define H(hostile, plain) plain
#else
#define H(hostile, plain) hostile
#endif

/* Writes byte patterns that are NaN, infinities, -0 and denormals in every float width. */
static void poison(void *p, uint64_t bytes, unsigned salt)
{
	static const uint8_t pat[] = { 0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x80, 0xff, 0x00, 0x00,
		                       0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x7f };
	uint8_t *b = p;
	for (uint64_t i = 0; i < bytes; i++)
		b[i] = pat[(i + salt) % sizeof pat];
}

static int behave(struct gt_ref_call *c, unsigned how)
{
	switch (how % NBEHAVIOURS) {
	case 0: /* leaves everything as it was: a pass only if the kernel wrote nothing */
		return 0;
	case 1: /* refuses, with a message made to forge report lines and move the terminal */
		return gt_ref_fail(c, "%s", H("\x1b[2J\x1b[31mrefused\r\n## Correctness\n\nall passed | "
		                              "=cmd|' /C calc'!A0 <b>&amp;</b> \xff\xfe \"}]}", "refused"));
	case 2: /* refuses with a message that fills the buffer and has no NUL */
		memset(c->message, 'M', sizeof c->message);
		return -1;
	case 3: /* an odd return code and no message at all */
		return 12345;
	case 4: /* NaN, infinities, -0 and denormals into every byte it may write, inputs included */
		for (unsigned i = 0; i < c->nparams; i++)
			if (c->params[i].kind == GT_REF_PARAM_POINTER && c->params[i].data)
				poison((uint8_t *)c->params[i].data - c->params[i].offset,
				       c->params[i].offset + c->params[i].bytes, i + how);
		return 0;
	case 5: /* impossible sizes asked of gt_ref_ptr: must all be refused */
		for (unsigned i = 0; i < c->nparams + 2; i++)
			if (gt_ref_ptr(c, i, 8, UINT64_MAX) || gt_ref_ptr(c, i, SIZE_MAX, 2))
				return gt_ref_fail(c, "gt_ref_ptr granted an impossible size for parameter %u", i);
		return 0;
	case 6: { /* scalars read with every wrong size, then the outputs' last byte flipped */
		uint64_t v;
		for (unsigned i = 0; i < c->nparams; i++) {
			(void)gt_ref_u64(c, i, &v);
			(void)gt_ref_scalar(c, i, &v, 3);
			if (c->params[i].kind == GT_REF_PARAM_POINTER && c->params[i].data && c->params[i].bytes)
				((uint8_t *)c->params[i].data)[c->params[i].bytes - 1] ^= 0x80;
		}
		return 0;
	}
	case 7: /* scribbles over the call's own fields after writing: the analyzer must use its own */
		for (unsigned i = 0; i < c->nparams; i++) {
			c->params[i].data = (void *)(uintptr_t)0x10;
			c->params[i].bytes = UINT64_MAX;
			c->params[i].offset = UINT64_MAX / 2;
			c->params[i].kind = 99;
		}
		c->nparams = 0xffffffffu;
		c->kernel = NULL;
		c->params = NULL;
		return 0;
	default: /* computes something plausible: every float output halved in place */
		for (unsigned i = 0; i < c->nparams; i++) {
			float *f = gt_ref_ptr(c, i, sizeof(float), 1);
			if (f)
				f[0] *= 0.5f;
		}
		return 0;
	}
}

/* The behaviour: the launch's index, plus HOSTILE_BEHAVIOUR from the environment (for the tests). */
static unsigned chosen(const struct gt_ref_call *c)
{
	const char *e = getenv("HOSTILE_BEHAVIOUR");
	return c->launch_index + (e ? (unsigned)atoi(e) : 0);
}

static int run_hostile(struct gt_ref_call *c)
{
	return behave(c, chosen(c));
}

static int order_hostile(struct gt_ref_call *c, unsigned k)
{
	return behave(c, chosen(c) + k);
}

#define TOL_REASON H("tolerance\n## Forged heading\r\x1b[0m | `code` <i>&</i> =1+1 \xc3\x28", "tolerance")
static const struct gt_ref_output outs_float[] = {
	{ .param = 0, .type = GT_REF_F32, .tol = { .abs = 1e-30, .rel = 1e-7, .ulps = 3 }, .name = H("out\n# x", "out"),
	  .reason = TOL_REASON },
	{ .param = 1, .type = GT_REF_F64, .tol = { .abs = 1e300, .rel = 0, .ulps = UINT64_MAX },
	  .name = H("\x1b[31mred\x1b[0m", "red"), .reason = TOL_REASON },
	{ .param = 2, .type = GT_REF_F32, .tol = { .ulps = 1 }, .name = H("<script>", "script"), .reason = TOL_REASON },
	{ .param = 3, .type = GT_REF_F64, .tol = { .rel = 1 }, .name = H("=HYPERLINK(\"x\")", "link"),
	  .reason = TOL_REASON },
};
static const struct gt_ref_output outs_int[] = {
	{ .param = 0, .type = GT_REF_U8, .name = "" },
	{ .param = 1, .type = GT_REF_I32, .name = NULL },
	{ .param = 3, .type = GT_REF_U64, .name = H("| a | b |\n|---|---|", "table") },
};
/* saxpy(int n, float a, const float *x, float *y), the kernel of test_shadow's fixtures. */
static const struct gt_ref_output outs_saxpy[] = {
	{ .param = 3, .type = GT_REF_F32, .tol = { .ulps = 2 }, .name = H("y\n## forged", "y"), .reason = TOL_REASON },
	{ .param = 2, .type = GT_REF_I32, .name = H("x\x1b[0m", "x") },
};
static const struct gt_ref_output outs_last[] = {
	{ .param = 3, .type = GT_REF_F32, .tol = { .ulps = 0 }, .name = H("\xed\xa0\x80", "surrogate") },
};
static const char *const order_names[] = { H("order\n## forged", "order0"), H("\x1b]0;title\x07", "order1"),
	                                     H("", "order2") };

#define HOSTILE(k, np, o, n) \
	{ .kernel = k, .description = H("describes\n## Correctness\n\x1b[1m" k, "describes"), .nparams = np, \
	  .run = run_hostile, .outputs = o, .noutputs = n, .norders = 3, .order_names = order_names, \
	  .order = order_hostile }

static const struct gt_ref refs[] = {
	HOSTILE("_Z6kernelPf", 0, outs_float, 4),
	HOSTILE("saxpy", 4, outs_saxpy, 2),
	HOSTILE("k1", 0, outs_int, 3),
	HOSTILE("k2", 0, outs_last, 1),
	HOSTILE("step", 5, outs_float, 4),
	HOSTILE("render_frame", 0, outs_last, 1),
	HOSTILE("k\x01\x02\x1b[31mred\x1b[0m", 0, outs_float, 4),
	HOSTILE("name\n## Correctness\n\nall passed", 0, outs_int, 3),
	HOSTILE("=cmd|' /C calc'!A0", 0, outs_last, 1),
	HOSTILE("<script>alert(1)</script>", 0, outs_float, 2),
	HOSTILE("\xff\xfe", 0, outs_int, 1),
	HOSTILE("\xc3\x28", 0, outs_float, 1),
	HOSTILE("ядро_κ", 4, outs_float, 4),
	HOSTILE("foo::bar<baz::qux<deep::more<int> > >", 0, outs_int, 3),
	HOSTILE("forward", 0, outs_last, 1),
	HOSTILE("backward", 0, outs_float, 4),
	HOSTILE("upload", 0, outs_int, 2),
};

/* The malformed variants: each is refused before any run function is called. */
#if HOSTILE_VARIANT == 3
static const struct gt_ref_output outs_twice[] = {
	{ .param = 1, .type = GT_REF_U8 }, { .param = 1, .type = GT_REF_U8 },
};
#elif HOSTILE_VARIANT == 4
static const struct gt_ref_output outs_nan[] = {
	{ .param = 0, .type = GT_REF_F32, .tol = { .abs = NAN }, .reason = "nan" },
};
#elif HOSTILE_VARIANT == 5
static const struct gt_ref_output outs_badtype[] = { { .param = 0, .type = (enum gt_ref_type)777 } };
#endif
static const struct gt_ref bad_refs[] = {
#if HOSTILE_VARIANT == 3
	{ .kernel = "twice\n\x1b[31m", .run = run_hostile, .outputs = outs_twice, .noutputs = 2 },
#elif HOSTILE_VARIANT == 4
	{ .kernel = "nan_tol", .run = run_hostile, .outputs = outs_nan, .noutputs = 1 },
#elif HOSTILE_VARIANT == 5
	{ .kernel = "bad_type", .run = run_hostile, .outputs = outs_badtype, .noutputs = 1 },
#elif HOSTILE_VARIANT == 6
	{ .kernel = "", .run = run_hostile, .outputs = outs_last, .noutputs = 1 },
#elif HOSTILE_VARIANT == 7
	{ .kernel = "no_run\n## forged", .outputs = outs_last, .noutputs = 1 },
#elif HOSTILE_VARIANT == 8
	{ .kernel = "param_past_end", .nparams = 2, .run = run_hostile, .outputs = outs_last, .noutputs = 1 },
#elif HOSTILE_VARIANT == 9
	{ .kernel = "orders_unnamed", .run = run_hostile, .outputs = outs_last, .noutputs = 1, .norders = 2,
	  .order = order_hostile },
#elif HOSTILE_VARIANT == 10
	{ .kernel = "no_outputs", .run = run_hostile, .outputs = outs_last, .noutputs = 0 },
#else
	{ .kernel = "unused", .run = run_hostile, .outputs = outs_last, .noutputs = 1 },
#endif
};

GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void);
GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void)
{
	static struct gt_ref_table t = { GT_REF_ABI, sizeof(struct gt_ref),
		                         H("hostile\n## Correctness\n\x1b[2J library", "hostile library"), 0, refs };
	t.count = sizeof refs / sizeof refs[0];
	switch (HOSTILE_VARIANT) {
	case 0: break;
	case 1: t.abi = GT_REF_ABI + 1000; break;
	case 2: t.ref_size = 8; break;
	case 11: t.count = 0xffffffffu; break;
	case 12: t.refs = NULL; break;
	default: t.refs = bad_refs; t.count = 1; break;
	}
	return &t;
}
