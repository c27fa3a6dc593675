/* stats_doc.h: what every report of `gpuanalyze stats` writes of the trace it read (stats_trace.h),
 * the same for the summaries (cmd_stats.c) and the other nsys reports (stats_nsys_doc.c): the JSON
 * head and its "excluded" counts, the notes for people, and the statistics' definitions.
 */
#ifndef GT_STATS_DOC_H
#define GT_STATS_DOC_H

#include "analyze/engines/stats_trace.h"
#include "analyze/output/doc.h"

#include <stdint.h>

/* How the summaries' statistics are defined, as the notes and JSON "statistics" say. */
#define GT_STATS_STATISTICS                                                                        \
	"statistics: Med = median (the mean of the two middle values when n is even); StdDev = "      \
	"sample standard deviation (n - 1; n/a for one value); Time (%) = the row's total over the "  \
	"report's total x 100; gpuanalyze(1) defines each"

/* "one" when n is 1, else "many". */
const char *gt_stats_doc_plural(uint64_t n, const char *one, const char *many);

/* JSON's head, before its rows: opens the report's object with "command", "report" (name),
 * "version" (the report's name before the version, so the head is not gt_cmd_doc_head's), "trace"
 * with "records", then "measured". The caller adds its own members and ends the object. */
void gt_stats_doc_facts(struct gt_doc *d, const char *name, const char *measured, const struct gt_stats_trace *t);
/* Opens the member "excluded" with the counts of what t left out (bad_times, tool_copies,
 * nvtx_marks, nvtx_unclosed, kernels_without_call); the caller adds its own and ends it. */
void gt_stats_doc_excluded(struct gt_doc *d, const struct gt_stats_trace *t);
/* The human formats' notes (JSON says them as facts): the title, the trace, its state, what the
 * report measures, and the records it left out for bad times, as shadow-capture copies, as NVTX
 * marks or unclosed ranges. The caller adds its own notes and the report's heading. */
void gt_stats_doc_notes(struct gt_doc *d, const char *name, const char *measured, const struct gt_stats_trace *t);

#endif
