/* zgrow.h: a table indexed by a small number (a string id, a count), grown to hold an index, its
 * new entries zeroed.
 *
 * The engines keep one entry per string id (the kernel filter's verdict per name, the cached
 * escaped names, whether an API call synchronises) or per device, filled on first sight: a zero
 * entry means "not decided yet". Such a table doubles from a first size until it holds the index
 * asked for, and what it gains is zeroed. The caller tests `need > *n` inline, so the per-record
 * path stays a compare; only the growth, a few times per trace, is this call.
 */
#ifndef GT_ZGROW_H
#define GT_ZGROW_H

#include <stddef.h>

/* *p, *n entries of elem bytes, made to hold at least need: when need > *n, reallocated to *n (first
 * when *n is 0) doubled until it holds need, the new entries zeroed, *p and *n updated. 0, or
 * GT_ERR_NOMEM (also when the size would overflow) with *p and *n untouched. */
int gt_zgrow(void **p, size_t *n, size_t need, size_t elem, size_t first);

#endif
