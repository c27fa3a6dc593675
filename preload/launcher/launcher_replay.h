/* launcher_replay.h: `gputrace replay` (launcher_replay.c) and its parts that need no GPU. */
#ifndef GT_PRELOAD_LAUNCHER_REPLAY_H
#define GT_PRELOAD_LAUNCHER_REPLAY_H

#include <stdio.h>

/* Lists the captures of a trace, one line each, to out. Returns an exit status (0, or 2 with one
 * line on stderr when the trace cannot be read). */
int launcher_replay_list(const char *trace, FILE *out);

/* The timing table after a replay (launcher_replay_times.c): the replay trace's kernels cut into
 * each capture's by the worker's results file, beside the same kernel's launches in the original
 * trace. Returns 0, or -1 after saying on stderr what could not be read. */
int launcher_replay_times(const char *original, const char *replay, const char *results, FILE *out);

#endif
