/* replay_profiler.h: one launch measured under CUPTI's Range Profiler, for `gputrace replay
 * --metrics`.
 *
 * The host side (cupti_profiler_host.h) turns the metric names into a config image for this GPU's
 * chip and says how many passes it needs; the target side (cupti_range_profiler.h) collects one
 * user range per pass around the launch, in user-replay mode: the caller restores the launch's
 * buffers before each pass and launches it again until every pass is submitted; the counters are
 * then decoded and evaluated into one value per metric. CUPTI is the libcupti the recorder already
 * loaded into this process (one CUPTI per process), found with dlopen, so the worker never links
 * it. Where counters cannot be had (profiling restricted to admin users, MIG, an unsupported GPU,
 * another profiler holding them) opening fails with the reason, and nothing is measured.
 */
#ifndef GT_REPLAY_PROFILER_H
#define GT_REPLAY_PROFILER_H

#include "preload/replay/replay_metric_sets.h"

#include <cuda.h>
#include <stddef.h>

struct replay_profiler;

#define RP_UNAVAILABLE (-1) /* counters cannot be had here: why says so */
#define RP_UNKNOWN     (-2) /* a raw metric name this GPU does not offer: a usage error */

/* Sets up the metrics of want that device `ordinal` (context ctx) offers. 0 and *out, with the set
 * members it lacks named in dropped (empty when none); RP_UNAVAILABLE or RP_UNKNOWN with one line
 * in why. */
int replay_profiler_open(struct replay_profiler **out, CUcontext ctx, int ordinal,
                         const struct replay_metric_list *want, char *why, size_t nwhy, char *dropped,
                         size_t ndropped);
/* What open would set up on a GPU of chip `chip` ("GH100"), planned with CUPTI's host API alone (no
 * GPU, no driver): the metrics kept (comma-separated into kept), the set members dropped, and the
 * passes. 0, or RP_UNAVAILABLE / RP_UNKNOWN with the reason in why. */
int replay_profiler_plan(const char *chip, const struct replay_metric_list *want, size_t *passes, char *kept,
                         size_t nkept, char *dropped, size_t ndropped, char *why, size_t nwhy);

/* The metrics kept, in order, and the passes their config image takes. */
size_t replay_profiler_count(const struct replay_profiler *p);
const char *replay_profiler_metric(const struct replay_profiler *p, size_t i);
size_t replay_profiler_passes(const struct replay_profiler *p);

/* One launch: begin, then for each pass pass_start, the launch (alone, synchronised), pass_end,
 * until *done; then finish. Each returns 0, or -1 with the reason in why (the session is then
 * ended: call finish no more). finish writes one value per metric kept (NaN: CUPTI could not
 * evaluate it) and *passes. */
int replay_profiler_begin(struct replay_profiler *p, char *why, size_t n);
int replay_profiler_pass_start(struct replay_profiler *p, char *why, size_t n);
int replay_profiler_pass_end(struct replay_profiler *p, int *done, char *why, size_t n);
int replay_profiler_finish(struct replay_profiler *p, double *values, unsigned *passes, char *why, size_t n);

/* Ends any session and frees p. Safe with NULL. */
void replay_profiler_close(struct replay_profiler *p);

#endif
