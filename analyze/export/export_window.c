/* export_window.c: the prescan, the shared clock, the window and the kernel filter (export_window.h). */
#include "analyze/export/export_window.h"
#include "analyze/blocks/event_origin.h"

#include "analyze/support/demangle.h"
#include "analyze/support/failure.h"
#include "analyze/support/load.h"
#include "common/grow.h"
#include "analyze/support/progress.h"
#include "analyze/blocks/timeline.h"
#include "traces/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gt_xwin_raw_times(const struct gt_event *ev, uint64_t *start, uint64_t *end)
{
	const struct gt_record_schema *k = gt_kind(ev->type);
	if (!k || k->end < 0) {
		*start = *end = 0;
		return 0;
	}
	*start = gt_kind_start(&ev->u);
	*end = gt_kind_end(k, &ev->u);
	/* An NVTX mark is an instant, though its record has an end. */
	return ev->type != GT_REC_NVTX || ev->u.nvtx.kind != GT_NVTX_MARK;
}

/* ---- the prescan ---------------------------------------------------------------------------- */

struct span {
	uint64_t start, end;
};

struct scan {
	struct gt_xfile *f;
	const char *range;       /* the name, without #N */
	struct gt_tl_vec spans;  /* struct span: closed instances of the range */
};

static int scan_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct scan *s = ctx;
	gt_event_origin(&s->f->origin, ev);
	if (ev->type == GT_REC_CLOCK_SYNC)
		return gt_align_add(&s->f->align, &ev->u.clock_sync);
	if (ev->type != GT_REC_NVTX || !s->range)
		return 0;
	const struct gt_nvtx *n = &ev->u.nvtx;
	if (n->kind == GT_NVTX_MARK || !n->end || n->end < n->start || strcmp(gt_reader_string(r, n->name_id), s->range))
		return 0;
	struct span *sp = gt_tl_vec_push(&s->spans);
	if (!sp)
		return GT_ERR_NOMEM;
	sp->start = n->start;
	sp->end = n->end;
	return 0;
}

/* "rank N" from META process.rank when it is a non-negative integer, else "file I". */
static void label_file(struct gt_xfile *f, const struct gt_reader *r, size_t index)
{
	const char *rank = gt_reader_meta(r, "process.rank");
	size_t k = rank ? strspn(rank, "0123456789") : 0;
	if (rank && k && !rank[k] && k < 20)
		snprintf(f->label, sizeof f->label, "rank %s", rank);
	else
		snprintf(f->label, sizeof f->label, "file %zu", index);
}

static int prescan_file(struct gt_xfile *f, size_t index, const char *range, uint64_t instance)
{
	struct scan s = { .f = f, .range = range };
	gt_tl_vec_init(&s.spans, sizeof(struct span));
	struct gt_reader *r;
	int rc = gt_load_open(&r, f->path);
	if (rc)
		return rc;
	/* The export's own first pass warns about an incomplete trace. */
	gt_progress_stage("scanning", 0);
	if ((rc = gt_load_stream_nowarn(r, scan_record, &s)) == 0) {
		label_file(f, r, index);
		gt_align_finish(&f->align);
		if (range && (rc = gt_tl_vec_sort(&s.spans)) == 0) {
			f->range_instances = s.spans.n;
			if (instance && instance <= s.spans.n) {
				const struct span *sp = gt_tl_vec_at(&s.spans, instance - 1);
				f->range_found = 1;
				f->range_start = sp->start;
				f->range_end = sp->end;
			}
		}
	}
	gt_progress_stage(NULL, 0);
	gt_reader_close(r);
	gt_tl_vec_release(&s.spans);
	return rc;
}

/* Distinct labels: a rank two traces claim gets their positions too. */
static void unique_labels(struct gt_xfile *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			if (strcmp(files[i].label, files[k].label) == 0 && strncmp(files[k].label, "rank ", 5) == 0) {
				char base[sizeof files[k].label];
				memcpy(base, files[k].label, sizeof base);
				snprintf(files[i].label, sizeof files[i].label, "%.20s (file %zu)", base, i);
				snprintf(files[k].label, sizeof files[k].label, "%.20s (file %zu)", base, k);
			}
}

/* One trace: its own origin. Several: the aligned ones on CLOCK_REALTIME from the earliest aligned
 * origin, the others from their own. */
static void set_clocks(struct gt_xfile *files, size_t n)
{
	int64_t common = 0;
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		struct gt_xfile *f = &files[i];
		f->clock = (struct gt_xclock){ .origin = f->origin };
		int64_t h;
		if (n < 2 || f->align.state == GT_ALIGN_NONE || gt_align_to_host(&f->align, f->origin, &h) != 0)
			continue;
		f->clock.mapped = 1;
		f->clock.align = &f->align;
		if (!any || h < common)
			common = h;
		any = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (files[i].clock.mapped)
			files[i].clock.origin_host = common;
		else if (n > 1)
			gt_fail_warn("export: %s cannot be put on the other traces' clock (%s): its times count "
			             "from its own start",
			             files[i].path, files[i].align.why && *files[i].align.why ? files[i].align.why
			                                                                      : "no clock pairing");
	}
}

/* NAME#N: the name and N (1 when there is no #N, or what follows the last # is not a number). */
static char *split_range(const char *spec, uint64_t *instance)
{
	char *name = strdup(spec);
	if (!name)
		return NULL;
	*instance = 1;
	char *hash = strrchr(name, '#');
	if (hash && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1) && strlen(hash + 1) < 19) {
		*instance = strtoull(hash + 1, NULL, 10);
		*hash = '\0';
	}
	return name;
}

static int range_window(struct gt_xfile *files, size_t n, const char *name, uint64_t instance, struct gt_xwin *w)
{
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gt_xfile *f = &files[i];
		if (!f->range_found)
			continue;
		uint64_t s = gt_xclock_rel(&f->clock, f->range_start), e = gt_xclock_rel(&f->clock, f->range_end);
		if (!found || s < w->start)
			w->start = s;
		if (!found || e > w->end)
			w->end = e;
		found = 1;
	}
	if (found)
		return 0;
	if (!instance)
		return gt_fail(GT_ERR_ARG, "export: option '--range': instances count from 1, not #0");
	if (n == 1)
		return gt_fail(GT_ERR_ARG, "export: %s has %llu closed instance%s of NVTX range '%s', not #%llu",
		               files[0].path, (unsigned long long)files[0].range_instances,
		               files[0].range_instances == 1 ? "" : "s", name, (unsigned long long)instance);
	return gt_fail(GT_ERR_ARG, "export: none of the %zu traces has instance #%llu of NVTX range '%s'", n,
	               (unsigned long long)instance, name);
}

int gt_xwin_needs_prescan(const struct gt_xwin_request *q)
{
	return q->has_start || q->has_end || q->range;
}

void gt_xwin_init(struct gt_xwin *w, const struct gt_xwin_request *q)
{
	memset(w, 0, sizeof *w);
	w->end = UINT64_MAX;
	w->kernels = q->kernels;
}

int gt_xwin_prescan(struct gt_xfile *files, size_t n, const struct gt_xwin_request *q, struct gt_xwin *w)
{
	gt_xwin_init(w, q);
	uint64_t instance = 0;
	char *name = NULL;
	if (q->range && !(name = split_range(q->range, &instance)))
		return GT_ERR_NOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = prescan_file(&files[i], i, name, instance);
	if (!rc) {
		unique_labels(files, n);
		set_clocks(files, n);
		w->active = gt_xwin_needs_prescan(q);
		if (q->has_start)
			w->start = q->start;
		if (q->has_end)
			w->end = q->end;
		if (name)
			rc = range_window(files, n, name, instance, w);
		else if (w->end < w->start)
			rc = gt_fail(GT_ERR_ARG, "export: the window ends (--end) before it starts (--start)");
	}
	free(name);
	return rc;
}

void gt_xfiles_release(struct gt_xfile *files, size_t n)
{
	for (size_t i = 0; files && i < n; i++)
		gt_align_release(&files[i].align);
}

/* ---- keeping ---------------------------------------------------------------------------------- */

void gt_xwin_next_file(struct gt_xwin *w)
{
	free(w->name_keep);
	w->name_keep = NULL;
	w->nname_keep = 0;
}

void gt_xwin_release(struct gt_xwin *w) { gt_xwin_next_file(w); }

/* Whether kernel name id passes the filter, decided once per id: 1, 0, or GT_ERR_NOMEM. */
static int kernel_kept(struct gt_xwin *w, const struct gt_reader *r, uint32_t id)
{
	/* An id the trace never defined (a corrupt record) is the unnamed kernel: it must not make the
	 * table as large as the id (4 GiB for one hostile record). */
	if (id > gt_reader_string_count(r))
		id = 0;
	if (id >= w->nname_keep && gt_grow_zeroed(&w->name_keep, &w->nname_keep, (size_t)id + 1, 1, 256))
		return GT_ERR_NOMEM;
	if (!w->name_keep[id]) {
		const char *s = gt_reader_string(r, id);
		char *d = s[0] ? gt_demangle(s) : NULL;
		if (s[0] && !d)
			return GT_ERR_NOMEM;
		w->name_keep[id] = gt_name_filter_match(w->kernels, s, d) ? 1 : 2;
		free(d);
	}
	return w->name_keep[id] == 1;
}

int gt_xwin_keep(struct gt_xwin *w, const struct gt_xclock *c, const struct gt_reader *r,
                 const struct gt_event *ev)
{
	if (ev->type == GT_REC_KERNEL && w->kernels && w->kernels->active) {
		int k = kernel_kept(w, r, ev->u.kernel.name_id);
		if (k <= 0)
			return k;
	}
	if (!w->active)
		return 1;
	uint64_t s, e;
	if (!gt_xwin_raw_times(ev, &s, &e))
		s = e = gt_tl_event_time(ev);
	if (!s && !e)
		return 1; /* no time: not on the timeline's axis */
	if (e < s)
		e = s; /* bad or unclosed: where it starts */
	return gt_xclock_rel(c, e) >= w->start && gt_xclock_rel(c, s) <= w->end;
}
