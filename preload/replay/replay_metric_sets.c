/* replay_metric_sets.c: the metric sets of `gputrace replay --metrics` (replay_metric_sets.h), parsed
 * by cupti/metric_names.c.
 *
 * The Range Profiler replays a launch as many times as its metrics need, so a set may hold metrics
 * of several passes. `memory`: device-memory bytes read and written, and L2 traffic. `compute`:
 * the tensor-core operations with FP16 and BF16 sources (GH100's names), the tensor pipe's
 * instructions (HMMA, and Hopper's warpgroup GMMA) and activity, the FMA and FP64 pipes' activity,
 * and SM throughput. Both carry the launch's GPU time, so a rate can be formed from one record
 * set. No FP32/FP64 FLOP counts: the per-thread instruction counts they are made of
 * (sm__sass_thread_inst_executed_op_*) are counted by patching SASS, which Nsight Compute does and
 * the Range Profiler does not: on the H200 (CUPTI 13.0) it accepted them and returned 0 for a
 * kernel of 4.3 billion FFMAs, so they are refused here rather than written as zeros. Members a
 * GPU does not offer are left out by the worker with a note; raw names are all-or-nothing. The
 * analyses read these names through analyze/blocks/metric_roles.c; tests/unit/test_cupti_metric_chips.c
 * checks the two agree.
 */
#include "preload/replay/replay_metric_sets.h"

#include <stdio.h>
#include <string.h>

static const struct metric_set sets[] = {
	{ "memory", (const char *const[]){ "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
	                                   "lts__t_sectors_srcunit_tex_op_read.sum",
	                                   "lts__t_sectors_srcunit_tex_op_write.sum", "gpu__time_duration.sum",
	                                   NULL } },
	{ "compute", (const char *const[]){ "sm__ops_path_tensor_src_fp16.sum",
	                                    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
	                                    "sm__inst_executed_pipe_tensor_op_hmma.sum",
	                                    "sm__inst_executed_pipe_tensor_op_gmma.sum",
	                                    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	                                    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
	                                    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
	                                    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	                                    "gpu__time_duration.sum", NULL } },
};

static const struct metric_grammar grammar = { .sets = sets, .nsets = sizeof sets / sizeof sets[0],
	.set_names = "memory, compute", .max = REPLAY_METRICS_MAX, .option = "--metrics", .strict = 1 };

const char *replay_metric_sets_names(void) { return grammar.set_names; }

int replay_metric_sets_parse(const char *spec, struct replay_metric_list *out, char *why, size_t n)
{
	if (metric_names_parse(&grammar, spec, &out->n, out->names, out->raw, NULL, why, n))
		return -1;
	for (size_t i = 0; i < out->n; i++)
		if (strstr(out->names[i], "__sass_")) {
			snprintf(why, n, "--metrics: %s is counted by patching SASS (Nsight Compute does; the Range "
			                 "Profiler reads hardware counters and returns 0 for it)", out->names[i]);
			return -1;
		}
	return 0;
}
