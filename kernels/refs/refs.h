/* kernels/refs/refs.h: what the reference modules of refs.so share (internal, not installed).
 *
 * One module per kernel family (saxpy.c, reduce.c, histogram.c, softmax.c, composite.c), each with its
 * run function, its alternative evaluation orders where the kernel has legal ones, and its outputs
 * with their tolerances and reasons; refs.c lists them in the table gpuanalyze loads. The kernels'
 * exact semantics are in kernels/shadow_kernels.h and kernels/splat.h.
 */
#ifndef GT_KERNELS_REFS_H
#define GT_KERNELS_REFS_H

#include "gputrace_ref.h"

#include <stdint.h>

/* A block size the kernels' tree reductions accept: a power of two in [2, 1024], 1-D. */
int refs_tree_block(struct gt_ref_call *c, unsigned *block);
/* splitmix64: the seeded generator of the shuffled orders. */
uint64_t refs_splitmix64(uint64_t *state);

extern const struct gt_ref_output refs_saxpy_outputs[1];
int refs_saxpy_run(struct gt_ref_call *c);

extern const struct gt_ref_output refs_reduce_outputs[1];
int refs_reduce_run(struct gt_ref_call *c);

#define REFS_HISTOGRAM_ORDERS 8
extern const struct gt_ref_output refs_histogram_outputs[1];
extern const char *const refs_histogram_order_names[REFS_HISTOGRAM_ORDERS];
int refs_histogram_run(struct gt_ref_call *c);
int refs_histogram_order(struct gt_ref_call *c, unsigned k);

#define REFS_SOFTMAX_ORDERS 1
extern const struct gt_ref_output refs_softmax_outputs[1];
extern const char *const refs_softmax_order_names[REFS_SOFTMAX_ORDERS];
int refs_softmax_run(struct gt_ref_call *c);
int refs_softmax_order(struct gt_ref_call *c, unsigned k);

#define REFS_COMPOSITE_ORDERS 2
extern const struct gt_ref_output refs_composite_outputs[1];
extern const char *const refs_composite_order_names[REFS_COMPOSITE_ORDERS];
int refs_composite_run(struct gt_ref_call *c);
int refs_composite_order(struct gt_ref_call *c, unsigned k);

#endif
