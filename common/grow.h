/* common/grow.h: room for one more element in a growing array, the one doubling rule of the tool.
 *
 * Tables that grow one entry at a time (the reader's metadata and devices, the captures a replay
 * keeps, the analyzer's groups and results, the recorder's buffer registry) double their capacity
 * when full, starting from a size that suits each. Memory then follows what a trace really holds,
 * and the total copying stays linear. The size in bytes is checked for overflow here, so no caller
 * has to: a count a hostile trace inflates ends as out of memory, never as a short allocation.
 */
#ifndef GT_COMMON_GROW_H
#define GT_COMMON_GROW_H

#include <stddef.h>

/* The array p, holding n elements of elem bytes in room for *cap, made to hold at least n + 1: when
 * n == *cap it is reallocated to twice *cap (first when *cap is 0) and *cap updated; otherwise p
 * itself comes back. NULL when out of memory or when the size would overflow: then p is untouched
 * (still the caller's, to use or free) and so is *cap. */
void *gt_grow(void *p, size_t *cap, size_t n, size_t elem, size_t first);

/* A table indexed by a small number (a string id, a callback id, a device), filled on first sight,
 * where a zero entry means "not decided yet": *arrp (the address of the caller's pointer, of any
 * element type) and *n made to hold at least need entries. When need > *n the array is reallocated
 * to *n (first when *n is 0) doubled until it holds need, the new entries zeroed. The caller tests
 * `need > *n` inline where it is on a per-record path, so that only growth is a call. 0; -1 when out
 * of memory or when the size would overflow, with *arrp and *n untouched. The pointer is read and
 * written with memcpy, so that a `struct x **` passed as arrp is not accessed as a `void *`. */
int gt_grow_zeroed(void *arrp, size_t *n, size_t need, size_t elem, size_t first);

#endif
