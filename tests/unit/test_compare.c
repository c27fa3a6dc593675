/* test_compare.c: every rule of compare.h: the three criteria and their OR, NaN, signed zeros,
 * infinities, ULP distances from bit patterns (float and double, across zero, across a binade),
 * integers compared exactly, the histogram buckets, the worst element and the first mismatch, the
 * bytes after the last whole element, and the descriptions printed in reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "analyze/shadow/compare.h"
#include "traces/gputrace.h"

static const struct gt_ref_tol exact = { 0 };

static void test_ulps_from_bits(void **state)
{
	(void)state;
	assert_int_equal(gt_ulps_f32(1.0f, nextafterf(1.0f, 2.0f)), 1);
	assert_int_equal(gt_ulps_f32(1.0f, 2.0f), 1u << 23); /* a whole binade */
	const float tiny = FLT_TRUE_MIN;
	assert_int_equal(gt_ulps_f32(-tiny, tiny), 2);  /* across zero: -tiny, 0, tiny */
	assert_int_equal(gt_ulps_f32(0.0f, -0.0f), 0);
	assert_int_equal(gt_ulps_f32(-1.0f, 1.0f), 2 * 0x3f800000ull);
	assert_true(gt_ulps_f32(NAN, NAN) == GT_ULP_INFINITE);
	assert_true(gt_ulps_f32(1.0f, NAN) == GT_ULP_INFINITE);
	assert_int_equal(gt_ulps_f64(1.0, nextafter(1.0, 0.0)), 1);
	assert_int_equal(gt_ulps_f64(1.0, 2.0), 1ull << 52);
	assert_int_equal(gt_ulps_f64(-DBL_TRUE_MIN, DBL_TRUE_MIN), 2);
	/* The largest double distance does not overflow: -max to +max is 2 * 0x7fefffffffffffff. */
	assert_true(gt_ulps_f64(-DBL_MAX, DBL_MAX) == 2 * 0x7fefffffffffffffull);
}

static void test_nan_never_matches(void **state)
{
	(void)state;
	const struct gt_ref_tol loose = { .abs = 1e30, .rel = 1e30, .ulps = UINT64_MAX - 1 };
	uint64_t u;
	assert_false(gt_close_f32(NAN, NAN, &loose, &u)); /* not even NaN with the same bits */
	assert_true(u == GT_ULP_INFINITE);
	assert_false(gt_close_f32(NAN, 1.0f, &loose, NULL));
	assert_false(gt_close_f32(1.0f, NAN, &loose, NULL));
	assert_false(gt_close_f64(NAN, NAN, &loose, NULL));
	/* Same bit pattern in the buffer comparison too. */
	float a[2] = { NAN, 1.0f }, b[2];
	memcpy(b, a, sizeof a);
	struct gt_compare_result r;
	assert_int_equal(gt_compare_buffers(GT_REF_F32, a, b, NULL, sizeof a, &loose, &r), 0);
	assert_int_equal(r.mismatches, 1);
	assert_int_equal(r.first_mismatch, 0);
	assert_int_equal(r.hist[GT_ULP_BUCKET_NONFINITE], 1);
	assert_false(gt_compare_passed(&r));
}

static void test_signed_zeros_equal(void **state)
{
	(void)state;
	uint64_t u = 99;
	assert_true(gt_close_f32(0.0f, -0.0f, &exact, &u));
	assert_int_equal(u, 0);
	assert_true(gt_close_f64(-0.0, 0.0, &exact, &u));
	assert_int_equal(u, 0);
}

static void test_infinity_matches_only_itself(void **state)
{
	(void)state;
	const struct gt_ref_tol loose = { .abs = 1e38, .rel = 1.0, .ulps = 1000 };
	uint64_t u;
	assert_true(gt_close_f32(INFINITY, INFINITY, &exact, &u));
	assert_int_equal(u, 0);
	assert_true(gt_close_f32(-INFINITY, -INFINITY, &exact, NULL));
	assert_false(gt_close_f32(INFINITY, -INFINITY, &loose, NULL));
	/* FLT_MAX is one key away from infinity: the ULP criterion must not see that. */
	assert_false(gt_close_f32(INFINITY, FLT_MAX, &loose, &u));
	assert_true(u == GT_ULP_INFINITE);
	assert_false(gt_close_f64(DBL_MAX, INFINITY, &loose, NULL));
}

static void test_criteria_each_alone(void **state)
{
	(void)state;
	/* 1000 lies in [512, 1024), where one float step is 2^-14: g8 is 8 ULP above r. */
	const float r = 1000.0f, step = 0x1p-14f, g8 = 1000.0f + 8 * step;
	assert_int_equal(gt_ulps_f32(1000.0f + step, r), 1);
	assert_int_equal(gt_ulps_f32(g8, r), 8);
	const double d = 8.0 * 0x1p-14, rel = d / (double)g8; /* rel uses max(|g|, |r|) = g8 */
	const struct gt_ref_tol abs_only = { .abs = d }, abs_less = { .abs = d * 0.99 };
	const struct gt_ref_tol rel_only = { .rel = rel * 1.0000001 }, rel_less = { .rel = rel * 0.99 };
	const struct gt_ref_tol ulp_only = { .ulps = 8 }, ulp_less = { .ulps = 7 };
	assert_true(gt_close_f32(g8, r, &abs_only, NULL));
	assert_false(gt_close_f32(g8, r, &abs_less, NULL));
	assert_true(gt_close_f32(g8, r, &rel_only, NULL));
	assert_false(gt_close_f32(g8, r, &rel_less, NULL));
	/* rel_only * |r| < d: it holds only because the larger magnitude, |g|, is used; either way round. */
	assert_true(rel_only.rel * (double)r < d);
	assert_true(gt_close_f32(r, g8, &rel_only, NULL));
	assert_true(gt_close_f32(g8, r, &ulp_only, NULL));
	assert_false(gt_close_f32(g8, r, &ulp_less, NULL));
	const struct gt_ref_tol none_hold = { .abs = d * 0.99, .rel = rel * 0.99, .ulps = 7 };
	const struct gt_ref_tol one_holds = { .abs = d * 0.99, .rel = rel * 0.99, .ulps = 8 };
	const struct gt_ref_tol abs_holds = { .abs = d, .rel = rel * 0.99, .ulps = 7 };
	/* OR: each failing criterion alone fails, any one that holds passes. */
	assert_false(gt_close_f32(g8, r, &none_hold, NULL));
	assert_true(gt_close_f32(g8, r, &one_holds, NULL));
	assert_true(gt_close_f32(g8, r, &abs_holds, NULL));
	/* Off means off: all zero passes only equal values. */
	assert_false(gt_close_f32(g8, r, &exact, NULL));
	assert_true(gt_close_f32(r, r, &exact, NULL));
	/* Near zero a relative tolerance alone fails; an absolute one holds (the seed's example). */
	const struct gt_ref_tol rel5 = { .rel = 1e-5 }, abs6 = { .abs = 1e-6, .rel = 1e-5 };
	assert_false(gt_close_f32(1e-9f, 0.0f, &rel5, NULL));
	assert_true(gt_close_f32(1e-9f, 0.0f, &abs6, NULL));
	/* Doubles: rel with the larger magnitude. */
	const struct gt_ref_tol rel_d = { .rel = 0.5 };
	assert_true(gt_close_f64(2.0, 1.0, &rel_d, NULL));
	assert_false(gt_close_f64(2.1, 1.0, &rel_d, NULL));
}

static void test_integers_exact(void **state)
{
	(void)state;
	const struct gt_ref_tol loose = { .abs = 100, .rel = 1, .ulps = 100 };
	int32_t g[4] = { 1, -5, INT32_MIN, 7 }, r[4] = { 1, -3, INT32_MAX, 7 };
	struct gt_compare_result res;
	assert_int_equal(gt_compare_buffers(GT_REF_I32, g, r, NULL, sizeof g, &loose, &res), 0);
	assert_int_equal(res.elements, 4);
	assert_int_equal(res.mismatches, 2); /* the tolerance is ignored for integers */
	assert_int_equal(res.first_mismatch, 1);
	assert_int_equal(res.worst.index, 2);
	assert_true(res.worst.ulps == 0xffffffffull); /* |INT32_MIN - INT32_MAX| */
	uint8_t a8[3] = { 0, 255, 3 }, b8[3] = { 0, 254, 3 };
	assert_int_equal(gt_compare_buffers(GT_REF_U8, a8, b8, NULL, 3, NULL, &res), 0);
	assert_int_equal(res.mismatches, 1);
	assert_int_equal(res.worst.ulps, 1);
	int64_t g64[1] = { INT64_MIN }, r64[1] = { INT64_MAX };
	assert_int_equal(gt_compare_buffers(GT_REF_I64, g64, r64, NULL, 8, NULL, &res), 0);
	assert_true(res.worst.ulps == UINT64_MAX);
	uint64_t gu[1] = { 5 }, ru[1] = { 5 };
	assert_int_equal(gt_compare_buffers(GT_REF_U64, gu, ru, NULL, 8, NULL, &res), 0);
	assert_true(gt_compare_passed(&res));
}

static void test_histogram_buckets(void **state)
{
	(void)state;
	assert_int_equal(gt_ulp_bucket(0), 0);
	assert_int_equal(gt_ulp_bucket(1), 1);
	assert_int_equal(gt_ulp_bucket(2), 2);
	assert_int_equal(gt_ulp_bucket(3), 2);
	assert_int_equal(gt_ulp_bucket(4), 3);
	assert_int_equal(gt_ulp_bucket(7), 3);
	assert_int_equal(gt_ulp_bucket(8), 4);
	assert_int_equal(gt_ulp_bucket(UINT64_MAX - 1), 64);
	assert_int_equal(gt_ulp_bucket(GT_ULP_INFINITE), GT_ULP_BUCKET_NONFINITE);
	char b[64];
	assert_string_equal(gt_ulp_bucket_label(0, b, sizeof b), "0");
	assert_string_equal(gt_ulp_bucket_label(1, b, sizeof b), "1");
	assert_string_equal(gt_ulp_bucket_label(2, b, sizeof b), "2-3");
	assert_string_equal(gt_ulp_bucket_label(4, b, sizeof b), "8-15");
	assert_string_equal(gt_ulp_bucket_label(GT_ULP_BUCKET_NONFINITE, b, sizeof b), "inf/NaN");

	float r[6] = { 1, 1, 1, 1, 1, 1 }, g[6];
	g[0] = 1;                          /* 0 */
	g[1] = nextafterf(1, 2);           /* 1 */
	memcpy(&g[2], &(uint32_t){ 0x3f800003u }, 4); /* 3 */
	memcpy(&g[3], &(uint32_t){ 0x3f800004u }, 4); /* 4 */
	g[4] = NAN;
	g[5] = INFINITY;
	struct gt_compare_result res;
	const struct gt_ref_tol t = { .ulps = 100 };
	gt_compare_buffers(GT_REF_F32, g, r, NULL, sizeof g, &t, &res);
	assert_int_equal(res.hist[0], 1);
	assert_int_equal(res.hist[1], 1);
	assert_int_equal(res.hist[2], 1);
	assert_int_equal(res.hist[3], 1);
	assert_int_equal(res.hist[GT_ULP_BUCKET_NONFINITE], 2);
	assert_int_equal(res.mismatches, 2);
	assert_int_equal(res.first_mismatch, 4);
}

static void test_worst_element(void **state)
{
	(void)state;
	/* Mismatches outrank passes even with a smaller distance; the largest distance among
	 * mismatches wins; a tie keeps the lower index. */
	float r[5] = { 1, 1, 1, 100, 1 }, g[5];
	memcpy(&g[0], &(uint32_t){ 0x3f800000u + 50 }, 4);  /* 50 ULP: passes (tolerance 64) */
	memcpy(&g[1], &(uint32_t){ 0x3f800000u + 10 }, 4);  /* 10 ULP: passes */
	g[2] = 1;
	g[3] = 100.5f;                                     /* mismatch, many ULP */
	g[4] = 1.5f;                                       /* mismatch, more ULP (2^22) */
	const struct gt_ref_tol t = { .ulps = 64 };
	struct gt_compare_result res;
	gt_compare_buffers(GT_REF_F32, g, r, NULL, sizeof g, &t, &res);
	assert_int_equal(res.mismatches, 2);
	assert_int_equal(res.first_mismatch, 3);
	assert_true(res.has_worst);
	assert_int_equal(res.worst.index, 4);
	assert_false(res.worst.pass);
	assert_int_equal(res.worst.ulps, 1u << 22);
	assert_true(res.worst.gpu == 1.5 && res.worst.ref == 1.0 && res.worst.abs_err == 0.5);
	assert_int_equal(res.worst.gpu_bits, 0x3fc00000u);
	assert_int_equal(res.worst.ref_bits, 0x3f800000u);

	/* Everything passes: the worst is the largest distance among all (index 0, 50 ULP). */
	g[3] = 100;
	g[4] = 1;
	gt_compare_buffers(GT_REF_F32, g, r, NULL, sizeof g, &t, &res);
	assert_true(gt_compare_passed(&res));
	assert_int_equal(res.worst.index, 0);
	assert_int_equal(res.worst.ulps, 50);
	assert_true(res.worst.pass);
	assert_true(res.first_mismatch == UINT64_MAX);

	/* A NaN is the worst of all, and the first of two NaNs is reported. */
	g[1] = NAN;
	g[3] = NAN;
	gt_compare_buffers(GT_REF_F32, g, r, NULL, sizeof g, &t, &res);
	assert_int_equal(res.worst.index, 1);
	assert_true(res.worst.ulps == GT_ULP_INFINITE);
	assert_true(isnan(res.worst.abs_err));

	/* Ties among passing elements: the lowest index. */
	float z[3] = { 2, 2, 2 }, zr[3] = { 2, 2, 2 };
	gt_compare_buffers(GT_REF_F32, z, zr, NULL, sizeof z, &exact, &res);
	assert_int_equal(res.worst.index, 0);
	assert_int_equal(res.worst.ulps, 0);
}

static void test_doubles_and_tail(void **state)
{
	(void)state;
	/* 2 doubles and 3 bytes after them; the tail is compared exactly. */
	uint8_t g[19], r[19];
	double a[2] = { 1.0, -2.0 }, b[2] = { 1.0, nextafter(-2.0, 0.0) };
	memcpy(g, a, 16);
	memcpy(r, b, 16);
	memcpy(g + 16, "xyz", 3);
	memcpy(r + 16, "xyZ", 3);
	const struct gt_ref_tol t = { .ulps = 1 };
	struct gt_compare_result res;
	assert_int_equal(gt_compare_buffers(GT_REF_F64, g, r, NULL, sizeof g, &t, &res), 0);
	assert_int_equal(res.elements, 2);
	assert_int_equal(res.mismatches, 0);
	assert_int_equal(res.tail_bytes, 3);
	assert_int_equal(res.tail_mismatches, 1);
	assert_false(gt_compare_passed(&res));
	/* Unknown type, empty buffers. */
	assert_int_equal(gt_compare_buffers(99, g, r, NULL, 8, &t, &res), GT_ERR_ARG);
	assert_int_equal(gt_compare_buffers(GT_REF_F32, NULL, NULL, NULL, 0, &t, &res), 0);
	assert_int_equal(res.elements, 0);
	assert_false(res.has_worst);
	assert_true(gt_compare_passed(&res));
	uint64_t first;
	assert_int_equal(gt_compare_bytes("abcdef", "abXdeY", 6, &first), 2);
	assert_int_equal(first, 2);
	assert_int_equal(gt_compare_bytes("abc", "abc", 3, &first), 0);
	assert_true(first == UINT64_MAX);
}

static void test_descriptions(void **state)
{
	(void)state;
	char b[128];
	const struct gt_ref_tol t1 = { .abs = 1e-6, .ulps = 64 }, t2 = { .rel = 0.01 };
	assert_string_equal(gt_tol_describe(&t1, b, sizeof b), "abs 1e-06, ulps 64");
	assert_string_equal(gt_tol_describe(&t2, b, sizeof b), "rel 0.01");
	assert_string_equal(gt_tol_describe(&exact, b, sizeof b), "exact");
	assert_string_equal(gt_elem_type_name(GT_REF_F32), "f32");
	assert_string_equal(gt_elem_type_name(GT_REF_U8), "u8");
	assert_int_equal(gt_elem_size(GT_REF_I16), 2);
	assert_int_equal(gt_elem_size(0), 0);
	assert_true(gt_elem_is_float(GT_REF_F64));
	assert_false(gt_elem_is_float(GT_REF_I32));
}

static void test_expected_unchanged(void **state)
{
	(void)state;
	/* A NaN-poisoned region the kernel must not write: the reference leaves it as before. */
	uint32_t before[4] = { 0xffffffffu, 0xffffffffu, 0x3f800000u, 0xffffffffu };
	uint32_t ref[4] = { 0x40000000u, 0xffffffffu, 0x3f800000u, 0xffffffffu };
	uint32_t gpu[4] = { 0x40000000u, 0xffffffffu, 0x3f800001u, 0x7fc00000u };
	const struct gt_ref_tol t = { .ulps = 1 };
	struct gt_compare_result res;
	assert_int_equal(gt_compare_buffers(GT_REF_F32, gpu, ref, before, sizeof gpu, &t, &res), 0);
	/* [0] computed and equal; [1] untouched poison, unchanged: passes; [2] expected unchanged but
	 * changed by 1 ULP: still passes by the tolerance (never stricter); [3] the kernel wrote
	 * another NaN where it must not write: a mismatch. */
	assert_int_equal(res.unchanged, 1);
	assert_int_equal(res.mismatches, 1);
	assert_int_equal(res.first_mismatch, 3);
	assert_int_equal(res.worst.index, 3);
	assert_int_equal(res.hist[0], 2);
	assert_int_equal(res.hist[1], 1);
	/* Without the before copy, the untouched NaN never matches. */
	assert_int_equal(gt_compare_buffers(GT_REF_F32, gpu, ref, NULL, sizeof gpu, &t, &res), 0);
	assert_int_equal(res.mismatches, 2);
	assert_int_equal(res.first_mismatch, 1);
	/* A NaN the reference computed (not the before bits) never matches, even bit-identical. */
	uint32_t b2[1] = { 0 }, r2[1] = { 0x7fc00000u }, g2[1] = { 0x7fc00000u };
	assert_int_equal(gt_compare_buffers(GT_REF_F32, g2, r2, b2, 4, &t, &res), 0);
	assert_int_equal(res.mismatches, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ulps_from_bits),
		cmocka_unit_test(test_nan_never_matches),
		cmocka_unit_test(test_signed_zeros_equal),
		cmocka_unit_test(test_infinity_matches_only_itself),
		cmocka_unit_test(test_criteria_each_alone),
		cmocka_unit_test(test_integers_exact),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_worst_element),
		cmocka_unit_test(test_doubles_and_tail),
		cmocka_unit_test(test_expected_unchanged),
		cmocka_unit_test(test_descriptions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
