/* test_analyze_align.c: the map from a trace's CUPTI clock to CLOCK_REALTIME (analyze/blocks/align.c).
 *
 * Every expected value is worked out by hand in the comment beside it, in integers, so that the
 * tests check the arithmetic to the nanosecond: the fit through the first and last pairing, its
 * rounding (nearest, halves away from zero), 128-bit products near 2^60, the offsets, drift,
 * residual, uncertainty and realtime adjustment, and every way a trace can fall short of a fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analyze/blocks/align.h"
#include "traces/gputrace.h"

#define R0 1700000000000000000ll /* a realtime near 2^60.56: products overflow 64 bits */

static void add(struct gt_align *a, uint64_t c, uint64_t r, uint64_t m)
{
	struct gt_clock_sync s = { c, r, m };
	assert_int_equal(gt_align_add(a, &s), 0);
}

static int64_t host(const struct gt_align *a, uint64_t c)
{
	int64_t h = 0;
	assert_int_equal(gt_align_to_host(a, c, &h), 0);
	return h;
}

/* Two pairings: the line through them, exact at both and everywhere the ratio is whole. CUPTI
 * runs 1000 ns fast over 2 s: host(c) = r0 + (c - c0) * 1999999000 / 2000000000. */
static void test_fit_through_two_pairings(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	uint64_t c0 = 5000000000ull, c1 = c0 + 2000000000ull;
	add(&a, c0, (uint64_t)R0, 0);
	add(&a, c1, (uint64_t)R0 + 1999999000ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_string_equal(a.why, "");
	assert_int_equal(a.pairings, 2);
	assert_int_equal(a.offset_start_ns, R0 - 5000000000ll);
	assert_int_equal(a.offset_end_ns, R0 + 1999999000ll - 7000000000ll);
	assert_int_equal(a.offset_change_ns, -1000);
	assert_int_equal(a.span_ns, 2000000000ull);
	assert_true(a.drift_ppm == -0.5);        /* 1e6 * -1000 / 2e9 */
	assert_true(a.uncertainty_ns == 1000);   /* |offset change|, no residual */
	assert_int_equal(a.max_residual_ns, 0);
	assert_int_equal(host(&a, c0), R0);
	assert_int_equal(host(&a, c1), R0 + 1999999000ll);
	assert_int_equal(host(&a, c0 + 1000000000ull), R0 + 999999500ll);       /* midway: -500 */
	assert_int_equal(host(&a, c0 + 4000000000ull), R0 + 3999998000ll);      /* beyond: -2000 */
	assert_int_equal(host(&a, c0 - 2000000000ull), R0 - 1999999000ll);      /* before: +1000 */
	assert_false(a.realtime_adjust_known); /* no monotonic values */
	gt_align_release(&a);
}

/* Rounding to the nearest nanosecond, halves away from zero, on both sides of the first pairing:
 * slope (2000001 / 2000000); 1000000 ns later the line is at +1000000.5 -> +1000001, and 1000000 ns
 * earlier at -1000000.5 -> -1000001; 999999 ns later at +999999.4999995 -> +999999. */
static void test_rounding_halves_away_from_zero(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	uint64_t c0 = 1000000000000ull;
	add(&a, c0, (uint64_t)R0, 0);
	add(&a, c0 + 2000000, (uint64_t)R0 + 2000001, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_int_equal(host(&a, c0 + 1000000), R0 + 1000001);
	assert_int_equal(host(&a, c0 - 1000000), R0 - 1000001);
	assert_int_equal(host(&a, c0 + 999999), R0 + 999999);
	assert_int_equal(host(&a, c0 - 999999), R0 - 999999);
	assert_true(a.drift_ppm == 0.5);
	gt_align_release(&a);
}

/* Values near 2^63 on both clocks: the products need 128 bits and the result is still exact.
 * CUPTI at 9.0e18, realtime at 1.7e18, 10 s apart, realtime 3 ns behind at the end:
 * host(c0 + 5 s) = r0 + 5e9 * (1e10 - 3) / 1e10 = r0 + 4999999998.5 -> r0 + 4999999999 (half away
 * from zero); 1 ns later, r0 + 4999999999.4999999997 -> r0 + 4999999999. */
static void test_large_values_exact(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	uint64_t c0 = 4000000000000000000ull; /* below 2^62, the largest clock taken */
	add(&a, c0, (uint64_t)R0, 0);
	add(&a, c0 + 10000000000ull, (uint64_t)R0 + 9999999997ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_int_equal(a.offset_start_ns, R0 - 4000000000000000000ll);
	assert_int_equal(host(&a, c0 + 5000000000ull), R0 + 4999999999ll);
	assert_int_equal(host(&a, c0 + 5000000001ull), R0 + 4999999999ll);
	assert_int_equal(host(&a, c0 + 10000000000ull), R0 + 9999999997ll);
	gt_align_release(&a);
}

/* Pairings offered in any order; those in between the first and last measure how far from
 * straight the clocks went (residual), which the uncertainty takes when it is the larger. */
static void test_residual_of_middle_pairings(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	uint64_t c0 = 1000000000ull;
	/* the line: host = r0 + (c - c0) (no drift); the middle ones sit 300 ns above and 700 below */
	add(&a, c0 + 3000000000ull, (uint64_t)R0 + 3000000000ull - 700, 0);
	add(&a, c0 + 4000000000ull, (uint64_t)R0 + 4000000000ull, 0);
	add(&a, c0, (uint64_t)R0, 0);
	add(&a, c0 + 1000000000ull, (uint64_t)R0 + 1000000300ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_int_equal(a.pairings, 4);
	assert_int_equal(a.first.cupti_ns, c0);
	assert_int_equal(a.last.cupti_ns, c0 + 4000000000ull);
	assert_int_equal(a.offset_change_ns, 0);
	assert_int_equal(a.max_residual_ns, 700);
	assert_true(a.uncertainty_ns == 700);
	assert_int_equal(host(&a, c0 + 3000000000ull), R0 + 3000000000ll); /* the line, not the pairing */
	gt_align_release(&a);
}

/* Realtime moved against monotonic by the difference of (realtime - monotonic) at the two ends:
 * an NTP step of +250 us during the recording. */
static void test_realtime_adjustment(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, 100, (uint64_t)R0, 7000000000ull);
	add(&a, 100 + 1000000000ull, (uint64_t)R0 + 1000250000ull, 7000000000ull + 1000000000ull);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_true(a.realtime_adjust_known);
	assert_int_equal(a.realtime_adjust_ns, 250000);
	assert_int_equal(a.offset_change_ns, 250000);
	assert_true(a.drift_ppm == 250);
	assert_true(a.uncertainty_ns == 250000);
	gt_align_release(&a);
}

/* No pairing: not aligned, and the mapping refuses. */
static void test_no_pairing(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	int64_t h = 7;
	assert_int_equal(gt_align_to_host(&a, 1, &h), GT_ERR_STATE); /* before finish */
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_NONE);
	assert_string_equal(a.why, "no clock pairing (CLOCK_SYNC record) in the trace");
	assert_int_equal(gt_align_to_host(&a, 1, &h), GT_ERR_STATE);
	assert_int_equal(h, 7);
	assert_true(isnan(a.uncertainty_ns));
	assert_true(isnan(a.drift_ppm));
	assert_string_equal(gt_align_state_name(a.state), "none");
	gt_align_release(&a);
}

/* A pairing with a zero clock value is not usable: counted, left out. */
static void test_zero_values_are_unusable(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, 0, (uint64_t)R0, 1);
	add(&a, 5, 0, 1);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_NONE);
	assert_int_equal(a.unusable, 2);
	assert_int_equal(a.pairings, 0);
	assert_string_equal(a.why, "no usable clock pairing (the recorder could not read a clock)");
	gt_align_release(&a);
}

/* A damaged trace's clocks: pairings at or past 2^62 ns are unusable (every difference then fits
 * in int64), and a CUPTI time anywhere in 64 bits maps to a host time held at int64's ends, never
 * overflowing (found by fuzz_analyze_ranks: tests/data/bad/crash-ranks-clock-overflow.gtrace). */
static void test_hostile_clocks(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, (uint64_t)1 << 62, (uint64_t)R0, 1);
	add(&a, 1000, (uint64_t)1 << 62, 1);
	add(&a, 1000, (uint64_t)R0, UINT64_MAX);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_NONE);
	assert_int_equal(a.unusable, 3);
	gt_align_release(&a);

	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	assert_int_equal(host(&a, UINT64_MAX), INT64_MAX);
	gt_align_release(&a);

	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	add(&a, 1000 + 2000000000ull, (uint64_t)R0 + 2000000000ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_int_equal(host(&a, UINT64_MAX), INT64_MAX);
	gt_align_release(&a);
}

/* One pairing: offset only, host(c) = c + (r0 - c0); drift and uncertainty unknown. */
static void test_one_pairing_offset_only(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	assert_string_equal(gt_align_state_name(a.state), "offset");
	assert_non_null(strstr(a.why, "one clock pairing only"));
	assert_int_equal(host(&a, 1000), R0);
	assert_int_equal(host(&a, 1000 + 123456789), R0 + 123456789);
	assert_true(isnan(a.uncertainty_ns));
	assert_true(isnan(a.drift_ppm));
	assert_int_equal(a.offset_change_ns, 0);
	gt_align_release(&a);
}

/* Two pairings that cannot make a line: the same CUPTI time, realtime going backwards, a drift no
 * crystal has. Each falls back to the first pairing's offset and says why. */
static void test_refused_fits(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	add(&a, 1000, (uint64_t)R0 + 5, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	assert_non_null(strstr(a.why, "share one CUPTI time"));
	gt_align_release(&a);

	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	add(&a, 1000 + 1000000000ull, (uint64_t)R0 - 1, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	assert_non_null(strstr(a.why, "went backwards"));
	assert_int_equal(host(&a, 2000), R0 + 1000);
	assert_true(isnan(a.uncertainty_ns));
	gt_align_release(&a);

	/* 1000 ppm is allowed, 1000.001 is not */
	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	add(&a, 1000 + 1000000000ull, (uint64_t)R0 + 1001000000ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_true(a.drift_ppm == 1000);
	gt_align_release(&a);
	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	add(&a, 1000 + 1000000000ull, (uint64_t)R0 + 1001000001ull, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	assert_non_null(strstr(a.why, "faster than 1000 ppm"));
	gt_align_release(&a);
}

/* finish may run again after more pairings (it recomputes from all of them). */
static void test_finish_again(void **state)
{
	(void)state;
	struct gt_align a;
	gt_align_init(&a);
	add(&a, 1000, (uint64_t)R0, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_OFFSET);
	add(&a, 1000 + 1000000, (uint64_t)R0 + 1000010, 0);
	assert_int_equal(gt_align_finish(&a), GT_ALIGN_FIT);
	assert_int_equal(a.offset_change_ns, 10);
	assert_true(a.uncertainty_ns == 10);
	gt_align_release(&a);
	gt_align_release(&a); /* twice is harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_through_two_pairings),
		cmocka_unit_test(test_rounding_halves_away_from_zero),
		cmocka_unit_test(test_large_values_exact),
		cmocka_unit_test(test_residual_of_middle_pairings),
		cmocka_unit_test(test_realtime_adjustment),
		cmocka_unit_test(test_no_pairing),
		cmocka_unit_test(test_zero_values_are_unusable),
		cmocka_unit_test(test_hostile_clocks),
		cmocka_unit_test(test_one_pairing_offset_only),
		cmocka_unit_test(test_refused_fits),
		cmocka_unit_test(test_finish_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
