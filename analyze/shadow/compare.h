/* compare.h: tolerances and the comparison of a GPU buffer with a reference buffer, element by element.
 * (Correctness, for shadow replay; diff.h compares two traces' timings instead.)
 *
 * The rules, as docs/DESIGN.md's house rules and gputrace-ref(3) state them:
 *   - an element passes when |g - r| <= abs OR |g - r| <= rel * max(|g|, |r|) OR ulps(g, r) <= ulps,
 *     each criterion on when non-zero; equal values (g == r) always pass;
 *   - NaN never matches, not even NaN with the same bits; +0 == -0; an infinity matches only the same
 *     infinity (an infinity against anything else counts as an infinite ULP distance);
 *   - ULP distance: the number of representable values between g and r, from the bit patterns read
 *     as integers with negative values folded onto the same line (key(x) = |bits| with the sign
 *     applied), in the element's own type (float or double). +0 and -0 both have key 0
 *     (common/ulp.h, which `gputrace replay` counts with too);
 *   - integers compare exactly; their "ULP distance" is |g - r| as an integer, so that the histogram
 *     and the worst element mean the same thing for them.
 *   - memory the kernel must not write: an element that the reference left bit-identical to the
 *     "before" copy is expected unchanged, and passes when the GPU left it bit-identical too. This
 *     is how a poisoned region (0xff bytes, a NaN, which never matches as a number) passes where
 *     the kernel must not write, and it never makes a comparison stricter: such an element also
 *     passes by the rules above.
 * Per buffer: the elements compared, the mismatches, the first mismatch, the worst element (the
 * largest ULP distance among mismatches, or among all elements when everything passes; ties go to the
 * lowest index) and a histogram of ULP distances in power-of-two buckets.
 */
#ifndef GT_COMPARE_H
#define GT_COMPARE_H

#include "common/ulp.h" /* gt_ulps_f32, gt_ulps_f64, GT_ULP_INFINITE: the distance below */
#include "analyze/shadow/gputrace_ref.h"

#include <stddef.h>
#include <stdint.h>

/* Histogram buckets: 0 holds distance 0; bucket k (1..64) holds [2^(k-1), 2^k - 1]; the last holds
 * NaN and infinity mismatches. */
#define GT_ULP_BUCKETS 66
#define GT_ULP_BUCKET_NONFINITE (GT_ULP_BUCKETS - 1)

/* Bytes of one element; 0 for an unknown type. */
size_t gt_elem_size(int type);
/* "f32", "f64", "i8", ... ; "unknown" otherwise. */
const char *gt_elem_type_name(int type);
int gt_elem_is_float(int type);

/* The element rule above for one pair. *ulps receives the distance used for the histogram and the
 * worst element (GT_ULP_INFINITE for NaN and unmatched infinities); NULL allowed. 1 pass, 0 mismatch. */
int gt_close_f32(float g, float r, const struct gt_ref_tol *tol, uint64_t *ulps);
int gt_close_f64(double g, double r, const struct gt_ref_tol *tol, uint64_t *ulps);

int gt_ulp_bucket(uint64_t ulps);
/* "0", "1", "2-3", "4-7", ..., "inf/NaN" into buf. */
const char *gt_ulp_bucket_label(int bucket, char *buf, size_t len);

/* 1 when the tolerance has a criterion on. */
int gt_tol_any(const struct gt_ref_tol *tol);
/* "abs 1e-06, ulps 64" (criteria that are on), "exact" when none is; into buf. */
const char *gt_tol_describe(const struct gt_ref_tol *tol, char *buf, size_t len);

struct gt_compare_worst {
	uint64_t index;          /* element index from the pointer */
	uint64_t gpu_bits, ref_bits; /* the elements' bit patterns (zero-extended) */
	double gpu, ref;         /* as doubles (integers converted) */
	double abs_err;          /* |gpu - ref| in double; NaN when either is NaN */
	uint64_t ulps;           /* GT_ULP_INFINITE for NaN / unmatched infinity */
	int pass;                /* the worst element passed (everything passed) */
};

struct gt_compare_result {
	int type;                /* enum gt_ref_type */
	uint64_t elements;       /* whole elements compared */
	uint64_t mismatches;
	uint64_t first_mismatch; /* index; UINT64_MAX when none */
	int has_worst;           /* 0 only when elements == 0 */
	struct gt_compare_worst worst;
	uint64_t hist[GT_ULP_BUCKETS];
	uint64_t unchanged;      /* elements expected unchanged and found unchanged (bit-identical) */
	uint64_t tail_bytes;     /* bytes after the last whole element (compared exactly) */
	uint64_t tail_mismatches;
};

/* Compares bytes of gpu and ref as elements of type, under tol (ignored for integers, which compare
 * exactly); before (NULL: none) is the memory as it was before the launch, for the unchanged rule.
 * 0, or GT_ERR_ARG for an unknown type. Unaligned buffers are fine. */
int gt_compare_buffers(int type, const void *gpu, const void *ref, const void *before, uint64_t bytes,
                       const struct gt_ref_tol *tol, struct gt_compare_result *out);
/* Whether the comparison passed: no element and no tail byte differs. */
int gt_compare_passed(const struct gt_compare_result *r);

/* Exact byte comparison (for memory outside every declared output): differing bytes, the first
 * differing offset in *first (UINT64_MAX when none). */
uint64_t gt_compare_bytes(const void *a, const void *b, uint64_t bytes, uint64_t *first);

#endif
