/* export.c: Chrome Trace Event JSON and timeline CSV from a trace, in two passes (export.h).
 *
 * Pass 1 reads the trace once and keeps, per track, 16 bytes per slice (start, duration, sequence
 * number), the memory records (for the counters, which must be summed in time order), and per
 * correlation id how many GPU operations carry it and whether an API call does (two bytes per id,
 * in pages). Between the passes each track's slices are sorted by start and placed on lanes: a
 * lane is a track of its own in the output, so that every track holds slices that nest (host
 * threads) or never overlap (device streams). Pass 2 reads the trace again and writes each event
 * as it comes, looking up its lane by sequence number; only the memory counters wait for the end.
 *
 * The writing is the cost that matters (a 10 M-event trace is about a gigabyte of JSON), so the
 * output is formatted by hand into a 1 MiB buffer: integers by digit loops, nanoseconds as
 * microseconds with three decimals by integer division, names escaped once per string id and
 * cached. printf is used only for metadata.
 *
 * This file is the driver: the two passes over each trace and the public entry points. The parts it
 * runs are files of their own, sharing export_internal.h: export_tracks.c (pass 1: slices, tracks,
 * correlation ids), export_lanes.c (the placement), export_chrome.c and export_csv.c (pass 2),
 * export_names.c (the escaped names) and export_out.c (the output buffer).
 */
#include "analyze/export/export.h"

#include "analyze/support/failure.h"
#include "analyze/export/export_internal.h"
#include "analyze/support/gzwrite.h"
#include "analyze/support/load.h"
#include "analyze/support/progress.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the run ------------------------------------------------------------------------------ */

/* Frees what one trace needed and readies x for the next (the output and the totals stay). */
static void ex_file_release(struct ex *x)
{
	for (size_t i = 0; i < x->nt; i++)
		for (int k = 0; k < NSRC; k++)
			gt_tl_vec_release(&x->t[i].sl[k]);
	free(x->t);
	gt_slots_release(&x->slots);
	gt_tl_vec_release(&x->longs);
	gt_tl_vec_release(&x->moved);
	gt_ex_pages_free(x->cnt);
	gt_ex_pages_free(x->next);
	gt_tl_vec_release(&x->mem);
	for (size_t i = 0; i < 2 * x->nnames; i++)
		free(x->names[i].s);
	free(x->names);
	x->t = NULL, x->nt = x->capt = 0;
	memset(x->last, 0, sizeof x->last);
	x->nslices = x->seq = 0;
	x->moved_pos = 0;
	x->cnt = x->next = NULL;
	x->ndevs = 0;
	x->host_pid = x->file_pid = 0;
	x->names = NULL, x->nnames = 0;
	x->op_key = 0;
	gt_xwin_next_file(x->win);
}

/* One trace: pass 1, placement, pass 2, its counters. file: NULL for one trace. */
static int export_file(struct ex *x, const char *path, const struct gt_xfile *file, size_t index)
{
	const struct gt_export_options *o = x->opt;
	x->path = path;
	x->file = x->nfiles > 1 ? file : NULL; /* one trace keeps the one-trace layout, in a window too */
	x->origin = UINT64_MAX;
	x->clock = file ? file->clock : (struct gt_xclock){ 0 };
	gt_tl_vec_init(&x->longs, sizeof(struct longend));
	gt_tl_vec_init(&x->mem, sizeof(struct memrec));
	gt_tl_vec_init(&x->moved, sizeof(struct moved));
	x->cnt = calloc(1, sizeof *x->cnt);
	x->next = calloc(1, sizeof *x->next);
	if (!x->cnt || !x->next)
		return GT_ERR_NOMEM;
	if (x->file) {
		x->flow_base = (uint64_t)index << 39;
		x->pid_base = pid_base_of(index);
		snprintf(x->prefix, sizeof x->prefix, "%s ", file->label);
	}
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	/* Pass 1. A failure of our own (memory) comes back through the loader, which reports it. */
	gt_progress_stage("placing", 0);
	rc = gt_load_stream(r, gt_ex_collect, x);
	if (rc)
		goto done;
	struct gt_tail t;
	gt_reader_tail(r, &t);
	gt_progress_stage("writing", t.records);
	if (x->origin == UINT64_MAX)
		x->origin = 0;
	if (!file)
		x->clock.origin = x->origin;
	if (!index)
		x->res->origin = x->origin;
	if (!x->host_pid) {
		const char *p = gt_reader_meta(r, "process.pid");
		x->host_pid = p ? (uint32_t)strtoul(p, NULL, 10) : 0;
		if (!x->host_pid)
			x->host_pid = 1;
	}
	if (x->file) {
		x->file_pid = x->host_pid;
		x->host_pid = x->pid_base;
	}
	if ((rc = gt_ex_place(x)) != 0)
		goto done;
	if ((rc = gt_reader_rewind(r)) != 0)
		goto done;
	if (!x->header_done) {
		x->header_done = 1;
		if (o->gzip && !(x->o.gz = gt_gzw_open(x->o.f))) {
			rc = GT_ERR_NOMEM;
			goto done;
		}
		if (o->format == GT_EXPORT_CHROME)
			gt_ex_chrome_header(x, r);
		else
			PUTS(&x->o, "type,start_ns,end_ns,duration_ns,ts_us,process,track,lane,name,correlation_id,bytes,detail\n");
	}
	if (o->format == GT_EXPORT_CHROME)
		gt_ex_metadata(x, r);
	/* Pass 2: the loader already said what was wrong with the file (and warned about its end). */
	struct gt_event ev;
	int n = 0;
	while (!x->o.err && (n = gt_reader_next(r, &ev)) > 0) {
		gt_progress_tick(r);
		if (ev.type < GT_REC_FIRST_FIXED)
			continue;
		if ((rc = gt_xwin_keep(x->win, &x->clock, r, &ev)) < 0)
			goto done;
		if (!rc)
			continue;
		rc = o->format == GT_EXPORT_CHROME ? gt_ex_emit_chrome(x, r, &ev) : gt_ex_emit_csv(x, r, &ev);
		if (rc)
			goto done;
	}
	if (!x->o.err && n < 0) {
		rc = gt_fail(n, "cannot read trace '%s': %s", path, gt_load_reason(gt_reader_error(r), path));
		goto done;
	}
	if (o->format == GT_EXPORT_CHROME && (rc = gt_ex_memory_counters(x)) != 0)
		goto done;
	const char *syn = gt_load_synthetic(r);
	if (syn && !x->synthetic && !(x->synthetic = strdup(syn))) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	gt_reader_tail(r, &t);
	x->complete &= t.complete;
	if (file) {
		/* The prescan's record, written to once here: the only trace export_file is given. */
		struct gt_xfile *f = (struct gt_xfile *)file;
		f->pid = x->file_pid;
		f->complete = t.complete;
	}
done:
	gt_progress_stage(NULL, 0);
	gt_reader_close(r);
	return rc;
}

int gt_export_run_files(char *const *paths, size_t n, FILE *out, const struct gt_export_options *o,
                        struct gt_export_result *res)
{
	memset(res, 0, sizeof *res);
	if (n > GT_EXPORT_MAX_FILES)
		return gt_fail(GT_ERR_ARG, "export: at most %d traces in one timeline, not %zu",
		               GT_EXPORT_MAX_FILES, n);
	const struct gt_xwin_request q = { o->start_ns, o->end_ns, o->has_start, o->has_end, o->range, o->kernels };
	struct gt_xwin win;
	struct gt_xfile *files = NULL;
	int rc = 0;
	if (n > 1 || gt_xwin_needs_prescan(&q)) {
		if (!(files = calloc(n, sizeof *files)))
			return GT_ERR_NOMEM;
		for (size_t i = 0; i < n; i++) {
			files[i].path = paths[i];
			gt_align_init(&files[i].align);
		}
		rc = gt_xwin_prescan(files, n, &q, &win);
	} else {
		gt_xwin_init(&win, &q);
	}
	struct ex x;
	memset(&x, 0, sizeof x);
	x.opt = o;
	x.res = res;
	x.win = &win;
	x.files = files;
	x.nfiles = n;
	x.first_event = 1;
	x.complete = 1;
	x.o.f = out;
	if (!rc && !(x.o.buf = malloc(OUT_BUF)))
		rc = GT_ERR_NOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = export_file(&x, paths[i], files ? &files[i] : NULL, i);
		ex_file_release(&x);
	}
	if (!rc) {
		if (o->format == GT_EXPORT_CHROME)
			gt_ex_other_data(&x);
		gt_ex_out_flush(&x.o);
		res->bytes = x.o.bytes;
		rc = x.o.err;
	}
	if (x.o.gz) {
		int grc = gt_gzw_close(x.o.gz);
		if (!rc)
			rc = grc;
	}
	gt_progress_done();
	free(x.o.buf);
	free(x.synthetic);
	gt_xwin_release(&win);
	gt_xfiles_release(files, n);
	free(files);
	return rc;
}

int gt_export_run(const char *path, FILE *out, const struct gt_export_options *o, struct gt_export_result *res)
{
	char *paths[1] = { (char *)(uintptr_t)path };
	return gt_export_run_files(paths, 1, out, o, res);
}
