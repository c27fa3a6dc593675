/* stats_nsys_merge.c: the summaries that are stats_reports.h's rows under another shape:
 * cuda_api_gpu_sum (the rows of cuda_api_sum, cuda_gpu_kern_sum and cuda_gpu_mem_time_sum in one
 * table, with a Category, their percent of the three together) and nvtx_pushpop_sum (nvtx_sum's
 * push/pop rows, their percent of those alone). The parts are computed by stats_reports.c, so the
 * numbers are the same as theirs.
 */
#include "analyze/engines/stats_nsys_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const categories[] = { "CUDA_API", "CUDA_KERNEL", "MEMORY_OPER" };

static int cmp_rows(const void *pa, const void *pb)
{
	const struct gt_stats_row *a = pa, *b = pb;
	if (a->st.total != b->st.total)
		return a->st.total > b->st.total ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->copy_kind ? a->copy_kind : "", b->copy_kind ? b->copy_kind : "");
}

/* The category of a row, which the sort moved: from the part whose rows it came from. */
static const char *category_of(const struct gt_stats_row *row)
{
	if (row->copy_kind)
		return categories[2];
	return row->demangled ? categories[1] : categories[0];
}

static int api_gpu_sum(struct gt_nsys_report *rep, const char *path)
{
	struct nsys_state *st = rep->state;
	static const int kinds[] = { GT_STATS_CUDA_API_SUM, GT_STATS_GPU_KERN_SUM, GT_STATS_GPU_MEM_TIME_SUM };
	size_t n = 0;
	for (int i = 0; i < 3; i++) {
		int rc = gt_stats_report_run(&st->parts[i], kinds[i], path);
		if (rc)
			return rc;
		n += st->parts[i].nrows;
	}
	if (!(st->rows = malloc((n ? n : 1) * sizeof *st->rows)) || !(st->category = malloc((n ? n : 1) * sizeof *st->category)))
		return GT_ERR_NOMEM;
	for (int i = 0; i < 3; i++) {
		const struct gt_stats_report *p = &st->parts[i];
		memcpy(st->rows + rep->nrows, p->rows, p->nrows * sizeof *p->rows);
		rep->nrows += p->nrows;
		rep->total += p->total;
		rep->trace.records += p->trace.records;
		rep->trace.bad_times += p->trace.bad_times;
		rep->trace.tool_copies += p->trace.tool_copies;
	}
	if (n)
		qsort(st->rows, n, sizeof *st->rows, cmp_rows);
	for (size_t i = 0; i < n; i++) {
		st->rows[i].pct = rep->total > 0 ? 100 * st->rows[i].st.total / rep->total : NAN;
		st->category[i] = category_of(&st->rows[i]);
	}
	return 0;
}

static int pushpop_sum(struct gt_nsys_report *rep, const char *path)
{
	struct nsys_state *st = rep->state;
	const struct gt_stats_report *p = &st->parts[0];
	int rc = gt_stats_report_run(&st->parts[0], GT_STATS_NVTX_SUM, path);
	if (rc)
		return rc;
	size_t n = p->nrows ? p->nrows : 1;
	if (!(st->rows = malloc(n * sizeof *st->rows)) || !(st->labels = calloc(n, sizeof *st->labels)))
		return GT_ERR_NOMEM;
	rep->trace.records = p->trace.records;
	rep->trace.bad_times = p->trace.bad_times;
	rep->trace.marks = p->trace.marks;
	rep->trace.unclosed = p->trace.unclosed;
	for (size_t i = 0; i < p->nrows; i++) {
		const struct gt_stats_row *r = &p->rows[i];
		if (strcmp(r->style, "PushPop"))
			continue;
		if (r->domain[0]) {
			size_t ld = strlen(r->domain), ln = strlen(r->name);
			char *s = malloc(ld + ln + 2);
			if (!s)
				return GT_ERR_NOMEM;
			memcpy(s, r->domain, ld);
			s[ld] = ':';
			memcpy(s + ld + 1, r->name, ln + 1);
			st->labels[rep->nrows] = s;
		}
		st->rows[rep->nrows++] = *r;
		rep->total += r->st.total;
	}
	for (size_t i = 0; i < rep->nrows; i++)
		st->rows[i].pct = rep->total > 0 ? 100 * st->rows[i].st.total / rep->total : NAN;
	return 0;
}

int nsys_merge_run(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	const char *path = rep->trace.path;
	int rc = rep->kind == GT_NSYS_API_GPU_SUM ? api_gpu_sum(rep, path) : pushpop_sum(rep, path);
	const struct gt_stats_report *p = &st->parts[0];
	rep->trace.complete = p->trace.complete;
	rep->trace.lost_bytes = p->trace.lost_bytes;
	if (!rc && p->trace.synthetic && !(rep->trace.synthetic = strdup(p->trace.synthetic)))
		rc = GT_ERR_NOMEM;
	return rc;
}

void nsys_merge_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	const struct nsys_state *st = rep->state;
	const struct gt_stats_row *r = &st->rows[row];
	const struct gt_stats *s = &r->st;
	switch (col) {
	case 0: if (!isnan(r->pct)) nsys_num(c, r->pct, 1, 1); return;
	case 1: nsys_num(c, s->total, 1, 0); return;
	case 2: nsys_u64(c, s->n); return;
	case 3: nsys_num(c, s->mean, 1, 1); return;
	case 4: nsys_num(c, s->median, 1, 1); return;
	case 5: nsys_num(c, s->min, 1, 0); return;
	case 6: nsys_num(c, s->max, 1, 0); return;
	case 7: if (!isnan(s->stddev)) nsys_num(c, s->stddev, 1, 1); return;
	default: break;
	}
	if (rep->kind == GT_NSYS_PUSHPOP_SUM) {
		nsys_str(c, st->labels[row] ? st->labels[row] : r->name);
		return;
	}
	if (col == 8)
		nsys_str(c, st->category[row]);
	else
		nsys_str(c, col == 9 || !r->demangled ? r->name : r->demangled);
}
