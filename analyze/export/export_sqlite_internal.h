/* export_sqlite_internal.h: what the parts of the SQLite export share (not a public header).
 *
 * export_sqlite.c is the driver (the database, the record tables read through the schema, the NVTX
 * ranges, definitions, export_info); export_sqlite_compact.c stores the four record types a trace
 * holds most of (kernels, copies, memsets, API calls, NVTX ranges) in compact tables and shows them through
 * views with the documented columns; export_sqlite_nsys.c adds the views, enumerations and GPU
 * table under Nsight Systems' names; export_sqlite_batch.c inserts a table's rows many to a
 * statement. They share struct sq, the state of one export.
 */
#ifndef GT_EXPORT_SQLITE_INTERNAL_H
#define GT_EXPORT_SQLITE_INTERNAL_H

#include "traces/gputrace.h"
#include "common/slots.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The documented tables and views, in the man page's order; rows.NAME in export_info per entry. */
enum tab {
	T_KERNELS, T_COPIES, T_MEMSETS, T_API, T_NVTX, T_SYNCS, T_MEMORY, T_GRAPHS, T_OVERHEADS,
	T_DROPPED, T_PROCESS, T_CLOCKS, T_CLOCK_SYNCS, T_DEVICES, T_META, T_STRINGS, T_INFO, T_NTABLES
};

/* The compact tables behind the views kernels, copies, memsets, api_calls and nvtx_ranges. */
enum ctab { C_KERNELS, C_COPIES, C_MEMSETS, C_API, C_NVTX, C_NTABLES };

struct names {                   /* per string id, made on first use */
	char *clean;             /* the string as well-formed UTF-8 */
	char *demangled, *short_name; /* kernel names only */
};

struct nvtx_row {                /* a range kept until every range is known */
	struct gt_nvtx n;
	uint64_t parent;         /* row id of the enclosing range, 0: none */
};

/* What the kernels of one launch share: name, place and configuration. A trace launches a few of
 * these many times, so a kernel row holds only its times, correlation and the key's number. */
struct kconfig {
	uint32_t name_id, device_id, context_id, stream_id, graph_id;
	uint32_t grid[3], block[3], cluster[3];
	uint32_t static_smem, dynamic_smem, local_mem, registers;
};

/* A text of the strings table, as the kernel names' forms (demangled, short) are looked up. */
struct form {
	const char *text;        /* owned by the names cache */
	uint64_t hash;
	uint64_t id;             /* its id in the strings table */
};

#define MAX_FILL 40
struct filled {                  /* a record table's fill list with its schema fields found */
	const struct gt_field *field[MAX_FILL]; /* per entry of the list; NULL for the row id */
	const struct gt_field *end;             /* the record's end, where it has one */
};

struct sq_batch;

struct gt_sq_metrics;

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
	struct filled filled[T_NTABLES];          /* per record table (the others: unused) */
	const struct gt_field *nvtx_kind;         /* named by the schema */
	struct gt_sq_metrics *metrics;            /* export_sqlite_metrics.c's table */
	/* export_sqlite_compact.c */
	struct sq_batch *batch[C_NTABLES]; /* rows waiting for their INSERT */
	struct sq_batch *rbatch[T_NTABLES]; /* the same for the record tables (export_sqlite.c) */
	int has_base;
	int views_made, index_live; /* the views and api_rows' index made; the index not dropped since */
	uint64_t corr_max, corr_far; /* the highest correlation id of the API rows, how many far below it */
	uint64_t base;           /* compact tables store times as offsets from it */
	struct kconfig *conf;
	size_t nconf, capconf;
	struct gt_slots conf_slots;
	uint64_t *conf_hash;
	struct form *forms;
	size_t nforms, capforms;
	struct gt_slots form_slots;
};

/* What a row or a statement returns when SQLite failed: the failure is held (failure.h), once, and
 * s->failed says so. */
#define SQ_FAILED GT_ERR_IO

int gt_sq_fail(struct sq *s, const char *what);
/* Steps a bound INSERT and resets it: 1 for its row written, or SQ_FAILED (held). bound: the binds'
 * codes or'ed (0 is SQLITE_OK); table names the failure. */
int gt_sq_step(struct sq *s, sqlite3_stmt *st, int bound, const char *table);
int gt_sq_exec(struct sq *s, const char *sql, const char *what);
/* The names of string id (its clean text, and for kernel names its demangled and short forms);
 * NULL when out of memory. */
struct names *gt_sq_names_of(struct sq *s, const struct gt_reader *r, uint32_t id, int kernel);
/* "CASE expr WHEN 1 THEN 'HtoD' ... ELSE 'unknown' END" for a field the schema names by value
 * (values 0 to 255), into buf; 0, or 1 when it does not fit. */
int gt_sq_enum_case(const char *expr, const char *(*name)(int), char *buf, size_t len);

/* export_sqlite_compact.c */
int gt_sq_compact_create(struct sq *s);
/* The row of ev when it is a kernel, copy, memset or API call: 1 (written), 0 (another type), or
 * a negative GT_ERR_*. */
int gt_sq_compact_row(struct sq *s, const struct gt_event *ev);
/* The row of an NVTX range, parent its row id (0: none), once every range is known: 0 or <0. */
int gt_sq_compact_nvtx(struct sq *s, const struct gt_nvtx *v, uint64_t parent);
/* After the strings table: the kernel configurations and the name forms they add to strings, the
 * views, the index. */
int gt_sq_compact_finish(struct sq *s, const struct gt_reader *r);
void gt_sq_compact_release(struct sq *s);

/* export_sqlite_nsys.c: the views and tables under Nsight Systems' names, at the end. */
int gt_sq_nsys_views(struct sq *s, const struct gt_reader *r);

#endif
