/* info.c: counts records by type and losses by reason, and the span of GPU activity. */
#include "analyze/engines/info.h"
#include "traces/schema.h"

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
	default: {
		/* GPU operations (kernels, copies, memsets): the kinds that span an interval on a device
		 * doing work there (counters measured over an interval are not work). */
		const struct gt_record_schema *k = gt_kind(ev->type);
		if (k && k->end >= 0 && k->device >= 0 && !k->measure && !gt_kind_bad_times(k, &ev->u)) {
			uint64_t start = gt_kind_start(&ev->u), end = gt_kind_end(k, &ev->u);
			if (end >= start)
				span(in, start, end);
		}
		break;
	}
	}
	return 0;
}
