/* metric_sets.c: GPUTRACE_METRICS's sets (metric_sets.h), parsed by metric_names.c.
 *
 * PM sampling takes one config image of one pass, so a set holds only metrics that, together, fit
 * one pass. Chips name and group their counters differently: on GH100 (H100, H200) SM throughput
 * alone takes 19 passes and the FP64 pipe's cycles 2, while the "TriageCompute" group (the metrics
 * Nsight Systems samples) reads the same pipes in one; other chips lack that group. So each member
 * lists its names in order of preference ("A|B"), and the sampler keeps, per member, the first its
 * chip offers within the pass. Checked against CUPTI's host API for several chips in
 * tests/unit/test_cupti_metric_chips.c: on GH100 every member of both sets fits in one pass.
 *
 * `memory`: device-memory bytes read and written, L2 traffic. `compute`: the share of time SMs were
 * active, how busy the FMA (FP32), FP64 and tensor pipes were, and instructions issued per active
 * cycle.
 */
#include "cupti/metric_sets.h"

static const struct metric_set sets[] = {
	{ "memory", (const char *const[]){ "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
	                                   NULL } },
	{ "compute",
	  (const char *const[]){
		  "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed"
		  "|sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
		  "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed"
		  "|sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
		  "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"
		  "|sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
		  "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"
		  "|sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"
		  "|sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
		  "TPC.TriageCompute.sm__inst_executed_realtime.avg.per_cycle_active"
		  "|sm__inst_executed_realtime.avg.per_cycle_active|sm__inst_executed.avg.per_cycle_active",
		  NULL } },
};

static const struct metric_grammar grammar = { .sets = sets, .nsets = sizeof sets / sizeof sets[0],
	.set_names = "memory, compute", .max = METRICS_MAX, .option = NULL, .strict = 0 };

const char *metric_sets_names(void) { return grammar.set_names; }

int metric_sets_parse(const char *spec, struct metric_list *out, char *why, size_t n)
{
	return metric_names_parse(&grammar, spec, &out->n, out->names, NULL, out->alt, why, n);
}
