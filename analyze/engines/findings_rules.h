/* findings_rules.h: the findings rules as one table, and the functions its rows name. Private to
 * the findings engine.
 *
 * A row is one rule: the id its findings carry, the function that adds them, a line of doc and
 * the thresholds it reads with their defaults. gt_findings_defaults takes the defaults from the
 * rows, so the table is the one place a default is written; findings.c walks the rows in order
 * after the pass; test_analyze_findings_rules checks the ids and the defaults against findings.h's
 * list and gpuanalyze(1). A rule's function is handed its row, and a finding takes its id from the
 * row, so no rule can add an id the table does not hold.
 */
#ifndef GT_FINDINGS_RULES_H
#define GT_FINDINGS_RULES_H

#include "analyze/engines/findings_pass.h"
#include "traces/gputrace.h"

#include <stddef.h>

enum findings_thr_type { FT_U64, FT_UNSIGNED, FT_DOUBLE };

/* A threshold a rule reads. Most are fields of struct gt_findings_options (which a caller may
 * change); a fixed one (field < 0) is a constant of the code, listed so that its documentation is
 * checked too. */
struct findings_threshold {
	const char *name;            /* the options field, or what a fixed threshold is */
	ptrdiff_t field;             /* offsetof(struct gt_findings_options, name); -1 when fixed */
	enum findings_thr_type type; /* the field's type */
	double value;                /* the default, in the field's unit (ns, a fraction, ...) */
	double man_scale;            /* value * man_scale is the number gpuanalyze(1) writes ... */
	const char *man;             /* ... in these words (a printf format of one %g) */
};

#define FINDINGS_MAX_THRESHOLDS 3

struct findings_rule;
/* Adds the rule's findings (none, one, or one per device or kernel) to p->F; 0 or GT_ERR_NOMEM. */
typedef int findings_rule_fn(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule);

struct findings_rule {
	const char *family;          /* its file: findings_rules_<family>.c */
	const char *id;              /* the findings' id, as output and gpuanalyze(1) write it */
	findings_rule_fn *run;
	const char *doc;             /* what it finds, in a line */
	struct findings_threshold thr[FINDINGS_MAX_THRESHOLDS]; /* name NULL: unused */
};

/* The rules in the order they run (findings_table.c). A rule adds its findings in the order of
 * their devices or kernels, and the final sort by severity, cost and id keeps that order among
 * equals; so the order of the rows changes no output. */
extern const struct findings_rule gt_findings_rules[];
extern const size_t gt_findings_nrules;
/* The severity threshold (warn_pct), which no one rule owns. */
extern const struct findings_threshold gt_findings_warn_threshold;

/* records: losses and what the recording left out */
findings_rule_fn gt_fd_records_lost, gt_fd_records_filtered, gt_fd_captures_skipped, gt_fd_trace_incomplete,
	gt_fd_tracing_off, gt_fd_tracing_collision, gt_fd_other_clients_refused;
/* copies: synchronous and pageable transfers, small copies (bandwidth.c's flags) */
findings_rule_fn gt_fd_pageable_async, gt_fd_sync_copies, gt_fd_sync_memsets, gt_fd_small_copies;
/* sync: calls that waited for the whole device */
findings_rule_fn gt_fd_blocking_syncs;
/* gpu_time: how each device's GPU span was used */
findings_rule_fn gt_fd_idle_gaps, gt_fd_low_utilization;
/* kernels: the spread of one kernel's durations */
findings_rule_fn gt_fd_bimodal, gt_fd_first_launch;
/* clocks: NVML's clock samples */
findings_rule_fn gt_fd_clocks_throttled, gt_fd_clocks_moved, gt_fd_clocks_unknown, gt_fd_clock_settings;
/* ceilings: kernels far below both hardware ceilings (read again through ceiling.h) */
findings_rule_fn gt_fd_below_ceilings;

#endif
