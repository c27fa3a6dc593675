/* export_sqlite.c: the trace as an SQLite database (export_sqlite.h; schema in gputrace-sqlite(5)).
 *
 * The driver: the database, its pragmas and one transaction, and the tables not kept compact. Each
 * record table here is declared once below as its fill list, which names each column and the field
 * of its record (found in the trace library's schema, schema.h) that fills it, so that one loop
 * makes its CREATE TABLE and one puts its rows into the table's batch (export_sqlite_batch.h, many
 * rows to an INSERT); the other tables as their column list. The INSERT statement is derived from
 * the columns, so a column added is a column the rows must fill (a row that puts or binds too few
 * or too many fails loudly in record_row or row_end). Kernels, copies, memsets and API calls,
 * most of a trace, go to the compact tables of export_sqlite_compact.c instead. Rows are written as
 * records arrive, except NVTX ranges: a range's parent is known only once every range of its thread
 * is, so they are kept and written last (by hand, as are the definitions, which are not fixed
 * records).
 */
#include "analyze/export/export_sqlite.h"
#include "analyze/export/export_sqlite_internal.h"
#include "analyze/export/export_sqlite_batch.h"
#include "analyze/export/export_sqlite_metrics.h"
#include "analyze/blocks/event_origin.h"

#include "analyze/support/demangle.h"
#include "analyze/support/failure.h"
#include "analyze/output/escape.h"
#include "traces/gputrace.h"
#include "traces/schema.h"
#include "analyze/support/kname.h"
#include "analyze/support/load.h"
#include "common/grow.h"
#include "common/radix.h"
#include "analyze/blocks/peaks.h"
#include "analyze/blocks/timeline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct table {
	const char *name;
	const char *columns;     /* NULL: made from its fill list (a record table, below); no comma
	                          * inside a column's definition: they are counted; "": a view over a
	                          * compact table (export_sqlite_compact.c) */
} tables[T_NTABLES] = {
	[T_KERNELS] = { "kernels", "" },
	[T_COPIES] = { "copies", "" },
	[T_MEMSETS] = { "memsets", "" },
	[T_API] = { "api_calls", "" },
	[T_NVTX] = { "nvtx_ranges", "" },
	[T_SYNCS] = { "syncs", NULL },
	[T_MEMORY] = { "memory_ops", NULL },
	[T_GRAPHS] = { "graph_launches", NULL },
	[T_OVERHEADS] = { "overheads", NULL },
	[T_DROPPED] = { "dropped", NULL },
	[T_PROCESS] = { "process_events", NULL },
	[T_CLOCKS] = { "clock_samples", NULL },
	[T_CLOCK_SYNCS] = { "clock_syncs", NULL },
	[T_DEVICES] = { "devices",
		"device_id INTEGER, name TEXT, uuid TEXT, cc_major INTEGER, cc_minor INTEGER, "
		"sm_count INTEGER, global_mem_bytes INTEGER, sm_clock_khz INTEGER, "
		"mem_clock_khz INTEGER, mem_bus_width_bits INTEGER, pcie_gen INTEGER, "
		"pcie_width INTEGER, pcie_gen_current INTEGER, pcie_width_current INTEGER, "
		"l2_bytes INTEGER, max_threads_per_sm INTEGER, peak_mem_bytes_per_s REAL, "
		"peak_pcie_bytes_per_s REAL" },
	[T_META] = { "metadata", "key TEXT, value TEXT" },
	[T_STRINGS] = { "strings", "id INTEGER PRIMARY KEY, value TEXT" },
	[T_INFO] = { "export_info", "key TEXT, value TEXT" },
};

int gt_sq_fail(struct sq *s, const char *what)
{
	if (!s->failed)
		gt_fail(SQ_FAILED, "export: SQLite: %s: %s", what, sqlite3_errmsg(s->db));
	s->failed = 1;
	return SQ_FAILED;
}

int gt_sq_step(struct sq *s, sqlite3_stmt *st, int bound, const char *table)
{
	if (bound != SQLITE_OK)
		return gt_sq_fail(s, "bind");
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 1 : gt_sq_fail(s, table);
}

/* ---- one row at a time ---------------------------------------------------------------------- */

static void row_begin(struct sq *s, enum tab t)
{
	s->cur = s->st[t];
	s->col = 0;
}

static void bind_rc(struct sq *s, int rc)
{
	if (rc != SQLITE_OK)
		gt_sq_fail(s, "bind");
}

static void put_null(struct sq *s) { bind_rc(s, sqlite3_bind_null(s->cur, ++s->col)); }
static void put_i64(struct sq *s, int64_t v) { bind_rc(s, sqlite3_bind_int64(s->cur, ++s->col, v)); }
static void put_real(struct sq *s, double v) { bind_rc(s, sqlite3_bind_double(s->cur, ++s->col, v)); }

static void put_u64(struct sq *s, uint64_t v)
{
	if (v > (uint64_t)INT64_MAX) {
		s->out_of_range++;
		put_null(s);
	} else {
		put_i64(s, (int64_t)v);
	}
}

/* s is kept by the caller until the row is stepped (SQLITE_STATIC). NULL stores NULL. */
static void put_text(struct sq *s, const char *v)
{
	if (!v)
		put_null(s);
	else
		bind_rc(s, sqlite3_bind_text(s->cur, ++s->col, v, -1, SQLITE_STATIC));
}

static int row_end(struct sq *s, enum tab t)
{
	if (s->col != s->ncols[t]) {
		/* A programming error: the table's columns and its row disagree. */
		gt_fail(SQ_FAILED, "export: SQLite: table %s: %d values for %d columns", tables[t].name, s->col,
		        s->ncols[t]);
		s->failed = 1;
		return SQ_FAILED;
	}
	int rc = sqlite3_step(s->cur);
	sqlite3_reset(s->cur);
	sqlite3_clear_bindings(s->cur);
	if (rc != SQLITE_DONE)
		return gt_sq_fail(s, tables[t].name);
	s->rows[t]++;
	return s->failed ? SQ_FAILED : 0;
}

/* ---- names ---------------------------------------------------------------------------------- */

struct names *gt_sq_names_of(struct sq *s, const struct gt_reader *r, uint32_t id, int kernel)
{
	if (id > gt_reader_string_count(r))
		id = 0;
	if (id >= s->nnames && gt_grow_zeroed(&s->names, &s->nnames, (size_t)id + 1, sizeof *s->names, 256))
		return NULL;
	struct names *c = &s->names[id];
	if (!c->clean && !(c->clean = gt_esc_dup(gt_esc_utf8, gt_reader_string(r, id))))
		return NULL;
	if (kernel && !c->demangled) {
		char *d = gt_demangle(c->clean);
		char *b = d ? gt_kernel_base_name(c->clean, d) : NULL;
		char *dc = d ? gt_esc_dup(gt_esc_utf8, d) : NULL, *bc = b ? gt_esc_dup(gt_esc_utf8, b) : NULL;
		free(d);
		free(b);
		if (!dc || !bc) {
			free(dc);
			free(bc);
			return NULL;
		}
		c->demangled = dc;
		c->short_name = bc;
	}
	return c;
}

/* A string id's text (NULL for id 0, "none": the domain of the default NVTX domain). */
static const char *text_of(struct sq *s, const struct gt_reader *r, uint32_t id, int zero_is_null)
{
	if (!id && zero_is_null)
		return NULL;
	struct names *c = gt_sq_names_of(s, r, id, 0);
	if (!c)
		s->nomem = 1;
	return c ? c->clean : "";
}

/* ---- records -------------------------------------------------------------------------------- */

/* The row of a record table, filled field by field through the schema (schema.h): the fill list
 * names the table's columns, in order, and how each is filled. One loop writes every such table
 * and one makes its CREATE TABLE, so that a column is one line here, and a field's size and offset
 * are the schema's, not written again. */
enum fill {
	F_END,        /* ends the list */
	F_ID,         /* the row id, first in every list: column "id INTEGER PRIMARY KEY" */
	F_U,          /* the field, unsigned (NULL past INT64_MAX, counted as out of range) */
	F_I,          /* the field, signed */
	F_ENUM,       /* the field's value named by the schema */
	F_TIMES,      /* three columns, start_ns, end_ns and duration_ns: start, end and end - start; no
	               * duration when end < start */
	F_STREAM,     /* the field, NULL when it is UINT32_MAX (a sync on no one stream) */
};

struct col {
	uint8_t fill;            /* enum fill */
	const char *member;      /* the field, as the schema names the struct's member */
	const char *column;      /* the column's name; NULL: the member's (F_ID, F_TIMES: their own) */
};

#define ID { F_ID, NULL, NULL }
#define END { F_END, NULL, NULL }
#define TIMES { F_TIMES, "start", NULL }
#define COL(fill, m, column) { fill, #m, column }
#define U(m) COL(F_U, m, NULL)
#define EN(m) COL(F_ENUM, m, NULL)
/* A timestamp's column says its unit. */
#define TS(m) COL(F_U, m, #m "_ns")

static const struct col sync_fill[] = {
	ID, TIMES, EN(kind), U(context_id), COL(F_STREAM, stream_id, NULL), U(event_id), U(correlation_id),
	END,
};
static const struct col memory_fill[] = {
	ID, TS(timestamp), EN(op), EN(mem_kind), U(address), U(bytes), U(device_id), U(context_id),
	U(stream_id), U(process_id), U(correlation_id), END,
};
static const struct col graph_fill[] = { ID, TIMES, U(graph_id), U(correlation_id), U(stream_id), END };
/* The kind as its number: the column is an INTEGER. */
static const struct col overhead_fill[] = { ID, TIMES, U(kind), U(object_kind), U(object_id), END };
static const struct col dropped_fill[] = {
	ID, TS(timestamp), U(count), EN(reason), U(context_id), U(stream_id), END,
};
static const struct col process_fill[] = {
	ID, TS(timestamp), U(host_ns), U(pid), EN(event), COL(F_I, status, NULL), END,
};
static const struct col clock_fill[] = {
	ID, TS(timestamp), U(device_id), U(sm_clock_mhz), U(mem_clock_mhz), U(temperature_c), U(power_mw),
	COL(F_U, utilization_gpu, "utilization_gpu_pct"), U(throttle_reasons), END,
};
static const struct col clock_sync_fill[] = { ID, U(cupti_ns), U(realtime_ns), U(monotonic_ns), END };

#undef ID
#undef END
#undef TIMES
#undef COL
#undef U
#undef EN
#undef TS

/* The record type that fills each record table, and how. */
static const struct record_table {
	enum tab t;
	int type;
	const struct col *fill;
} record_tables[] = {
	{ T_SYNCS, GT_REC_SYNC, sync_fill }, { T_MEMORY, GT_REC_MEMORY, memory_fill },
	{ T_GRAPHS, GT_REC_GRAPH_LAUNCH, graph_fill }, { T_OVERHEADS, GT_REC_OVERHEAD, overhead_fill },
	{ T_DROPPED, GT_REC_DROPPED, dropped_fill }, { T_PROCESS, GT_REC_PROCESS, process_fill },
	{ T_CLOCKS, GT_REC_CLOCK_SAMPLE, clock_fill }, { T_CLOCK_SYNCS, GT_REC_CLOCK_SYNC, clock_sync_fill },
};
#define NRECORD_TABLES (sizeof record_tables / sizeof record_tables[0])

/* The shown field of record type `type` whose struct member is `member`; NULL: none. */
static const struct gt_field *field_of(int type, const char *member)
{
	size_t n;
	const struct gt_field *f = gt_fields_of(type, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].member, member))
			return &f[i];
	return NULL;
}

/* Each fill list's fields looked up once in the schema; a field it lacks is a programming error. */
static int resolve_fields(struct sq *s)
{
	if (!(s->nvtx_kind = field_of(GT_REC_NVTX, "kind")) || !s->nvtx_kind->enum_name)
		return gt_fail(SQ_FAILED, "export: SQLite: table %s: no kind in the schema", tables[T_NVTX].name);
	for (size_t i = 0; i < NRECORD_TABLES; i++) {
		const struct record_table *rt = &record_tables[i];
		struct filled *fd = &s->filled[rt->t];
		fd->end = field_of(rt->type, "end");
		for (size_t c = 0; rt->fill[c].fill != F_END; c++) {
			const struct col *col = &rt->fill[c];
			const struct gt_field *f = col->member ? field_of(rt->type, col->member) : NULL;
			int ok = c < MAX_FILL && (col->fill == F_ID) == (c == 0) && (col->fill == F_ID || f) && (col->fill != F_ENUM || f->enum_name) &&
			         (fd->end || col->fill != F_TIMES);
			if (!ok)
				return gt_fail(SQ_FAILED, "export: SQLite: table %s: entry %zu of its fill list does not fit the schema",
				               tables[rt->t].name, c + 1);
			fd->field[c] = f;
		}
	}
	return 0;
}

/* A record table's row, into its batch (export_sqlite_batch.h), which leaves the row id (the
 * list's first entry) to SQLite. */
static int record_row(struct sq *s, size_t which, const void *rec)
{
	const struct record_table *rt = &record_tables[which];
	const struct filled *fd = &s->filled[rt->t];
	struct sq_batch *b = s->rbatch[rt->t];
	int k = 0;
	gt_sq_row_begin(b);
	for (size_t c = 1; rt->fill[c].fill != F_END; c++) {
		const struct col *col = &rt->fill[c];
		const struct gt_field *f = fd->field[c];
		uint64_t v = f ? gt_field_u64(f, rec) : 0, end;
		switch (col->fill) {
		case F_U: gt_sq_put_u(s, b, k++, v); break;
		case F_I: gt_sq_put(b, k++, gt_field_i64(f, rec)); break;
		case F_ENUM: gt_sq_put_text(b, k++, f->enum_name((int)v)); break;
		case F_TIMES:
			end = gt_field_u64(fd->end, rec);
			gt_sq_put_u(s, b, k++, v);
			gt_sq_put_u(s, b, k++, end);
			if (end >= v)
				gt_sq_put_u(s, b, k++, end - v);
			else
				gt_sq_put_null(b, k++);
			break;
		case F_STREAM:
			if (v == UINT32_MAX)
				gt_sq_put_null(b, k++);
			else
				gt_sq_put_u(s, b, k++, v);
			break;
		}
	}
	if (k != b->ncols) {
		/* A programming error: the table's columns and its row disagree. */
		gt_fail(SQ_FAILED, "export: SQLite: table %s: %d values for %d columns", tables[rt->t].name, k + 1,
		        b->ncols + 1);
		s->failed = 1;
		return SQ_FAILED;
	}
	s->rows[rt->t]++;
	return gt_sq_row_done(s, b) < 0 ? SQ_FAILED : 0;
}

static int keep_nvtx(struct sq *s, const struct gt_nvtx *n)
{
	struct nvtx_row *q = gt_grow(s->nvtx, &s->capnvtx, s->nnvtx, sizeof *q, 256);
	if (!q)
		return GT_ERR_NOMEM;
	s->nvtx = q;
	s->nvtx[s->nnvtx].n = *n;
	s->nvtx[s->nnvtx++].parent = 0;
	return 0;
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct sq *s = ctx;
	if (s->failed)
		return 0; /* held already: read on to the end rather than have the loader say more */
	if (ev->type >= GT_REC_FIRST_FIXED) {
		s->events++;
		gt_event_origin(&s->origin, ev);
	}
	int rc = gt_sq_compact_row(s, ev);
	if (rc > 0) {
		rc = 0;
	} else if (rc == 0 && ev->type == GT_REC_NVTX) {
		rc = keep_nvtx(s, &ev->u.nvtx);
	} else if (rc == 0 && gt_sq_metrics_kind(ev->type)) {
		if ((rc = gt_sq_metrics_row(&s->metrics, s->db, r, ev)) == SQ_FAILED)
			s->failed = 1;
	} else if (rc == 0) {
		/* Definitions come from the reader at the end; unknown types are skipped. */
		for (size_t i = 0; i < NRECORD_TABLES; i++)
			if (record_tables[i].type == ev->type) {
				rc = record_row(s, i, &ev->u);
				break;
			}
	}
	return rc == SQ_FAILED ? 0 : rc; /* an SQLite failure: s->failed says so */
}

/* ---- NVTX parents ----------------------------------------------------------------------------
 * A range's parent is the innermost closed push/pop range of its thread that contains it (start
 * not after its start, end not before its end; of two equal ranges the earlier in the file is the
 * parent). Marks get a parent too; start/end ranges and ranges never closed neither have one nor
 * are one. Ranges ordered by thread, start, and longest first, then one stack per thread: O(n)
 * past the order whatever the nesting, since each range is pushed and popped once. The order is
 * made by two stable radix sorts (common/radix.h: by start, then by thread; the threads' own order
 * does not matter, only that each is one run) and the runs of one thread and start, which are in
 * file order, ordered by end: a program's ranges come in the order they end, which is far from
 * this one, and a comparison sort of them cost a twentieth of the export. */
struct nvtx_key {
	uint64_t key;            /* what the radix sort orders by */
	uint32_t idx, thread;    /* the range's index in s->nvtx, its thread */
};

static inline const struct gt_nvtx *nvtx_of(const struct sq *s, const struct nvtx_key *k)
{
	return &s->nvtx[k->idx].n;
}

/* Orders m keys of one thread and start, in file order, by end, latest first, keeping file order
 * among equal ends (a stable sort). 0, or GT_ERR_NOMEM. */
static int order_by_end(const struct sq *s, struct nvtx_key *k, size_t m)
{
	if (m > 16) {
		for (size_t i = 0; i < m; i++)
			k[i].key = UINT64_MAX - nvtx_of(s, &k[i])->end;
		return gt_radix_sort(k, m, sizeof *k) ? GT_ERR_NOMEM : 0;
	}
	for (size_t i = 1; i < m; i++) {
		struct nvtx_key x = k[i];
		uint64_t end = nvtx_of(s, &x)->end;
		size_t j = i;
		for (; j && nvtx_of(s, &k[j - 1])->end < end; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
	return 0;
}

/* The keys of the ranges that have or are parents, in the order above; 0, or GT_ERR_NOMEM. */
static int nvtx_order(const struct sq *s, struct nvtx_key *k, size_t n)
{
	if (gt_radix_sort(k, n, sizeof *k))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		k[i].key = k[i].thread;
	if (gt_radix_sort(k, n, sizeof *k))
		return GT_ERR_NOMEM;
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t start = nvtx_of(s, &k[i])->start;
		for (j = i + 1; j < n && k[j].thread == k[i].thread && nvtx_of(s, &k[j])->start == start; j++)
			;
		if (j - i > 1 && order_by_end(s, k + i, j - i))
			return GT_ERR_NOMEM;
	}
	return 0;
}

static int nvtx_parents(struct sq *s)
{
	size_t n = 0;
	struct nvtx_key *k = malloc((s->nnvtx ? s->nnvtx : 1) * sizeof *k);
	uint32_t *stack = malloc((s->nnvtx ? s->nnvtx : 1) * sizeof *stack); /* nvtx_rows: n <= UINT32_MAX */
	if (!k || !stack) {
		free(k);
		free(stack);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->nnvtx; i++) {
		const struct gt_nvtx *v = &s->nvtx[i].n;
		if (v->kind == GT_NVTX_MARK || (v->kind == GT_NVTX_PUSH_POP && v->end && v->end >= v->start))
			k[n++] = (struct nvtx_key){ v->start, (uint32_t)i, v->thread_id };
	}
	int rc = nvtx_order(s, k, n);
	size_t top = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct gt_nvtx *v = nvtx_of(s, &k[i]);
		if (i && k[i].thread != k[i - 1].thread)
			top = 0;
		/* Ranges that do not contain this one can contain none after it (those start later). */
		while (top && (nvtx_of(s, &k[stack[top - 1]])->end < v->end ||
		               nvtx_of(s, &k[stack[top - 1]])->end <= v->start))
			top--;
		if (top)
			s->nvtx[k[i].idx].parent = (uint64_t)k[stack[top - 1]].idx + 1;
		if (v->kind != GT_NVTX_MARK)
			stack[top++] = (uint32_t)i;
	}
	free(k);
	free(stack);
	return rc;
}

static int nvtx_rows(struct sq *s)
{
	if (s->nnvtx > UINT32_MAX)
		return GT_ERR_TOO_LARGE;
	int rc = nvtx_parents(s);
	for (size_t i = 0; i < s->nnvtx && !rc; i++)
		rc = gt_sq_compact_nvtx(s, &s->nvtx[i].n, s->nvtx[i].parent);
	return rc;
}

/* ---- definitions ---------------------------------------------------------------------------- */

static int definition_rows(struct sq *s, const struct gt_reader *r)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < gt_reader_device_count(r); i++) {
		const char *name = NULL;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		char uuid[48];
		char *clean = gt_esc_dup(gt_esc_utf8, name ? name : "");
		if (!clean)
			return GT_ERR_NOMEM;
		gt_device_uuid_string(d, uuid, sizeof uuid);
		row_begin(s, T_DEVICES);
		put_u64(s, d->device_id);
		put_text(s, clean);
		put_text(s, uuid[0] ? uuid : NULL);
		const uint32_t u[] = { d->cc_major, d->cc_minor, d->sm_count };
		for (size_t j = 0; j < 3; j++)
			put_u64(s, u[j]);
		put_u64(s, d->global_mem_bytes);
		const uint32_t v[] = { d->sm_clock_khz, d->mem_clock_khz, d->mem_bus_width_bits, d->pcie_gen,
			               d->pcie_width, d->pcie_gen_current, d->pcie_width_current, d->l2_bytes,
			               d->max_threads_per_sm };
		for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
			put_u64(s, v[j]);
		double pm = gt_device_peak_mem_bw(d), pp = gt_device_peak_pcie_bw(d);
		if (pm > 0)
			put_real(s, pm);
		else
			put_null(s);
		if (pp > 0)
			put_real(s, pp);
		else
			put_null(s);
		rc = row_end(s, T_DEVICES);
		free(clean);
	}
	for (size_t i = 0; !rc && i < gt_reader_meta_count(r); i++) {
		const char *key, *value;
		if (gt_reader_meta_at(r, i, &key, &value) != 0)
			continue;
		char *k = gt_esc_dup(gt_esc_utf8, key), *v = gt_esc_dup(gt_esc_utf8, value);
		if (k && v) {
			row_begin(s, T_META);
			put_text(s, k);
			put_text(s, v);
			rc = row_end(s, T_META);
		} else {
			rc = GT_ERR_NOMEM;
		}
		free(k);
		free(v);
	}
	uint32_t nstr = gt_reader_string_count(r);
	for (uint32_t id = 1; !rc && id <= nstr; id++) {
		const char *v = text_of(s, r, id, 0);
		if (s->nomem)
			return GT_ERR_NOMEM;
		row_begin(s, T_STRINGS);
		put_u64(s, id);
		put_text(s, v);
		rc = row_end(s, T_STRINGS);
	}
	return rc;
}

static int info_row(struct sq *s, const char *key, const char *value)
{
	row_begin(s, T_INFO);
	put_text(s, key);
	put_text(s, value);
	return row_end(s, T_INFO);
}

static int info_rows(struct sq *s, const struct gt_reader *r, const char *trace_path)
{
	struct gt_tail t;
	gt_reader_tail(r, &t);
	char *path = gt_esc_dup(gt_esc_utf8, trace_path);
	if (!path)
		return GT_ERR_NOMEM;
	char num[32], key[64];
	const char *syn = gt_load_synthetic(r);
	snprintf(num, sizeof num, "%d", GT_SQLITE_SCHEMA_VERSION);
	int rc = info_row(s, "schema_version", num);
	rc = rc ? rc : info_row(s, "tool", "gpuanalyze " GT_TOOL_VERSION);
	rc = rc ? rc : info_row(s, "trace_path", path);
	rc = rc ? rc : info_row(s, "trace_complete", t.complete ? "1" : "0");
	snprintf(num, sizeof num, "%llu", (unsigned long long)t.lost_bytes);
	rc = rc ? rc : info_row(s, "trace_lost_bytes", num);
	rc = rc ? rc : info_row(s, "trace_synthetic", syn ? "1" : "0");
	snprintf(num, sizeof num, "%llu", (unsigned long long)s->origin);
	rc = rc ? rc : info_row(s, "origin_ns", num);
	snprintf(num, sizeof num, "%llu", (unsigned long long)(s->has_base ? s->base : 0));
	rc = rc ? rc : info_row(s, "base_ns", num);
	snprintf(num, sizeof num, "%llu", (unsigned long long)s->events);
	rc = rc ? rc : info_row(s, "events", num);
	for (int i = 0; !rc && i < T_INFO; i++) {
		snprintf(key, sizeof key, "rows.%s", tables[i].name);
		snprintf(num, sizeof num, "%llu", (unsigned long long)s->rows[i]);
		rc = info_row(s, key, num);
	}
	snprintf(num, sizeof num, "%llu", (unsigned long long)s->out_of_range);
	rc = rc ? rc : info_row(s, "out_of_range_values", num);
	free(path);
	return rc;
}

/* ---- the database --------------------------------------------------------------------------- */

int gt_sq_exec(struct sq *s, const char *sql, const char *what)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : gt_sq_fail(s, what);
}

int gt_sq_enum_case(const char *expr, const char *(*name)(int), char *buf, size_t len)
{
	const char *other = name(-1); /* what every name function calls a value it does not name */
	int n = snprintf(buf, len, "CASE %s", expr);
	/* The schema's names are fixed identifiers without quotes: spliced, not bound. */
	for (int v = 0; v < 256 && n >= 0 && (size_t)n < len; v++)
		if (strcmp(name(v), other))
			n += snprintf(buf + n, len - (size_t)n, " WHEN %d THEN '%s'", v, name(v));
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " ELSE '%s' END", other);
	return n < 0 || (size_t)n >= len;
}

/* A record table's column definitions, from its fill list: "id INTEGER PRIMARY KEY, start_ns
 * INTEGER, ...". 0, or 1 when they do not fit buf. */
static int fill_columns(enum tab t, char *buf, size_t len)
{
	const struct col *fill = NULL;
	for (size_t i = 0; i < NRECORD_TABLES; i++)
		if (record_tables[i].t == t)
			fill = record_tables[i].fill;
	size_t n = 0;
	buf[0] = '\0';
	for (size_t c = 0; fill && fill[c].fill != F_END; c++) {
		const struct col *col = &fill[c];
		int text = col->fill == F_ENUM;
		int k;
		if (col->fill == F_ID)
			k = snprintf(buf + n, len - n, "%sid INTEGER PRIMARY KEY", n ? ", " : "");
		else if (col->fill == F_TIMES)
			k = snprintf(buf + n, len - n, "%sstart_ns INTEGER, end_ns INTEGER, duration_ns INTEGER",
			             n ? ", " : "");
		else
			k = snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", col->column ? col->column : col->member,
			             text ? "TEXT" : "INTEGER");
		if (k < 0 || (size_t)k >= len - n)
			return 1;
		n += (size_t)k;
	}
	return !fill;
}

static int create_tables(struct sq *s)
{
	for (int t = 0; t < T_NTABLES; t++) {
		char sql[2048], ins[1024], made[1536];
		const char *columns = tables[t].columns;
		if (columns && !columns[0])
			continue; /* a view, made at the end over its compact table */
		if (!columns) {
			if (fill_columns((enum tab)t, made, sizeof made))
				return gt_fail(SQ_FAILED, "export: SQLite: table %s: its columns do not fit", tables[t].name);
			columns = made;
		}
		int cols = 1;
		for (const char *p = columns; *p; p++)
			cols += *p == ',';
		snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", tables[t].name, columns);
		int rc = gt_sq_exec(s, sql, "create table");
		if (rc)
			return rc;
		if (!tables[t].columns) {
			/* A record table: rows go many to a statement. */
			if ((rc = gt_sq_batch_open(s, tables[t].name, columns, &s->rbatch[t])) != 0)
				return rc;
			continue;
		}
		int n = snprintf(ins, sizeof ins, "INSERT INTO %s VALUES (?", tables[t].name);
		for (int c = 1; c < cols && n < (int)sizeof ins - 4; c++)
			n += snprintf(ins + n, sizeof ins - (size_t)n, ",?");
		snprintf(ins + n, sizeof ins - (size_t)n, ")");
		if (sqlite3_prepare_v2(s->db, ins, -1, &s->st[t], NULL) != SQLITE_OK)
			return gt_sq_fail(s, "prepare");
		s->ncols[t] = cols;
	}
	return gt_sq_compact_create(s);
}

static void sq_release(struct sq *s)
{
	gt_sq_compact_release(s);
	for (int t = 0; t < T_NTABLES; t++) {
		sqlite3_finalize(s->st[t]);
		gt_sq_batch_free(s->rbatch[t]);
	}
	for (size_t i = 0; i < s->nnames; i++) {
		free(s->names[i].clean);
		free(s->names[i].demangled);
		free(s->names[i].short_name);
	}
	free(s->names);
	free(s->nvtx);
}

#define BIG_TRACE (1u << 20)

int gt_export_sqlite(const char *trace_path, const char *db_path, const char *db_name,
                     struct gt_sqlite_result *res)
{
	memset(res, 0, sizeof *res);
	struct sq s;
	memset(&s, 0, sizeof s);
	int rc = resolve_fields(&s);
	if (rc)
		return rc;
	struct gt_reader *r;
	if ((rc = gt_load_open(&r, trace_path)) != 0)
		return rc;
	/* One thread uses the connection: no mutex around every call. */
	if (sqlite3_open_v2(db_path, &s.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                    NULL) != SQLITE_OK) {
		rc = gt_fail(GT_ERR_IO, "cannot write '%s': %s", db_name,
		             s.db ? sqlite3_errmsg(s.db) : "out of memory");
		goto done;
	}
	/* A new file, removed by the caller if anything fails: no journal, no waiting for the disk.
	 * From a trace of BIG_TRACE bytes on, pages of 16 KiB rather than SQLite's 4 KiB: a quarter of
	 * the page splits, page cache look-ups and writes for the same rows (an eighth less export
	 * time) and less room left over per page; a smaller trace's tables, most a page or two, would
	 * grow by the larger pages' unused room. */
	struct gt_tail tail;
	gt_reader_tail(r, &tail);
	rc = gt_sq_exec(&s, tail.file_bytes >= BIG_TRACE ? "PRAGMA page_size=16384" : "PRAGMA page_size=4096", "pragma");
	rc = rc ? rc : gt_sq_exec(&s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;",
	                          "pragma");
	rc = rc ? rc : gt_sq_exec(&s, "BEGIN", "begin");
	rc = rc ? rc : create_tables(&s);
	if (!rc) {
		rc = gt_load_stream(r, on_record, &s);
		if (!rc && s.failed)
			rc = SQ_FAILED;
	}
	for (int t = 0; t < T_NTABLES && !rc; t++)
		if (s.rbatch[t])
			rc = gt_sq_batch_flush(&s, s.rbatch[t]);
	if (!rc)
		rc = nvtx_rows(&s);
	if (!rc)
		rc = definition_rows(&s, r);
	if (!rc)
		rc = gt_sq_compact_finish(&s, r);
	if (!rc)
		rc = gt_sq_nsys_views(&s, r);
	if (!rc)
		rc = info_rows(&s, r, trace_path);
	rc = rc ? rc : gt_sq_exec(&s, "COMMIT", "commit");
	if (rc == GT_ERR_NOMEM && !gt_failed())
		rc = gt_fail(rc, "export: out of memory");
	else if (rc < 0 && !gt_failed())
		rc = gt_fail(rc, "export: %s", gt_strerror(rc));
done:
	for (int t = 0; t < T_NTABLES; t++)
		res->rows += s.rows[t];
	res->events = s.events;
	res->out_of_range = s.out_of_range;
	res->rows += gt_sq_metrics_release(s.metrics);
	sq_release(&s);
	if (s.db && sqlite3_close(s.db) != SQLITE_OK && !rc)
		rc = gt_fail(GT_ERR_IO, "cannot write '%s': %s", db_name, sqlite3_errmsg(s.db));
	gt_reader_close(r);
	return rc;
}
