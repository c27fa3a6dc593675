/* launch_join.h: GPU work paired with the API call that launched it, by correlation id.
 *
 * CUPTI gives a kernel (copy, memset) and the runtime or driver call that launched it one
 * correlation id; a trace holds both sides, in any order. The reports that need the call of each
 * launch (stats' nvtx_kern_sum, cuda_kern_exec_*, nvtx_gpu_proj_*) keep the two sides while they
 * stream and pair them here, in O(n log n): where an id has several calls (a driver call under a
 * runtime one), the earliest is the launching one.
 */
#ifndef GT_LAUNCH_JOIN_H
#define GT_LAUNCH_JOIN_H

#include "analyze/blocks/timeline.h"

#include <stddef.h>
#include <stdint.h>

/* Called for each piece of work with its launching call; 0 to go on, or a negative GT_ERR_* to
 * stop. */
typedef int (*gt_launch_pair_fn)(void *ctx, const void *call, const void *work);

/* calls: records keyed by their start, each with its uint32_t correlation id at byte corr_at;
 * work: records keyed by their correlation id. Sorts both (calls end keyed by their correlation
 * id), then calls pair for each record of work, in order of its id, with the earliest call of that
 * id, and counts in *unpaired (not reset) the records of work no call has. 0, GT_ERR_NOMEM, or
 * pair's error. */
int gt_launch_join(struct gt_tl_vec *calls, size_t corr_at, struct gt_tl_vec *work, gt_launch_pair_fn pair,
                   void *ctx, uint64_t *unpaired);

#endif
