/* stats_trace.h: what a report of `gpuanalyze stats` says of the trace it read: the file, the
 * records of the kinds it reads, what it left out and why, and the trace's state (complete,
 * synthetic). The same facts for the summaries (stats_reports.h) and the other nsys reports
 * (stats_nsys.h), counted and read the same way, so that cmd_stats.c words them once.
 */
#ifndef GT_STATS_TRACE_H
#define GT_STATS_TRACE_H

#include "analyze/support/load.h"
#include "traces/gputrace.h"

#include <stdint.h>

struct gt_stats_trace {
	char *path;
	uint64_t records;        /* records of the kinds the report reads */
	uint64_t bad_times;      /* left out: end < start, or GT_KERNEL_BAD_TIMES */
	uint64_t tool_copies;    /* left out: copies made by gputrace's shadow capture */
	uint64_t unclosed, marks;/* left out: NVTX ranges never closed, NVTX marks (instants) */
	uint64_t no_call;        /* kernels whose launching call is not in the trace */
	int complete;
	uint64_t lost_bytes;
	char *synthetic;         /* META trace.synthetic when it says synthetic, else NULL */
};

/* Reads t->path, each record to fn(ctx), then notes whether the trace is complete and synthetic.
 * 0; a negative GT_ERR_* with why the trace cannot be read held (failure.h); GT_ERR_NOMEM. */
int gt_stats_trace_read(struct gt_stats_trace *t, gt_record_fn fn, void *ctx);
/* An NVTX record counted: 1 for a closed range (of any style, or push/pop only) with good times,
 * which the report takes; 0 for one it leaves out, counted as a mark, an unclosed range or bad
 * times (a range of another style is left out uncounted). */
int gt_stats_trace_nvtx(struct gt_stats_trace *t, const struct gt_nvtx *n, int push_pop_only);
/* Frees path and synthetic and zeroes t. */
void gt_stats_trace_release(struct gt_stats_trace *t);

#endif
