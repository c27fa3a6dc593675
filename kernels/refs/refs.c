/* kernels/refs/refs.c: the table of refs.so, the reference library for the kernels in kernels/.
 *
 * Load it with `gpuanalyze shadow TRACE --ref build/kernels/refs.so`. Each broken variant is listed
 * under its own name with the correct kernel's reference, so that the replay says where the broken
 * kernel departs from what it should compute. Built with the C compiler alone (no CUDA), so CI can
 * replay captures on machines without a GPU.
 */
#include "refs.h"

static const struct gt_ref refs[] = {
	{ .kernel = "saxpy", .nparams = 4, .run = refs_saxpy_run, .outputs = refs_saxpy_outputs,
	  .noutputs = 1, .description = "y = a * x + y in double, rounded to float" },
	{ .kernel = "saxpy_nobounds", .nparams = 4, .run = refs_saxpy_run, .outputs = refs_saxpy_outputs,
	  .noutputs = 1, .description = "broken variant (no bounds check): checked against saxpy's reference" },
	{ .kernel = "reduce_sum", .nparams = 3, .run = refs_reduce_run, .outputs = refs_reduce_outputs,
	  .noutputs = 1, .description = "one level of the block tree sum, in the kernel's float order" },
	{ .kernel = "reduce_sum_nosync", .nparams = 3, .run = refs_reduce_run,
	  .outputs = refs_reduce_outputs, .noutputs = 1,
	  .description = "broken variant (missing barrier): checked against reduce_sum's reference" },
	{ .kernel = "histogram", .nparams = 6, .run = refs_histogram_run,
	  .outputs = refs_histogram_outputs, .noutputs = 1, .norders = REFS_HISTOGRAM_ORDERS,
	  .order_names = refs_histogram_order_names, .order = refs_histogram_order,
	  .description = "weighted histogram: float bins as the kernel computes them, sums in double" },
	{ .kernel = "softmax_rows", .nparams = 5, .run = refs_softmax_run, .outputs = refs_softmax_outputs,
	  .noutputs = 1, .norders = REFS_SOFTMAX_ORDERS, .order_names = refs_softmax_order_names,
	  .order = refs_softmax_order,
	  .description = "masked row softmax in double; fully masked rows all +0" },
	{ .kernel = "softmax_rows_badmask", .nparams = 5, .run = refs_softmax_run,
	  .outputs = refs_softmax_outputs, .noutputs = 1, .norders = REFS_SOFTMAX_ORDERS,
	  .order_names = refs_softmax_order_names, .order = refs_softmax_order,
	  .description = "broken variant (fully masked rows): checked against softmax_rows' reference" },
	{ .kernel = "composite", .nparams = 5, .run = refs_composite_run,
	  .outputs = refs_composite_outputs, .noutputs = 1, .norders = REFS_COMPOSITE_ORDERS,
	  .order_names = refs_composite_order_names, .order = refs_composite_order,
	  .description = "splat compositing per kernels/splat.h, in double" },
};

static const struct gt_ref_table table = {
	.abi = GT_REF_ABI,
	.ref_size = sizeof(struct gt_ref),
	.name = "gputrace kernels/ references",
	.count = sizeof refs / sizeof refs[0],
	.refs = refs,
};

GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void);
GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void) { return &table; }
