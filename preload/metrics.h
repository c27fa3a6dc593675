/* metrics.h: the recorder's hardware-counter samplers (GPUTRACE_METRICS), one per device.
 *
 * A sampler starts on the thread that creates a context, inside CUPTI's context-created callback
 * (the context current), is decoded on every pass of the writer thread, and is stopped on an
 * application thread: the one destroying its context (the writer then decodes the rest while that
 * thread waits, and a later context on the device starts another) or the one that exits (an exit
 * handler registered at the first start, so that it runs before CUPTI's profiler host library
 * frees its state; the writer never stops a sampler). When a
 * device's counters cannot be had, one "gputrace:" line says why (once per run), META
 * metrics.unavailable keeps the reason, and the recording goes on without counters.
 */
#ifndef GT_PRELOAD_METRICS_H
#define GT_PRELOAD_METRICS_H

#include "preload/config.h"
#include "traces/gputrace.h"

#include <cuda.h>
#include <stdint.h>

/* What to sample, from the recorder's configuration; before the session starts. */
void metrics_configure(const struct gtp_config *c);
/* On the thread that created `ctx` on CUDA device `ordinal`, in CUPTI's callback: starts the
 * device's sampler unless one was tried for a context still alive. */
void metrics_context_created(uint32_t ordinal, CUcontext ctx);
/* Writer thread: says once whether device `ordinal`'s sampler started (the line, META); 0 or a
 * writer error. */
int metrics_device(struct gt_writer *w, uint32_t ordinal);
/* Writer thread: writes the samples decoded since the last call; 0 or a writer error. With w NULL
 * (the trace can no longer be written) it only frees the samplers whose context is going, so that
 * their threads do not wait for it. */
int metrics_decode(struct gt_writer *w);
/* On the thread destroying a context on device `ordinal`, before it goes: stops the device's
 * sampler and waits (3 s at most) until the writer has written its last samples and freed it. */
void metrics_context_destroying(uint32_t ordinal);
/* On the exiting thread, before the writer is told to finish: stops every sampler in its context
 * and waits (3 s at most each) until the writer has written its last samples and freed it. Also
 * run by an exit handler registered at the first sampler's start. */
void metrics_stop(void);
/* Writer thread: writes every stopped sampler's last samples, frees them and writes the META keys;
 * 0 or a writer error. A sampler no application thread stopped is never stopped here (the writer
 * has no context): what it completed is decoded, unless after_signal (the program is dying of a
 * fatal signal: no CUPTI call at all), and it is left running; META metrics.unfinished says so.
 * cupti_now (CUPTI's clock at the end) goes to the debug line beside the count. */
int metrics_finish(struct gt_writer *w, uint64_t cupti_now, int after_signal);
/* Forgets the samplers without calling CUPTI (a child after fork). */
void metrics_forget(void);

#endif
