/* grow.c: doubling a growing array (grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *gt_grow(void *p, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return p;
	size_t want;
	if (!*cap)
		want = first;
	else if (*cap > SIZE_MAX / 2)
		return NULL;
	else
		want = *cap * 2;
	/* want <= n: a caller that let n pass *cap (or asked for a first size of 0) gets no array
	 * that would still be too small. */
	if (want <= n || !elem || want > SIZE_MAX / elem)
		return NULL;
	void *q = realloc(p, want * elem);
	if (!q)
		return NULL;
	*cap = want;
	return q;
}
