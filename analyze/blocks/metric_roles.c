/* metric_roles.c: the one table from CUPTI metric names to roles (metric_roles.h).
 *
 * A renamed metric is one row here. The FLOP rows count thread-level instructions of the SASS
 * opcode (smsp__sass_thread_inst_executed_op_*_pred_on: predicated-on threads only), so an FMA is
 * 2 FLOPs and an add or a multiply 1, the rule Nsight Compute's roofline uses. The tensor row
 * counts operations as the profiler does (each a FLOP). The percentage rows are the PM sampler's
 * compute set (GPUTRACE_METRICS=compute): where no FLOP count exists, the busiest pipe's share
 * stands for the compute fraction.
 */
#include "analyze/blocks/metric_roles.h"

#include <string.h>

const struct gt_metric_role_row gt_metric_role_rows[] = {
	{ "dram__bytes_read.sum", GT_ROLE_DRAM_READ_BYTES, 1.0 },
	{ "dram__bytes_write.sum", GT_ROLE_DRAM_WRITE_BYTES, 1.0 },
	{ "lts__t_bytes.sum", GT_ROLE_L2_BYTES, 1.0 },
	{ "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", GT_ROLE_FP32_FLOPS, 2.0 },
	{ "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0 },
	{ "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0 },
	{ "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", GT_ROLE_FP64_FLOPS, 2.0 },
	{ "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0 },
	{ "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0 },
	{ "sm__ops_path_tensor_src_fp16_dst_fp32.sum", GT_ROLE_TENSOR_FLOPS, 1.0 },
	{ "sm__ops_path_tensor_src_bf16_dst_fp32.sum", GT_ROLE_TENSOR_FLOPS, 1.0 },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", GT_ROLE_SM_PCT, 1.0 },
	{ "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP32_PIPE_PCT, 1.0 },
	{ "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP64_PIPE_PCT, 1.0 },
	{ "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_TENSOR_PIPE_PCT, 1.0 },
};
const size_t gt_metric_role_nrows = sizeof gt_metric_role_rows / sizeof gt_metric_role_rows[0];
_Static_assert(sizeof gt_metric_role_rows / sizeof gt_metric_role_rows[0] <= GT_METRIC_ROLE_MAX_ROWS,
               "per-row arrays are sized by GT_METRIC_ROLE_MAX_ROWS");

static const char *const role_names[GT_ROLE_COUNT] = {
	"dram_read_bytes", "dram_write_bytes", "l2_bytes", "fp32_flops", "fp64_flops", "tensor_flops",
	"sm_throughput_pct", "fp32_pipe_pct", "fp64_pipe_pct", "tensor_pipe_pct",
};

int gt_metric_role_find(const char *metric)
{
	if (!metric)
		return -1;
	for (size_t i = 0; i < gt_metric_role_nrows; i++)
		if (!strcmp(gt_metric_role_rows[i].metric, metric))
			return (int)i;
	return -1;
}

const char *gt_metric_role_name(int role)
{
	return role >= 0 && role < GT_ROLE_COUNT ? role_names[role] : "?";
}

int gt_metric_role_is_pct(int role) { return role >= GT_ROLE_SM_PCT && role < GT_ROLE_COUNT; }
