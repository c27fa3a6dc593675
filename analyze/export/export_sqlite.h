/* export_sqlite.h: a trace as an SQLite database, for ad-hoc SQL (`gpuanalyze export --format sqlite
 * -o run.sqlite`, as `nsys export --type sqlite` gives Nsight Systems' users).
 *
 * One table or view per record type (kernels, copies, memsets, api_calls, nvtx_ranges, syncs,
 * memory_ops, graph_launches, overheads, dropped, process_events, clock_samples, clock_syncs), one
 * row per record in file order with id 1, 2, ... per table; then devices, metadata, strings and
 * export_info. Column names carry their units (start_ns, bytes, static_smem_bytes); timestamps are
 * the trace's own nanoseconds on CUPTI's clock; every duration_ns is end_ns - start_ns, NULL where
 * the record's times are bad (end before start, a kernel flagged GT_KERNEL_BAD_TIMES, an NVTX range
 * never closed). Kernel names come three ways: name (mangled, as recorded), demangled, short_name
 * (kname.h's base name: no return type, no parameters). Kernels, copies, memsets and API calls are
 * views over compact tables of numbers (export_sqlite_compact.c); views and enumeration tables
 * under Nsight Systems' names (CUPTI_ACTIVITY_KIND_KERNEL, StringIds, ...) let SQL written for nsys
 * run unchanged. The schema, column by column, is gputrace-sqlite(5); export_info's schema_version
 * says which one a file follows.
 *
 * Text is bound to prepared statements, never spliced into SQL, and stored as well-formed UTF-8
 * (escape.h's gt_esc_utf8: bytes that are not UTF-8 become U+FFFD). Unsigned values above
 * INT64_MAX, which SQLite's integers cannot hold (only a damaged or hostile trace has them), are
 * stored as NULL and counted in export_info.
 *
 * Cost: one pass over the trace; all rows in one transaction with the journal off (the file is
 * new: a failed export leaves it for the caller to remove), 64 rows per INSERT, pages of 16 KiB
 * from a trace of 1 MiB on; about 41 bytes and half a microsecond of one core per kernel record,
 * 43 bytes and half a microsecond per record of a renderer's mix (docs/MEASURED.md). Memory: the
 * reader's, a cache of names per string id, one entry per distinct kernel configuration, and the
 * NVTX records (56 bytes each, 36 more while their parents are found), kept to give each range its
 * parent.
 */
#ifndef GT_EXPORT_SQLITE_H
#define GT_EXPORT_SQLITE_H

#include <stdint.h>

#define GT_SQLITE_SCHEMA_VERSION 2

struct gt_sqlite_result {
	uint64_t rows;           /* rows written, all tables */
	uint64_t events;         /* event records read */
	uint64_t out_of_range;   /* values above INT64_MAX stored as NULL */
};

/* Writes the trace at trace_path into a new database at db_path, an empty file or none (the
 * command's temporary, outfile.h), which messages call db_name. 0, or a negative GT_ERR_* with the
 * failure held in one line (failure.h: trace unreadable, database not writable, SQLite's error,
 * out of memory); the partial database is left for the caller to remove. */
int gt_export_sqlite(const char *trace_path, const char *db_path, const char *db_name,
                     struct gt_sqlite_result *res);

#endif
