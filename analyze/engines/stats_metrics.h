/* stats_metrics.h: `gpuanalyze stats gpu_metrics_sum`: the trace's hardware counters per source,
 * device and metric, the way the other stats reports sum API calls or kernels.
 *
 * Per group (source: sample, from GPUTRACE_METRICS, or launch, from gputrace replay --metrics;
 * device; CUPTI metric name): records, those not measured (a value NaN, infinite or negative, or
 * bad times: left out of everything else), and over the rest: the total and the rate per second
 * (total / the records' summed duration) for a count (a name ending in .sum; NaN for any other
 * metric, whose values do not add up), and the statistics of the values (stats.h). The role is
 * metric_roles.h's, NULL for a metric no row names. Rows by source, then total descending, then
 * name, device.
 *
 * Cost: one pass; 8 bytes per counter record and the groups.
 */
#ifndef GT_STATS_METRICS_H
#define GT_STATS_METRICS_H

#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

#define GT_STATS_METRICS_NAME "gpu_metrics_sum"

struct gt_stats_metric_row {
	const char *source;      /* "sample", "launch" */
	uint32_t device_id;
	char *metric;
	const char *role;        /* NULL: none */
	uint64_t records, not_measured;
	double total, per_second; /* counts only; NaN otherwise */
	struct gt_stats st;      /* of the measured values */
};

struct sm_state;

struct gt_stats_metrics {
	struct gt_stats_metric_row *rows;
	size_t n;
	uint64_t records;        /* counter records read */
	char *path;
	int complete;
	uint64_t lost_bytes;
	char *synthetic;
	struct sm_state *state;
};

/* 0; a negative GT_ERR_* with the failure held; GT_ERR_NOMEM. */
int gt_stats_metrics_run(struct gt_stats_metrics *m, const char *path);
void gt_stats_metrics_release(struct gt_stats_metrics *m);

#endif
