/* summary.c: groups GPU durations by kernel name, copy kind and memset kind, then computes their
 * statistics; and the collection rules that samples.c shares (summary.h's second part).
 *
 * How it differs from samples.c: both count the same kernel launches, but summary also groups
 * copies and memsets, notes which files hold each group, and keeps a group's durations (in 32 bits
 * while they fit) only until its statistics are computed, then frees them; samples keeps every
 * kernel's sorted durations afterwards, for diff and report.
 *
 * The per-record path is the cost that matters (summary must keep up with the reader, > 10 M
 * records/s): a kernel record costs a flag test, an array lookup by its name's string id (ids are
 * dense, 1..n per file) and an append. Names are resolved only the first time an id is seen in a
 * file, through a hash index (common/slots.h) that merges the same name across files. Sorting and
 * statistics happen once per group at the end.
 */
#include "analyze/engines/summary.h"

#include "common/grow.h"
#include "analyze/support/demangle.h"
#include "analyze/support/growbuf.h"
#include "analyze/support/failure.h"
#include "analyze/support/load.h"

_Static_assert(GT_STATS_ERR_NOMEM == GT_ERR_NOMEM && GT_STATS_ERR_ARG == GT_ERR_ARG,
               "common/stats.h names the same error codes as traces/gputrace.h");

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One group being accumulated: a kernel name, a copy kind (with its memory kinds) or a memset kind.
 * Durations are kept in 32 bits (4.29 s) until one needs more; then the group moves to 64. */
struct acc {
	char *name;
	int copy_kind, src_kind, dst_kind, mem_kind;
	struct gt_growbuf vals;  /* durations counted so far: uint32_t while all fit, then uint64_t */
	int wide;
	size_t nvals, capvals;   /* in elements */
	struct gt_warmup warm;   /* kernels: the earliest launches of the file being read */
	uint64_t launches, dropped, bytes;
	size_t *files;           /* file indices holding the group */
	size_t nfiles, capfiles;
};

struct group {
	struct acc *a;
	size_t n, cap;
};

struct summary_state {
	struct group kernels, copies, memsets;
	struct gt_kernel_ids ids; /* string id, name -> index in kernels */
	uint32_t last_copy_key, last_copy; /* the last copy group hit (+1) */
	uint32_t memset_of[256]; /* mem_kind -> memset index + 1 */
	size_t file;             /* index of the file being read */
	size_t capfiles;         /* of gt_summary.files */
};

int gt_summary_init(struct gt_summary *s, uint64_t warmup)
{
	memset(s, 0, sizeof *s);
	s->warmup = warmup;
	s->state = calloc(1, sizeof *s->state);
	return s->state ? 0 : GT_ERR_NOMEM;
}

static void acc_release(struct acc *a)
{
	free(a->name);
	gt_growbuf_release(&a->vals);
	gt_warmup_release(&a->warm);
	free(a->files);
}

static void group_release(struct group *g)
{
	for (size_t i = 0; i < g->n; i++)
		acc_release(&g->a[i]);
	free(g->a);
	memset(g, 0, sizeof *g);
}

static void state_free(struct summary_state *st)
{
	if (!st)
		return;
	group_release(&st->kernels);
	group_release(&st->copies);
	group_release(&st->memsets);
	gt_kernel_ids_release(&st->ids);
	free(st);
}

static void rows_free(struct gt_summary_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].display);
		free(rows[i].files);
	}
	free(rows);
}

void gt_summary_release(struct gt_summary *s)
{
	if (!s)
		return;
	state_free(s->state);
	rows_free(s->kernels, s->nkernels);
	rows_free(s->copies, s->ncopies);
	rows_free(s->memsets, s->nmemsets);
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].synthetic);
		free(s->files[i].window);
	}
	free(s->files);
	memset(s, 0, sizeof *s);
}

static int grow_from(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : first;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return GT_ERR_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return grow_from(p, cap, need, elem, 64);
}

/* A new group, with its name (strdup'd); index in *idx. */
static int group_add(struct group *g, const char *name, size_t *idx)
{
	if (g->n >= UINT32_MAX - 1 || grow((void **)&g->a, &g->cap, g->n + 1, sizeof *g->a))
		return GT_ERR_NOMEM;
	struct acc *a = &g->a[g->n];
	memset(a, 0, sizeof *a);
	if (!(a->name = strdup(name)))
		return GT_ERR_NOMEM;
	*idx = g->n++;
	return 0;
}

/* Marks group a as present in the current file. */
static int note_file(struct acc *a, size_t file)
{
	if (a->nfiles && a->files[a->nfiles - 1] == file)
		return 0;
	/* Most groups are in one or two files; a table of 64 per group cost 512 bytes for each of a
	 * hostile trace's million distinct names. */
	if (grow_from((void **)&a->files, &a->capfiles, a->nfiles + 1, sizeof *a->files, 2))
		return GT_ERR_NOMEM;
	a->files[a->nfiles++] = file;
	return 0;
}

int gt_summary_file_begin(struct gt_summary *s, const char *path)
{
	struct summary_state *st = s->state;
	if (grow((void **)&s->files, &st->capfiles, s->nfiles + 1, sizeof *s->files))
		return GT_ERR_NOMEM;
	struct gt_summary_file *f = &s->files[s->nfiles];
	memset(f, 0, sizeof *f);
	if (!(f->path = strdup(path)))
		return GT_ERR_NOMEM;
	st->file = s->nfiles++;
	gt_kernel_ids_next_file(&st->ids);
	st->last_copy = 0;
	return 0;
}

/* ---- accumulating --------------------------------------------------------------------------- */

/* A kernel seen in no file before (gt_kernel_make_fn). */
static const char *kernel_make(void *ctx, const char *name)
{
	struct gt_summary *s = ctx;
	struct group *g = &s->state->kernels;
	size_t idx;
	if (group_add(g, name, &idx))
		return NULL;
	gt_warmup_init(&g->a[idx].warm, s->warmup);
	return g->a[idx].name;
}

/* Growth, and the move to 64-bit durations, off the common path. */
static int push_slow(struct acc *a, uint64_t v)
{
	if (!a->wide && v > UINT32_MAX) {
		struct gt_growbuf w = { 0 };
		if (gt_growbuf_reserve(&w, (a->nvals + 1) * sizeof(uint64_t)))
			return GT_ERR_NOMEM;
		const uint32_t *src = a->vals.p;
		uint64_t *dst = w.p;
		for (size_t i = 0; i < a->nvals; i++)
			dst[i] = src[i];
		gt_growbuf_release(&a->vals);
		a->vals = w;
		a->wide = 1;
		a->capvals = w.cap / sizeof(uint64_t);
	}
	size_t elem = a->wide ? sizeof(uint64_t) : sizeof(uint32_t);
	if (a->nvals == a->capvals) {
		if (gt_growbuf_reserve(&a->vals, (a->nvals + 1) * elem))
			return GT_ERR_NOMEM;
		a->capvals = a->vals.cap / elem;
	}
	if (a->wide)
		((uint64_t *)a->vals.p)[a->nvals++] = v;
	else
		((uint32_t *)a->vals.p)[a->nvals++] = (uint32_t)v;
	return 0;
}

static inline int push_value(struct acc *a, uint64_t v)
{
	if (a->nvals < a->capvals && !a->wide && v <= UINT32_MAX) {
		((uint32_t *)a->vals.p)[a->nvals++] = (uint32_t)v;
		return 0;
	}
	return push_slow(a, v);
}

static int on_kernel(struct gt_summary *s, const struct gt_reader *r, const struct gt_kernel *k)
{
	struct summary_state *st = s->state;
	s->files[st->file].kernels++;
	if (!gt_summary_kernel_good(k)) {
		s->kernels_bad++;
		return 0;
	}
	/* A kernel's first launch in a file is where the file is noted; a look-up that has to resolve
	 * the name id is always one (ids are per file). */
	uint32_t id = k->name_id;
	uint32_t e = id < st->ids.nids ? st->ids.of_id[id] : 0;
	if (!e) {
		if (!(e = gt_kernel_ids_resolve(&st->ids, r, id, kernel_make, s)))
			return GT_ERR_NOMEM;
		if (note_file(&st->kernels.a[e - 1], st->file))
			return GT_ERR_NOMEM;
	}
	struct acc *a = &st->kernels.a[e - 1];
	a->launches++;
	if (s->warmup)
		gt_warmup_offer(&a->warm, k->start, a->nvals);
	return push_value(a, k->end - k->start);
}

static const char *kind_name(const char *name, int v, char *buf, size_t len)
{
	if (strcmp(name, "unknown") != 0 || v == 0)
		return name;
	snprintf(buf, len, "unknown(%d)", v);
	return buf;
}

/* One more copy or memset of group a, in file: its bytes and its duration. */
static int add_bytes_op(struct acc *a, size_t file, uint64_t bytes, uint64_t dur)
{
	if (note_file(a, file))
		return GT_ERR_NOMEM;
	a->launches++;
	a->bytes += bytes;
	return push_value(a, dur);
}

static int on_memcpy(struct gt_summary *s, const struct gt_memcpy *m)
{
	struct summary_state *st = s->state;
	if (m->flags & GT_COPY_TOOL) {
		s->copies_tool++; /* the shadow capture's own copies are not the program's */
		return 0;
	}
	s->files[st->file].memcpys++;
	if (m->end < m->start) {
		s->copies_bad++;
		return 0;
	}
	uint32_t key = (uint32_t)m->copy_kind << 16 | (uint32_t)m->src_kind << 8 | m->dst_kind;
	uint32_t e = st->last_copy && st->last_copy_key == key ? st->last_copy : 0;
	for (size_t i = 0; !e && i < st->copies.n; i++) {
		const struct acc *a = &st->copies.a[i];
		if (a->copy_kind == m->copy_kind && a->src_kind == m->src_kind && a->dst_kind == m->dst_kind)
			e = (uint32_t)i + 1;
	}
	if (!e) {
		char name[128], b1[24], b2[24], b3[24];
		snprintf(name, sizeof name, "%s %s->%s",
		         kind_name(gt_copy_kind_name(m->copy_kind), m->copy_kind, b1, sizeof b1),
		         kind_name(gt_mem_kind_name(m->src_kind), m->src_kind, b2, sizeof b2),
		         kind_name(gt_mem_kind_name(m->dst_kind), m->dst_kind, b3, sizeof b3));
		size_t idx;
		if (group_add(&st->copies, name, &idx))
			return GT_ERR_NOMEM;
		struct acc *a = &st->copies.a[idx];
		a->copy_kind = m->copy_kind;
		a->src_kind = m->src_kind;
		a->dst_kind = m->dst_kind;
		e = (uint32_t)idx + 1;
	}
	st->last_copy_key = key;
	st->last_copy = e;
	return add_bytes_op(&st->copies.a[e - 1], st->file, m->bytes, m->end - m->start);
}

static int on_memset(struct gt_summary *s, const struct gt_memset *m)
{
	struct summary_state *st = s->state;
	s->files[st->file].memsets++;
	if (m->end < m->start) {
		s->memsets_bad++;
		return 0;
	}
	uint32_t e = st->memset_of[m->mem_kind];
	if (!e) {
		char b[24];
		size_t idx;
		if (group_add(&st->memsets, kind_name(gt_mem_kind_name(m->mem_kind), m->mem_kind, b, sizeof b),
		              &idx))
			return GT_ERR_NOMEM;
		st->memsets.a[idx].mem_kind = m->mem_kind;
		e = st->memset_of[m->mem_kind] = (uint32_t)idx + 1;
	}
	return add_bytes_op(&st->memsets.a[e - 1], st->file, m->bytes, m->end - m->start);
}

int gt_summary_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_summary *s = ctx;
	switch (ev->type) {
	case GT_REC_KERNEL: return on_kernel(s, r, &ev->u.kernel);
	case GT_REC_MEMCPY: return on_memcpy(s, &ev->u.memcpy);
	case GT_REC_MEMSET: return on_memset(s, &ev->u.memset);
	default: return 0;
	}
}

/* Drops each kernel's warm-up in the file just read (gt_summary_drop_warmup). */
static int flush_warmup(struct gt_summary *s)
{
	struct group *g = &s->state->kernels;
	for (size_t i = 0; i < g->n; i++) {
		struct acc *a = &g->a[i];
		if (a->warm.error)
			return a->warm.error;
		size_t nw = gt_summary_drop_warmup(&a->warm, a->vals.p, a->wide, &a->nvals);
		a->dropped += nw;
		s->warmup_dropped += nw;
	}
	return 0;
}

int gt_summary_file_end(struct gt_summary *s, const struct gt_reader *r)
{
	struct gt_summary_file *f = &s->files[s->state->file];
	struct gt_tail t;
	gt_reader_tail(r, &t);
	f->complete = t.complete;
	f->lost_bytes = t.lost_bytes;
	const char *win = gt_reader_meta(r, "trace.window_ms");
	if (win && *win && !(f->window = strdup(win)))
		return GT_ERR_NOMEM;
	const char *syn = gt_load_synthetic(r);
	if (syn && !(f->synthetic = strdup(syn)))
		return GT_ERR_NOMEM;
	return flush_warmup(s);
}

int gt_summary_add_trace(struct gt_summary *s, const char *path)
{
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	if ((rc = gt_summary_file_begin(s, path)) == 0) {
		rc = gt_load_stream(r, gt_summary_record, s);
		if (!rc && (rc = gt_summary_file_end(s, r)) != 0)
			rc = gt_fail(rc, "cannot read trace '%s': %s", path, gt_strerror(rc));
	} else {
		rc = gt_fail(rc, "cannot read trace '%s': %s", path, gt_strerror(rc));
	}
	gt_reader_close(r);
	return rc;
}

/* "1,3" from file indices 0 and 2. */
static char *files_list(const struct acc *a)
{
	size_t len = a->nfiles * 21 + 1;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < a->nfiles; i++)
		p += snprintf(p, len - (size_t)(p - s), "%s%zu", i ? "," : "", a->files[i] + 1);
	return s;
}

/* Turns a group's accumulation into rows, computing the statistics and giving each group's memory
 * back as it goes. Kernels get their demangled name for display. */
static int make_rows(struct group *g, int kind, struct gt_summary_row **out, size_t *nout)
{
	struct gt_summary_row *rows = calloc(g->n ? g->n : 1, sizeof *rows);
	*out = rows;
	*nout = 0;
	if (!rows)
		return GT_ERR_NOMEM;
	double total = 0;
	for (size_t i = 0; i < g->n; i++) {
		struct acc *a = &g->a[i];
		struct gt_summary_row *row = &rows[i];
		*nout = i + 1;
		row->kind = kind;
		row->name = a->name;
		a->name = NULL;
		if (kind == GT_SUMMARY_KERNEL)
			row->display = row->name[0] ? gt_demangle(row->name) : strdup("(unnamed)");
		else
			row->display = strdup(row->name);
		row->files = files_list(a);
		if (!row->display || !row->files)
			return GT_ERR_NOMEM;
		row->copy_kind = a->copy_kind;
		row->src_kind = a->src_kind;
		row->dst_kind = a->dst_kind;
		row->mem_kind = a->mem_kind;
		row->launches = a->launches;
		row->warmup_dropped = a->dropped;
		row->bytes = a->bytes;
		if (a->wide)
			gt_stats_compute_u64(&row->st, a->vals.p, a->nvals);
		else
			gt_stats_compute_u32(&row->st, a->vals.p, a->nvals);
		gt_growbuf_release(&a->vals);
		total += row->st.total;
	}
	for (size_t i = 0; i < g->n; i++)
		rows[i].share = total > 0 ? rows[i].st.total / total : NAN;
	return 0;
}

int gt_summary_finish(struct gt_summary *s, const struct gt_name_filter *filter)
{
	struct summary_state *st = s->state;
	if (!st)
		return GT_ERR_STATE;
	int rc = make_rows(&st->kernels, GT_SUMMARY_KERNEL, &s->kernels, &s->nkernels);
	if (!rc)
		rc = make_rows(&st->copies, GT_SUMMARY_MEMCPY, &s->copies, &s->ncopies);
	if (!rc)
		rc = make_rows(&st->memsets, GT_SUMMARY_MEMSET, &s->memsets, &s->nmemsets);
	state_free(s->state);
	s->state = NULL;
	if (rc)
		return rc;
	/* Shares were taken of every kernel; the filter only decides which rows are shown. */
	s->kernel_total_ns = 0;
	size_t k = 0;
	for (size_t i = 0; i < s->nkernels; i++) {
		struct gt_summary_row *row = &s->kernels[i];
		s->kernel_total_ns += row->st.total;
		if (gt_name_filter_match(filter, row->name, row->display)) {
			s->kernels[k++] = *row;
		} else {
			free(row->name);
			free(row->display);
			free(row->files);
			s->kernels_hidden++;
		}
	}
	s->nkernels = k;
	return 0;
}

static enum gt_summary_sort sort_key;

/* NaN (no launches counted) sorts after every number. */
static int cmp_desc(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a < b) - (a > b);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct gt_summary_row *a = pa, *b = pb;
	int c = 0;
	switch (sort_key) {
	case GT_SORT_TOTAL: c = cmp_desc(a->st.total, b->st.total); break;
	case GT_SORT_MEDIAN: c = cmp_desc(a->st.median, b->st.median); break;
	case GT_SORT_COUNT: c = cmp_desc((double)a->st.n, (double)b->st.n); break;
	case GT_SORT_NAME: break;
	}
	if (!c)
		c = strcmp(a->display, b->display);
	if (!c)
		c = strcmp(a->name, b->name);
	return c;
}

void gt_summary_sort(struct gt_summary *s, enum gt_summary_sort key)
{
	sort_key = key;
	if (s->nkernels > 1)
		qsort(s->kernels, s->nkernels, sizeof *s->kernels, cmp_rows);
	if (s->ncopies > 1)
		qsort(s->copies, s->ncopies, sizeof *s->copies, cmp_rows);
	if (s->nmemsets > 1)
		qsort(s->memsets, s->nmemsets, sizeof *s->memsets, cmp_rows);
}
