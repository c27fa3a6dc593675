/* metrics.h: the recorder's hardware-counter samplers (GPUTRACE_METRICS), one per device.
 *
 * A sampler starts when the recorder first describes a device, is decoded on every pass of the
 * writer thread, and stops at the end of the trace. When a device's counters cannot be had, one
 * "gputrace:" line says why (once per run), META metrics.unavailable keeps the reason, and the
 * recording goes on without counters. Writer thread only.
 */
#ifndef GT_PRELOAD_METRICS_H
#define GT_PRELOAD_METRICS_H

#include "preload/config.h"
#include "traces/gputrace.h"

#include <stdint.h>

/* Starts sampling on CUDA device `ordinal` unless it was tried already; 0 or a writer error. */
int metrics_device(struct gt_writer *w, const struct gtp_config *c, uint32_t ordinal);
/* Writes the samples decoded since the last call; 0 or a writer error. */
int metrics_decode(struct gt_writer *w);
/* Stops every sampler, writes the last samples and the META keys; 0 or a writer error. cupti_now
 * (CUPTI's clock at the end) goes to the debug line beside the sample count. */
int metrics_finish(struct gt_writer *w, uint64_t cupti_now);
/* Forgets the samplers without calling CUPTI (a child after fork). */
void metrics_forget(void);

#endif
