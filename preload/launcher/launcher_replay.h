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

/* After --metrics (launcher_replay_metrics.c): the worker's measured values, from the file
 * `values`, written into the replay trace as LAUNCH_METRIC records (the trace is rewritten beside
 * itself and renamed over); `results` is the worker's results file, whose launch counts must match
 * the trace's kernels for a value to be placed on its kernel. Returns 0, or -1 after one line on
 * stderr (the trace is then left as the recorder wrote it). */
int launcher_replay_metrics(const char *replay, const char *values, const char *results, FILE *out);

#endif
