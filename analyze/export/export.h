/* export.h: a trace as a timeline other tools open: Chrome Trace Event JSON, or one CSV row per event.
 *
 * The engine behind `gpuanalyze export`. Chrome's format (the "JSON Object Format" of the Trace
 * Event Format document) is what Perfetto's UI and chrome://tracing both load. The mapping:
 *
 *   processes    one per device ("GPU 0: NVIDIA H200", pid 1000000 + device id) and one for the
 *                host program (its own pid, from META process.pid or the API records);
 *   tracks       on a device, one per CUDA stream, holding its kernels, copies and memsets; on the
 *                host, one per thread holding its CUDA API calls and its NVTX push/pop ranges
 *                (CUPTI's thread id keys both), and one track each for NVTX start/end ranges, host
 *                synchronisation waits and CUPTI's own overhead;
 *   slices       complete events (ph "X"): ts and dur in microseconds with three decimals (the
 *                nanoseconds, exactly), measured from the trace's first timestamp (timeline.h's
 *                origin, the same "trace start" every command uses; otherData.origin_ns gives it on
 *                the CUPTI clock);
 *   sub-tracks   slices on one track must nest or be disjoint. Slices that would overlap partly (or,
 *                on a device stream, overlap at all: a kernel is not inside another) go to an extra
 *                track, "stream 13 (overlap 1)", so nothing is drawn wrongly or dropped; a slice
 *                that starts exactly when its enclosing slice does also goes to an extra track, since
 *                viewers order equal timestamps by file position. The tracks are placed by a first pass
 *                over the trace (16 bytes per slice, sorted per track), the events written by a second;
 *   flows        an arrow (ph "s" then "f", bound to the enclosing slices at their midpoints) from
 *                each API call to each GPU operation with its correlation id; at most 127 per call
 *                (a graph launch with more nodes gets arrows to its first 127 operations);
 *   counters     (ph "C") per device: memory in use by kind (device, pinned host, managed), the
 *                running sum of the MEMORY alloc and free records in time order from 0 at the trace's
 *                start (memory allocated before recording started is not seen; the sum never goes
 *                below 0); SM and memory clocks, temperature and power from the clock samples;
 *   instants     (ph "i") NVTX marks on their thread; process start, exit and signal; dropped records.
 * Kernels and copies with bad timestamps and NVTX ranges never closed are left out and counted in
 * otherData, with every other count.
 *
 * A window (--start/--end, --range) or a kernel filter keeps what export_window.h says, in both
 * passes alike, so that the slices' sequence numbers agree and an arrow is drawn only when both its
 * ends are kept. Several traces are exported one after the other into one document, each with its
 * own processes, on the clock export_window.h gives them; memory is that of the largest trace.
 *
 * CSV: one row per event in file order (CUPTI delivers records in buffers: sort by start_ns for
 * time order), with the columns of a timeline: absolute start and end (ns), duration, start from
 * the origin in microseconds, the process and track (and sub-track) the Chrome export puts it on,
 * the name (kernels demangled), the correlation id, bytes, and a detail column.
 */
#ifndef GT_EXPORT_H
#define GT_EXPORT_H

#include "analyze/support/filter.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gt_export_format { GT_EXPORT_CHROME = 0, GT_EXPORT_CSV = 1, GT_EXPORT_SQLITE = 2 /* export_sqlite.h */ };

struct gt_export_options {
	int format;              /* enum gt_export_format */
	int gzip;                /* write a gzip file (gzwrite.h) */
	/* What is kept (export_window.h): a window of shown time, in ns from the shown origin, or the
	 * interval of an NVTX range instance ("NAME" or "NAME#N"); kernels by name. */
	uint64_t start_ns, end_ns;
	int has_start, has_end;
	const char *range;
	const struct gt_name_filter *kernels; /* NULL: every kernel */
};

struct gt_export_result {
	uint64_t origin;         /* ns on the CUPTI clock: ts 0 */
	uint64_t events;         /* event records read (one pass) */
	uint64_t written;        /* Chrome trace events, or CSV rows */
	uint64_t slices, flows, counters, instants, metadata;
	uint64_t tracks;         /* tracks holding slices */
	uint64_t subtracks;      /* extra tracks for overlapping slices */
	uint64_t overlapped;     /* slices placed on an extra track */
	uint64_t bad_times;      /* kernels, copies, memsets, API calls with bad timestamps: left out */
	uint64_t unclosed;       /* NVTX ranges never closed: left out */
	uint64_t flows_capped;   /* GPU operations without an arrow (more than 127 for one call) */
	uint64_t flows_unmapped; /* GPU operations without an arrow: correlation ids too scattered to
	                          * keep (export.c's page budget); a hostile or damaged trace */
	uint64_t bytes;          /* bytes of JSON or CSV (before gzip) */
};

/* Exports the n traces at paths to out as one timeline: with several, each trace's host and devices
 * are processes of their own (pids 1000 x (its position + 1), then its devices), named by the
 * trace's rank, on one clock (export_window.h). Returns as gt_export_run (more than
 * GT_EXPORT_MAX_FILES traces, a window no trace has: a failure held). */
#define GT_EXPORT_MAX_FILES 16384 /* flow ids stay below 2^53, which every JSON reader holds exactly */
int gt_export_run_files(char *const *paths, size_t n, FILE *out, const struct gt_export_options *o,
                        struct gt_export_result *res);

/* Exports the trace at path to out. 0; or a negative GT_ERR_*: with the failure's words held
 * (failure.h) for an unreadable trace (load.h); GT_ERR_IO (out failed), GT_ERR_NOMEM or
 * GT_ERR_TOO_LARGE (more than 2^32 slices) without them. */
int gt_export_run(const char *path, FILE *out, const struct gt_export_options *o, struct gt_export_result *res);

#endif
