/* metric_roles.h: what a hardware counter means to the analyses, by its CUPTI metric name.
 *
 * The recorder (PM sampling, GPUTRACE_METRICS) and the replay (Range Profiler, gputrace replay
 * --metrics) store counters by CUPTI metric name; the ceiling analysis, report, diff, export and
 * stats need to know which name is device-memory bytes, which is FP32 work, and so on. That
 * knowledge is one table (metric_roles.c): a row per metric name, giving its role and the factor
 * that turns the counter into the role's unit (an FFMA thread-instruction is 2 FLOPs). A name the
 * table does not hold has no role: it is shown where counters are listed, and used for nothing.
 */
#ifndef GT_METRIC_ROLES_H
#define GT_METRIC_ROLES_H

#include <stddef.h>

enum gt_metric_role {
	GT_ROLE_DRAM_READ_BYTES = 0, /* bytes read from device memory */
	GT_ROLE_DRAM_WRITE_BYTES,    /* bytes written to device memory */
	GT_ROLE_L2_BYTES,            /* bytes through the L2 cache */
	GT_ROLE_FP32_FLOPS,          /* FP32 floating-point operations */
	GT_ROLE_FP64_FLOPS,
	GT_ROLE_TENSOR_FLOPS,        /* tensor-core operations (FP16/BF16 inputs) */
	GT_ROLE_SM_PCT,              /* SM throughput, % of its sustained peak */
	GT_ROLE_FP32_PIPE_PCT,       /* the FMA pipe's active cycles, % of peak */
	GT_ROLE_FP64_PIPE_PCT,
	GT_ROLE_TENSOR_PIPE_PCT,
	GT_ROLE_COUNT
};

/* One row: a CUPTI metric name, its role, the factor to the role's unit. */
struct gt_metric_role_row {
	const char *metric;
	enum gt_metric_role role;
	double factor;
};

/* The table holds at most this many rows (callers size per-row arrays by it). */
#define GT_METRIC_ROLE_MAX_ROWS 64

extern const struct gt_metric_role_row gt_metric_role_rows[];
extern const size_t gt_metric_role_nrows;

/* The row index of a metric name, or -1 when the table has no row for it (NULL included). */
int gt_metric_role_find(const char *metric);
/* "dram_read_bytes", ...; "?" out of range. */
const char *gt_metric_role_name(int role);
/* 1: the role is a percentage, averaged over time (weighted by it), not summed. */
int gt_metric_role_is_pct(int role);

#endif
