/* stats_reports.h: the summary reports Nsight Systems users reach for first (`nsys stats`), computed
 * from a gputrace trace: the engine behind `gpuanalyze stats REPORT FILE`.
 *
 *   cuda_api_sum           per CUDA API function name (runtime and driver): calls, and the
 *                          statistics of their durations (end - start on the calling thread)
 *   nvtx_sum               per NVTX range (domain, name, style): instances and the statistics of
 *                          their durations; push/pop and start/end ranges, closed ones only
 *   nvtx_kern_sum          per NVTX range and kernel: the range instances that launched the
 *                          kernel, the kernel launches, and the statistics of those kernels' GPU
 *                          durations (rules below)
 *   cuda_gpu_kern_sum      per kernel name: launches and the statistics of GPU durations
 *   cuda_gpu_mem_time_sum  per copy kind, and memsets: count and the statistics of durations
 *   cuda_gpu_mem_size_sum  the same groups: the statistics of their sizes in bytes
 *   kern_launch_sum        per kernel and launch configuration (grid, block, static and dynamic
 *                          shared memory per block, registers per thread): launches, total and
 *                          median GPU duration
 *
 * Statistics are stats.h's (median: the mean of the middle two when n is even; stddev: sample,
 * n - 1, NaN for one value). Percent: the group's total over the report's total, x 100. Rows are
 * sorted by total descending (kern_launch_sum: launches descending), ties by name, then by the
 * other key columns, so the order is reproducible.
 *
 * Left out, and counted: API calls, copies and memsets with end < start, kernels flagged
 * GT_KERNEL_BAD_TIMES or with end < start; copies the recorder made itself (GT_COPY_TOOL); NVTX
 * marks and ranges never closed.
 *
 * nvtx_kern_sum attributes a kernel as Nsight Systems does, through the call that launched it: the
 * API call with the kernel's correlation id (the earliest such call when several share it; for a
 * kernel of a CUDA graph, the graph launch) is inside a range instance when the call's start t has
 * range.start <= t < range.end and, for a push/pop range, the call ran on the range's thread (the
 * API record's thread id, cut to the 32 bits that NVTX records keep). A start/end range may end on
 * another thread: it holds the calls of every thread. A kernel counts in every range instance that
 * holds its call, nested ones included (a kernel in "step" > "forward" counts in both), but in at
 * most GT_NVTX_KERN_MAX_OPEN of them: the innermost ones open at that instant; beyond, the
 * attribution is dropped and counted. Kernels whose launching call is not in the trace, and calls
 * inside no range, are counted.
 *
 * Cost: O(n log n) time, however deep the nesting (a launch's cost is O(GT_NVTX_KERN_MAX_OPEN
 * log n), not its depth). Memory: per record of the kinds the report reads, a 16-byte sample
 * (nvtx_kern_sum: 16 bytes per API call and kernel, 72 per range, 24 per attribution: at most
 * GT_NVTX_KERN_MAX_OPEN x 24 = 384 bytes per launch, under 8 times the 168 bytes of its kernel and
 * call records), and the groups.
 */
#ifndef GT_STATS_REPORTS_H
#define GT_STATS_REPORTS_H

#include "analyze/engines/stats_trace.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

#define GT_NVTX_KERN_MAX_OPEN 16

enum gt_stats_report_kind {
	GT_STATS_CUDA_API_SUM = 0,
	GT_STATS_NVTX_SUM,
	GT_STATS_NVTX_KERN_SUM,
	GT_STATS_GPU_KERN_SUM,
	GT_STATS_GPU_MEM_TIME_SUM,
	GT_STATS_GPU_MEM_SIZE_SUM,
	GT_STATS_KERN_LAUNCH_SUM,
	GT_STATS_NKINDS
};

/* The names `gpuanalyze stats` takes, in enum order, NULL-terminated. */
extern const char *const gt_stats_report_names[];

struct gt_stats_row {
	const char *name;        /* API function; NVTX range; kernel (mangled); copy operation */
	const char *demangled;   /* kernels: demangled (the name when it does not demangle) */
	const char *domain;      /* NVTX: the domain, "" for the default one */
	const char *style;       /* NVTX: "PushPop" or "StartEnd" */
	const char *kernel, *kernel_demangled; /* nvtx_kern_sum: the kernel */
	const char *copy_kind;   /* memory reports: "HtoD", ..., "memset" */
	uint64_t instances;      /* nvtx_kern_sum: range instances holding the kernel's calls */
	uint32_t grid[3], block[3], static_smem, dynamic_smem, registers; /* kern_launch_sum */
	double pct;              /* 100 x total / the report's total; NaN when that is 0 */
	struct gt_stats st;      /* of durations in ns (mem_size_sum: sizes in bytes) */
};

struct report_state;

struct gt_stats_report {
	int kind;                /* enum gt_stats_report_kind */
	struct gt_stats_row *rows;
	size_t nrows;
	double total;            /* the sum over every row's values */
	struct gt_stats_trace trace; /* the trace read; no_call: nvtx_kern_sum's */
	uint64_t outside;        /* nvtx_kern_sum: kernels whose call is inside no range */
	uint64_t capped;         /* nvtx_kern_sum: attributions dropped past GT_NVTX_KERN_MAX_OPEN */
	struct report_state *state;
};

/* Reads path and computes report `kind`. 0; a negative GT_ERR_* with why the trace cannot be read
 * held (failure.h); GT_ERR_NOMEM. */
int gt_stats_report_run(struct gt_stats_report *rep, int kind, const char *path);
void gt_stats_report_release(struct gt_stats_report *rep);

/* Nsight Systems' name of a copy's operation: "[CUDA memcpy Host-to-Device]", ...; "[CUDA memcpy
 * unknown]" for a kind it does not name. (Memsets are "[CUDA memset]".) */
const char *gt_stats_operation_name(int copy_kind);

#endif
