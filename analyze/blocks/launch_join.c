/* launch_join.c: GPU work paired with its launching call (launch_join.h). */
#include "analyze/blocks/launch_join.h"

#include <string.h>

static uint32_t corr_of(const void *call, size_t at)
{
	uint32_t c;
	memcpy(&c, (const char *)call + at, sizeof c);
	return c;
}

int gt_launch_join(struct gt_tl_vec *calls, size_t corr_at, struct gt_tl_vec *work, gt_launch_pair_fn pair,
                   void *ctx, uint64_t *unpaired)
{
	if (gt_tl_vec_sort(calls)) /* by start, so that the earliest of an id comes first */
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < calls->n; i++) {
		void *c = gt_tl_vec_at(calls, i);
		uint64_t key = corr_of(c, corr_at);
		memcpy(c, &key, sizeof key);
	}
	if (gt_tl_vec_sort(calls) || gt_tl_vec_sort(work)) /* stable: the earliest call of an id stays first */
		return GT_ERR_NOMEM;
	size_t j = 0;
	for (size_t i = 0; i < work->n; i++) {
		const void *w = gt_tl_vec_at(work, i);
		uint64_t id;
		memcpy(&id, w, sizeof id);
		while (j < calls->n && corr_of(gt_tl_vec_at(calls, j), corr_at) < id)
			j++;
		const void *c = j < calls->n ? gt_tl_vec_at(calls, j) : NULL;
		if (!c || corr_of(c, corr_at) != id) {
			(*unpaired)++;
			continue;
		}
		int rc = pair(ctx, c, w);
		if (rc)
			return rc;
	}
	return 0;
}
