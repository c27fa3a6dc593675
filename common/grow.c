/* grow.c: doubling a growing array (grow.h). */
#include "common/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int gt_grow_zeroed(void *arrp, size_t *n, size_t need, size_t elem, size_t first)
{
	if (need <= *n)
		return 0;
	size_t m = *n ? *n : first;
	if (!m || !elem)
		return -1;
	while (m < need) {
		if (m > SIZE_MAX / 2)
			return -1;
		m *= 2;
	}
	if (m > SIZE_MAX / elem)
		return -1;
	void *p;
	memcpy(&p, arrp, sizeof p);
	char *q = realloc(p, m * elem);
	if (!q)
		return -1;
	memset(q + *n * elem, 0, (m - *n) * elem);
	memcpy(arrp, &q, sizeof q);
	*n = m;
	return 0;
}
