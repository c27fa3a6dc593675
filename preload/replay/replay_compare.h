/* replay_compare.h: how far apart two copies of one buffer are, element by element.
 *
 * A replay compares what the kernel wrote with what it wrote in the run (the capture's "after"
 * copy) and with what earlier replays wrote. The capture keeps no types, so the buffer is read as
 * the element type the user names (--dtype; float32 by default, bytes when the size is no multiple
 * of it). Bit-identical is the test; the worst element is only there to explain a difference:
 * for floats the distance in ULPs (NaN against anything but the same bits counts as the largest
 * distance; +0 and -0 differ in their bits, so they count as differing, at distance 0), for
 * integers the absolute difference.
 */
#ifndef GT_REPLAY_COMPARE_H
#define GT_REPLAY_COMPARE_H

#include <stddef.h>
#include <stdint.h>

enum replay_dtype { RD_F32, RD_F64, RD_I32, RD_U32, RD_U8 };

struct replay_diff {
	uint64_t elements;           /* elements compared */
	uint64_t differing;          /* elements whose bits differ */
	uint64_t worst_index;        /* the element farthest apart (first of equals) */
	double worst_a, worst_b;     /* its two values */
	uint64_t worst_ulps;         /* floats: ULP distance (UINT64_MAX: a NaN); integers: |a - b| */
	enum replay_dtype dtype;     /* as read (RD_U8 when the size did not fit the asked type) */
};

/* Parses "f32", "f64", "i32", "u32", "u8"; -1 when unknown. */
int replay_dtype_parse(const char *s, enum replay_dtype *out);
const char *replay_dtype_name(enum replay_dtype t);

/* Compares a and b (n bytes each). Returns 1 when bit-identical, 0 otherwise; *d says how far. */
int replay_compare(const uint8_t *a, const uint8_t *b, size_t n, enum replay_dtype want,
                   struct replay_diff *d);

#endif
