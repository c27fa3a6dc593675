/* replay_launch.h: one captured launch, re-run alone on this GPU.
 *
 * The captured allocations are recreated from their "before" copies, pointer parameters are moved
 * to the new allocations at the same offsets, and the kernel is launched from the captured module
 * image with the captured grid, block, cluster and dynamic shared memory. The first replay checks
 * itself: every buffer the kernel changed in the run is compared bit for bit with the run's
 * "after" copy. Further replays (inputs the kernel changes are restored before each) are for
 * timing, which the recorder preloaded into this process measures through CUPTI; the first of
 * them also tell whether the kernel is deterministic, by comparing their outputs with the first
 * replay's. With a profiler, the launch is then measured under it: one replay per pass, each after
 * restoring the inputs and evicting L2 (every pass starts from cold caches, as Nsight Compute's
 * default cache control does), the profiled launches last.
 */
#ifndef GT_REPLAY_LAUNCH_H
#define GT_REPLAY_LAUNCH_H

#include "preload/replay/replay_compare.h"
#include "preload/replay/replay_cuda.h"
#include "preload/replay/replay_profiler.h"
#include "traces/capture_set.h"

#include <stdio.h>

enum replay_verdict {
	RV_REPRODUCED = 0,      /* bit-exact against the run, and every checked replay the same */
	RV_REPRODUCED_NONDET,   /* the first replay matched the run, later replays differ among themselves */
	RV_NONDET_WITHIN,       /* differs from the run, but replays differ as much among themselves */
	RV_NONDET_BEYOND,       /* replays differ among themselves, and the run lies farther off */
	RV_DIFFERS,             /* replays agree with each other, not with the run */
	RV_NOT_REPLAYABLE,      /* a limit of the capture, said in reason: nothing launched */
	RV_FAILED,              /* the driver refused or the kernel faulted: reason */
};
const char *replay_verdict_name(enum replay_verdict v);

struct replay_options {
	unsigned reps;          /* timed replays after the self-check one */
	unsigned check_reps;    /* how many of them are also compared (determinism) */
	enum replay_dtype dtype;
	int force;              /* --with-structs: replay even with by-value struct parameters */
	struct replay_profiler *prof; /* --metrics, where counters can be had; NULL: none */
	CUdeviceptr evict;      /* never written: read before each pass so that L2 holds none of the launch's data */
	size_t evict_bytes;
	void *evict_host;       /* where that read lands */
};

struct replay_outcome {
	enum replay_verdict verdict;
	unsigned launches;      /* launched and completed: the recorder holds this many kernel records */
	int context_lost;       /* the kernel faulted: the context is unusable for later launches */
	char reason[512];
	unsigned profiled;      /* of launches, the last ones, made under the profiler (one per pass) */
	unsigned passes;        /* passes the profiler took: values below are there when nonzero */
	double values[REPLAY_METRICS_MAX]; /* per metric the profiler kept; NaN: not evaluated */
};

/* Replays l, printing what it does and finds to out. */
void replay_launch(struct replay_cuda *cu, const struct gt_captured_launch *l,
                   const struct replay_options *opt, FILE *out, struct replay_outcome *res);

#endif
