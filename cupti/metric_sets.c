/* metric_sets.c: GPUTRACE_METRICS's sets (metric_sets.h), parsed by metric_names.c.
 *
 * The sets hold only metrics that PM sampling reads in one pass on the GPUs we measured
 * (docs/METRICS.md lists what the H200 offers and why these were chosen): device memory bytes
 * read and written and L2 traffic for `memory`; SM throughput, the FMA, FP64 and tensor pipes'
 * activity and instruction issue for `compute`.
 */
#include "cupti/metric_sets.h"

static const struct metric_set sets[] = {
	{ "memory", (const char *const[]){ "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
	                                   NULL } },
	{ "compute", (const char *const[]){ "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	                                    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	                                    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
	                                    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	                                    "sm__inst_executed.avg.per_cycle_active", NULL } },
};

static const struct metric_grammar grammar = { .sets = sets, .nsets = sizeof sets / sizeof sets[0],
	.set_names = "memory, compute", .max = METRICS_MAX, .option = NULL, .strict = 0 };

const char *metric_sets_names(void) { return grammar.set_names; }

int metric_sets_parse(const char *spec, struct metric_list *out, char *why, size_t n)
{
	return metric_names_parse(&grammar, spec, &out->n, out->names, NULL, why, n);
}
