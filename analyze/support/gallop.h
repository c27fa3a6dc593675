/* analyze/support/gallop.h: the first entry of a sorted array whose key is at or after a value,
 * searched outwards from a hint (galloping: steps of 1, 2, 4, ... until the answer is bracketed,
 * then bisecting the bracket). The engines look up, record after record, keys that come nearly in
 * the array's order (bandwidth's synchronous copies by start, split's calls by correlation id), so
 * the search from where the last one ended is usually a step or two, where a plain bisection of
 * the whole array would cost log n.
 *
 * The caller's array stays opaque: below(ctx, i, key) says whether entry i sorts before key. The
 * function is inline and below a static function of the caller, so that on these hot paths it
 * compiles to the caller's own loop (as common/slots.h's look-up does).
 */
#ifndef GT_ANALYZE_GALLOP_H
#define GT_ANALYZE_GALLOP_H

#include <stddef.h>

/* Nonzero when entry i (of ctx's array) sorts before key. */
typedef int (*gt_gallop_below_fn)(const void *ctx, size_t i, const void *key);

/* The first index in [0, n] whose entry is not below key (n: none), entries being in order; the
 * search starts at hint (clamped to n - 1). */
static inline size_t gt_gallop_lower(size_t n, size_t hint, gt_gallop_below_fn below, const void *ctx,
                                     const void *key)
{
	if (!n)
		return 0;
	size_t i = hint < n ? hint : n - 1, lo, hi, step = 1;
	/* Bracket the answer in [lo, hi]: every entry before lo is below key, entry hi (if < n) not. */
	if (below(ctx, i, key)) {
		lo = hi = i + 1;
		while (hi < n && below(ctx, hi, key)) {
			lo = hi + 1;
			hi = lo + step;
			step *= 2;
		}
		if (hi > n)
			hi = n;
	} else {
		lo = hi = i;
		while (lo > 0 && !below(ctx, lo - 1, key)) {
			hi = lo - 1;
			lo = hi > step ? hi - step : 0;
			step *= 2;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (below(ctx, mid, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
