/* stats_nsys_pushpop.c: nvtx_pushpop_trace (stats_nsys.h): every closed push/pop range in its
 * thread's tree. The ranges are sorted by (thread, start, end descending) with three stable
 * sorts, then each thread is one sweep with a stack of the ranges still open: a range's parent is
 * the top of the stack once the ranges ended by its start are popped.
 */
#include "analyze/engines/stats_nsys_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	if (ev->type == GT_REC_PROCESS && !st->pid) {
		st->pid = ev->u.process.pid;
		return 0;
	}
	if (ev->type != GT_REC_NVTX)
		return 0;
	const struct gt_nvtx *n = &ev->u.nvtx;
	if (!gt_stats_trace_nvtx(&rep->trace, n, 1))
		return 0;
	const char *name = nsys_name(st, r, n->name_id, 0);
	struct nsys_pp *p = name ? gt_tl_vec_push(&st->recs) : NULL;
	if (!p)
		return GT_ERR_NOMEM;
	*p = (struct nsys_pp){ UINT64_MAX - n->end, n->start, n->end, name, 0, n->thread_id, 0, 0, 0 };
	return 0;
}

int nsys_pp_tree(struct gt_tl_vec *v)
{
	struct nsys_pp *p = v->buf.p;
	if (gt_tl_vec_sort(v)) /* by end, descending */
		return GT_ERR_NOMEM;
	p = v->buf.p;
	for (size_t i = 0; i < v->n; i++)
		p[i].key = p[i].start;
	if (gt_tl_vec_sort(v))
		return GT_ERR_NOMEM;
	p = v->buf.p;
	for (size_t i = 0; i < v->n; i++)
		p[i].key = p[i].thread;
	if (gt_tl_vec_sort(v))
		return GT_ERR_NOMEM;
	p = v->buf.p;
	size_t *stack = malloc((v->n ? v->n : 1) * sizeof *stack), top = 0;
	if (!stack)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < v->n; i++) {
		if (i && p[i].thread != p[i - 1].thread)
			top = 0;
		while (top && p[stack[top - 1]].end <= p[i].start)
			top--;
		p[i].level = (uint32_t)top;
		if (top) {
			struct nsys_pp *parent = &p[stack[top - 1]];
			p[i].parent = (uint32_t)(stack[top - 1] + 1);
			parent->nchild++;
			parent->dur_child += p[i].end - p[i].start;
		}
		stack[top++] = i;
	}
	free(stack);
	return 0;
}

int nsys_pushpop_run(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	gt_tl_vec_init(&st->recs, sizeof(struct nsys_pp));
	int rc = gt_stats_trace_read(&rep->trace, on_record, rep);
	if (!rc && st->recs.n >= UINT32_MAX)
		rc = GT_ERR_NOMEM; /* parents are 32-bit rows */
	if (!rc)
		rc = nsys_pp_tree(&st->recs);
	rep->nrows = rc ? 0 : st->recs.n;
	return rc;
}

void nsys_range_stack(struct nsys_state *st, const struct nsys_pp *p, size_t row, struct gt_nsys_cell *c)
{
	uint64_t ids[GT_NSYS_STACK_MAX];
	size_t n = 0;
	uint64_t r = row + 1;
	while (r && n < GT_NSYS_STACK_MAX) {
		ids[n++] = r;
		r = p[r - 1].parent;
	}
	size_t len = 0;
	if (r)
		len += (size_t)snprintf(st->buf, sizeof st->buf, "...");
	while (n--)
		len += (size_t)snprintf(st->buf + len, sizeof st->buf - len, ":%llu", (unsigned long long)ids[n]);
	nsys_str(c, st->buf);
}

/* "--" per level before the name, at most GT_NSYS_STACK_MAX of them. */
static void name_tree(struct nsys_state *st, const struct nsys_pp *x, struct gt_nsys_cell *c)
{
	size_t lv = x->level < GT_NSYS_STACK_MAX ? x->level : GT_NSYS_STACK_MAX;
	size_t ln = strlen(x->name), need = 2 * lv + ln + 1;
	if (need > st->tmpcap) {
		char *q = realloc(st->tmp, need);
		if (!q) {
			nsys_str(c, x->name); /* the name alone rather than nothing */
			return;
		}
		st->tmp = q;
		st->tmpcap = need;
	}
	for (size_t i = 0; i < lv; i++)
		memcpy(st->tmp + 2 * i, "--", 2);
	memcpy(st->tmp + 2 * lv, x->name, ln + 1);
	nsys_str(c, st->tmp);
}

void nsys_pushpop_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	struct nsys_state *st = rep->state;
	const struct nsys_pp *p = st->recs.buf.p, *x = &p[row];
	uint64_t dur = x->end - x->start;
	switch (col) {
	case 0: nsys_u64(c, x->start); break;
	case 1: nsys_u64(c, x->end); break;
	case 2: nsys_u64(c, dur); break;
	case 3: nsys_u64(c, x->dur_child); break;
	case 4: nsys_i64(c, (int64_t)dur - (int64_t)x->dur_child); break;
	case 5: nsys_str(c, x->name); break;
	case 6: if (st->pid) nsys_u64(c, st->pid); break;
	case 7: nsys_u64(c, x->thread); break;
	case 8: nsys_u64(c, x->level); break;
	case 9: nsys_u64(c, x->nchild); break;
	case 10: nsys_u64(c, row + 1); break;
	case 11: if (x->parent) nsys_u64(c, x->parent); break;
	case 12: nsys_range_stack(st, p, row, c); break;
	default: name_tree(st, x, c); break;
	}
}
