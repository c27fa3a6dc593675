/* test_replay_compare.c: how a replay says two copies of a buffer differ (preload/replay/replay_compare.c).
 *
 * Bit-identity is the verdict; the worst element only explains it, so every case pins the exact
 * count of differing elements, the worst one's index, both its values and its distance: ULPs for
 * floats (through zero, +0 against -0, NaN), absolute difference for integers, and the fall-back to
 * bytes when the size is no multiple of the asked type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "preload/replay/replay_compare.h"

static float f32_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static double f64_bits(uint64_t u)
{
	double f;
	memcpy(&f, &u, 8);
	return f;
}

/* Fills d with a pattern a test could not match by accident (a memset of 0 would). */
static void poison(struct replay_diff *d)
{
	memset(d, 0xa5, sizeof *d);
}

static void test_dtype_names(void **state)
{
	(void)state;
	static const char *const names[] = { "f32", "f64", "i32", "u32", "u8" };
	static const enum replay_dtype types[] = { RD_F32, RD_F64, RD_I32, RD_U32, RD_U8 };
	for (int i = 0; i < 5; i++) {
		enum replay_dtype t = types[(i + 1) % 5]; /* anything but the answer */
		assert_int_equal(replay_dtype_parse(names[i], &t), 0);
		assert_int_equal(t, types[i]);
		assert_string_equal(replay_dtype_name(types[i]), names[i]);
	}
	enum replay_dtype t = RD_F64;
	assert_int_equal(replay_dtype_parse("F32", &t), -1);
	assert_int_equal(replay_dtype_parse("f3", &t), -1);
	assert_int_equal(replay_dtype_parse("f320", &t), -1);
	assert_int_equal(replay_dtype_parse("", &t), -1);
	assert_int_equal(t, RD_F64); /* untouched on failure */
	assert_string_equal(replay_dtype_name((enum replay_dtype)7), "?");
}

static void test_identical_buffers(void **state)
{
	(void)state;
	float a[5] = { 1.0f, -2.5f, 0.0f, NAN, 3e38f };
	float b[5];
	memcpy(b, a, sizeof a); /* the same bits, NaN included */
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 1);
	assert_int_equal(d.elements, 5);
	assert_int_equal(d.differing, 0);
	assert_int_equal(d.worst_index, 0);
	assert_int_equal(d.worst_ulps, 0);
	assert_int_equal(d.dtype, RD_F32);
	/* Nothing at all to compare is identical too. */
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, 0, RD_F64, &d), 1);
	assert_int_equal(d.elements, 0);
	assert_int_equal(d.differing, 0);
	assert_int_equal(d.dtype, RD_F64);
}

static void test_f32_one_ulp(void **state)
{
	(void)state;
	uint32_t a[4] = { 0x40000000u, 0x3f800000u, 0x3f800000u, 0xc0400000u };
	uint32_t b[4] = { 0x40000000u, 0x3f800000u, 0x3f800001u, 0xc0400000u };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.elements, 4);
	assert_int_equal(d.differing, 1);
	assert_int_equal(d.worst_index, 2);
	assert_int_equal(d.worst_ulps, 1);
	assert_true(d.worst_a == 1.0);
	assert_true(d.worst_b == (double)f32_bits(0x3f800001u));
	assert_true(d.worst_b > 1.0);
	assert_int_equal(d.dtype, RD_F32);
	/* The other way round: the same distance, the values swapped. */
	assert_int_equal(replay_compare((const uint8_t *)b, (const uint8_t *)a, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.worst_ulps, 1);
	assert_true(d.worst_a == (double)f32_bits(0x3f800001u));
	assert_true(d.worst_b == 1.0);
}

static void test_f32_sign_change_through_zero(void **state)
{
	(void)state;
	/* The smallest positive and negative denormals. The distance counts the steps between them in
	 * value order: +tiny -> 0 -> -tiny, that is 2 (+0 and -0 share one key, as in the usual
	 * sign-magnitude-to-biased mapping). */
	uint32_t a[1] = { 0x00000001u }, b[1] = { 0x80000001u };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, 4, RD_F32, &d), 0);
	assert_int_equal(d.differing, 1);
	assert_int_equal(d.worst_index, 0);
	assert_int_equal(d.worst_ulps, 2);
	assert_true(d.worst_a > 0 && d.worst_b < 0);
	assert_true(d.worst_a == -d.worst_b);
	/* Larger values either side of zero: 1.0f and -1.0f are 2 * 0x3f800000 steps apart. */
	uint32_t c[1] = { 0x3f800000u }, e[1] = { 0xbf800000u };
	assert_int_equal(replay_compare((const uint8_t *)c, (const uint8_t *)e, 4, RD_F32, &d), 0);
	assert_int_equal(d.worst_ulps, 2ull * 0x3f800000u);
	/* Both negative: -1.0f and the next float below it are 1 apart. */
	uint32_t g[1] = { 0xbf800000u }, h[1] = { 0xbf800001u };
	assert_int_equal(replay_compare((const uint8_t *)g, (const uint8_t *)h, 4, RD_F32, &d), 0);
	assert_int_equal(d.worst_ulps, 1);
}

static void test_f32_signed_zeros(void **state)
{
	(void)state;
	/* +0 and -0: the bits differ (so the buffers are not identical), the values are equal. */
	uint32_t a[2] = { 0x3f800000u, 0x00000000u }, b[2] = { 0x3f800000u, 0x80000000u };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.elements, 2);
	assert_int_equal(d.differing, 1);
	assert_int_equal(d.worst_index, 1);
	assert_int_equal(d.worst_ulps, 0);
	assert_true(d.worst_a == 0.0 && !signbit(d.worst_a));
	assert_true(d.worst_b == 0.0 && signbit(d.worst_b));
}

static void test_f32_nan(void **state)
{
	(void)state;
	/* NaN against a number, and two NaNs whose bits differ: both as far apart as can be. */
	uint32_t a[3] = { 0x3f800000u, 0x7fc00000u, 0x7fc00001u };
	uint32_t b[3] = { 0x3f800000u, 0x3f800000u, 0x7fc00000u };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_ulps, UINT64_MAX);
	assert_int_equal(d.worst_index, 1); /* the first of the two */
	assert_true(isnan(d.worst_a));
	assert_true(d.worst_b == 1.0);
	/* The number on the other side. */
	assert_int_equal(replay_compare((const uint8_t *)b, (const uint8_t *)a, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.worst_ulps, UINT64_MAX);
	assert_int_equal(d.worst_index, 1);
	assert_true(d.worst_a == 1.0);
	assert_true(isnan(d.worst_b));
}

static void test_worst_of_several_first_of_equals(void **state)
{
	(void)state;
	uint32_t a[8], b[8];
	for (int i = 0; i < 8; i++)
		a[i] = b[i] = 0x3f800000u + (uint32_t)i * 0x100000u;
	b[1] += 1;   /* 1 ULP */
	b[3] += 3;   /* 3 ULPs: the worst */
	b[4] -= 2;   /* 2 ULPs */
	b[6] -= 3;   /* 3 ULPs again: a tie, the first one stays */
	b[7] += 1;
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.elements, 8);
	assert_int_equal(d.differing, 5);
	assert_int_equal(d.worst_index, 3);
	assert_int_equal(d.worst_ulps, 3);
	assert_true(d.worst_a == (double)f32_bits(a[3]));
	assert_true(d.worst_b == (double)f32_bits(b[3]));
	/* A +0/-0 pair first (distance 0) does not hide a real difference after it. */
	uint32_t c[3] = { 0x00000000u, 0x40000000u, 0x40000000u };
	uint32_t e[3] = { 0x80000000u, 0x40000000u, 0x40000002u };
	assert_int_equal(replay_compare((const uint8_t *)c, (const uint8_t *)e, sizeof c, RD_F32, &d), 0);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 2);
	assert_int_equal(d.worst_ulps, 2);
}

static void test_odd_size_falls_back_to_bytes(void **state)
{
	(void)state;
	/* 6 bytes read as f32 would leave half an element: they are compared as bytes. */
	uint8_t a[6] = { 1, 2, 3, 4, 5, 10 }, b[6] = { 1, 2, 3, 4, 5, 250 };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare(a, b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.dtype, RD_U8);
	assert_int_equal(d.elements, 6);
	assert_int_equal(d.differing, 1);
	assert_int_equal(d.worst_index, 5);
	assert_int_equal(d.worst_ulps, 240);
	assert_true(d.worst_a == 10.0 && d.worst_b == 250.0);
	/* 12 bytes are three f32 but not whole f64s. */
	uint8_t c[12] = { 0 }, e[12] = { 0 };
	e[9] = 7;
	assert_int_equal(replay_compare(c, e, sizeof c, RD_F64, &d), 0);
	assert_int_equal(d.dtype, RD_U8);
	assert_int_equal(d.elements, 12);
	assert_int_equal(d.worst_index, 9);
	assert_int_equal(d.worst_ulps, 7);
	assert_int_equal(replay_compare(c, e, sizeof c, RD_I32, &d), 0);
	assert_int_equal(d.dtype, RD_I32);
	assert_int_equal(d.elements, 3);
	assert_int_equal(d.worst_index, 2);
	assert_int_equal(d.worst_ulps, 7u << 8);
}

static void test_f64(void **state)
{
	(void)state;
	uint64_t a[3] = { 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x4000000000000000ull };
	uint64_t b[3] = { 0x3ff0000000000001ull, 0xbff0000000000005ull, 0x4000000000000000ull };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F64, &d), 0);
	assert_int_equal(d.dtype, RD_F64);
	assert_int_equal(d.elements, 3);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 1);
	assert_int_equal(d.worst_ulps, 5);
	assert_true(d.worst_a == -1.0);
	assert_true(d.worst_b == f64_bits(0xbff0000000000005ull));
	/* The same bytes read as f32: the low halves differ by 1 and 5 in their bits, in denormals. */
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_F32, &d), 0);
	assert_int_equal(d.elements, 6);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 2);
	assert_int_equal(d.worst_ulps, 5);
	/* +0 and -0, and a NaN. */
	uint64_t z[2] = { 0, 0x7ff8000000000000ull }, m[2] = { 0x8000000000000000ull, 0x3ff0000000000000ull };
	assert_int_equal(replay_compare((const uint8_t *)z, (const uint8_t *)m, sizeof z, RD_F64, &d), 0);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 1);
	assert_int_equal(d.worst_ulps, UINT64_MAX);
	assert_int_equal(replay_compare((const uint8_t *)z, (const uint8_t *)m, 8, RD_F64, &d), 0);
	assert_int_equal(d.worst_ulps, 0);
	assert_true(signbit(d.worst_b) && !signbit(d.worst_a));
}

static void test_i32_negative(void **state)
{
	(void)state;
	int32_t a[4] = { -5, INT32_MIN, 100, -1 };
	int32_t b[4] = { 7, INT32_MIN, 100, -3 };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_I32, &d), 0);
	assert_int_equal(d.dtype, RD_I32);
	assert_int_equal(d.elements, 4);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 0);
	assert_int_equal(d.worst_ulps, 12);
	assert_true(d.worst_a == -5.0 && d.worst_b == 7.0);
	/* The two ends of the range. */
	int32_t lo[1] = { INT32_MIN }, hi[1] = { INT32_MAX };
	assert_int_equal(replay_compare((const uint8_t *)lo, (const uint8_t *)hi, 4, RD_I32, &d), 0);
	assert_int_equal(d.worst_ulps, 0xffffffffull);
	assert_true(d.worst_a == -2147483648.0 && d.worst_b == 2147483647.0);
}

static void test_u32(void **state)
{
	(void)state;
	/* Read as unsigned, 0xffffffff is the largest value, not -1. */
	uint32_t a[3] = { 0, 10, 0xffffffffu }, b[3] = { 0xffffffffu, 4, 0xffffffffu };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_U32, &d), 0);
	assert_int_equal(d.dtype, RD_U32);
	assert_int_equal(d.differing, 2);
	assert_int_equal(d.worst_index, 0);
	assert_int_equal(d.worst_ulps, 0xffffffffull);
	assert_true(d.worst_a == 0.0 && d.worst_b == 4294967295.0);
	/* The same bytes as i32: 0 against -1 is 1 apart, 10 against 4 is 6 (the worst). */
	assert_int_equal(replay_compare((const uint8_t *)a, (const uint8_t *)b, sizeof a, RD_I32, &d), 0);
	assert_int_equal(d.worst_index, 1);
	assert_int_equal(d.worst_ulps, 6);
}

static void test_u8(void **state)
{
	(void)state;
	uint8_t a[5] = { 0, 200, 3, 9, 9 }, b[5] = { 255, 100, 3, 9, 8 };
	struct replay_diff d;
	poison(&d);
	assert_int_equal(replay_compare(a, b, sizeof a, RD_U8, &d), 0);
	assert_int_equal(d.dtype, RD_U8);
	assert_int_equal(d.elements, 5);
	assert_int_equal(d.differing, 3);
	assert_int_equal(d.worst_index, 0);
	assert_int_equal(d.worst_ulps, 255);
	assert_true(d.worst_a == 0.0 && d.worst_b == 255.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dtype_names),
		cmocka_unit_test(test_identical_buffers),
		cmocka_unit_test(test_f32_one_ulp),
		cmocka_unit_test(test_f32_sign_change_through_zero),
		cmocka_unit_test(test_f32_signed_zeros),
		cmocka_unit_test(test_f32_nan),
		cmocka_unit_test(test_worst_of_several_first_of_equals),
		cmocka_unit_test(test_odd_size_falls_back_to_bytes),
		cmocka_unit_test(test_f64),
		cmocka_unit_test(test_i32_negative),
		cmocka_unit_test(test_u32),
		cmocka_unit_test(test_u8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
