/* stats_metrics.c: the gpu_metrics_sum report (stats_metrics.h). Groups are found by a map from
 * (source, device, metric string id) to their index; each keeps its measured values, sorted once
 * at the end for the statistics. */
#include "analyze/engines/stats_metrics.h"
#include "analyze/blocks/metric_roles.h"

#include "analyze/support/idmap.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct group {
	int launch;
	uint32_t device, metric_id;
	uint64_t records, not_measured;
	double total, ns;
	double *v;
	size_t n, cap;
};

struct sm_state {
	struct group *g;
	size_t n, cap;
	struct gt_idmap map[2];  /* per source: device << 32 | metric id -> index */
};

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	(void)r;
	struct gt_stats_metrics *m = ctx;
	struct sm_state *st = m->state;
	int launch = ev->type == GT_REC_LAUNCH_METRIC;
	if (!launch && ev->type != GT_REC_METRIC_SAMPLE)
		return 0;
	const struct gt_metric_sample *s = &ev->u.metric_sample;
	const struct gt_launch_metric *l = &ev->u.launch_metric;
	uint32_t device = launch ? l->device_id : s->device_id, id = launch ? l->metric_id : s->metric_id;
	uint32_t flags = launch ? l->flags : s->flags;
	uint64_t start = launch ? l->start : s->start, end = launch ? l->end : s->end;
	double v = launch ? l->value : s->value;
	m->records++;
	uint64_t key = (uint64_t)device << 32 | id;
	size_t i = gt_idmap_get(&st->map[launch], key);
	if (i == SIZE_MAX) {
		struct group *q = gt_grow(st->g, &st->cap, st->n, sizeof *q, 16);
		if (!q)
			return GT_ERR_NOMEM;
		st->g = q;
		if (gt_idmap_put(&st->map[launch], key, st->n))
			return GT_ERR_NOMEM;
		i = st->n++;
		memset(&st->g[i], 0, sizeof st->g[i]);
		st->g[i].launch = launch;
		st->g[i].device = device;
		st->g[i].metric_id = id;
	}
	struct group *g = &st->g[i];
	g->records++;
	if (!isfinite(v) || v < 0 || (flags & GT_METRIC_BAD_TIMES) || end <= start) {
		g->not_measured++;
		return 0;
	}
	double *q = gt_grow(g->v, &g->cap, g->n, sizeof *q, 64);
	if (!q)
		return GT_ERR_NOMEM;
	g->v = q;
	g->v[g->n++] = v;
	g->total += v;
	g->ns += (double)(end - start);
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct gt_stats_metric_row *a = pa, *b = pb;
	int c = strcmp(a->source, b->source);
	if (c)
		return -c; /* sample before launch */
	double ta = isnan(a->total) ? -1 : a->total, tb = isnan(b->total) ? -1 : b->total;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if ((c = strcmp(a->metric, b->metric)) != 0)
		return c;
	return (a->device_id > b->device_id) - (a->device_id < b->device_id);
}

static int finish(void *ctx, const struct gt_reader *r)
{
	struct gt_stats_metrics *m = ctx;
	struct sm_state *st = m->state;
	int rc = gt_trace_end(r, &m->complete, &m->lost_bytes, &m->synthetic);
	if (rc)
		return rc;
	if (!(m->rows = calloc(st->n ? st->n : 1, sizeof *m->rows)))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < st->n; i++) {
		struct group *g = &st->g[i];
		struct gt_stats_metric_row *row = &m->rows[m->n++];
		const char *name = gt_reader_string(r, g->metric_id);
		if (!(row->metric = strdup(name)))
			return GT_ERR_NOMEM;
		size_t len = strlen(name);
		int count = len >= 4 && !strcmp(name + len - 4, ".sum");
		int k = gt_metric_role_find(name);
		row->source = g->launch ? "launch" : "sample";
		row->device_id = g->device;
		row->role = k >= 0 ? gt_metric_role_name(gt_metric_role_rows[k].role) : NULL;
		row->records = g->records;
		row->not_measured = g->not_measured;
		row->total = count && g->n ? g->total : NAN;
		row->per_second = count && g->ns > 0 ? g->total / g->ns * 1e9 : NAN;
		gt_stats_compute_double(&row->st, g->v, g->n); /* finite values only: never fails */
		free(g->v);
		g->v = NULL;
	}
	qsort(m->rows, m->n, sizeof *m->rows, cmp_rows);
	return 0;
}

int gt_stats_metrics_run(struct gt_stats_metrics *m, const char *path)
{
	memset(m, 0, sizeof *m);
	if (!(m->path = strdup(path)) || !(m->state = calloc(1, sizeof *m->state)))
		return GT_ERR_NOMEM;
	return gt_load_pass(path, on_record, finish, m);
}

void gt_stats_metrics_release(struct gt_stats_metrics *m)
{
	if (!m)
		return;
	if (m->state) {
		for (size_t i = 0; i < m->state->n; i++)
			free(m->state->g[i].v);
		free(m->state->g);
		gt_idmap_release(&m->state->map[0]);
		gt_idmap_release(&m->state->map[1]);
		free(m->state);
	}
	for (size_t i = 0; i < m->n; i++)
		free(m->rows[i].metric);
	free(m->rows);
	free(m->path);
	free(m->synthetic);
	memset(m, 0, sizeof *m);
}
