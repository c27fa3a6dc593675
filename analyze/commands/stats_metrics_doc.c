/* stats_metrics_doc.c: the gpu_metrics_sum report as a document (stats_metrics_doc.h). */
#include "analyze/commands/stats_metrics_doc.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/engines/stats_metrics.h"

#include <math.h>

#define MEASURED                                                                                   \
	"hardware counters per source (sample: GPUTRACE_METRICS, device-wide over an interval; launch: " \
	"gputrace replay --metrics, one launch), device and CUPTI metric name: records, those not "     \
	"measured (value NaN, infinite or negative, or bad times: left out), and over the rest the "    \
	"total and the rate per second (total / summed duration) of a count (.sum; other metrics do "   \
	"not add up), and the statistics of the values"

static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_stats_metrics *m = ctx;
	gt_doc_object(d, NULL);
	gt_doc_str(d, "command", "stats");
	gt_doc_str(d, "report", GT_STATS_METRICS_NAME);
	gt_doc_str(d, "version", GT_VERSION);
	gt_cmd_doc_trace(d, m->path, m->complete, m->lost_bytes, m->synthetic != NULL);
	gt_doc_u64(d, "records", m->records);
	gt_doc_end(d);
	gt_doc_str(d, "measured", MEASURED);
	gt_doc_str(d, "statistics", GT_PERCENTILE_RULE);
	gt_doc_note(d, "trace: %s", m->path);
	gt_cmd_doc_synthetic(d, m->path, m->synthetic);
	gt_cmd_doc_incomplete(d, m->path, m->complete, m->lost_bytes);
	gt_doc_note(d, "measured: %s", MEASURED);
	if (!m->records)
		gt_doc_note(d, "the trace holds no hardware counters: record with GPUTRACE_METRICS=memory,compute, "
		            "or replay captured launches with `gputrace replay --metrics`");
	gt_doc_heading(d, 2, GT_STATS_METRICS_NAME);
	const struct gt_column cols[] = {
		{ "source", "source", GT_COL_LEFT }, { "device_id", "device", 0 },
		{ "metric", "metric", GT_COL_LEFT | GT_COL_CODE }, { "role", "role", GT_COL_LEFT },
		{ "records", "records", 0 }, { "not_measured", "not measured", 0 },
		{ "total", "total", 0 }, { "per_second", "per second", 0 },
		{ "median", "median", 0 }, { "min", "min", 0 }, { "max", "max", 0 },
	};
	struct gt_table *t = gt_doc_table(d, "rows", GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "no counters");
	for (size_t i = 0; i < m->n; i++) {
		const struct gt_stats_metric_row *r = &m->rows[i];
		gt_table_str(t, r->source);
		gt_table_u64(t, r->device_id);
		gt_table_str(t, r->metric);
		gt_table_str(t, r->role);
		gt_table_u64(t, r->records);
		gt_table_u64(t, r->not_measured);
		gt_table_num_or(t, r->total, r->total, 0, "-");
		gt_table_num_or(t, r->per_second, r->per_second, 0, "-");
		gt_table_num_or(t, r->st.n ? r->st.median : NAN, r->st.n ? r->st.median : NAN, 3, "not measured");
		gt_table_num_or(t, r->st.n ? r->st.min : NAN, r->st.n ? r->st.min : NAN, 3, "not measured");
		gt_table_num_or(t, r->st.n ? r->st.max : NAN, r->st.n ? r->st.max : NAN, 3, "not measured");
		gt_table_end_row(t);
	}
	int rc = gt_table_close(t);
	gt_doc_end(d);
	return rc;
}

int gt_stats_metrics_fill_path(struct gt_doc *d, const char *path)
{
	struct gt_stats_metrics m;
	int rc = gt_stats_metrics_run(&m, path);
	if (!rc)
		rc = fill(d, &m);
	gt_stats_metrics_release(&m);
	return rc;
}

int gt_stats_metrics_command(const struct gt_cmd_call *call, enum gt_format fmt, const char *path)
{
	struct gt_stats_metrics m;
	int rc = gt_stats_metrics_run(&m, path);
	if (!rc)
		rc = gt_cmd_render(call, fmt, fill, &m);
	gt_stats_metrics_release(&m);
	return rc;
}
