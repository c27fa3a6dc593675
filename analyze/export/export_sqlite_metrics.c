/* export_sqlite_metrics.c: the "metrics" table of the SQLite export (export_sqlite_metrics.h).
 *
 * Both counter kinds share one table, told apart by source ('sample' or 'launch'), since a query
 * wants a metric's values whichever way they were read. Text is bound, never spliced, and stored
 * as well-formed UTF-8; a value that is not finite is NULL (not measured), never 0.
 */
#include "analyze/export/export_sqlite_metrics.h"
#include "analyze/blocks/metric_roles.h"

#include "analyze/output/escape.h"
#include "analyze/support/failure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gt_sq_metrics {
	sqlite3_stmt *st;
	uint64_t rows;
};

static const char create[] =
	"CREATE TABLE metrics (id INTEGER PRIMARY KEY, source TEXT, start_ns INTEGER, end_ns INTEGER, "
	"duration_ns INTEGER, device_id INTEGER, metric TEXT, role TEXT, value REAL, kernel_name TEXT, "
	"correlation_id INTEGER, passes INTEGER, flags INTEGER)";
static const char insert[] = "INSERT INTO metrics VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int failed(sqlite3 *db, const char *what)
{
	return gt_fail(GT_ERR_IO, "export: SQLite: %s: %s", what, sqlite3_errmsg(db));
}

static int bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? sqlite3_bind_null(st, col) : sqlite3_bind_int64(st, col, (int64_t)v);
}

/* name as well-formed UTF-8, bound with its own copy. */
static int bind_name(sqlite3_stmt *st, int col, const char *name)
{
	char *clean = gt_esc_dup(gt_esc_utf8, name);
	if (!clean)
		return SQLITE_NOMEM;
	return sqlite3_bind_text(st, col, clean, -1, free);
}

int gt_sq_metrics_row(struct gt_sq_metrics **mp, sqlite3 *db, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_sq_metrics *m = *mp;
	if (!m) {
		if (!(m = calloc(1, sizeof *m)))
			return GT_ERR_NOMEM;
		*mp = m;
		if (sqlite3_exec(db, create, NULL, NULL, NULL) != SQLITE_OK)
			return failed(db, "create table metrics");
		if (sqlite3_prepare_v2(db, insert, -1, &m->st, NULL) != SQLITE_OK)
			return failed(db, "prepare metrics");
	}
	int launch = ev->type == GT_REC_LAUNCH_METRIC;
	const struct gt_metric_sample *s = &ev->u.metric_sample;
	const struct gt_launch_metric *l = &ev->u.launch_metric;
	uint64_t start = launch ? l->start : s->start, end = launch ? l->end : s->end;
	uint32_t flags = launch ? l->flags : s->flags, metric_id = launch ? l->metric_id : s->metric_id;
	double value = launch ? l->value : s->value;
	const char *metric = gt_reader_string(r, metric_id);
	int row = gt_metric_role_find(metric);
	sqlite3_stmt *st = m->st;
	int rc = sqlite3_bind_int64(st, 1, (int64_t)m->rows + 1);
	rc = rc ? rc : sqlite3_bind_text(st, 2, launch ? "launch" : "sample", -1, SQLITE_STATIC);
	rc = rc ? rc : bind_u64(st, 3, start);
	rc = rc ? rc : bind_u64(st, 4, end);
	rc = rc ? rc : (end >= start && !(flags & GT_METRIC_BAD_TIMES) ? bind_u64(st, 5, end - start) : sqlite3_bind_null(st, 5));
	rc = rc ? rc : sqlite3_bind_int64(st, 6, launch ? l->device_id : s->device_id);
	rc = rc ? rc : bind_name(st, 7, metric);
	rc = rc ? rc : row >= 0 ? sqlite3_bind_text(st, 8, gt_metric_role_name(gt_metric_role_rows[row].role), -1, SQLITE_STATIC)
	                        : sqlite3_bind_null(st, 8);
	rc = rc ? rc : isfinite(value) ? sqlite3_bind_double(st, 9, value) : sqlite3_bind_null(st, 9);
	rc = rc ? rc : launch ? bind_name(st, 10, gt_reader_string(r, l->name_id)) : sqlite3_bind_null(st, 10);
	rc = rc ? rc : launch ? sqlite3_bind_int64(st, 11, l->correlation_id) : sqlite3_bind_null(st, 11);
	rc = rc ? rc : launch ? sqlite3_bind_int64(st, 12, l->passes) : sqlite3_bind_null(st, 12);
	rc = rc ? rc : sqlite3_bind_int64(st, 13, flags);
	if (rc == SQLITE_NOMEM)
		return GT_ERR_NOMEM;
	if (rc != SQLITE_OK)
		return failed(db, "bind metrics");
	if (sqlite3_step(st) != SQLITE_DONE)
		return failed(db, "insert metrics");
	if (sqlite3_reset(st) != SQLITE_OK || sqlite3_clear_bindings(st) != SQLITE_OK)
		return failed(db, "reset metrics");
	m->rows++;
	return 0;
}

uint64_t gt_sq_metrics_release(struct gt_sq_metrics *m)
{
	if (!m)
		return 0;
	uint64_t rows = m->rows;
	sqlite3_finalize(m->st);
	free(m);
	return rows;
}
