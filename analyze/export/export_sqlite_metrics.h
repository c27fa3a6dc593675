/* export_sqlite_metrics.h: the SQLite export's table of hardware counters, "metrics": one row per
 * METRIC_SAMPLE and LAUNCH_METRIC record, made at the first such record, so that a trace without
 * counters exports the tables it always did. gputrace-sqlite(5) gives its columns. */
#ifndef GT_EXPORT_SQLITE_METRICS_H
#define GT_EXPORT_SQLITE_METRICS_H

#include "traces/gputrace.h"

#include <sqlite3.h>
#include <stdint.h>

struct gt_sq_metrics;

/* 1 for the record types this table holds. */
static inline int gt_sq_metrics_kind(int type)
{
	return type == GT_REC_METRIC_SAMPLE || type == GT_REC_LAUNCH_METRIC;
}

/* Writes ev's row into db (*m: NULL before the first, made here with the table). 0; GT_ERR_IO
 * with SQLite's error held (failure.h); GT_ERR_NOMEM. */
int gt_sq_metrics_row(struct gt_sq_metrics **m, sqlite3 *db, const struct gt_reader *r, const struct gt_event *ev);
/* Frees m (NULL allowed); returns the rows it wrote. */
uint64_t gt_sq_metrics_release(struct gt_sq_metrics *m);

#endif
