/* stats_trace.c: what a stats report says of its trace (stats_trace.h). */
#include "analyze/engines/stats_trace.h"

#include <stdlib.h>
#include <string.h>

int gt_stats_trace_read(struct gt_stats_trace *t, gt_record_fn fn, void *ctx)
{
	struct gt_reader *r;
	int rc = gt_load_open(&r, t->path);
	if (rc)
		return rc;
	rc = gt_load_stream(r, fn, ctx);
	if (!rc) {
		struct gt_tail tail;
		gt_reader_tail(r, &tail);
		t->complete = tail.complete;
		t->lost_bytes = tail.lost_bytes;
		const char *syn = gt_load_synthetic(r);
		if (syn && !(t->synthetic = strdup(syn)))
			rc = GT_ERR_NOMEM;
	}
	gt_reader_close(r);
	return rc;
}

int gt_stats_trace_nvtx(struct gt_stats_trace *t, const struct gt_nvtx *n, int push_pop_only)
{
	t->records++;
	if (n->kind == GT_NVTX_MARK) {
		t->marks++;
		return 0;
	}
	if (push_pop_only && n->kind != GT_NVTX_PUSH_POP)
		return 0;
	if (!n->end) {
		t->unclosed++;
		return 0;
	}
	if (n->end < n->start) {
		t->bad_times++;
		return 0;
	}
	return 1;
}

void gt_stats_trace_release(struct gt_stats_trace *t)
{
	free(t->path);
	free(t->synthetic);
	memset(t, 0, sizeof *t);
}
