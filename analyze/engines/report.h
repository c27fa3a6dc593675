/* report.h: what the benchmark report of one trace says, computed once.
 *
 * The engine behind `gpuanalyze report`. It gathers what the house rules say every report carries,
 * under the seeds' headings; the command's writer (analyze/commands/report_doc.h) turns it into
 * the Markdown report and its two figures:
 *
 *   Hardware      every device and the host, from the trace's DEVICE and META records (r);
 *   Toolkit       driver, CUDA driver API and runtime, CUPTI, the recorder (META records);
 *   Clock state   SM and memory clock ranges, temperature, power and throttle reasons from the NVML
 *                 clock samples (pass);
 *   Sizes         each top kernel's launch configurations and the copies by kind with their sizes;
 *   Method        warm-up dropped, n, the units of work, records lost;
 *   Correctness   shadow replay (shadow.h) when the trace holds captures and a reference library is
 *                 given; otherwise "not checked" and why: never "passed";
 *   Result        the top kernels, end to end per unit of work (split.h), copy bandwidth against
 *                 peaks (bandwidth.h), findings (findings.h); and, when the trace holds hardware
 *                 counters, the kernels against the measured ceilings (ceiling.h) with a roofline;
 *   Compared with the baseline  diff.h against another trace when one is given; not run when
 *                 correctness failed.
 *
 * The trace is read once: that pass collects the kernels, clocks and sizes and feeds every record
 * to split, findings and bandwidth; shadow (when a reference library is given), diff (when a
 * baseline is) and ceiling (when that pass saw counter records) read their own inputs.
 */
#ifndef GT_REPORT_H
#define GT_REPORT_H

#include "analyze/engines/bandwidth.h"
#include "analyze/engines/ceiling.h"
#include "analyze/engines/diff.h"
#include "analyze/engines/findings.h"
#include "analyze/blocks/samples.h"
#include "analyze/engines/split.h"
#include "analyze/shadow/shadow.h"
#include "analyze/support/growbuf.h"
#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

struct gt_report_options {
	const char *baseline;     /* trace to compare with (diff.h), NULL: none */
	const char *refs;         /* shadow reference library, NULL: correctness not checked */
	uint64_t warmup;          /* launches per kernel (and units) dropped by position */
	size_t top;               /* kernels in the tables and the figure (default 10; figure: 8) */
	struct gt_diff_options diff; /* threshold, seed, bootstrap for the comparison */
};
void gt_report_options_default(struct gt_report_options *o);

#define GT_REPORT_COPY_GROUPS 32

/* The copies of one kind between two kinds of memory. */
struct gt_report_copies {
	int copy_kind, src_kind, dst_kind;
	uint64_t count, total;
	struct gt_growbuf bytes; /* uint64_t per copy */
};

/* What the report's own pass collects, which no other engine keeps. */
struct gt_report_pass {
	struct gt_samples ks;    /* every kernel's durations with its launch configurations */
	struct gt_split *split;  /* fed the same records: no engine reads the trace again */
	struct gt_findings *fd;  /* (and through it the bandwidth engine, which it feeds) */
	uint64_t nclock, clock_first, clock_last, throttled, busy;
	uint32_t sm_min, sm_max, mem_min, mem_max, t_min, t_max, p_min, p_max;
	uint64_t reasons;        /* union of the throttle reason bits seen */
	struct gt_report_copies cg[GT_REPORT_COPY_GROUPS];
	size_t ncg;
	uint64_t copies, copies_other, memsets, memset_bytes;
	uint64_t captures, dropped, apis, nvtx;
	uint64_t uncounted;      /* DROPPED records of count 0: losses of unknown size */
	uint64_t metrics;        /* hardware-counter records (METRIC_SAMPLE, LAUNCH_METRIC) */
};

/* Everything the report says, as numbers and names (the trace's, unescaped). */
struct gt_report {
	const char *path;
	const struct gt_report_options *o;
	struct gt_reader *r;     /* the trace's definitions (metadata, devices), read by the pass */
	struct gt_report_pass p;
	struct gt_split split;
	int have_split;
	struct gt_bandwidth bw;
	int have_bw;
	struct gt_findings fd;
	int have_fd;
	struct gt_shadow_report sh; /* with refs */
	struct gt_refs *refs;
	int correctness;         /* 1 passed, 0 failed, -1 not checked (no captures or no refs) */
	struct gt_diff diff;
	int have_diff;
	int compared;            /* the baseline comparison was made */
	struct gt_ceil_analysis ceil; /* only when the trace holds counters (a second pass) */
	int have_ceil;
	size_t slower;           /* kernels and unit quantities SLOWER than the baseline */
	const struct gt_kernel_sample **top; /* kernels by total time, descending */
	char **names;            /* their names as the report shows them (gt_report_label) */
	size_t ntop, nkernels;
};

/* Computes the report of the trace at path into x (o stays the caller's, and must outlive x).
 * 0; or a negative GT_ERR_*: with the failure's words held (failure.h) for an input error (an
 * unreadable trace, baseline or reference library), GT_ERR_NOMEM without them. Whatever it returns, gt_report_release(x) frees what it holds. */
int gt_report_run(struct gt_report *x, const char *path, const struct gt_report_options *o);
void gt_report_release(struct gt_report *x);

/* A kernel's name for tables and figures: demangled, or without its parameter list and return
 * type when that is long (PyTorch's run to thousands of characters). Malloc'd; NULL: no memory. */
char *gt_report_label(const char *mangled, const char *display);

#endif
