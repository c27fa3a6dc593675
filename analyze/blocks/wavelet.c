/* wavelet.c: wavelet matrices and the k-th smallest of a prefix difference (see wavelet.h).
 *
 * Level l holds bit (levels - 1 - l) of every value, in the order the previous level's stable
 * partition left them (zeros first); a prefix [s, e) of one level maps to [rank0(s), rank0(e)) among
 * the zeros of the next, or to [zeros + rank1(s), zeros + rank1(e)) among its ones. Building costs
 * n operations per level; a query, two ranks per matrix per level.
 */
#include "analyze/blocks/wavelet.h"

#include "traces/gputrace.h"

#include <stdlib.h>
#include <string.h>

void gt_wavelet_release(struct gt_wavelet *w)
{
	if (!w)
		return;
	free(w->bits);
	free(w->ones);
	free(w->zeros);
	memset(w, 0, sizeof *w);
}

static inline size_t rank1(const struct gt_wavelet *w, int l, size_t i)
{
	const uint64_t *bits = w->bits + (size_t)l * w->words, *ones = w->ones + (size_t)l * (w->words + 1);
	size_t q = i / 64, r = i % 64;
	size_t c = (size_t)ones[q];
	if (r)
		c += (size_t)__builtin_popcountll(bits[q] & ((1ull << r) - 1));
	return c;
}

int gt_wavelet_build(struct gt_wavelet *w, const uint32_t *v, size_t n)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	int levels = 0;
	while (levels < 32 && ((size_t)1 << levels) < n)
		levels++;
	w->levels = levels;
	w->words = n / 64 + 1;
	size_t lv = levels ? (size_t)levels : 1;
	w->bits = calloc(lv * w->words, sizeof *w->bits);
	w->ones = calloc(lv * (w->words + 1), sizeof *w->ones);
	w->zeros = calloc(lv, sizeof *w->zeros);
	uint32_t *cur = malloc((n ? n : 1) * sizeof *cur), *next = malloc((n ? n : 1) * sizeof *next);
	if (!w->bits || !w->ones || !w->zeros || !cur || !next) {
		free(cur);
		free(next);
		gt_wavelet_release(w);
		return GT_ERR_NOMEM;
	}
	if (n)
		memcpy(cur, v, n * sizeof *cur);
	for (int l = 0; l < levels; l++) {
		int shift = levels - 1 - l;
		uint64_t *bits = w->bits + (size_t)l * w->words, *ones = w->ones + (size_t)l * (w->words + 1);
		size_t z = 0;
		for (size_t i = 0; i < n; i++) {
			if ((cur[i] >> shift) & 1)
				bits[i / 64] |= 1ull << (i % 64);
			else
				z++;
		}
		w->zeros[l] = z;
		for (size_t q = 0; q < w->words; q++)
			ones[q + 1] = ones[q] + (uint64_t)__builtin_popcountll(bits[q]);
		/* the stable partition the next level is in: zeros, then ones */
		size_t zi = 0, oi = z;
		for (size_t i = 0; i < n; i++)
			next[(cur[i] >> shift) & 1 ? oi++ : zi++] = cur[i];
		uint32_t *t = cur;
		cur = next;
		next = t;
	}
	free(cur);
	free(next);
	return 0;
}

uint32_t gt_wavelet_kth_diff(const struct gt_wavelet *a, size_t na, const struct gt_wavelet *b, size_t nb,
                             size_t k)
{
	size_t as = 0, ae = na, bs = 0, be = nb;
	uint32_t v = 0;
	for (int l = 0; l < a->levels; l++) {
		size_t a1s = rank1(a, l, as), a1e = rank1(a, l, ae), b1s = rank1(b, l, bs), b1e = rank1(b, l, be);
		size_t z = ((ae - as) - (a1e - a1s)) - ((be - bs) - (b1e - b1s));
		v <<= 1;
		if (k < z) {
			as -= a1s;
			ae -= a1e;
			bs -= b1s;
			be -= b1e;
		} else {
			k -= z;
			v |= 1;
			as = a->zeros[l] + a1s;
			ae = a->zeros[l] + a1e;
			bs = b->zeros[l] + b1s;
			be = b->zeros[l] + b1e;
		}
	}
	return v;
}
