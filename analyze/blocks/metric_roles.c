/* metric_roles.c: the one table from CUPTI metric names to roles (metric_roles.h).
 *
 * A renamed metric is one row here. The FLOP rows count thread-level instructions of the SASS
 * opcode (sm__sass_thread_inst_executed_op_*_pred_on: predicated-on threads only), so an FMA is 2
 * FLOPs and an add or a multiply 1, the rule Nsight Compute's roofline uses. The tensor rows count
 * operations as the profiler does (each a FLOP). The percentage rows are the pipes' activity the
 * PM sampler's compute set reads (GPUTRACE_METRICS=compute) and the replay records: where no FLOP
 * count exists, the busiest pipe's share stands for the compute fraction. Every name here is one
 * CUPTI's host API offers for some chip it supports (tests/unit/test_cupti_metric_chips.c).
 */
#include "analyze/blocks/metric_roles.h"

#include <string.h>

const struct gt_metric_role_row gt_metric_role_rows[] = {
	{ "dram__bytes_read.sum", GT_ROLE_DRAM_READ_BYTES, 1.0, "dram_read", 0 },
	{ "dram__bytes_write.sum", GT_ROLE_DRAM_WRITE_BYTES, 1.0, "dram_write", 0 },
	{ "lts__t_bytes.sum", GT_ROLE_L2_BYTES, 1.0, "l2", 0 },
	/* FLOPs from SASS thread-instruction counts: the sm__ and smsp__ sums are one count. */
	{ "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", GT_ROLE_FP32_FLOPS, 2.0, "ffma", 0 },
	{ "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", GT_ROLE_FP32_FLOPS, 2.0, "ffma", 1 },
	{ "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0, "fadd", 0 },
	{ "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0, "fadd", 1 },
	{ "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0, "fmul", 0 },
	{ "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", GT_ROLE_FP32_FLOPS, 1.0, "fmul", 1 },
	{ "sm__sass_thread_inst_executed_op_dfma_pred_on.sum", GT_ROLE_FP64_FLOPS, 2.0, "dfma", 0 },
	{ "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", GT_ROLE_FP64_FLOPS, 2.0, "dfma", 1 },
	{ "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0, "dadd", 0 },
	{ "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0, "dadd", 1 },
	{ "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0, "dmul", 0 },
	{ "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", GT_ROLE_FP64_FLOPS, 1.0, "dmul", 1 },
	/* Tensor operations with FP16 sources: one counter on GH100, split by accumulator elsewhere. */
	{ "sm__ops_path_tensor_src_fp16.sum", GT_ROLE_TENSOR_FLOPS, 1.0, "tensor_fp16", 0 },
	{ "sm__ops_path_tensor_src_fp16_dst_fp32.sum", GT_ROLE_TENSOR_FLOPS, 1.0, "tensor_fp16", 1 },
	{ "sm__ops_path_tensor_src_fp16_dst_fp16.sum", GT_ROLE_TENSOR_FLOPS, 1.0, "tensor_fp16", 1 },
	{ "sm__ops_path_tensor_src_bf16_dst_fp32.sum", GT_ROLE_TENSOR_FLOPS, 1.0, "tensor_bf16", 0 },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", GT_ROLE_SM_PCT, 1.0, "sm_throughput", 0 },
	/* Pipe activity: over elapsed cycles where the counter offers it (the sampler's figures), the
	 * TriageCompute group's reading of the same pipe, or over active cycles (the replay's). */
	{ "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP32_PIPE_PCT, 1.0, "fma_pipe", 0 },
	{ "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP32_PIPE_PCT,
	  1.0, "fma_pipe", 1 },
	{ "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", GT_ROLE_FP32_PIPE_PCT, 1.0, "fma_pipe", 2 },
	{ "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP64_PIPE_PCT, 1.0, "fp64_pipe", 0 },
	{ "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", GT_ROLE_FP64_PIPE_PCT,
	  1.0, "fp64_pipe", 1 },
	{ "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", GT_ROLE_FP64_PIPE_PCT, 1.0, "fp64_pipe", 2 },
	{ "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_TENSOR_PIPE_PCT, 1.0, "tensor_pipe",
	  0 },
	{ "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
	  GT_ROLE_TENSOR_PIPE_PCT, 1.0, "tensor_pipe", 1 },
	{ "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", GT_ROLE_TENSOR_PIPE_PCT, 1.0,
	  "tensor_pipe", 2 },
	{ "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", GT_ROLE_TENSOR_PIPE_PCT, 1.0, "tensor_pipe",
	  3 },
	{ "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_SM_ACTIVE_PCT, 1.0, "sm_active", 0 },
	{ "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed", GT_ROLE_SM_ACTIVE_PCT, 1.0,
	  "sm_active", 1 },
};
const size_t gt_metric_role_nrows = sizeof gt_metric_role_rows / sizeof gt_metric_role_rows[0];
_Static_assert(sizeof gt_metric_role_rows / sizeof gt_metric_role_rows[0] <= GT_METRIC_ROLE_MAX_ROWS,
               "per-row arrays are sized by GT_METRIC_ROLE_MAX_ROWS");

static const char *const role_names[GT_ROLE_COUNT] = {
	"dram_read_bytes", "dram_write_bytes", "l2_bytes", "fp32_flops", "fp64_flops", "tensor_flops",
	"sm_throughput_pct", "fp32_pipe_pct", "fp64_pipe_pct", "tensor_pipe_pct", "sm_active_pct",
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

void gt_metric_role_pick(const unsigned char *have, unsigned char *use)
{
	for (size_t i = 0; i < gt_metric_role_nrows;) {
		size_t end = i + 1;
		while (end < gt_metric_role_nrows && !strcmp(gt_metric_role_rows[end].quantity, gt_metric_role_rows[i].quantity))
			end++;
		int best = -1;
		for (size_t k = i; k < end; k++)
			if (have[k] && (best < 0 || gt_metric_role_rows[k].variant < best))
				best = gt_metric_role_rows[k].variant;
		for (size_t k = i; k < end; k++)
			use[k] = have[k] && gt_metric_role_rows[k].variant == best;
		i = end;
	}
}
