/* test_common_ulp.c: the one ULP distance of the tool (common/ulp.c).
 *
 * The analyzer's comparison (test_compare.c) and the replay's (test_replay_compare.c) pin the
 * distance through their own rules; this pins common/ulp.h's own promises: symmetry, +0 and -0 at
 * 0, an infinity one key past the largest finite value, NaN on either side GT_ULP_INFINITE, no
 * overflow at the ends of the double line, and agreement, over many bit patterns, with the biased
 * key mapping `gputrace replay` counted with before it used this file (sign-magnitude folded onto
 * an unsigned line, key(+x) = 2^(w-1) + bits, key(-x) = 2^(w-1) - |bits|), so that the two callers
 * mean one number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "common/ulp.h"

/* The replay's former mapping, written out independently of ulp.c. */
static uint64_t biased32(uint32_t u)
{
	return (u >> 31) ? 0x80000000ull - (u & 0x7fffffffu) : 0x80000000ull + u;
}

static uint64_t biased64(uint64_t u)
{
	const uint64_t half = 1ull << 63;
	return (u >> 63) ? half - (u & (half - 1)) : half + u;
}

static uint64_t gap(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* xorshift64: a fixed sequence, so that a failure names a reproducible pattern. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_special_values(void **state)
{
	(void)state;
	assert_int_equal(gt_ulps_f32(0.0f, -0.0f), 0);
	assert_int_equal(gt_ulps_f64(-0.0, 0.0), 0);
	assert_int_equal(gt_ulps_f32(FLT_MAX, INFINITY), 1);
	assert_int_equal(gt_ulps_f64(-DBL_MAX, -INFINITY), 1);
	assert_int_equal(gt_ulps_f32(-FLT_TRUE_MIN, FLT_TRUE_MIN), 2);
	assert_true(gt_ulps_f32(NAN, 1.0f) == GT_ULP_INFINITE);
	assert_true(gt_ulps_f32(1.0f, -NAN) == GT_ULP_INFINITE);
	assert_true(gt_ulps_f64(NAN, NAN) == GT_ULP_INFINITE);
	assert_true(gt_ulps_f64(INFINITY, NAN) == GT_ULP_INFINITE);
	/* The two infinities: the largest distance short of GT_ULP_INFINITE, without overflow. */
	assert_true(gt_ulps_f64(-INFINITY, INFINITY) == 2 * 0x7ff0000000000000ull);
	assert_true(gt_ulps_f64(-INFINITY, INFINITY) < GT_ULP_INFINITE);
}

static void test_symmetric(void **state)
{
	(void)state;
	assert_int_equal(gt_ulps_f32(1.0f, 3.0f), gt_ulps_f32(3.0f, 1.0f));
	assert_int_equal(gt_ulps_f32(-2.5f, 1e-30f), gt_ulps_f32(1e-30f, -2.5f));
	assert_true(gt_ulps_f64(-1e300, 5.0) == gt_ulps_f64(5.0, -1e300));
}

static void test_agrees_with_biased_keys(void **state)
{
	(void)state;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 200000; i++) {
		uint64_t x = next(&s), y = next(&s);
		/* Half the pairs share their high bits, so that near distances are tried too. */
		if (i & 1)
			y = (x & ~0xffffull) | (y & 0xffffull);
		uint32_t a = (uint32_t)x, b = (uint32_t)y;
		float fa, fb;
		double da, db;
		memcpy(&fa, &a, 4);
		memcpy(&fb, &b, 4);
		memcpy(&da, &x, 8);
		memcpy(&db, &y, 8);
		uint64_t want = (isnan(fa) || isnan(fb)) ? GT_ULP_INFINITE : gap(biased32(a), biased32(b));
		if (gt_ulps_f32(fa, fb) != want)
			fail_msg("f32 0x%08x 0x%08x: got %llu, want %llu", a, b,
			         (unsigned long long)gt_ulps_f32(fa, fb), (unsigned long long)want);
		want = (isnan(da) || isnan(db)) ? GT_ULP_INFINITE : gap(biased64(x), biased64(y));
		if (gt_ulps_f64(da, db) != want)
			fail_msg("f64 0x%016llx 0x%016llx: got %llu, want %llu", (unsigned long long)x,
			         (unsigned long long)y, (unsigned long long)gt_ulps_f64(da, db),
			         (unsigned long long)want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_agrees_with_biased_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
