/* ulp.c: ULP distances between floats and between doubles (ulp.h). */
#include "common/ulp.h"

#include <math.h>

/* Magnitude and sign of the ordered-integer key; the distance of two keys never overflows this way
 * (for doubles |ka - kb| could reach 2^64 - 2 and does not fit a signed 64-bit difference). */
static uint64_t key_distance(uint64_t mag_a, int neg_a, uint64_t mag_b, int neg_b)
{
	if (mag_a == 0)
		neg_a = 0; /* -0 is +0 */
	if (mag_b == 0)
		neg_b = 0;
	if (neg_a == neg_b)
		return mag_a > mag_b ? mag_a - mag_b : mag_b - mag_a;
	return mag_a + mag_b;
}

/* The distance of two bit patterns whose sign is bit `sign` (31 for float, 63 for double). */
static uint64_t bits_distance(uint64_t ua, uint64_t ub, int sign)
{
	const uint64_t mag = (1ull << sign) - 1;
	return key_distance(ua & mag, (int)(ua >> sign), ub & mag, (int)(ub >> sign));
}

/* The bits through a union, which C11 defines as reading the same bytes as the other member. */
uint64_t gt_ulps_f32(float a, float b)
{
	union { float f; uint32_t u; } x = { a }, y = { b };
	return isnan(a) || isnan(b) ? GT_ULP_INFINITE : bits_distance(x.u, y.u, 31);
}

uint64_t gt_ulps_f64(double a, double b)
{
	union { double f; uint64_t u; } x = { a }, y = { b };
	return isnan(a) || isnan(b) ? GT_ULP_INFINITE : bits_distance(x.u, y.u, 63);
}
