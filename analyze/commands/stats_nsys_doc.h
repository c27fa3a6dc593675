/* stats_nsys_doc.h: the document of one report of stats_nsys.h (the nsys trace reports and the
 * summaries that stats_reports.h does not hold), for `gpuanalyze stats`: its facts, its notes and
 * its rows, as cmd_stats.c writes those of stats_reports.h.
 */
#ifndef GT_STATS_NSYS_DOC_H
#define GT_STATS_NSYS_DOC_H

#include "analyze/engines/stats_nsys.h"
#include "analyze/output/doc.h"

/* Writes the report into d: a JSON object (facts, then the "rows" table), or the notes and the
 * table for people, or the table alone in CSV. 0 or a negative GT_ERR_*. */
int gt_stats_nsys_fill(struct gt_doc *d, const struct gt_nsys_report *rep);

#endif
