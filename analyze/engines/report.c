/* report.c: what the benchmark report says (report.h), computed; the command writes it.
 *
 * One pass collects what no other engine keeps (every kernel's durations with their launch
 * configurations, the clock samples' ranges, copy sizes, capture and drop counts) and feeds every
 * record to split.c and findings.c (which feeds bandwidth.c and hands its results over) through
 * their per-record interfaces, so the trace is read once; shadow.c and diff.c, when asked for,
 * read their own inputs. Nothing here writes: names stay as the trace spells them, for the
 * writer to escape.
 */
#include "analyze/engines/report.h"

#include "analyze/support/failure.h"
#include "analyze/support/kname.h"
#include "analyze/support/load.h"

#include <stdlib.h>
#include <string.h>

void gt_report_options_default(struct gt_report_options *o)
{
	memset(o, 0, sizeof *o);
	o->top = 10;
	gt_diff_options_default(&o->diff);
}

/* ---- the report's own pass ------------------------------------------------------------------- */

static int pass_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_report_pass *p = ctx;
	int rc = gt_split_record(p->split, r, ev);
	if (rc || (rc = gt_findings_record(p->fd, r, ev)) != 0)
		return rc;
	switch (ev->type) {
	case GT_REC_KERNEL: return gt_samples_record(&p->ks, r, ev);
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		p->copies++;
		size_t i = 0;
		while (i < p->ncg && !(p->cg[i].copy_kind == m->copy_kind && p->cg[i].src_kind == m->src_kind &&
		                       p->cg[i].dst_kind == m->dst_kind))
			i++;
		if (i == p->ncg) {
			if (p->ncg == GT_REPORT_COPY_GROUPS) {
				p->copies_other++;
				return 0;
			}
			memset(&p->cg[i], 0, sizeof p->cg[i]);
			p->cg[i].copy_kind = m->copy_kind;
			p->cg[i].src_kind = m->src_kind;
			p->cg[i].dst_kind = m->dst_kind;
			p->ncg++;
		}
		struct gt_report_copies *g = &p->cg[i];
		if (gt_growbuf_reserve(&g->bytes, (g->count + 1) * sizeof(uint64_t)))
			return GT_ERR_NOMEM;
		((uint64_t *)g->bytes.p)[g->count++] = m->bytes;
		g->total += m->bytes;
		return 0;
	}
	case GT_REC_MEMSET:
		p->memsets++;
		p->memset_bytes += ev->u.memset.bytes;
		return 0;
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		if (!p->nclock++) {
			p->sm_min = p->sm_max = c->sm_clock_mhz;
			p->mem_min = p->mem_max = c->mem_clock_mhz;
			p->t_min = p->t_max = c->temperature_c;
			p->p_min = p->p_max = c->power_mw;
			p->clock_first = p->clock_last = c->timestamp;
		}
#define RANGE(lo, hi, v) do { if ((v) < (lo)) (lo) = (v); if ((v) > (hi)) (hi) = (v); } while (0)
		RANGE(p->sm_min, p->sm_max, c->sm_clock_mhz);
		RANGE(p->mem_min, p->mem_max, c->mem_clock_mhz);
		RANGE(p->t_min, p->t_max, c->temperature_c);
		RANGE(p->p_min, p->p_max, c->power_mw);
		RANGE(p->clock_first, p->clock_last, c->timestamp);
#undef RANGE
		p->reasons |= c->throttle_reasons;
		if (c->throttle_reasons & GT_CLK_THROTTLING)
			p->throttled++;
		if (!(c->throttle_reasons & GT_CLK_GPU_IDLE))
			p->busy++;
		return 0;
	}
	case GT_REC_CAPTURE: p->captures++; return 0;
	case GT_REC_DROPPED:
		p->dropped += ev->u.dropped.count;
		p->uncounted += ev->u.dropped.count == 0;
		return 0;
	case GT_REC_API: p->apis++; return 0;
	case GT_REC_NVTX: p->nvtx++; return 0;
	case GT_REC_METRIC_SAMPLE:
	case GT_REC_LAUNCH_METRIC: p->metrics++; return 0;
	default: return 0;
	}
}

static void pass_release(struct gt_report_pass *p)
{
	gt_samples_release(&p->ks);
	for (size_t i = 0; i < p->ncg; i++)
		gt_growbuf_release(&p->cg[i].bytes);
}

/* ---- the kernels the report shows -------------------------------------------------------------- */

char *gt_report_label(const char *mangled, const char *display)
{
	if (strlen(display) <= 80)
		return strdup(display);
	return gt_kernel_base_name(mangled, display);
}

static int cmp_total(const void *a, const void *b)
{
	const struct gt_kernel_sample *x = *(const struct gt_kernel_sample *const *)a;
	const struct gt_kernel_sample *y = *(const struct gt_kernel_sample *const *)b;
	if (x->st.total != y->st.total)
		return x->st.total < y->st.total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The top kernels by total time, with their labels. */
static int rank_kernels(struct gt_report *x)
{
	x->nkernels = x->p.ks.nkernels;
	if (!(x->top = malloc((x->nkernels ? x->nkernels : 1) * sizeof *x->top)))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < x->nkernels; i++)
		x->top[i] = &x->p.ks.kernels[i];
	qsort(x->top, x->nkernels, sizeof *x->top, cmp_total);
	x->ntop = x->nkernels < x->o->top ? x->nkernels : x->o->top;
	if (!(x->names = calloc(x->ntop ? x->ntop : 1, sizeof *x->names)))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < x->ntop; i++)
		if (!(x->names[i] = gt_report_label(x->top[i]->name, x->top[i]->display)))
			return GT_ERR_NOMEM;
	return 0;
}

/* ---- the run ------------------------------------------------------------------------------ */

static int engines(struct gt_report *x)
{
	const struct gt_report_options *o = x->o;
	int rc;
	/* Correctness: only from captures and a reference library; never assumed. */
	x->correctness = -1;
	if (x->p.captures && o->refs) {
		char err[512];
		if ((rc = gt_refs_load(&x->refs, o->refs, err, sizeof err)) != 0)
			return gt_fail(rc, "cannot load references '%s': %s", o->refs, err);
		if ((rc = gt_shadow_run(x->path, x->refs, NULL, &x->sh)) != 0)
			return rc;
		x->correctness = gt_shadow_all_passed(&x->sh) ? 1 : 0;
	}
	if (x->p.metrics) {
		char *paths[] = { (char *)x->path };
		x->have_ceil = 1;
		if ((rc = gt_ceiling_run_again(&x->ceil, paths, 1)) != 0)
			return rc;
	}
	if (o->baseline && x->correctness != 0) {
		struct gt_diff_options d = o->diff;
		d.warmup = o->warmup;
		d.filter = NULL;
		x->have_diff = 1;
		if ((rc = gt_diff_run(&x->diff, o->baseline, x->path, &d)) != 0)
			return rc;
		x->compared = 1;
		x->slower = x->diff.count[GT_VERDICT_SLOWER] + x->diff.ucount[GT_VERDICT_SLOWER];
	}
	return 0;
}


/* The one pass over the trace, feeding split, findings and bandwidth. Each engine's result is
 * released by gt_report_release whether or not its pass finished. */
static int read_trace(struct gt_report *x)
{
	const struct gt_report_options *o = x->o;
	struct gt_split_options so = { .range = NULL, .warmup = o->warmup };
	x->have_split = x->have_bw = x->have_fd = 1;
	x->p.split = &x->split;
	x->p.fd = &x->fd;
	int rc;
	if ((rc = gt_bw_init(&x->bw, x->path, NULL)) != 0 || (rc = gt_split_begin(&x->split, x->path, &so)) != 0 ||
	    (rc = gt_findings_begin(&x->fd, x->path, NULL, &x->bw)) != 0)
		return rc;
	if ((rc = gt_load_open(&x->r, x->path)) != 0)
		return rc;
	/* Findings first: it frees its working arrays before split builds its units (a lower peak). */
	if ((rc = gt_load_stream(x->r, pass_record, &x->p)) != 0 || (rc = gt_findings_finish(&x->fd, x->r)) != 0 ||
	    (rc = gt_split_finish(&x->split, x->r)) != 0)
		return rc;
	if ((rc = gt_samples_file_end(&x->p.ks, x->r)) != 0 || (rc = gt_samples_finish(&x->p.ks, NULL)) != 0)
		return rc;
	return 0;
}

int gt_report_run(struct gt_report *x, const char *path, const struct gt_report_options *o)
{
	memset(x, 0, sizeof *x);
	x->path = path;
	x->o = o;
	x->correctness = -1;
	int rc = gt_samples_init(&x->p.ks, o->warmup, GT_SAMPLES_WANT_CONFIGS);
	if (rc || (rc = read_trace(x)) != 0 || (rc = rank_kernels(x)) != 0)
		return rc;
	return engines(x);
}

void gt_report_release(struct gt_report *x)
{
	for (size_t i = 0; x->names && i < x->ntop; i++)
		free(x->names[i]);
	free(x->names);
	free(x->top);
	if (x->have_split)
		gt_split_release(&x->split);
	if (x->have_bw)
		gt_bandwidth_release(&x->bw);
	if (x->have_fd)
		gt_findings_release(&x->fd);
	if (x->refs) {
		gt_shadow_report_release(&x->sh);
		gt_refs_free(x->refs);
	}
	if (x->have_diff)
		gt_diff_release(&x->diff);
	if (x->have_ceil)
		gt_ceiling_release(&x->ceil);
	pass_release(&x->p);
	gt_reader_close(x->r);
	x->r = NULL;
	x->names = NULL;
	x->top = NULL;
	x->refs = NULL;
	x->have_split = x->have_bw = x->have_fd = x->have_diff = x->have_ceil = 0;
}
