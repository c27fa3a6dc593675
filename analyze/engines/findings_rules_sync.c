/* findings_rules_sync.c: the sync family: calls that waited for all work of the device
 * (cudaDeviceSynchronize, context synchronisation), which keep the host from queueing more work
 * while the GPU drains.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"

#include <stdlib.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Calls that waited for all work of the device, each counted once: a context SYNC record, or an
 * API call that no such record covers. */
int gt_fd_blocking_syncs(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	(void)r;
	struct gt_findings *F = p->F;
	struct gt_tl_vec *v = &p->blocks;
	if (!v->n)
		return 0;
	/* Context syncs count as they are; an API call counts when no context sync record carries
	 * its correlation id (sync activity may be off). */
	size_t nsync = 0;
	for (size_t i = 0; i < v->n; i++)
		nsync += !((struct block *)gt_tl_vec_at(v, i))->from_api;
	uint32_t *ids = malloc((nsync ? nsync : 1) * sizeof *ids);
	if (!ids)
		return GT_ERR_NOMEM;
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct block *b = gt_tl_vec_at(v, i);
		if (!b->from_api)
			ids[k++] = b->corr;
	}
	qsort(ids, k, sizeof *ids, cmp_u32);
	uint64_t count = 0, first = 0, longest = 0, longest_at = 0;
	double total = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct block *b = gt_tl_vec_at(v, i);
		if (b->from_api && k && bsearch(&b->corr, ids, k, sizeof *ids, cmp_u32))
			continue;
		count++;
		uint64_t d = b->end - b->start;
		total += (double)d;
		if (!first || b->start < first)
			first = b->start;
		if (d > longest || !longest_at) {
			longest = d;
			longest_at = b->start;
		}
	}
	free(ids);
	char t1[64], t2[64], pc[64];
	if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, total),
	              gt_fd_fmt("%llu %s waited for all work of the device (cudaDeviceSynchronize, context "
	                        "synchronisation), %.3f ms in all; the longest %.3f ms",
	                        (unsigned long long)count, gt_fd_pl(count, "call", "calls"), total / 1e6,
	                        (double)longest / 1e6),
	              gt_fd_fmt("first %s; the longest %s", gt_fd_at(first, F->origin, t1, sizeof t1),
	                        gt_fd_at(longest_at, F->origin, t2, sizeof t2)),
	              total,
	              gt_fd_fmt("the time the calls blocked the host, summed (%s); not all of it is lost, but no "
	                        "host work overlapped the GPU meanwhile",
	                        gt_fd_pct_of_span(F, total, pc, sizeof pc)),
	              gt_fd_fmt("Wait on the stream or an event that produces the result (cudaStreamSynchronize, "
	                        "cudaEventSynchronize), and only where the host needs it")))
		return GT_ERR_NOMEM;
	gt_fd_set_where(gt_fd_last(F), first, F->origin, -1);
	gt_fd_last(F)->count = count;
	return 0;
}
