/* stats_metrics_doc.h: `gpuanalyze stats gpu_metrics_sum`, the stats report of hardware counters,
 * run and written apart from cmd_stats.c's nsys reports (stats_metrics.h computes it). */
#ifndef GT_STATS_METRICS_DOC_H
#define GT_STATS_METRICS_DOC_H

#include "analyze/commands/commands.h"
#include "analyze/output/doc.h"
#include "analyze/output/output.h"

/* Runs the report on the trace at path and writes it in fmt as the command's whole document; the
 * exit status as gt_cmd_render's. */
int gt_stats_metrics_command(const struct gt_cmd_call *call, enum gt_format fmt, const char *path);
/* The same report into a document of several reports (stats -r A,B or several files). */
int gt_stats_metrics_fill_path(struct gt_doc *d, const char *path);

#endif
