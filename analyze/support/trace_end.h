/* trace_end.h: what an engine's result says about the end of the trace it read: whether the trace
 * was whole, the bytes of an incomplete last chunk, and its synthetic marker.
 *
 * The engines that name one trace in their output (bandwidth, findings, split, ranks) report these
 * three the same way, read once the pass is over; one call keeps them from drifting apart.
 */
#ifndef GT_TRACE_END_H
#define GT_TRACE_END_H

#include "traces/gputrace.h"

#include <stdint.h>

/* *complete and *lost_bytes from the reader's tail; *synthetic, when still NULL, a copy of META
 * trace.synthetic where that says the trace is synthetic (gt_load_synthetic). 0 or GT_ERR_NOMEM. */
int gt_trace_end(const struct gt_reader *r, int *complete, uint64_t *lost_bytes, char **synthetic);

#endif
