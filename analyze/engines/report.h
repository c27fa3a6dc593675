/* report.h: the benchmark report of one trace, in Markdown, with its figures.
 *
 * The engine behind `gpuanalyze report`. It writes what the house rules say every report carries,
 * under the seeds' headings, short and complete:
 *
 *   Hardware      every device (name, UUID, SMs, memory, clocks, theoretical memory and PCIe peaks)
 *                 and the host (CPU, OS, kernel), from the trace's DEVICE and META records;
 *   Toolkit       driver, CUDA driver API and runtime, CUPTI, the recorder; compiler and flags are
 *                 not in a trace and the report says so;
 *   Clock state   SM and memory clock ranges, temperature, power and throttle reasons from the NVML
 *                 clock samples, or "not sampled";
 *   Sizes         the command line, each top kernel's launch configurations (grid, block, shared
 *                 memory, registers), and the copies by kind with their sizes;
 *   Method        what was timed (CUPTI activity timestamps), warm-up dropped, n, the statistics,
 *                 the units of work, records lost;
 *   Correctness   shadow replay (shadow.h) when the trace holds captures and a reference library is
 *                 given; otherwise "not checked" and why: never "passed";
 *   Result        the top kernels (median, MAD, p90, p99), end to end per unit of work (split.h),
 *                 copy bandwidth against peaks (bandwidth.h), findings (findings.h), with two SVG
 *                 figures (svg.h) written next to the report: REPORT-kernels.svg (per-kernel
 *                 durations) and REPORT-split.svg (each unit's wall time as kernel time, other GPU work
 *                 and GPU idle);
 *   Compared with the baseline  diff.h against another trace when one is given; no speedup is
 *                 stated when correctness failed;
 *   Limitations   what the reader must keep in mind, from what the trace lacks or shows.
 *
 * Each part comes from the engine that computes it; a part whose engine has nothing to say (no
 * copies, no clock samples) says so in a line. The trace is read once: that pass collects the
 * kernels, clocks and sizes and feeds every record to split, findings and bandwidth; shadow (when
 * a reference library is given) and diff (when a baseline is) read their own inputs.
 */
#ifndef GT_REPORT_H
#define GT_REPORT_H

#include "analyze/engines/diff.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gt_report_options {
	const char *baseline;     /* trace to compare with (diff.h), NULL: none */
	const char *refs;         /* shadow reference library, NULL: correctness not checked */
	uint64_t warmup;          /* launches per kernel (and units) dropped by position */
	size_t top;               /* kernels in the tables and the figure (default 10; figure: 8) */
	const char *figures;      /* path prefix of the figures ("out/REPORT" -> out/REPORT-kernels.svg),
	                           * NULL: no figures */
	const char *link_prefix;  /* how the report names them ("REPORT" -> REPORT-kernels.svg) */
	const char *no_figures;   /* with figures NULL: why there are none, for the report's note
	                           * (NULL: the report went to standard output) */
	struct gt_diff_options diff; /* threshold, seed, bootstrap for the comparison */
};
void gt_report_options_default(struct gt_report_options *o);

struct gt_report_result {
	int correctness;          /* 1 passed, 0 failed, -1 not checked */
	int compared;             /* a baseline comparison was made */
	size_t slower;            /* kernels and unit quantities SLOWER than the baseline */
	int figures;              /* figures written */
};

/* Writes the report of the trace at path to out. 0; GT_ERR_IO when out failed, or with the failure
 * held (failure.h: an unreadable trace, baseline or reference library, a figure that cannot be
 * written); GT_ERR_NOMEM, unheld. GT_ERR_IO stands for a held failure's code so that the
 * caller, which adds nothing to a write error either, need not ask gt_failed(). */
int gt_report_write(FILE *out, const char *path, const struct gt_report_options *o, struct gt_report_result *res);

#endif
