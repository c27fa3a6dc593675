/* info.c: counts records by type and losses by reason, and the span of GPU activity. */
#include "analyze/engines/info.h"

#include <string.h>

void gt_info_init(struct gt_info *in)
{
	memset(in, 0, sizeof *in);
	in->first_ns = UINT64_MAX;
}

static void span(struct gt_info *in, uint64_t start, uint64_t end)
{
	if (start && start < in->first_ns)
		in->first_ns = start;
	if (end > in->last_ns)
		in->last_ns = end;
}

int gt_info_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_info *in = ctx;
	(void)r;
	if (ev->type >= 0 && ev->type <= GT_REC_TYPE_MAX)
		in->by_type[ev->type]++;
	switch (ev->type) {
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		if (d->reason < GT_INFO_REASONS)
			in->dropped[d->reason] += d->count;
		else
			in->dropped_other += d->count;
		in->dropped_total += d->count;
		if (d->count == 0) {
			in->uncounted[d->reason < GT_INFO_REASONS ? d->reason : 0]++;
			in->uncounted_total++;
		}
		break;
	}
	case GT_REC_KERNEL:
		if (!(ev->u.kernel.flags & GT_KERNEL_BAD_TIMES) && ev->u.kernel.end >= ev->u.kernel.start)
			span(in, ev->u.kernel.start, ev->u.kernel.end);
		break;
	case GT_REC_MEMCPY:
		if (ev->u.memcpy.end >= ev->u.memcpy.start)
			span(in, ev->u.memcpy.start, ev->u.memcpy.end);
		break;
	case GT_REC_MEMSET:
		if (ev->u.memset.end >= ev->u.memset.start)
			span(in, ev->u.memset.start, ev->u.memset.end);
		break;
	}
	return 0;
}
