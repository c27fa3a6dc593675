/* ceiling_doc.h: the ceiling analysis as a document's notes, facts and table, written once for
 * `gpuanalyze ceiling` and for report's section on it. */
#ifndef GT_CEILING_DOC_H
#define GT_CEILING_DOC_H

#include "analyze/engines/ceiling.h"
#include "analyze/output/doc.h"

/* The one line a trace without counters gets, and how to get them. */
#define GT_CEILING_NO_METRICS                                                                      \
	"holds no hardware counters: record with GPUTRACE_METRICS=memory,compute (sampled during "     \
	"the run), or replay captured launches with `gputrace replay --metrics` (exact per launch)"

/* The rules, words the man page repeats. */
#define GT_CEILING_RULE_SAMPLES                                                                    \
	"samples are device-wide: each sample's count is spread evenly over the time inside it when a " \
	"kernel ran (none when none ran: left out as idle); time when exactly one kernel ran goes to "  \
	"it and counts as covered; time shared by concurrent kernels goes to none (left out); a "       \
	"kernel's rate = its share / its covered time, per launch = rate x its mean duration"
#define GT_CEILING_RULE_BOUND                                                                      \
	"bound: M = % of the memory ceilings (the higher of DRAM's, measured else theoretical, and "   \
	"L2's, measured), C = % of the compute ceiling (measured, else theoretical); the larger decides when it is at least 60% (memory on " \
	"a tie); both known and below 60%: latency; one unknown and the other below 60%: undecided"

/* Notes (text, Markdown) and facts (JSON) on the sources, rules, devices and what was left out. */
void gt_ceiling_doc_notes(struct gt_doc *d, const struct gt_ceil_analysis *c);
void gt_ceiling_doc_facts(struct gt_doc *d, const struct gt_ceil_analysis *c);
/* The per-kernel table under key (at most limit rows, 0: all). 0 or GT_ERR_*. */
int gt_ceiling_doc_table(struct gt_doc *d, const struct gt_ceil_analysis *c, const char *key, size_t limit);

#endif
