/* wavelet.h: the k-th smallest of many overlapping sub-multisets, each in O(log n).
 *
 * split's units may overlap each other without bound in a trace the program shapes (ranges nested
 * N deep, N ranges at one instant, kernels that span every unit): the median launch latency of each
 * unit's kernels cannot be had by visiting them, which costs the sum of the units' sizes, N^2 at
 * worst. Every such set is a prefix of the kernels in one order (start) minus a prefix of the same
 * kernels in another (end), the second inside the first; a wavelet matrix (Claude, Navarro and
 * Ordonez, "The wavelet matrix", 2015) over each order answers "the k-th smallest value of a
 * prefix" level by level, and walking the two matrices together answers it for the difference.
 *
 * Values are ranks 0..n-1 (each distinct: the caller ranks its values, ties by position); a matrix
 * holds n ceil(log2 n) bits and an 8-byte count per 64 of them, about 1.1 log2 n bits per value.
 */
#ifndef GT_WAVELET_H
#define GT_WAVELET_H

#include <stddef.h>
#include <stdint.h>

struct gt_wavelet {
	size_t n, words;         /* values; 64-bit words per level */
	int levels;              /* bits per value */
	uint64_t *bits;          /* levels x words: level l's bits, most significant level first */
	uint64_t *ones;          /* levels x (words + 1): 1-bits before each word */
	size_t *zeros;           /* per level: 0-bits in it (they come first at the next level) */
};

/* Builds w over v[0..n), each value < n (v is left as it was). 0 or GT_ERR_NOMEM. */
int gt_wavelet_build(struct gt_wavelet *w, const uint32_t *v, size_t n);
void gt_wavelet_release(struct gt_wavelet *w);

/* The k-th smallest (0-based) of the values a[0..na) less the values b[0..nb), where the values of
 * b's prefix are among those of a's prefix and k < na - nb. a and b hold the same values, each in
 * its own order, and were built with the same n. */
uint32_t gt_wavelet_kth_diff(const struct gt_wavelet *a, size_t na, const struct gt_wavelet *b, size_t nb,
                             size_t k);

#endif
