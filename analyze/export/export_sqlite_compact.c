/* export_sqlite_compact.c: kernels, copies, memsets, API calls and NVTX ranges, most of a trace's
 * records, in compact tables behind views that keep the documented tables' names and columns
 * (gputrace-sqlite(5)).
 *
 * A database row costs a byte of header per column and the bytes of each value, so the compact
 * rows hold numbers only, small ones where they can: times as offsets from the first time seen
 * (base_ns in export_info) and as a length, kinds as their numbers, names as string ids, and for a
 * kernel what its launches share (name, device, context, stream, graph, grid, block, cluster,
 * shared and local memory, registers) as the id of a row of kernel_configs. The views add the base
 * back, name the kinds, join the names, and derive the durations and flag columns. A kernel's
 * demangled and short names are strings of their own (after the trace's in the strings table,
 * each text once), so that the views under Nsight Systems' names can give them as ids.
 *
 * Rows are inserted BATCH to a statement (export_sqlite_batch.h); one index, api_rows
 * (correlation_id), by which a GPU operation finds the call that issued it, made as the rows come
 * where it can be (below). Memory: one batch per table, and a kernel_configs entry (about 100
 * bytes) per distinct configuration.
 */
#include "analyze/export/export_sqlite_internal.h"
#include "analyze/export/export_sqlite_batch.h"

#include "traces/schema.h"
#include "analyze/support/failure.h"
#include "common/fnv.h"
#include "common/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel that ends before it starts: kept with its flags in kernel_rows (above the format's
 * 16 bits), so that bad_times and duration_ns need no comparison of times that may be NULL. */
#define ENDS_BEFORE 0x10000u

static const char *const compact_ddl[C_NTABLES][2] = {
	[C_KERNELS] = { "kernel_rows",
		"id INTEGER PRIMARY KEY, start_off_ns INTEGER, length_ns INTEGER, config_id INTEGER, "
		"correlation_id INTEGER, graph_node_id INTEGER, queued_off_ns INTEGER, "
		"submitted_off_ns INTEGER, flags INTEGER" },
	[C_COPIES] = { "copy_rows",
		"id INTEGER PRIMARY KEY, start_off_ns INTEGER, length_ns INTEGER, bytes INTEGER, "
		"copy_kind INTEGER, src_kind INTEGER, dst_kind INTEGER, flags INTEGER, device_id INTEGER, "
		"dst_device_id INTEGER, context_id INTEGER, stream_id INTEGER, correlation_id INTEGER, "
		"graph_id INTEGER, graph_node_id INTEGER" },
	[C_MEMSETS] = { "memset_rows",
		"id INTEGER PRIMARY KEY, start_off_ns INTEGER, length_ns INTEGER, bytes INTEGER, "
		"value INTEGER, mem_kind INTEGER, flags INTEGER, device_id INTEGER, context_id INTEGER, "
		"stream_id INTEGER, correlation_id INTEGER, graph_id INTEGER, graph_node_id INTEGER" },
	[C_API] = { "api_rows",
		"id INTEGER PRIMARY KEY, start_off_ns INTEGER, length_ns INTEGER, name_id INTEGER, "
		"domain INTEGER, cbid INTEGER, thread_id INTEGER, process_id INTEGER, "
		"correlation_id INTEGER, return_value INTEGER" },
	[C_NVTX] = { "nvtx_rows",
		"id INTEGER PRIMARY KEY, start_off_ns INTEGER, length_ns INTEGER, kind INTEGER, "
		"name_id INTEGER, domain_id INTEGER, thread_id INTEGER, depth INTEGER, parent_id INTEGER, "
		"range_id INTEGER, color INTEGER" },
};

static const char *const configs_ddl =
	"CREATE TABLE kernel_configs (id INTEGER PRIMARY KEY, name_id INTEGER, demangled_id INTEGER, "
	"short_name_id INTEGER, device_id INTEGER, context_id INTEGER, stream_id INTEGER, "
	"graph_id INTEGER, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, "
	"block_y INTEGER, block_z INTEGER, cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER, "
	"static_smem_bytes INTEGER, dynamic_smem_bytes INTEGER, local_mem_bytes_per_thread INTEGER, "
	"registers_per_thread INTEGER)";

int gt_sq_compact_create(struct sq *s)
{
	for (int c = 0; c < C_NTABLES; c++) {
		char sql[1024];
		snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", compact_ddl[c][0], compact_ddl[c][1]);
		int rc = gt_sq_exec(s, sql, "create table");
		rc = rc ? rc : gt_sq_batch_open(s, compact_ddl[c][0], compact_ddl[c][1], &s->batch[c]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- values --------------------------------------------------------------------------------- */

/* The time t as its offset from the base (the first time seen is the base), or NULL past
 * INT64_MAX (counted). Both are below 2^63, so the offset and the view's sum fit an int64. */
static inline void put_off(struct sq *s, struct sq_batch *b, int c, uint64_t t)
{
	if (t > (uint64_t)INT64_MAX) {
		s->out_of_range++;
		gt_sq_put_null(b, c);
		return;
	}
	if (!s->has_base) {
		s->base = t;
		s->has_base = 1;
	}
	gt_sq_put(b, c, (int64_t)t - (int64_t)s->base);
}

/* A new row: start at column 0 as an offset, end - start at 1 (signed; NULL where either is out of
 * range). */
static inline struct sq_batch *row_times(struct sq *s, int c, uint64_t start, uint64_t end)
{
	struct sq_batch *b = s->batch[c];
	gt_sq_row_begin(b);
	put_off(s, b, 0, start);
	if (end > (uint64_t)INT64_MAX) {
		s->out_of_range++;
		gt_sq_put_null(b, 1);
	} else if (start > (uint64_t)INT64_MAX) {
		gt_sq_put_null(b, 1);
	} else {
		gt_sq_put(b, 1, (int64_t)end - (int64_t)start);
	}
	return b;
}

/* ---- kernel configurations ------------------------------------------------------------------ */

static uint64_t config_hash(const struct kconfig *k)
{
	uint32_t w[sizeof *k / 4];
	memcpy(w, k, sizeof w);
	uint64_t h = GT_FNV1A64_BASIS;
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

static int config_eq(const void *ctx, size_t index, const void *key)
{
	const struct sq *s = ctx;
	return !memcmp(&s->conf[index], key, sizeof s->conf[index]);
}

static uint64_t config_rehash(const void *ctx, size_t index)
{
	const struct sq *s = ctx;
	return s->conf_hash[index];
}

/* The index of k in s->conf, added when new; SIZE_MAX when out of memory or past the slots' cap. */
static size_t config_of(struct sq *s, const struct kconfig *k)
{
	uint64_t h = config_hash(k);
	size_t i = gt_slots_find(&s->conf_slots, h, config_eq, s, k);
	if (i != GT_SLOTS_NONE)
		return i;
	size_t cap = s->capconf;
	struct kconfig *c = gt_grow(s->conf, &cap, s->nconf, sizeof *c, 64);
	if (!c)
		return SIZE_MAX;
	s->conf = c;
	if (cap != s->capconf) {
		uint64_t *hs = realloc(s->conf_hash, cap * sizeof *hs);
		if (!hs)
			return SIZE_MAX;
		s->conf_hash = hs;
		s->capconf = cap;
	}
	i = s->nconf;
	s->conf[i] = *k;
	s->conf_hash[i] = h;
	if (gt_slots_add(&s->conf_slots, h, i, config_rehash, s))
		return SIZE_MAX;
	s->nconf++;
	return i;
}

/* ---- rows ----------------------------------------------------------------------------------- */

static int kernel_row(struct sq *s, const struct gt_kernel *k)
{
	const struct kconfig key = {
		k->name_id, k->device_id, k->context_id, k->stream_id, k->graph_id,
		{ k->grid_x, k->grid_y, k->grid_z }, { k->block_x, k->block_y, k->block_z },
		{ k->cluster_x, k->cluster_y, k->cluster_z },
		k->static_smem, k->dynamic_smem, k->local_mem, k->registers,
	};
	size_t c = config_of(s, &key);
	if (c == SIZE_MAX)
		return s->nconf >= GT_SLOTS_MAX ? GT_ERR_TOO_LARGE : GT_ERR_NOMEM;
	s->rows[T_KERNELS]++;
	struct sq_batch *b = row_times(s, C_KERNELS, k->start, k->end);
	gt_sq_put(b, 2, (int64_t)c + 1);
	gt_sq_put(b, 3, k->correlation_id);
	gt_sq_put_u(s, b, 4, k->graph_node_id);
	if (k->flags & GT_KERNEL_HAS_QUEUED) {
		put_off(s, b, 5, k->queued);
		put_off(s, b, 6, k->submitted);
	} else {
		gt_sq_put_null(b, 5);
		gt_sq_put_null(b, 6);
	}
	gt_sq_put(b, 7, k->flags | (k->end < k->start ? ENDS_BEFORE : 0u));
	return gt_sq_row_done(s, b);
}

static int copy_row(struct sq *s, const struct gt_memcpy *m)
{
	s->rows[T_COPIES]++;
	struct sq_batch *b = row_times(s, C_COPIES, m->start, m->end);
	gt_sq_put_u(s, b, 2, m->bytes);
	const int64_t v[] = { m->copy_kind, m->src_kind, m->dst_kind, m->flags, m->device_id,
		              m->dst_device_id, m->context_id, m->stream_id, m->correlation_id, m->graph_id };
	for (int c = 0; c < (int)(sizeof v / sizeof v[0]); c++)
		gt_sq_put(b, c + 3, v[c]);
	gt_sq_put_u(s, b, 13, m->graph_node_id);
	return gt_sq_row_done(s, b);
}

static int memset_row(struct sq *s, const struct gt_memset *m)
{
	s->rows[T_MEMSETS]++;
	struct sq_batch *b = row_times(s, C_MEMSETS, m->start, m->end);
	gt_sq_put_u(s, b, 2, m->bytes);
	const int64_t v[] = { m->value, m->mem_kind, m->flags, m->device_id, m->context_id, m->stream_id,
		              m->correlation_id, m->graph_id };
	for (int c = 0; c < (int)(sizeof v / sizeof v[0]); c++)
		gt_sq_put(b, c + 3, v[c]);
	gt_sq_put_u(s, b, 11, m->graph_node_id);
	return gt_sq_row_done(s, b);
}

/* ---- the index ------------------------------------------------------------------------------
 * The one index, api_rows(correlation_id). Made over a full table, SQLite passes every entry
 * through its sorter (each a record allocated, compared and written out again): more than a tenth
 * of the export. Made before the rows instead, each entry is put where the index ends, since the
 * calls' correlation ids mostly rise as they are written (a call of another thread a little
 * lower), and a B-tree append costs little. So the index is made just before the first batch of
 * API rows is written, once the base is known, with the views before it: the schema then lists
 * views and index in the same order as when all are made at the end. Ids far below the highest
 * yet (a hostile trace's, or a thread's calls written much later) would each cost a page of the
 * index read and written again: past a few of those the index is dropped and made at the end. */
#define CORR_NEAR 65536u         /* an id this far below the highest yet still lands near the end */
#define FAR_FEW 4096u            /* far ids past this many, and past a 64th of the rows: made at the end */

static const char index_sql[] = "CREATE INDEX api_rows_correlation ON api_rows(correlation_id)";

static int views(struct sq *s);

static int views_and_index(struct sq *s)
{
	int rc = views(s);
	rc = rc ? rc : gt_sq_exec(s, index_sql, "create index");
	s->views_made = 1;
	s->index_live = !rc;
	return rc;
}

/* Before the API row with correlation id corr is kept in b: the index made or dropped as the rule
 * above says; 0, or SQ_FAILED (held). */
static int index_as_rows_come(struct sq *s, const struct sq_batch *b, uint32_t corr)
{
	if (corr > s->corr_max)
		s->corr_max = corr;
	else if ((uint64_t)corr + CORR_NEAR < s->corr_max && ++s->corr_far > FAR_FEW &&
	         s->corr_far > s->rows[T_API] / 64 && s->index_live) {
		s->index_live = 0;
		return gt_sq_exec(s, "DROP INDEX api_rows_correlation", "drop index");
	}
	if (b->n == BATCH - 1 && !s->views_made && s->has_base)
		return views_and_index(s);
	return 0;
}

static int api_row(struct sq *s, const struct gt_api *a)
{
	s->rows[T_API]++;
	struct sq_batch *b = row_times(s, C_API, a->start, a->end);
	if (index_as_rows_come(s, b, a->correlation_id))
		return SQ_FAILED;
	gt_sq_put(b, 2, a->name_id);
	gt_sq_put(b, 3, a->domain);
	gt_sq_put(b, 4, a->cbid);
	gt_sq_put_u(s, b, 5, a->thread_id);
	gt_sq_put(b, 6, a->process_id);
	gt_sq_put(b, 7, a->correlation_id);
	gt_sq_put(b, 8, a->return_value);
	return gt_sq_row_done(s, b);
}

int gt_sq_compact_nvtx(struct sq *s, const struct gt_nvtx *v, uint64_t parent)
{
	s->rows[T_NVTX]++;
	/* A range never closed has no end (0 in the record): no length. */
	int closed = v->kind == GT_NVTX_MARK || v->end != 0;
	struct sq_batch *b = row_times(s, C_NVTX, v->start, closed ? v->end : v->start);
	if (!closed)
		gt_sq_put_null(b, 1);
	const int64_t u[] = { v->kind, v->name_id, v->domain_id, v->thread_id, v->depth };
	for (int c = 0; c < (int)(sizeof u / sizeof u[0]); c++)
		gt_sq_put(b, c + 2, u[c]);
	if (parent)
		gt_sq_put_u(s, b, 7, parent);
	else
		gt_sq_put_null(b, 7);
	gt_sq_put_u(s, b, 8, v->range_id);
	gt_sq_put(b, 9, v->color);
	return gt_sq_row_done(s, b) < 0 ? SQ_FAILED : 0;
}

int gt_sq_compact_row(struct sq *s, const struct gt_event *ev)
{
	switch (ev->type) {
	case GT_REC_KERNEL: return kernel_row(s, &ev->u.kernel);
	case GT_REC_MEMCPY: return copy_row(s, &ev->u.memcpy);
	case GT_REC_MEMSET: return memset_row(s, &ev->u.memset);
	case GT_REC_API: return api_row(s, &ev->u.api);
	default: return 0;
	}
}

/* ---- at the end: name forms, configurations, views ------------------------------------------ */

static int form_eq(const void *ctx, size_t index, const void *key)
{
	const struct sq *s = ctx;
	return !strcmp(s->forms[index].text, key);
}

static uint64_t form_rehash(const void *ctx, size_t index)
{
	const struct sq *s = ctx;
	return s->forms[index].hash;
}

/* Enters text under id in the map of texts the strings table holds; 0, or GT_ERR_NOMEM. */
static int form_add(struct sq *s, const char *text, uint64_t h, uint64_t id)
{
	struct form *f = gt_grow(s->forms, &s->capforms, s->nforms, sizeof *f, 64);
	if (!f)
		return GT_ERR_NOMEM;
	s->forms = f;
	s->forms[s->nforms] = (struct form){ text, h, id };
	if (gt_slots_add(&s->form_slots, h, s->nforms, form_rehash, s))
		return GT_ERR_NOMEM;
	s->nforms++;
	return 0;
}

/* The string id of a kernel name's form: the id of the same text in the strings table, or a new
 * one after every other, written there now. 0 when out of memory or failed. */
static uint64_t form_id(struct sq *s, const char *text, uint64_t *next)
{
	uint64_t h = gt_fnv1a64_str(text);
	size_t i = gt_slots_find(&s->form_slots, h, form_eq, s, text);
	if (i != GT_SLOTS_NONE)
		return s->forms[i].id;
	uint64_t id = (*next)++;
	if (form_add(s, text, h, id))
		return 0;
	sqlite3_stmt *st = s->st[T_STRINGS];
	int rc = sqlite3_bind_int64(st, 1, (int64_t)id);
	rc |= sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	if (gt_sq_step(s, st, rc, "strings") < 0)
		return 0;
	s->rows[T_STRINGS]++;
	return id;
}

static int config_rows(struct sq *s, const struct gt_reader *r)
{
	sqlite3_stmt *st = NULL;
	int ncols;
	int rc = gt_sq_exec(s, configs_ddl, "create table");
	rc = rc ? rc : gt_sq_prepare_insert(s, "kernel_configs", strchr(configs_ddl, '(') + 1, 1, &ncols, &st);
	/* Each text once: a form that is a string of the trace already (a kernel called as an NVTX
	 * range is) has that string's id. */
	uint32_t nstr = gt_reader_string_count(r);
	uint64_t next = (uint64_t)nstr + 1;
	for (uint32_t id = 1; !rc && s->nconf && id <= nstr; id++) {
		const struct names *n = gt_sq_names_of(s, r, id, 0);
		uint64_t h = n ? gt_fnv1a64_str(n->clean) : 0;
		if (!n)
			rc = GT_ERR_NOMEM;
		else if (gt_slots_find(&s->form_slots, h, form_eq, s, n->clean) == GT_SLOTS_NONE)
			rc = form_add(s, n->clean, h, id);
	}
	for (size_t i = 0; !rc && i < s->nconf; i++) {
		const struct kconfig *k = &s->conf[i];
		const struct names *n = gt_sq_names_of(s, r, k->name_id, 1);
		if (!n) {
			rc = GT_ERR_NOMEM;
			break;
		}
		uint64_t dem = strcmp(n->demangled, n->clean) ? form_id(s, n->demangled, &next) : k->name_id;
		uint64_t shr = !strcmp(n->short_name, n->clean)       ? k->name_id
		               : !strcmp(n->short_name, n->demangled) ? dem
		                                                      : form_id(s, n->short_name, &next);
		if (!dem || !shr) {
			rc = s->failed ? SQ_FAILED : GT_ERR_NOMEM;
			break;
		}
		const uint32_t v[] = { k->name_id, k->device_id, k->context_id, k->stream_id, k->graph_id,
			               k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
			               k->cluster[0], k->cluster[1], k->cluster[2], k->static_smem,
			               k->dynamic_smem, k->local_mem, k->registers };
		int b = sqlite3_bind_int64(st, 1, v[0]);
		b |= sqlite3_bind_int64(st, 2, (int64_t)dem);
		b |= sqlite3_bind_int64(st, 3, (int64_t)shr);
		for (int c = 1; c < (int)(sizeof v / sizeof v[0]); c++)
			b |= sqlite3_bind_int64(st, c + 3, v[c]);
		if (gt_sq_step(s, st, b, "kernel_configs") < 0)
			rc = SQ_FAILED;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The name function of a record type's field, as the trace library's schema gives it. */
static const char *(*enum_of(int type, const char *member))(int)
{
	size_t n;
	const struct gt_field *f = gt_fields_of(type, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].member, member))
			return f[i].enum_name;
	return NULL;
}

static int views(struct sq *s)
{
	const char *(*domain_name)(int) = enum_of(GT_REC_API, "domain");
	const char *(*nvtx_kind)(int) = enum_of(GT_REC_NVTX, "kind");
	long long b = s->has_base ? (long long)s->base : 0;
	char copy_kind[1024], src_kind[512], dst_kind[512], mem_kind[512], domain[256], kind[256];
	if (gt_sq_enum_case("copy_kind", gt_copy_kind_name, copy_kind, sizeof copy_kind) ||
	    gt_sq_enum_case("src_kind", gt_mem_kind_name, src_kind, sizeof src_kind) ||
	    gt_sq_enum_case("dst_kind", gt_mem_kind_name, dst_kind, sizeof dst_kind) ||
	    gt_sq_enum_case("mem_kind", gt_mem_kind_name, mem_kind, sizeof mem_kind) ||
	    !domain_name || gt_sq_enum_case("a.domain", domain_name, domain, sizeof domain) ||
	    !nvtx_kind || gt_sq_enum_case("r.kind", nvtx_kind, kind, sizeof kind))
		return gt_fail(SQ_FAILED, "export: SQLite: a kind's names do not fit");
	unsigned bad = GT_KERNEL_BAD_TIMES | ENDS_BEFORE;
	char *sql = NULL;
	int n = asprintf(&sql,
		"CREATE VIEW kernels AS SELECT k.id AS id, k.start_off_ns + %lld AS start_ns, "
		"k.start_off_ns + %lld + k.length_ns AS end_ns, "
		"CASE WHEN k.flags & %u = 0 THEN k.length_ns END AS duration_ns, "
		"k.queued_off_ns + %lld AS queued_ns, k.submitted_off_ns + %lld AS submitted_ns, "
		"c.name_id AS name_id, coalesce(n.value, '') AS name, coalesce(d.value, '') AS demangled, "
		"coalesce(sn.value, '') AS short_name, c.device_id AS device_id, c.context_id AS context_id, "
		"c.stream_id AS stream_id, k.correlation_id AS correlation_id, c.graph_id AS graph_id, "
		"k.graph_node_id AS graph_node_id, c.grid_x AS grid_x, c.grid_y AS grid_y, c.grid_z AS grid_z, "
		"c.block_x AS block_x, c.block_y AS block_y, c.block_z AS block_z, c.cluster_x AS cluster_x, "
		"c.cluster_y AS cluster_y, c.cluster_z AS cluster_z, c.static_smem_bytes AS static_smem_bytes, "
		"c.dynamic_smem_bytes AS dynamic_smem_bytes, "
		"c.local_mem_bytes_per_thread AS local_mem_bytes_per_thread, "
		"c.registers_per_thread AS registers_per_thread, (k.flags & %u) != 0 AS from_graph, "
		"(k.flags & %u) != 0 AS cooperative, (k.flags & %u) != 0 AS bad_times, k.flags & 65535 AS flags "
		"FROM kernel_rows k JOIN kernel_configs c ON c.id = k.config_id "
		"LEFT JOIN strings n ON n.id = c.name_id LEFT JOIN strings d ON d.id = c.demangled_id "
		"LEFT JOIN strings sn ON sn.id = c.short_name_id;"
		"CREATE VIEW copies AS SELECT id, start_off_ns + %lld AS start_ns, "
		"start_off_ns + %lld + length_ns AS end_ns, "
		"CASE WHEN length_ns >= 0 THEN length_ns END AS duration_ns, bytes, %s AS copy_kind, "
		"%s AS src_kind, %s AS dst_kind, (flags & %u) != 0 AS async, (flags & %u) != 0 AS tool, "
		"device_id, dst_device_id, context_id, stream_id, correlation_id, graph_id, graph_node_id "
		"FROM copy_rows;"
		"CREATE VIEW memsets AS SELECT id, start_off_ns + %lld AS start_ns, "
		"start_off_ns + %lld + length_ns AS end_ns, "
		"CASE WHEN length_ns >= 0 THEN length_ns END AS duration_ns, bytes, value, %s AS mem_kind, "
		"(flags & %u) != 0 AS async, device_id, context_id, stream_id, correlation_id, graph_id, "
		"graph_node_id FROM memset_rows;"
		"CREATE VIEW api_calls AS SELECT a.id AS id, a.start_off_ns + %lld AS start_ns, "
		"a.start_off_ns + %lld + a.length_ns AS end_ns, "
		"CASE WHEN a.length_ns >= 0 THEN a.length_ns END AS duration_ns, a.name_id AS name_id, "
		"coalesce(s.value, '') AS name, %s AS domain, a.cbid AS cbid, a.thread_id AS thread_id, "
		"a.process_id AS process_id, a.correlation_id AS correlation_id, "
		"a.return_value AS return_value FROM api_rows a LEFT JOIN strings s ON s.id = a.name_id;"
		"CREATE VIEW nvtx_ranges AS SELECT r.id AS id, r.start_off_ns + %lld AS start_ns, "
		"r.start_off_ns + %lld + r.length_ns AS end_ns, "
		"CASE WHEN r.length_ns >= 0 THEN r.length_ns END AS duration_ns, %s AS kind, "
		"r.name_id AS name_id, coalesce(n.value, '') AS name, r.domain_id AS domain_id, "
		"CASE WHEN r.domain_id != 0 THEN coalesce(d.value, '') END AS domain, "
		"r.thread_id AS thread_id, r.depth AS depth, r.parent_id AS parent_id, "
		"r.range_id AS range_id, r.color AS color FROM nvtx_rows r "
		"LEFT JOIN strings n ON n.id = r.name_id LEFT JOIN strings d ON d.id = r.domain_id;",
		b, b, bad, b, b, GT_KERNEL_FROM_GRAPH, GT_KERNEL_COOPERATIVE, bad, b, b, copy_kind, src_kind,
		dst_kind, GT_COPY_ASYNC, GT_COPY_TOOL, b, b, mem_kind, GT_COPY_ASYNC, b, b, domain, b, b, kind);
	if (n < 0)
		return GT_ERR_NOMEM;
	int rc = gt_sq_exec(s, sql, "create view");
	free(sql);
	return rc;
}

int gt_sq_compact_finish(struct sq *s, const struct gt_reader *r)
{
	int rc = 0;
	for (int c = 0; c < C_NTABLES && !rc; c++)
		rc = gt_sq_batch_flush(s, s->batch[c]);
	rc = rc ? rc : config_rows(s, r);
	if (!rc && !s->views_made)
		rc = views_and_index(s);
	else if (!rc && !s->index_live)
		rc = gt_sq_exec(s, index_sql, "create index");
	return rc;
}

void gt_sq_compact_release(struct sq *s)
{
	for (int c = 0; c < C_NTABLES; c++)
		gt_sq_batch_free(s->batch[c]);
	free(s->conf);
	free(s->conf_hash);
	gt_slots_release(&s->conf_slots);
	free(s->forms);
	gt_slots_release(&s->form_slots);
}
