/* samples.c: collects every kernel's durations from one trace (or several pooled), as samples.h
 * describes, for diff and report.
 *
 * How it differs from summary.c: summary groups kernels, copies and memsets across files and keeps
 * durations only until their statistics are computed (4 bytes each while they fit); this keeps
 * kernels only, every duration in 64 bits, sorted, after finish, with each kernel's first start and
 * launch configurations, so that diff's bootstrap and report's figures can read the samples. What
 * decides which launches count is not repeated here: the bad-times rule, the kernels found by name
 * through each file's string ids and the warm-up drop are kernel_ids.h's (gt_summary_kernel_good,
 * gt_kernel_ids, gt_summary_drop_warmup). The per-record path is as cheap as summary's: a flag
 * test, an array look-up by string id, an append, and one comparison for warm-up in the common
 * case. Sorting, statistics and demangling happen once per kernel at the end.
 */
#include "analyze/blocks/samples.h"

#include "analyze/blocks/kernel_ids.h"

#include "common/grow.h"
#include "analyze/support/demangle.h"
#include "analyze/support/failure.h"
#include "analyze/support/growbuf.h"
#include "analyze/support/load.h"

#include <stdlib.h>
#include <string.h>

struct acc {
	char *name;
	struct gt_growbuf vals;  /* uint64_t durations */
	size_t nvals, capvals;
	struct gt_warmup warm;
	uint64_t launches, first_start;
	struct gt_launch_config *cfg; /* ncfg of them, grown one at a time: most kernels have one, and
	                               * a hostile trace may have a million kernels */
	size_t ncfg, lastcfg;
	uint64_t cfg_other;
};

struct samples_state {
	struct acc *k;
	size_t n, cap;
	struct gt_kernel_ids ids; /* string id, name -> index in k (kernel_ids.h) */
};

int gt_samples_init(struct gt_samples *s, uint64_t warmup, unsigned flags)
{
	memset(s, 0, sizeof *s);
	s->warmup = warmup;
	s->flags = flags;
	s->complete = 1;
	s->state = calloc(1, sizeof *s->state);
	return s->state ? 0 : GT_ERR_NOMEM;
}

static void state_free(struct samples_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		free(st->k[i].name);
		gt_growbuf_release(&st->k[i].vals);
		gt_warmup_release(&st->k[i].warm);
		free(st->k[i].cfg);
	}
	free(st->k);
	gt_kernel_ids_release(&st->ids);
	free(st);
}

static void kernel_free(struct gt_kernel_sample *k)
{
	free(k->name);
	free(k->display);
	free(k->cfg);
	gt_growbuf_release(&k->buf);
}

void gt_samples_release(struct gt_samples *s)
{
	if (!s)
		return;
	state_free(s->state);
	for (size_t i = 0; i < s->nkernels; i++)
		kernel_free(&s->kernels[i]);
	free(s->kernels);
	free(s->path);
	free(s->synthetic);
	memset(s, 0, sizeof *s);
}

/* A kernel seen in no file before (gt_kernel_make_fn). */
static const char *kernel_make(void *ctx, const char *name)
{
	struct gt_samples *s = ctx;
	struct samples_state *st = s->state;
	struct acc *k = gt_grow(st->k, &st->cap, st->n, sizeof *k, 16);
	if (!k)
		return NULL;
	st->k = k;
	struct acc *a = &st->k[st->n];
	*a = (struct acc){ .first_start = UINT64_MAX };
	if (!(a->name = strdup(name)))
		return NULL;
	gt_warmup_init(&a->warm, s->warmup);
	st->n++;
	return a->name;
}

static int push_slow(struct acc *a, uint64_t v)
{
	if (gt_growbuf_reserve(&a->vals, (a->nvals + 1) * sizeof(uint64_t)))
		return GT_ERR_NOMEM;
	a->capvals = a->vals.cap / sizeof(uint64_t);
	((uint64_t *)a->vals.p)[a->nvals++] = v;
	return 0;
}

static int same_config(const struct gt_launch_config *a, const struct gt_launch_config *b)
{
	return a->grid[0] == b->grid[0] && a->grid[1] == b->grid[1] && a->grid[2] == b->grid[2] &&
	       a->block[0] == b->block[0] && a->block[1] == b->block[1] && a->block[2] == b->block[2] &&
	       a->static_smem == b->static_smem && a->dynamic_smem == b->dynamic_smem &&
	       a->registers == b->registers;
}

static int note_config(struct acc *a, const struct gt_kernel *k)
{
	struct gt_launch_config c = {
		.grid = { k->grid_x, k->grid_y, k->grid_z },
		.block = { k->block_x, k->block_y, k->block_z },
		.static_smem = k->static_smem,
		.dynamic_smem = k->dynamic_smem,
		.registers = k->registers,
	};
	/* The last configuration first: launches repeat. */
	if (a->ncfg && same_config(&a->cfg[a->lastcfg], &c)) {
		a->cfg[a->lastcfg].launches++;
		return 0;
	}
	for (size_t i = 0; i < a->ncfg; i++) {
		if (same_config(&a->cfg[i], &c)) {
			a->cfg[i].launches++;
			a->lastcfg = i;
			return 0;
		}
	}
	if (a->ncfg < GT_SAMPLES_CONFIGS) {
		struct gt_launch_config *q = realloc(a->cfg, (a->ncfg + 1) * sizeof *q);
		if (!q)
			return GT_ERR_NOMEM;
		a->cfg = q;
		c.launches = 1;
		a->lastcfg = a->ncfg;
		a->cfg[a->ncfg++] = c;
		return 0;
	}
	a->cfg_other++;
	return 0;
}

int gt_samples_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_samples *s = ctx;
	if (ev->type != GT_REC_KERNEL) {
		if (ev->type == GT_REC_NVTX && ev->u.nvtx.kind != GT_NVTX_MARK)
			s->nvtx_ranges++;
		else if (ev->type == GT_REC_METRIC_SAMPLE || ev->type == GT_REC_LAUNCH_METRIC)
			s->metric_records++;
		return 0;
	}
	const struct gt_kernel *k = &ev->u.kernel;
	struct samples_state *st = s->state;
	s->kernel_records++;
	if (!gt_summary_kernel_good(k)) {
		s->bad++;
		return 0;
	}
	uint32_t id = k->name_id;
	uint32_t e = id < st->ids.nids ? st->ids.of_id[id] : 0;
	if (!e && !(e = gt_kernel_ids_resolve(&st->ids, r, id, kernel_make, s)))
		return GT_ERR_NOMEM;
	struct acc *a = &st->k[e - 1];
	a->launches++;
	if (k->start < a->first_start)
		a->first_start = k->start;
	if ((s->flags & GT_SAMPLES_WANT_CONFIGS) && note_config(a, k))
		return GT_ERR_NOMEM;
	if (s->warmup)
		gt_warmup_offer(&a->warm, k->start, a->nvals);
	uint64_t v = k->end - k->start;
	if (a->nvals < a->capvals) {
		((uint64_t *)a->vals.p)[a->nvals++] = v;
		return 0;
	}
	return push_slow(a, v);
}

int gt_samples_file_end(struct gt_samples *s, const struct gt_reader *r)
{
	struct samples_state *st = s->state;
	struct gt_tail t;
	gt_reader_tail(r, &t);
	/* Several files pool into one collector (diff's runs): the first names it, any incomplete or
	 * synthetic one marks it. */
	s->files++;
	s->complete = s->complete && t.complete;
	s->lost_bytes += t.lost_bytes;
	if (!s->path && !(s->path = strdup(gt_reader_path(r))))
		return GT_ERR_NOMEM;
	const char *syn = gt_load_synthetic(r);
	if (syn && !s->synthetic && !(s->synthetic = strdup(syn)))
		return GT_ERR_NOMEM;
	/* Each file drops its own warm-up (durations always 64-bit here). */
	for (size_t i = 0; i < st->n; i++) {
		struct acc *a = &st->k[i];
		if (a->warm.error)
			return a->warm.error;
		s->warmup_dropped += gt_summary_drop_warmup(&a->warm, a->vals.p, 1, &a->nvals);
	}
	gt_kernel_ids_next_file(&st->ids);
	return 0;
}

/* The file's end as a pass's finish: its failure (memory) held in the loader's words. */
static int file_end(void *s, const struct gt_reader *r)
{
	int rc = gt_samples_file_end(s, r);
	return rc ? gt_fail(rc, "cannot read trace '%s': %s", gt_reader_path(r), gt_strerror(rc)) : 0;
}

int gt_samples_load(struct gt_samples *s, const char *path)
{
	return gt_load_pass(path, gt_samples_record, file_end, s);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct gt_kernel_sample *)a)->name, ((const struct gt_kernel_sample *)b)->name);
}

int gt_samples_finish(struct gt_samples *s, const struct gt_name_filter *filter)
{
	struct samples_state *st = s->state;
	if (!st)
		return GT_ERR_STATE;
	s->kernels = calloc(st->n ? st->n : 1, sizeof *s->kernels);
	if (!s->kernels)
		return GT_ERR_NOMEM;
	int rc = 0;
	for (size_t i = 0; i < st->n && !rc; i++) {
		struct acc *a = &st->k[i];
		struct gt_kernel_sample *k = &s->kernels[s->nkernels];
		k->display = a->name[0] ? gt_demangle(a->name) : strdup("(unnamed)");
		if (!k->display) {
			rc = GT_ERR_NOMEM;
			break;
		}
		if (!gt_name_filter_match(filter, a->name, k->display)) {
			free(k->display);
			k->display = NULL;
			s->hidden++;
			continue;
		}
		k->name = a->name;
		a->name = NULL;
		k->launches = a->launches;
		k->dropped = a->launches - a->nvals;
		k->first_start = a->first_start;
		k->n = a->nvals;
		k->buf = a->vals; /* the durations move, they are not copied */
		memset(&a->vals, 0, sizeof a->vals);
		k->dur = k->buf.p;
		gt_stats_compute_u64(&k->st, k->dur, k->n);
		k->cfg = a->cfg; /* moved too */
		a->cfg = NULL;
		k->ncfg = a->ncfg;
		k->cfg_other = a->cfg_other;
		s->nkernels++;
	}
	state_free(st);
	s->state = NULL;
	if (rc)
		return rc;
	qsort(s->kernels, s->nkernels, sizeof *s->kernels, cmp_name);
	return 0;
}

const struct gt_kernel_sample *gt_samples_find(const struct gt_samples *s, const char *name)
{
	struct gt_kernel_sample key = { .name = (char *)name };
	return bsearch(&key, s->kernels, s->nkernels, sizeof *s->kernels, cmp_name);
}
