/* zgrow.c: zero-filled doubling growth of a table indexed by id (zgrow.h). */
#include "analyze/support/zgrow.h"

#include "gputrace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gt_zgrow(void **p, size_t *n, size_t need, size_t elem, size_t first)
{
	if (need <= *n)
		return 0;
	size_t m = *n ? *n : first;
	while (m < need) {
		if (m > SIZE_MAX / 2)
			return GT_ERR_NOMEM;
		m *= 2;
	}
	if (m > SIZE_MAX / elem)
		return GT_ERR_NOMEM;
	char *q = realloc(*p, m * elem);
	if (!q)
		return GT_ERR_NOMEM;
	memset(q + *n * elem, 0, (m - *n) * elem);
	*p = q;
	*n = m;
	return 0;
}
