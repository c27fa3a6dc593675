/* metric_roles.h: what a hardware counter means to the analyses, by its CUPTI metric name.
 *
 * The recorder (PM sampling, GPUTRACE_METRICS) and the replay (Range Profiler, gputrace replay
 * --metrics) store counters by CUPTI metric name; the ceiling analysis, report, diff, export and
 * stats need to know which name is device-memory bytes, which is FP32 work, and so on. That
 * knowledge is one table (metric_roles.c): a row per metric name, giving its role and the factor
 * that turns the counter into the role's unit (an FFMA thread-instruction is 2 FLOPs). A name the
 * table does not hold has no role: it is shown where counters are listed, and used for nothing.
 *
 * Chips and profilers name one quantity differently (sm__ and smsp__ sums of the same SASS count,
 * a pipe's activity read by the sampler's "TriageCompute" group or by the Range Profiler, FP16
 * tensor operations as one counter on GH100 and two elsewhere). Rows of one quantity are
 * alternatives, not addends: where a kernel has counters under several of its variants, only the
 * lowest variant is used (gt_metric_role_pick), so nothing is counted twice.
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
	GT_ROLE_SM_ACTIVE_PCT,       /* cycles with an SM active, % of elapsed: shown, never a compute share */
	GT_ROLE_COUNT
};

/* One row: a CUPTI metric name, its role, the factor to the role's unit, the quantity it measures
 * (rows of one quantity are adjacent) and its variant (0 preferred; rows of one quantity and
 * variant add up, as FP16 tensor operations into an FP32 and an FP16 accumulator do). */
struct gt_metric_role_row {
	const char *metric;
	enum gt_metric_role role;
	double factor;
	const char *quantity;
	int variant;
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
/* Which rows to use where have[k] says row k has data: use[k] = 1 for the rows of each quantity's
 * lowest variant that has data, 0 for every other row. Both arrays hold gt_metric_role_nrows. */
void gt_metric_role_pick(const unsigned char *have, unsigned char *use);

#endif
