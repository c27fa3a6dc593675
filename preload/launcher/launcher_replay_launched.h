/* launcher_replay_launched.h: which of a replay trace's kernels the worker launched.
 *
 * Both halves of the replay's report (launcher_replay_times.c, launcher_replay_metrics.c) cut the
 * replay trace's kernels into captures by counting the worker's launches. Under --metrics the
 * Range Profiler runs kernels of its own between passes ("WaitNs" on the H100, CUPTI 13.0: 44 of
 * a replay trace's 116 kernels), which no launch call of the worker made: a kernel counts as the
 * worker's when an API record of a launch call (cuLaunch*, cudaLaunch*) carries its correlation
 * id. A trace without such API records (recorded with GPUTRACE_KINDS leaving them out) keeps
 * every kernel, as before.
 */
#ifndef GT_LAUNCHER_REPLAY_LAUNCHED_H
#define GT_LAUNCHER_REPLAY_LAUNCHED_H

#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

struct replay_launched {
	uint32_t *ids; /* correlation ids of launch calls, sorted */
	size_t n;
};

/* Reads the launch calls' correlation ids from r (read to its end; the caller rewinds). 0, or -1
 * out of memory or on a corrupt trace. */
int replay_launched_read(struct replay_launched *l, struct gt_reader *r);
/* Whether a kernel record of this correlation id was the worker's (every one, when the trace held
 * no launch call at all). */
int replay_launched_by_worker(const struct replay_launched *l, uint32_t correlation_id);
void replay_launched_free(struct replay_launched *l);

#endif
