/* export_sqlite.c: the trace as an SQLite database (export_sqlite.h; schema in gputrace-sqlite(5)).
 *
 * Each table is declared once below as its column list; the INSERT statement is derived from it,
 * so a column added there is a column the rows must fill (a row that binds too few or too many
 * fails loudly in step_row). Rows are written as records arrive, except NVTX ranges: a range's
 * parent is known only once every range of its thread is, so they are kept and written last.
 */
#include "analyze/engines/export_sqlite.h"
#include "analyze/engines/event_origin.h"

#include "analyze/support/demangle.h"
#include "analyze/support/failure.h"
#include "analyze/output/escape.h"
#include "gputrace.h"
#include "schema.h"
#include "analyze/support/kname.h"
#include "analyze/support/load.h"
#include "common/grow.h"
#include "analyze/engines/peaks.h"
#include "analyze/engines/timeline.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum tab {
	T_KERNELS, T_COPIES, T_MEMSETS, T_API, T_NVTX, T_SYNCS, T_MEMORY, T_GRAPHS, T_OVERHEADS,
	T_DROPPED, T_PROCESS, T_CLOCKS, T_CLOCK_SYNCS, T_DEVICES, T_META, T_STRINGS, T_INFO, T_NTABLES
};

static const struct table {
	const char *name;
	const char *columns;     /* no comma inside a column's definition: they are counted */
} tables[T_NTABLES] = {
	[T_KERNELS] = { "kernels",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"queued_ns INTEGER, submitted_ns INTEGER, name_id INTEGER, name TEXT, demangled TEXT, "
		"short_name TEXT, device_id INTEGER, context_id INTEGER, stream_id INTEGER, "
		"correlation_id INTEGER, graph_id INTEGER, graph_node_id INTEGER, grid_x INTEGER, "
		"grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, "
		"cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER, static_smem_bytes INTEGER, "
		"dynamic_smem_bytes INTEGER, local_mem_bytes_per_thread INTEGER, "
		"registers_per_thread INTEGER, from_graph INTEGER, cooperative INTEGER, "
		"bad_times INTEGER, flags INTEGER" },
	[T_COPIES] = { "copies",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"bytes INTEGER, copy_kind TEXT, src_kind TEXT, dst_kind TEXT, async INTEGER, "
		"tool INTEGER, device_id INTEGER, dst_device_id INTEGER, context_id INTEGER, "
		"stream_id INTEGER, correlation_id INTEGER, graph_id INTEGER, graph_node_id INTEGER" },
	[T_MEMSETS] = { "memsets",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"bytes INTEGER, value INTEGER, mem_kind TEXT, async INTEGER, device_id INTEGER, "
		"context_id INTEGER, stream_id INTEGER, correlation_id INTEGER, graph_id INTEGER, "
		"graph_node_id INTEGER" },
	[T_API] = { "api_calls",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"name_id INTEGER, name TEXT, domain TEXT, cbid INTEGER, thread_id INTEGER, "
		"process_id INTEGER, correlation_id INTEGER, return_value INTEGER" },
	[T_NVTX] = { "nvtx_ranges",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"kind TEXT, name_id INTEGER, name TEXT, domain_id INTEGER, domain TEXT, "
		"thread_id INTEGER, depth INTEGER, parent_id INTEGER, range_id INTEGER, color INTEGER" },
	[T_SYNCS] = { "syncs",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"kind TEXT, context_id INTEGER, stream_id INTEGER, event_id INTEGER, "
		"correlation_id INTEGER" },
	[T_MEMORY] = { "memory_ops",
		"id INTEGER PRIMARY KEY, timestamp_ns INTEGER, op TEXT, mem_kind TEXT, address INTEGER, "
		"bytes INTEGER, device_id INTEGER, context_id INTEGER, stream_id INTEGER, "
		"process_id INTEGER, correlation_id INTEGER" },
	[T_GRAPHS] = { "graph_launches",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"graph_id INTEGER, correlation_id INTEGER, stream_id INTEGER" },
	[T_OVERHEADS] = { "overheads",
		"id INTEGER PRIMARY KEY, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, "
		"kind INTEGER, object_kind INTEGER, object_id INTEGER" },
	[T_DROPPED] = { "dropped",
		"id INTEGER PRIMARY KEY, timestamp_ns INTEGER, count INTEGER, reason TEXT, "
		"context_id INTEGER, stream_id INTEGER" },
	[T_PROCESS] = { "process_events",
		"id INTEGER PRIMARY KEY, timestamp_ns INTEGER, host_ns INTEGER, pid INTEGER, "
		"event TEXT, status INTEGER" },
	[T_CLOCKS] = { "clock_samples",
		"id INTEGER PRIMARY KEY, timestamp_ns INTEGER, device_id INTEGER, sm_clock_mhz INTEGER, "
		"mem_clock_mhz INTEGER, temperature_c INTEGER, power_mw INTEGER, "
		"utilization_gpu_pct INTEGER, throttle_reasons INTEGER" },
	[T_CLOCK_SYNCS] = { "clock_syncs",
		"id INTEGER PRIMARY KEY, cupti_ns INTEGER, realtime_ns INTEGER, monotonic_ns INTEGER" },
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

/* Indexes for the joins SQL over a trace makes first: a GPU operation to its API call. */
static const char *const indexes =
	"CREATE INDEX kernels_correlation ON kernels(correlation_id);"
	"CREATE INDEX copies_correlation ON copies(correlation_id);"
	"CREATE INDEX memsets_correlation ON memsets(correlation_id);"
	"CREATE INDEX api_calls_correlation ON api_calls(correlation_id);";

struct names {                   /* per string id, made on first use */
	char *clean;             /* the string as well-formed UTF-8 */
	char *demangled, *short_name; /* kernel names only */
};

struct nvtx_row {                /* a range kept until every range is known */
	struct gt_nvtx n;
	uint64_t parent;         /* row id of the enclosing range, 0: none */
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *st[T_NTABLES];
	int ncols[T_NTABLES];
	uint64_t rows[T_NTABLES];
	sqlite3_stmt *cur;       /* the row being bound */
	int col;
	int failed;              /* an SQLite error was held (SQ_FAILED) */
	int nomem;
	uint64_t out_of_range;
	uint64_t events, origin;
	struct names *names;
	size_t nnames;
	struct nvtx_row *nvtx;
	size_t nnvtx, capnvtx;
	const char *(*enum_name[T_NTABLES])(int); /* the enum field of the schema, where a table has one */
};

/* What a row or a statement returns when SQLite failed: the failure is held (failure.h), once, and
 * s->failed says so. */
#define SQ_FAILED GT_ERR_IO

static int sql_fail(struct sq *s, const char *what)
{
	if (!s->failed)
		gt_fail(SQ_FAILED, "export: SQLite: %s: %s", what, sqlite3_errmsg(s->db));
	s->failed = 1;
	return SQ_FAILED;
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
		sql_fail(s, "bind");
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

/* start, end, and end - start where the times are good. */
static void put_times(struct sq *s, uint64_t start, uint64_t end, int good)
{
	put_u64(s, start);
	put_u64(s, end);
	if (good && end >= start)
		put_u64(s, end - start);
	else
		put_null(s);
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
		return sql_fail(s, tables[t].name);
	s->rows[t]++;
	return s->failed ? SQ_FAILED : 0;
}

/* The next row id of table t (1, 2, ...), bound as its first column. */
static void put_id(struct sq *s, enum tab t) { put_u64(s, s->rows[t] + 1); }

/* ---- names ---------------------------------------------------------------------------------- */

static struct names *names_of(struct sq *s, const struct gt_reader *r, uint32_t id, int kernel)
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
static const char *text_of(struct sq *s, const struct gt_reader *r, uint32_t id, int kernel, int zero_is_null)
{
	if (!id && zero_is_null)
		return NULL;
	struct names *c = names_of(s, r, id, kernel);
	if (!c)
		s->nomem = 1;
	return c ? c->clean : "";
}

/* ---- records -------------------------------------------------------------------------------- */

static int kernel_row(struct sq *s, const struct gt_reader *r, const struct gt_kernel *k)
{
	struct names *c = names_of(s, r, k->name_id, 1);
	if (!c)
		return GT_ERR_NOMEM;
	int q = (k->flags & GT_KERNEL_HAS_QUEUED) != 0, bad = (k->flags & GT_KERNEL_BAD_TIMES) != 0;
	row_begin(s, T_KERNELS);
	put_id(s, T_KERNELS);
	put_times(s, k->start, k->end, !bad);
	if (q) {
		put_u64(s, k->queued);
		put_u64(s, k->submitted);
	} else {
		put_null(s);
		put_null(s);
	}
	put_u64(s, k->name_id);
	put_text(s, c->clean);
	put_text(s, c->demangled);
	put_text(s, c->short_name);
	const uint32_t u[] = { k->device_id, k->context_id, k->stream_id, k->correlation_id, k->graph_id };
	for (size_t i = 0; i < 5; i++)
		put_u64(s, u[i]);
	put_u64(s, k->graph_node_id);
	const uint32_t dims[] = { k->grid_x, k->grid_y, k->grid_z, k->block_x, k->block_y, k->block_z,
		                  k->cluster_x, k->cluster_y, k->cluster_z, k->static_smem, k->dynamic_smem,
		                  k->local_mem, k->registers };
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
		put_u64(s, dims[i]);
	put_i64(s, (k->flags & GT_KERNEL_FROM_GRAPH) != 0);
	put_i64(s, (k->flags & GT_KERNEL_COOPERATIVE) != 0);
	put_i64(s, bad || k->end < k->start);
	put_u64(s, k->flags);
	return row_end(s, T_KERNELS);
}

static int copy_row(struct sq *s, const struct gt_memcpy *m)
{
	row_begin(s, T_COPIES);
	put_id(s, T_COPIES);
	put_times(s, m->start, m->end, 1);
	put_u64(s, m->bytes);
	put_text(s, gt_copy_kind_name(m->copy_kind));
	put_text(s, gt_mem_kind_name(m->src_kind));
	put_text(s, gt_mem_kind_name(m->dst_kind));
	put_i64(s, (m->flags & GT_COPY_ASYNC) != 0);
	put_i64(s, (m->flags & GT_COPY_TOOL) != 0);
	const uint32_t u[] = { m->device_id, m->dst_device_id, m->context_id, m->stream_id, m->correlation_id,
		               m->graph_id };
	for (size_t i = 0; i < 6; i++)
		put_u64(s, u[i]);
	put_u64(s, m->graph_node_id);
	return row_end(s, T_COPIES);
}

static int memset_row(struct sq *s, const struct gt_memset *m)
{
	row_begin(s, T_MEMSETS);
	put_id(s, T_MEMSETS);
	put_times(s, m->start, m->end, 1);
	put_u64(s, m->bytes);
	put_u64(s, m->value);
	put_text(s, gt_mem_kind_name(m->mem_kind));
	put_i64(s, (m->flags & GT_COPY_ASYNC) != 0);
	const uint32_t u[] = { m->device_id, m->context_id, m->stream_id, m->correlation_id, m->graph_id };
	for (size_t i = 0; i < 5; i++)
		put_u64(s, u[i]);
	put_u64(s, m->graph_node_id);
	return row_end(s, T_MEMSETS);
}

static int api_row(struct sq *s, const struct gt_reader *r, const struct gt_api *a)
{
	const char *name = text_of(s, r, a->name_id, 0, 0);
	row_begin(s, T_API);
	put_id(s, T_API);
	put_times(s, a->start, a->end, 1);
	put_u64(s, a->name_id);
	put_text(s, name);
	put_text(s, s->enum_name[T_API](a->domain));
	put_u64(s, a->cbid);
	put_u64(s, a->thread_id);
	put_u64(s, a->process_id);
	put_u64(s, a->correlation_id);
	put_i64(s, a->return_value);
	return s->nomem ? GT_ERR_NOMEM : row_end(s, T_API);
}

static int sync_row(struct sq *s, const struct gt_sync *y)
{
	row_begin(s, T_SYNCS);
	put_id(s, T_SYNCS);
	put_times(s, y->start, y->end, 1);
	put_text(s, gt_sync_kind_name(y->kind));
	put_u64(s, y->context_id);
	if (y->stream_id == 0xffffffffu)
		put_null(s); /* not on one stream */
	else
		put_u64(s, y->stream_id);
	put_u64(s, y->event_id);
	put_u64(s, y->correlation_id);
	return row_end(s, T_SYNCS);
}

static int memory_row(struct sq *s, const struct gt_memory *m)
{
	row_begin(s, T_MEMORY);
	put_id(s, T_MEMORY);
	put_u64(s, m->timestamp);
	put_text(s, s->enum_name[T_MEMORY](m->op));
	put_text(s, gt_mem_kind_name(m->mem_kind));
	put_u64(s, m->address);
	put_u64(s, m->bytes);
	const uint32_t u[] = { m->device_id, m->context_id, m->stream_id, m->process_id, m->correlation_id };
	for (size_t i = 0; i < 5; i++)
		put_u64(s, u[i]);
	return row_end(s, T_MEMORY);
}

static int other_row(struct sq *s, const struct gt_event *ev)
{
	enum tab t;
	switch (ev->type) {
	case GT_REC_GRAPH_LAUNCH: {
		const struct gt_graph_launch *g = &ev->u.graph_launch;
		row_begin(s, t = T_GRAPHS);
		put_id(s, t);
		put_times(s, g->start, g->end, 1);
		put_u64(s, g->graph_id);
		put_u64(s, g->correlation_id);
		put_u64(s, g->stream_id);
		break;
	}
	case GT_REC_OVERHEAD: {
		const struct gt_overhead *o = &ev->u.overhead;
		row_begin(s, t = T_OVERHEADS);
		put_id(s, t);
		put_times(s, o->start, o->end, 1);
		put_u64(s, o->kind);
		put_u64(s, o->object_kind);
		put_u64(s, o->object_id);
		break;
	}
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		row_begin(s, t = T_DROPPED);
		put_id(s, t);
		put_u64(s, d->timestamp);
		put_u64(s, d->count);
		put_text(s, gt_drop_reason_name((int)d->reason));
		put_u64(s, d->context_id);
		put_u64(s, d->stream_id);
		break;
	}
	case GT_REC_PROCESS: {
		const struct gt_process *p = &ev->u.process;
		row_begin(s, t = T_PROCESS);
		put_id(s, t);
		put_u64(s, p->timestamp);
		put_u64(s, p->host_ns);
		put_u64(s, p->pid);
		put_text(s, s->enum_name[T_PROCESS]((int)p->event));
		put_i64(s, p->status);
		break;
	}
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		row_begin(s, t = T_CLOCKS);
		put_id(s, t);
		put_u64(s, c->timestamp);
		const uint32_t u[] = { c->device_id, c->sm_clock_mhz, c->mem_clock_mhz, c->temperature_c, c->power_mw,
			               c->utilization_gpu };
		for (size_t i = 0; i < 6; i++)
			put_u64(s, u[i]);
		put_u64(s, c->throttle_reasons);
		break;
	}
	case GT_REC_CLOCK_SYNC: {
		const struct gt_clock_sync *c = &ev->u.clock_sync;
		row_begin(s, t = T_CLOCK_SYNCS);
		put_id(s, t);
		put_u64(s, c->cupti_ns);
		put_u64(s, c->realtime_ns);
		put_u64(s, c->monotonic_ns);
		break;
	}
	default:
		return 0; /* definitions come from the reader at the end; unknown types are skipped */
	}
	return row_end(s, t);
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
	int rc;
	switch (ev->type) {
	case GT_REC_KERNEL: rc = kernel_row(s, r, &ev->u.kernel); break;
	case GT_REC_MEMCPY: rc = copy_row(s, &ev->u.memcpy); break;
	case GT_REC_MEMSET: rc = memset_row(s, &ev->u.memset); break;
	case GT_REC_API: rc = api_row(s, r, &ev->u.api); break;
	case GT_REC_SYNC: rc = sync_row(s, &ev->u.sync); break;
	case GT_REC_MEMORY: rc = memory_row(s, &ev->u.memory); break;
	case GT_REC_NVTX: rc = keep_nvtx(s, &ev->u.nvtx); break;
	default: rc = other_row(s, ev); break;
	}
	return rc == SQ_FAILED ? 0 : rc; /* an SQLite failure: s->failed says so */
}

/* ---- NVTX parents ----------------------------------------------------------------------------
 * A range's parent is the innermost closed push/pop range of its thread that contains it (start
 * not after its start, end not before its end; of two equal ranges the earlier in the file is the
 * parent). Marks get a parent too; start/end ranges and ranges never closed neither have one nor
 * are one. Ranges sorted by thread, start, and longest first, then one stack per thread: O(n log n)
 * whatever the nesting, since each range is pushed and popped once. */
struct nvtx_key {
	uint32_t thread, idx;
	uint64_t start, end;
};

static int cmp_nvtx_key(const void *pa, const void *pb)
{
	const struct nvtx_key *a = pa, *b = pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int nvtx_parents(struct sq *s)
{
	size_t n = 0;
	struct nvtx_key *k = malloc((s->nnvtx ? s->nnvtx : 1) * sizeof *k);
	size_t *stack = malloc((s->nnvtx ? s->nnvtx : 1) * sizeof *stack);
	if (!k || !stack) {
		free(k);
		free(stack);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->nnvtx; i++) {
		const struct gt_nvtx *v = &s->nvtx[i].n;
		if (v->kind == GT_NVTX_MARK || (v->kind == GT_NVTX_PUSH_POP && v->end && v->end >= v->start))
			k[n++] = (struct nvtx_key){ v->thread_id, (uint32_t)i, v->start, v->end };
	}
	qsort(k, n, sizeof *k, cmp_nvtx_key);
	size_t top = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && k[i].thread != k[i - 1].thread)
			top = 0;
		/* Ranges that do not contain this one can contain none after it (those start later). */
		while (top && (k[stack[top - 1]].end < k[i].end || k[stack[top - 1]].end <= k[i].start))
			top--;
		if (top)
			s->nvtx[k[i].idx].parent = (uint64_t)k[stack[top - 1]].idx + 1;
		if (s->nvtx[k[i].idx].n.kind != GT_NVTX_MARK)
			stack[top++] = i;
	}
	free(k);
	free(stack);
	return 0;
}

static int nvtx_rows(struct sq *s, const struct gt_reader *r)
{
	if (s->nnvtx > UINT32_MAX)
		return GT_ERR_TOO_LARGE;
	int rc = nvtx_parents(s);
	for (size_t i = 0; i < s->nnvtx && !rc; i++) {
		const struct gt_nvtx *v = &s->nvtx[i].n;
		const char *name = text_of(s, r, v->name_id, 0, 0);
		const char *domain = text_of(s, r, v->domain_id, 0, 1);
		if (s->nomem)
			return GT_ERR_NOMEM;
		row_begin(s, T_NVTX);
		put_id(s, T_NVTX);
		int closed = v->kind == GT_NVTX_MARK || v->end != 0;
		put_u64(s, v->start);
		if (closed)
			put_u64(s, v->end);
		else
			put_null(s); /* never closed */
		if (closed && v->end >= v->start)
			put_u64(s, v->end - v->start);
		else
			put_null(s);
		put_text(s, s->enum_name[T_NVTX](v->kind));
		put_u64(s, v->name_id);
		put_text(s, name);
		put_u64(s, v->domain_id);
		put_text(s, domain);
		put_u64(s, v->thread_id);
		put_u64(s, v->depth);
		if (s->nvtx[i].parent)
			put_u64(s, s->nvtx[i].parent);
		else
			put_null(s);
		put_u64(s, v->range_id);
		put_u64(s, v->color);
		rc = row_end(s, T_NVTX);
	}
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
		const char *v = text_of(s, r, id, 0, 0);
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

static int exec(struct sq *s, const char *sql, const char *what)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sql_fail(s, what);
}

static int create_tables(struct sq *s)
{
	for (int t = 0; t < T_NTABLES; t++) {
		char sql[2048], ins[1024];
		int cols = 1;
		for (const char *p = tables[t].columns; *p; p++)
			cols += *p == ',';
		snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", tables[t].name, tables[t].columns);
		int rc = exec(s, sql, "create table");
		if (rc)
			return rc;
		int n = snprintf(ins, sizeof ins, "INSERT INTO %s VALUES (?", tables[t].name);
		for (int c = 1; c < cols && n < (int)sizeof ins - 4; c++)
			n += snprintf(ins + n, sizeof ins - (size_t)n, ",?");
		snprintf(ins + n, sizeof ins - (size_t)n, ")");
		if (sqlite3_prepare_v2(s->db, ins, -1, &s->st[t], NULL) != SQLITE_OK)
			return sql_fail(s, "prepare");
		s->ncols[t] = cols;
	}
	return 0;
}

static const char *(*enum_of(int type, const char *field))(int)
{
	size_t n;
	const struct gt_field *f = gt_fields_of(type, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, field) && f[i].enum_name)
			return f[i].enum_name;
	return gt_mem_kind_name; /* not reached: the schema gives every one of these fields its names */
}

/* Removes what is at path when it is a regular file (the export replaces it); refuses others, the
 * failure held. */
static int clear_path(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return errno == ENOENT ? 0 : gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return gt_fail(GT_ERR_ARG, "cannot write '%s': not a regular file (an SQLite database is a file)",
		               path);
	if (unlink(path) != 0)
		return gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

static void sq_release(struct sq *s)
{
	for (int t = 0; t < T_NTABLES; t++)
		sqlite3_finalize(s->st[t]);
	for (size_t i = 0; i < s->nnames; i++) {
		free(s->names[i].clean);
		free(s->names[i].demangled);
		free(s->names[i].short_name);
	}
	free(s->names);
	free(s->nvtx);
}

int gt_export_sqlite(const char *trace_path, const char *db_path, struct gt_sqlite_result *res)
{
	memset(res, 0, sizeof *res);
	struct sq s;
	memset(&s, 0, sizeof s);
	s.enum_name[T_API] = enum_of(GT_REC_API, "domain");
	s.enum_name[T_NVTX] = enum_of(GT_REC_NVTX, "kind");
	s.enum_name[T_MEMORY] = enum_of(GT_REC_MEMORY, "op");
	s.enum_name[T_PROCESS] = enum_of(GT_REC_PROCESS, "event");
	struct gt_reader *r;
	int rc = gt_load_open(&r, trace_path);
	if (rc)
		return rc;
	if ((rc = clear_path(db_path)) != 0) {
		gt_reader_close(r);
		return rc;
	}
	int created = 0;
	if (sqlite3_open_v2(db_path, &s.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		rc = gt_fail(GT_ERR_IO, "cannot write '%s': %s", db_path,
		             s.db ? sqlite3_errmsg(s.db) : "out of memory");
		goto done;
	}
	created = 1;
	/* A new file, removed if anything fails: no journal, no waiting for the disk. */
	rc = exec(&s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;", "pragma");
	rc = rc ? rc : exec(&s, "BEGIN", "begin");
	rc = rc ? rc : create_tables(&s);
	if (!rc) {
		rc = gt_load_stream(r, on_record, &s);
		if (!rc && s.failed)
			rc = SQ_FAILED;
	}
	if (!rc)
		rc = nvtx_rows(&s, r);
	if (!rc)
		rc = definition_rows(&s, r);
	if (!rc)
		rc = info_rows(&s, r, trace_path);
	rc = rc ? rc : exec(&s, indexes, "create index");
	rc = rc ? rc : exec(&s, "COMMIT", "commit");
	if (rc == GT_ERR_NOMEM && !gt_failed())
		rc = gt_fail(rc, "export: out of memory");
	else if (rc < 0 && !gt_failed())
		rc = gt_fail(rc, "export: %s", gt_strerror(rc));
done:
	for (int t = 0; t < T_NTABLES; t++)
		res->rows += s.rows[t];
	res->events = s.events;
	res->out_of_range = s.out_of_range;
	sq_release(&s);
	if (s.db && sqlite3_close(s.db) != SQLITE_OK && !rc)
		rc = gt_fail(GT_ERR_IO, "cannot write '%s': %s", db_path, sqlite3_errmsg(s.db));
	if (rc && created && unlink(db_path) != 0 && errno != ENOENT)
		gt_fail_warn("cannot remove the partial database '%s': %s", db_path, strerror(errno));
	gt_reader_close(r);
	return rc;
}
