/* cmd_ceiling.c: `gpuanalyze ceiling`: each kernel's DRAM bytes and FLOPs from hardware counters,
 * its achieved rates against the ceilings `gputrace peak` measured, its arithmetic intensity and
 * its bound (memory, compute or latency).
 *
 * Options and printing only; ceiling.c computes, ceiling.h defines every figure, ceiling_doc.c
 * writes them (report shows the same table).
 */
#include "analyze/commands/ceiling_doc.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/engines/ceiling.h"
#include "analyze/support/diag.h"
#include "analyze/support/options.h"

#include <stdio.h>

static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_ceil_analysis *c = ctx;
	gt_cmd_doc_head(d, "ceiling");
	gt_cmd_doc_trace(d, c->path, c->complete, c->lost_bytes, c->synthetic != NULL);
	gt_doc_u64(d, "traces", (uint64_t)c->ntraces);
	gt_doc_u64(d, "excluded_bad_times", c->kernels_bad);
	gt_doc_end(d);
	gt_ceiling_doc_facts(d, c);
	gt_doc_title(d, "gpuanalyze ceiling");
	if (c->ntraces > 1)
		gt_doc_note(d, "traces: %s and %d more (kernels by name across them)", c->path, c->ntraces - 1);
	else
		gt_doc_note(d, "trace: %s", c->path);
	gt_cmd_doc_synthetic(d, c->path, c->synthetic);
	gt_cmd_doc_incomplete(d, c->path, c->complete, c->lost_bytes);
	gt_ceiling_doc_notes(d, c);
	gt_doc_heading(d, 2, "kernels");
	int rc = gt_ceiling_doc_table(d, c, "kernels", 0);
	gt_doc_end(d);
	return rc;
}

static const char *peaks;
static enum gt_format fmt;

static const struct gt_option options[] = {
	GT_OPT_PEAKS(&peaks),
	GT_OPT_FORMAT(&fmt, GT_FMT_ALL),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	peaks = NULL;
	fmt = GT_FMT_TEXT;
}

static int run(const struct gt_cmd_call *call)
{
	struct gt_ceil_analysis c;
	int rc = gt_ceiling_run(&c, call->files, call->nfiles, peaks);
	if (!rc && !gt_ceiling_has_metrics(&c))
		rc = gt_error("ceiling: '%s' " GT_CEILING_NO_METRICS, call->files[0]);
	else if (!rc)
		rc = gt_cmd_render(call, fmt, fill, &c);
	gt_ceiling_release(&c);
	return rc;
}

const struct gt_command gt_cmd_ceiling = {
	"ceiling", "kernels' counters against the measured ceilings: rates, intensity, bound", "FILE...", 1, -1,
	"Per kernel, from the trace's hardware counters (GPUTRACE_METRICS samples, shared out by time,\n"
	"or gputrace replay --metrics values, exact per launch): launches, GPU time, DRAM bytes per\n"
	"launch and GB/s against the measured memory ceiling of `gputrace peak` (the theoretical peak\n"
	"beside it), FLOPs per launch and GFLOP/s against the measured FP32, FP64 or tensor ceiling\n"
	"(else the pipes' activity; the theoretical peak from the device record beside it),\n"
	"arithmetic intensity (FLOP/byte) and the bound: the larger of the two percentages decides\n"
	"when it is at least 60%, else latency. Figures a trace has no counter for say 'not\n"
	"measured' (null in JSON). gpuanalyze(1) states the rules.",
	options, reset, run,
};
GT_COMMAND_ENTRY(ceiling)
