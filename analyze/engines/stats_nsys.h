/* stats_nsys.h: the trace and summary reports of `nsys stats` that stats_reports.h does not hold,
 * computed from a gputrace trace: the engine behind `gpuanalyze stats -r NAME` for these names.
 *
 *   cuda_gpu_trace        every kernel, copy and memset, by start: its launch configuration or its
 *                         size, throughput and memory kinds, device, context, stream, name
 *   cuda_api_trace        every CUDA API call, by start: duration, name, result, ids
 *   cuda_kern_exec_trace  every kernel with the API call that launched it (by correlation id, the
 *                         earliest call of the id): API, queue and kernel times
 *   cuda_kern_exec_sum    the same grouped by process, thread, device, API and kernel name: the
 *                         statistics of total (API start to kernel end), API, queue and kernel times
 *   cuda_api_gpu_sum      API calls, kernels and memory operations in one table: cuda_api_sum,
 *                         cuda_gpu_kern_sum and cuda_gpu_mem_time_sum's rows with a Category
 *   nvtx_pushpop_sum      nvtx_sum's push/pop rows alone (a domain other than the default one is
 *                         shown as "DOMAIN:NAME")
 *   nvtx_pushpop_trace    every closed push/pop range, by thread and start, in its thread's tree:
 *                         level, parent, children and their time
 *   nvtx_gpu_proj_trace   every closed NVTX range that launched GPU work, projected onto the GPU:
 *                         from the earliest start to the latest end of the kernels, copies and
 *                         memsets whose launching call (by correlation id) started inside the range
 *                         (start <= t < end; push/pop ranges: on the range's thread; start/end
 *                         ranges: on any thread); push/pop ranges by thread and start, then
 *                         start/end ranges by start
 *   nvtx_gpu_proj_sum     the same by range name and style: projected and range times, instances,
 *                         projection statistics, GPU operations, average level and children
 *
 * Queue time (cuda_kern_exec_*): from the end of the launching call to the kernel's start, when the
 * kernel started after the call returned; none (null) when it started before. Total time: from the
 * call's start to the kernel's end.
 *
 * The tree of nvtx_pushpop_trace: per thread, ranges sorted by start (the longer first at a tie); a
 * range's parent is the innermost earlier range still open at its start (end > start). RangeId
 * numbers the ranges in that order from 1. RangeStack ":ID:ID..." and NameTree ("--" per level
 * before the name) show at most GT_NSYS_STACK_MAX levels, the innermost, after "..." when cut, so
 * that a row's cost stays bounded however deep a hostile trace nests.
 *
 * Left out and counted as stats_reports.h says: records with end < start (kernels also when
 * flagged GT_KERNEL_BAD_TIMES), the recorder's own copies, NVTX marks and ranges never closed;
 * cuda_kern_exec_*: kernels whose launching call is not in the trace.
 *
 * Cost: O(n log n) time (sorts, binary searches), and per record kept: cuda_gpu_trace 96 bytes,
 * cuda_api_trace 48, cuda_kern_exec_* 104 per launch and 48 per call, nvtx_pushpop_trace 56,
 * nvtx_gpu_proj_* 24 per API call and operation, 40 per launch and a segment tree of 32 bytes per
 * launch, 88 per range; names are copied once per string id. The merged summaries cost what
 * stats_reports.h says of their parts.
 */
#ifndef GT_STATS_NSYS_H
#define GT_STATS_NSYS_H

#include "analyze/engines/stats_trace.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

#define GT_NSYS_STACK_MAX 16

enum gt_nsys_kind {
	GT_NSYS_CUDA_GPU_TRACE = 0,
	GT_NSYS_CUDA_API_TRACE,
	GT_NSYS_KERN_EXEC_TRACE,
	GT_NSYS_KERN_EXEC_SUM,
	GT_NSYS_API_GPU_SUM,
	GT_NSYS_PUSHPOP_SUM,
	GT_NSYS_PUSHPOP_TRACE,
	GT_NSYS_GPU_PROJ_TRACE,
	GT_NSYS_GPU_PROJ_SUM,
	GT_NSYS_NKINDS
};

/* The names, in enum order, NULL-terminated. */
extern const char *const gt_nsys_report_names[];

/* Column flags: where a column shows (both kinds of format unless told) and how. */
#define GT_NSYS_LEFT    0x1u /* text: left-aligned */
#define GT_NSYS_HUMAN   0x2u /* text and Markdown only */
#define GT_NSYS_MACHINE 0x4u /* JSON and CSV only */
#define GT_NSYS_CODE    0x8u /* Markdown: a code span (names) */

struct gt_nsys_column {
	const char *key;         /* JSON and CSV: an identifier with the unit */
	const char *title;       /* text and Markdown: Nsight Systems' column title */
	unsigned flags;
};

/* A cell: null, an integer, a real (machine value d, shown as d / scale with `decimals`), an
 * integer shown so (u; bytes shown in MB), or a string from the trace. */
enum gt_nsys_cell_type { GT_NSYS_NULL = 0, GT_NSYS_U64, GT_NSYS_I64, GT_NSYS_NUM, GT_NSYS_U64_AS, GT_NSYS_STR };

struct gt_nsys_cell {
	int type;
	uint64_t u;
	int64_t i;
	double d, scale;
	int decimals;
	const char *s;
};

struct nsys_state;

struct gt_nsys_report {
	int kind;                /* enum gt_nsys_kind */
	size_t nrows;
	double total;            /* summaries: the sum of every row's total (ns), else 0 */
	struct gt_stats_trace trace; /* the trace read */
	struct nsys_state *state;
};

/* The report's columns, in Nsight Systems' order: *n of them. */
const struct gt_nsys_column *gt_nsys_columns(int kind, size_t *n);

/* Reads path and computes report `kind`. 0; a negative GT_ERR_* with why the trace cannot be read
 * held (failure.h); GT_ERR_NOMEM. */
int gt_nsys_report_run(struct gt_nsys_report *rep, int kind, const char *path);
/* Cell col of row (both in range), valid until the next call or the release. */
void gt_nsys_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);
void gt_nsys_report_release(struct gt_nsys_report *rep);

#endif
