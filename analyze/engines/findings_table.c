/* findings_table.c: the findings rules, one row each, in the order they run: the one place that
 * says which rules exist, what each finds and the defaults of the thresholds it reads.
 *
 * Adding a rule is a row here and its function in its family's findings_rules_<family>.c (declared
 * in findings_rules.h); adding a family is that file too. findings.h's list and gpuanalyze(1) must
 * name every id, and gpuanalyze(1) must give every default in the words of its row's man format:
 * test_analyze_findings_rules fails until they do.
 */
#include "analyze/engines/findings_rules.h"

#include <stddef.h>

#define OPT(f) offsetof(struct gt_findings_options, f)
#define FIXED (-1)

const struct findings_rule gt_findings_rules[] = {
	{ "records", "records-lost", gt_fd_records_lost,
	  "DROPPED records of the lossy reasons, and activity buffers CUPTI was refused", { { 0 } } },
	{ "records", "records-filtered", gt_fd_records_filtered,
	  "kernel records the recording's kernel filter left out on purpose", { { 0 } } },
	{ "records", "captures-skipped", gt_fd_captures_skipped,
	  "shadow captures skipped at their caps", { { 0 } } },
	{ "records", "trace-incomplete", gt_fd_trace_incomplete,
	  "a trace without its END record: the recorder did not close it", { { 0 } } },
	{ "records", "tracing-off", gt_fd_tracing_off,
	  "the recorder stopped tracing before the program ended", { { 0 } } },
	{ "records", "tracing-collision", gt_fd_tracing_collision,
	  "another CUPTI client took activity buffers while recording", { { 0 } } },
	{ "records", "other-clients-refused", gt_fd_other_clients_refused,
	  "the program's own CUPTI client, refused while recording", { { 0 } } },
	{ "copies", "pageable-async", gt_fd_pageable_async,
	  "copies issued as asynchronous from pageable host memory, which ran synchronously", { { 0 } } },
	{ "copies", "sync-copies", gt_fd_sync_copies,
	  "copies without the async flag, and those on the critical path", { { 0 } } },
	{ "copies", "sync-memsets", gt_fd_sync_memsets, "memsets without the async flag", { { 0 } } },
	{ "copies", "small-copies", gt_fd_small_copies,
	  "copies too small to reach bandwidth (bandwidth.c's thresholds)", { { 0 } } },
	{ "sync", "blocking-syncs", gt_fd_blocking_syncs,
	  "calls that waited for all work of the device", { { 0 } } },
	{ "gpu_time", "idle-gaps", gt_fd_idle_gaps,
	  "gaps between a device's GPU operations",
	  { { "gap_ns", OPT(gap_ns), FT_U64, 1e6, 1e-6, "at least %g ms" } } },
	{ "gpu_time", "low-utilization", gt_fd_low_utilization,
	  "slices of a device's GPU span that its work covered too thinly",
	  { { "slices", OPT(slices), FT_UNSIGNED, 30, 1, "%g equal slices" },
	    { "util_pct", OPT(util_pct), FT_DOUBLE, 50, 1, "less than %g%%" } } },
	{ "kernels", "bimodal", gt_fd_bimodal,
	  "a kernel's durations in two groups split by a wide gap",
	  { { "bimodal_min", OPT(bimodal_min), FT_U64, 20, 1, "at least %g launches" },
	    { "bimodal_ratio", OPT(bimodal_ratio), FT_DOUBLE, 1.5, 1, ">= %g" },
	    { "bimodal_share", OPT(bimodal_share), FT_DOUBLE, 0.10, 100, "at least %g%%" } } },
	{ "kernels", "first-launch", gt_fd_first_launch,
	  "first launches far slower than the rest: warm-up left in the data",
	  { { "launches", FIXED, FT_U64, GT_FINDINGS_MIN_LAUNCHES, 1, "at least %g times" },
	    { "first_ratio", OPT(first_ratio), FT_DOUBLE, 2, 1, "took at least %g times" } } },
	{ "clocks", "clocks-throttled", gt_fd_clocks_throttled,
	  "clock samples with a throttling reason", { { 0 } } },
	{ "clocks", "clocks-moved", gt_fd_clocks_moved,
	  "an SM clock that moved while the GPU was busy", { { 0 } } },
	{ "clocks", "clocks-unknown", gt_fd_clocks_unknown,
	  "too few clock samples to tell the clock state", { { 0 } } },
	{ "clocks", "clock-settings", gt_fd_clock_settings,
	  "clocks held by a setting, not throttled", { { 0 } } },
	{ "ceilings", "below-ceilings", gt_fd_below_ceilings,
	  "kernels far below both the memory and the compute ceiling (hardware counters)",
	  { { "launches", FIXED, FT_U64, GT_FINDINGS_MIN_LAUNCHES, 1, "at least %g times" },
	    { "ceil_pct", FIXED, FT_DOUBLE, GT_FINDINGS_CEIL_PCT, 1, "below %g%% of both" } } },
};
const size_t gt_findings_nrules = sizeof gt_findings_rules / sizeof gt_findings_rules[0];

/* The severity threshold reads as a share of the GPU span in gpuanalyze(1). */
const struct findings_threshold gt_findings_warn_threshold = { "warn_pct", OPT(warn_pct), FT_DOUBLE, 5, 1,
	                                                        "at least %g%% of the GPU span" };
