/* summary.h: per-kernel (and per-copy-kind, per-memset-kind) statistics of GPU durations.
 * (Statistics only, durations freed once computed; samples.h keeps every kernel's sorted durations
 * for diff and report, under the same counting rules.)
 *
 * The engine behind `gpuanalyze summary`. It measures, per launch, the GPU kernel duration end -
 * start from CUPTI's activity timestamps (and the same for copies and memsets), groups launches by
 * kernel name across every file given, drops warm-up by position, and computes struct gt_stats for
 * each group. It keeps only what the statistics need: one duration per launch (4 bytes while it
 * fits 32 bits), and while a file is read, the start times of the `warmup` earliest launches of
 * each kernel (struct gt_warmup), never the records themselves.
 *
 * Rules, as gpuanalyze(1) states them:
 *   - a kernel flagged GT_KERNEL_BAD_TIMES, or whose end is before its start, is excluded and
 *     counted (kernels_bad); so is a copy or memset with end < start. Exclusion comes first: warm-up
 *     counts good launches only.
 *   - warm-up: the first `warmup` launches of each kernel in each file, by start time (ties: file
 *     order), never by value. Copies and memsets are all counted.
 *   - share: a group's total / the total of its table; for kernels, of every kernel counted
 *     (including those a --kernel filter hides). Kernels can run concurrently, so this is a share of
 *     summed kernel time, not of wall-clock time.
 *
 * Use:  gt_summary_init; for each trace gt_summary_add_trace (or file_begin, stream records to
 * gt_summary_record, file_end); gt_summary_finish; gt_summary_sort; read the rows; release.
 */
#ifndef GT_SUMMARY_H
#define GT_SUMMARY_H

#include "analyze/blocks/kernel_ids.h"
#include "analyze/support/filter.h"
#include "traces/gputrace.h"
#include "common/slots.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

enum gt_summary_kind { GT_SUMMARY_KERNEL = 0, GT_SUMMARY_MEMCPY = 1, GT_SUMMARY_MEMSET = 2 };
enum gt_summary_sort { GT_SORT_TOTAL = 0, GT_SORT_MEDIAN = 1, GT_SORT_COUNT = 2, GT_SORT_NAME = 3 };

struct gt_summary_row {
	int kind;                /* enum gt_summary_kind */
	char *name;              /* kernel: the (mangled) name the trace holds; memcpy: "HtoD
	                          * pageable->device"; memset: the memory kind, "device" */
	char *display;           /* kernel: demangled (the name when it does not demangle); else name */
	int copy_kind, src_kind, dst_kind; /* memcpy */
	int mem_kind;            /* memset */
	uint64_t launches;       /* read with good timestamps, before warm-up */
	uint64_t warmup_dropped;
	uint64_t bytes;          /* memcpy, memset: bytes of the counted operations */
	double share;            /* 0..1, see above; NaN when the table's total is 0 */
	char *files;             /* which files hold it: "1,3" (1-based, in the order given) */
	struct gt_stats st;      /* of the durations counted, in ns */
};

struct gt_summary_file {
	char *path;
	uint64_t kernels, memcpys, memsets; /* records read */
	int complete;
	uint64_t lost_bytes;
	char *synthetic;         /* META trace.synthetic when it says synthetic, else NULL */
	char *window;            /* META trace.window_ms (recorded in windows, "ON/PERIOD"), else NULL */
};

struct summary_state;

struct gt_summary {
	uint64_t warmup;
	/* after gt_summary_finish */
	struct gt_summary_row *kernels, *copies, *memsets;
	size_t nkernels, ncopies, nmemsets;
	size_t kernels_hidden;   /* kernel names the filter left out */
	uint64_t kernels_bad, copies_bad, memsets_bad;
	uint64_t copies_tool;      /* copies the recorder made itself (GT_COPY_TOOL): left out */
	uint64_t warmup_dropped; /* launches, all kernels, all files */
	double kernel_total_ns;  /* all kernels counted, the denominator of their share */
	struct gt_summary_file *files;
	size_t nfiles;
	struct summary_state *state; /* private: accumulation while reading */
};

int gt_summary_init(struct gt_summary *s, uint64_t warmup);
void gt_summary_release(struct gt_summary *s);

/* Reads one trace into s: 0, or a negative GT_ERR_* with why not held (failure.h). */
int gt_summary_add_trace(struct gt_summary *s, const char *path);
/* The same in steps, for a caller that streams itself: */
int gt_summary_file_begin(struct gt_summary *s, const char *path);
int gt_summary_record(void *s, const struct gt_reader *r, const struct gt_event *ev); /* gt_record_fn */
int gt_summary_file_end(struct gt_summary *s, const struct gt_reader *r);

/* Computes the statistics and the rows; filter (may be NULL) selects kernels. 0 or GT_ERR_NOMEM. */
int gt_summary_finish(struct gt_summary *s, const struct gt_name_filter *filter);
/* Orders every table: total, median, count descending, or name ascending; ties by name. */
void gt_summary_sort(struct gt_summary *s, enum gt_summary_sort key);

#endif
