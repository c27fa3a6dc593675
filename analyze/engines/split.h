/* split.h: where the time of each unit of work goes: end to end vs GPU kernels, copies, API, idle.
 *
 * The engine behind `gpuanalyze split`, the seeds' "kernel 4.1 ms, end-to-end 11.8 ms" for every
 * frame (or step, or iteration) of a program. A unit of work is, in this order of preference:
 *
 *   1. each instance of an NVTX range: every range named options.range (any domain, any depth),
 *      else every top-level instance of the most frequent top-level range name (ties: the name
 *      whose first instance starts first). Top-level: not inside another closed range of the same
 *      pool on the same thread; the pool is the default NVTX domain (the program's own ranges)
 *      when the trace has any there, else every domain. (Not the recorded depth: a library's
 *      range in its own domain, such as one NCCL never closes, deepens every range after it on
 *      its thread.) Push/pop and start/end ranges count; marks and ranges never closed (end 0)
 *      do not;
 *   2. else each interval between host synchronisations: the ends of SYNC records of kind stream,
 *      context or event (the host waited; a stream-wait-event is a GPU-side wait and is not one)
 *      cut the timeline from the first API call or GPU operation to the last end; an interval with
 *      no GPU operation (kernel, copy, memset) in it is left out and counted;
 *   3. else the whole process: from its PROCESS start record to its exit record when both carry a
 *      CUPTI timestamp, else from the first API call or GPU operation to the last end.
 *
 * For each unit [u0, u1), on the CUPTI clock that NVTX, API and GPU timestamps share:
 *   wall         u1 - u0
 *   kernel       |K n U|, K the union of every kernel interval: time when at least one kernel ran
 *                (concurrent kernels count once: a union, not a sum)
 *   copy[dir]    |C_dir n U|, the union of the copies of one direction (HtoD also holds HtoA,
 *                DtoH holds AtoH, DtoD holds the array-to-array kinds; other: HtoH and unknown)
 *   memset       |M n U|, the union of memsets
 *   overlap      |C n K n U|: time when a copy (any direction) and a kernel ran at once
 *   api          |A n U|, the union of CUDA API calls on all threads
 *   idle         wall - |(K u C u M) n U|: time the GPU did nothing
 *   launch       over the kernels that overlap U and whose launching API call is in the trace
 *                (paired by correlation id; the earliest call of that id): the median of kernel
 *                start - call start; with GT_KERNEL_HAS_QUEUED also the medians of queued - call
 *                start and start - queued
 *   kernels      kernels overlapping U (a kernel that spans a boundary counts in both units; only
 *                its part inside each is timed); copies likewise
 * Then, across the units left after warm-up (the first `warmup` units by start time, dropped by
 * position), struct gt_stats of each (stats.h: median, MAD, p90, p99, ...).
 *
 * Memory: while reading, 16 bytes per API call and memset, 24 per copy and kernel, 16 per launch
 * call, and the NVTX ranges and syncs that can be units; then 160 bytes per unit. The unions are
 * not stored: cursors (timeline.h) merge each kind's sorted intervals as the units advance,
 * keeping only spans that units overlapping each other share. The trace is read once. Units that
 * overlap each other take unions built whole instead (24 bytes per span: about 4 per kernel, 5 per
 * copy, 2 per memset and 1 per API call, fewer where they overlap); once the sweeps have looked at 8
 * times more records than there are, the kernels' and copies' counts and the launch medians come
 * from indexes (at most about 200 bytes per kernel while they are built and 32 per copy), so that
 * time stays O(n log n) whatever the units' shape.
 */
#ifndef GT_SPLIT_H
#define GT_SPLIT_H

#include "analyze/support/growbuf.h"
#include "traces/gputrace.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

/* GT_SPLIT_WINDOW: a trace recorded in windows (GPUTRACE_WINDOW) without NVTX units: each window is a
 * unit, since the time between windows holds no records to cut by syncs. */
enum gt_split_mode { GT_SPLIT_NVTX = 1, GT_SPLIT_SYNC = 2, GT_SPLIT_PROCESS = 3, GT_SPLIT_WINDOW = 4 };

enum gt_split_dir { GT_DIR_HTOD = 0, GT_DIR_DTOH, GT_DIR_DTOD, GT_DIR_PTOP, GT_DIR_OTHER, GT_DIR_COUNT };
/* The direction family of a copy kind (enum gt_copy_kind). */
enum gt_split_dir gt_split_dir_of(int copy_kind);
const char *gt_split_dir_name(enum gt_split_dir d); /* "HtoD", ..., "other" */

/* The per-unit quantities, in the order of the distribution table. */
enum gt_split_metric {
	GT_M_WALL = 0,
	GT_M_KERNEL,
	GT_M_HTOD,
	GT_M_DTOH,
	GT_M_DTOD,
	GT_M_PTOP,
	GT_M_OTHER,
	GT_M_MEMSET,
	GT_M_OVERLAP,
	GT_M_API,
	GT_M_IDLE,
	GT_M_LAUNCH,        /* median per unit of kernel start - API call start */
	GT_M_LAUNCH_QUEUE,  /* median per unit of queued - API call start */
	GT_M_LAUNCH_START,  /* median per unit of start - queued */
	GT_M_COUNT
};
const char *gt_split_metric_key(enum gt_split_metric m);   /* "wall_ns", ... */
const char *gt_split_metric_title(enum gt_split_metric m); /* "wall", ... */

struct gt_split_unit {
	uint64_t index;          /* position among all units, by start (0-based, before warm-up) */
	uint64_t start, end;     /* ns, CUPTI clock */
	double v[GT_M_COUNT];    /* ns; NaN where a unit has nothing to measure (launch without pairs) */
	uint64_t kernels, copies;
	uint32_t thread_id;      /* NVTX: the thread of the range; else 0 */
};

struct gt_split_options {
	const char *range;       /* NVTX range name to use; NULL: the most frequent top-level one */
	uint64_t warmup;         /* units dropped by position */
};

/* An NVTX range name seen at depth 0, for the output's "other candidates" line. */
struct gt_split_name {
	char *name;
	uint64_t count;
};

struct split_state;

struct gt_split {
	int mode;                /* enum gt_split_mode */
	char *range;             /* NVTX mode: the range name used */
	int range_given;         /* it came from options.range */
	int range_domain_default;/* the top-level pool was the default domain (else every domain) */
	struct gt_split_name *names; /* top-level range names of the pool, most frequent first */
	size_t nnames;
	uint64_t unclosed;       /* instances of the chosen range never closed (left out) */
	uint64_t empty_dropped;  /* sync mode: intervals without GPU work, left out */
	uint64_t syncs;          /* sync mode: host synchronisations that cut the timeline */
	uint64_t windows;        /* recording windows in the trace (any mode) */
	uint64_t window_ns;      /* their summed length */
	uint64_t run_ns;         /* the process's length (start to exit record, else first to last
	                          * event): window_ns / run_ns is how much of the run was seen */

	struct gt_split_unit *units; /* after warm-up, by start */
	size_t nunits;
	struct gt_growbuf units_buf; /* where units live (huge pages: a million units is 160 MB) */
	uint64_t units_total;    /* before warm-up */
	uint64_t warmup_dropped;
	struct gt_stats st[GT_M_COUNT]; /* across units; n = 0 where no unit has the value */

	/* the trace */
	char *path;
	uint64_t origin;         /* trace start: the earliest CUPTI timestamp of any event */
	uint64_t kernels, copies, memsets, apis, syncs_read, nvtx_read;
	uint64_t kernels_bad;    /* GT_KERNEL_BAD_TIMES or end < start: left out; copies likewise */
	uint64_t copies_bad, memsets_bad;
	uint64_t launches_paired;   /* kernels whose API call was found */
	uint64_t launches_queued;   /* ... of which carry queued timestamps */
	uint64_t dir_copies[GT_DIR_COUNT];
	int complete;
	uint64_t lost_bytes;
	char *synthetic;
	struct split_state *state; /* private: the pass between gt_split_begin and gt_split_finish */
};

/* Reads path and computes the units. 0; a negative GT_ERR_* with the failure held (failure.h:
 * unreadable trace, or options.range names no NVTX range of the trace); GT_ERR_NOMEM (perhaps
 * unheld). */
int gt_split_run(struct gt_split *s, const char *path, const struct gt_split_options *o);
void gt_split_release(struct gt_split *s);

/* The same in steps, for a caller that streams the trace itself and feeds several engines from its
 * one pass (report, diff): gt_split_begin (o is copied; o->range must outlive the pass); then
 * gt_split_record for every record of the trace, in file order (a gt_record_fn with s as its
 * context; s must not move meanwhile); then gt_split_finish with the same reader, which returns
 * what gt_split_run does. gt_split_release after any of them frees what there is, a pass left
 * unfinished included. */
int gt_split_begin(struct gt_split *s, const char *path, const struct gt_split_options *o);
int gt_split_record(void *s, const struct gt_reader *r, const struct gt_event *ev);
int gt_split_finish(struct gt_split *s, const struct gt_reader *r);

#endif
