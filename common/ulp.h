/* common/ulp.h: the distance in ULPs between two floats, the one definition of the tool.
 *
 * The analyzer's shadow comparison (analyze/shadow/compare.h) and `gputrace replay`'s bit-exact check
 * (preload/replay/replay_compare.h) both name the worst element of a buffer by how many representable
 * values lie between the two copies, so both count them here:
 *   - the bit patterns are read as integers with negative values folded onto the same line
 *     (key(x) = |bits| with the sign applied), in the element's own type (float or double);
 *   - +0 and -0 both have key 0, so they are 0 apart, and the smallest denormals either side of
 *     zero are 2 apart;
 *   - an infinity is one key past the largest finite value (callers that must not see that decide
 *     infinities first);
 *   - NaN, on either side, is GT_ULP_INFINITE.
 * The distance never overflows: for doubles it reaches 2^64 - 2, which a signed 64-bit difference
 * of keys could not hold.
 */
#ifndef GT_COMMON_ULP_H
#define GT_COMMON_ULP_H

#include <stdint.h>

#define GT_ULP_INFINITE UINT64_MAX /* the distance of a NaN (and, for callers, an unmatched infinity) */

uint64_t gt_ulps_f32(float a, float b);
uint64_t gt_ulps_f64(double a, double b);

#endif
