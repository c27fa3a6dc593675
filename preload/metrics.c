/* metrics.c: GPUTRACE_METRICS in the recorder: a PM sampler per device (cupti/pmsampling.h), its
 * samples written as they are decoded, and what was and was not sampled in META (metrics.h).
 *
 * Which thread does what was measured on the H100 (CUPTI 13.0, docs/METRICS.md): a sampler
 * started on the writer thread, which has no CUDA context, crashed the program (SIGSEGV in
 * cuptiPmSamplingGetCounterAvailability or cuptiPmSamplingStart, 9 of 9 runs, with or without
 * the context made current there), and cuptiPmSamplingDisable aborted it or hung. So a sampler
 * starts on the thread that made the context, inside CUPTI's context-created callback, with that
 * context current; it is stopped on an application thread too (the one destroying the context,
 * or the one exiting); the writer thread only decodes; and it is never disabled. Every call on
 * a sampler is made holding its device's lock, so that a stop never meets a decode; one lock per
 * device, so that a context made on one GPU never waits for another GPU's decode.
 */
#include "preload/metrics.h"

#include "cupti/buffers.h"
#include "cupti/libs.h"
#include "cupti/pmsampling.h"
#include "preload/log.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEVICES 64

/* How long a context's teardown waits for the writer to decode its device's last samples: it
 * takes milliseconds; the bound only keeps a stuck writer from holding the program up. */
#define RELEASE_WAIT_MS 3000

/* What the recorder asked for (metrics_configure), parsed once. */
static struct {
	struct metric_list want;
	unsigned us;
	int on;
} C;

/* One device's sampler, shared by the thread that starts or stops it and the writer thread:
 * guarded by mu, and every pm_* call on s is made holding mu. */
struct slot {
	pthread_mutex_t mu;
	pthread_cond_t released;   /* s freed after a release */
	struct pm_sampler *s;
	CUcontext ctx;             /* the context it was started in */
	unsigned char tried;       /* a start was tried for the current context */
	unsigned char reported;    /* the writer has logged the start's outcome */
	unsigned char release;     /* the context is going: the writer is to decode the rest and free */
	unsigned char abandoned;   /* still running at the end: left to the process's end, untouched */
	char why[480], dropped[512];
};
static struct slot S[MAX_DEVICES];

/* Makes every slot empty with its lock free; before any thread can use them (metrics_configure,
 * before the session starts; a child after fork, where no other thread exists). */
static void slots_init(void)
{
	memset(S, 0, sizeof S);
	for (size_t d = 0; d < MAX_DEVICES; d++) {
		pthread_mutex_init(&S[d].mu, NULL);
		pthread_cond_init(&S[d].released, NULL);
	}
}

/* The writer thread's own: what goes to META and the one line. */
static struct {
	char unavailable[640]; /* the first device's reason, for META and the one line */
	char dropped[512];
	char sampled[2048];    /* the first sampler's metrics; empty: none ever started */
	uint64_t samples;
	int said, overflowed;
	unsigned unfinished;   /* samplers no application thread stopped */
} M;

void metrics_configure(const struct gtp_config *c)
{
	char why[256];
	memset(&C.want, 0, sizeof C.want);
	C.us = c->metrics_us;
	/* config.c empties a value that does not parse, so this parses whatever it is given */
	C.on = c->metrics[0] != '\0' && metric_sets_parse(c->metrics, &C.want, why, sizeof why) == 0;
	slots_init();
}

/* Runs f with ctx current on this thread, as the application left it after. */
static void with_context(CUcontext ctx, void (*f)(struct slot *), struct slot *sl)
{
	CUcontext was = NULL;
	int pushed = ctx && cuda_fn.cuCtxPushCurrent_v2 && cuda_fn.cuCtxPopCurrent_v2 &&
	             cuda_fn.cuCtxPushCurrent_v2(ctx) == CUDA_SUCCESS;
	f(sl);
	if (pushed && cuda_fn.cuCtxPopCurrent_v2(&was) != CUDA_SUCCESS)
		gtp_debug("metrics: could not give the thread its context back");
}

static void start_in_context(struct slot *sl)
{
	uint32_t d = (uint32_t)(sl - S);
	if (pm_start(&sl->s, d, &C.want, (uint64_t)C.us * 1000, sl->why, sizeof sl->why, sl->dropped,
	             sizeof sl->dropped) == 0)
		sl->why[0] = '\0';
}

static void release_at_exit(void);

void metrics_context_created(uint32_t ordinal, CUcontext ctx)
{
	if (!C.on || ordinal >= MAX_DEVICES)
		return;
	struct slot *sl = &S[ordinal];
	pthread_mutex_lock(&sl->mu);
	if (!sl->tried && !sl->s) {
		sl->tried = 1;
		sl->reported = 0;
		sl->ctx = ctx;
		sl->why[0] = sl->dropped[0] = '\0';
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		with_context(ctx, start_in_context, sl);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* The application's thread waits for this: what it costs is said (GPUTRACE_DEBUG=1). */
		gtp_debug("metrics: device %u: sampler %s in %.1f ms on the thread creating the context",
		          ordinal, sl->s ? "started" : "not started",
		          (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		/* CUPTI's profiler host library (libnvperf_host), loaded by this first start, registers
		 * exit handlers that free its state; run before ours (exit handlers run last registered
		 * first), they crashed PyTorch programs at exit while the sampler still ran and the writer
		 * decoded (SIGSEGV in free() under libnvperf_host, 2 of 14 runs on the H100). A handler
		 * registered now runs before them: it stops and releases every sampler first. */
		static atomic_flag registered = ATOMIC_FLAG_INIT;
		if (sl->s && !atomic_flag_test_and_set(&registered) && atexit(release_at_exit) != 0)
			gtp_debug("metrics: atexit failed; the samplers are released at the trace's end");
	}
	pthread_mutex_unlock(&sl->mu);
}

/* The writer's line and META key for a device without counters (stopped: its sampler failed
 * while it ran); the first reason only. */
static int unavailable(struct gt_writer *w, const char *line, int stopped)
{
	if (M.said)
		return 0;
	M.said = 1;
	snprintf(M.unavailable, sizeof M.unavailable, "%s", line);
	if (stopped)
		gtp_log("hardware counters stopped (GPUTRACE_METRICS): %s", M.unavailable);
	else
		gtp_log("no hardware counters (GPUTRACE_METRICS): %s; recording goes on without them",
		        M.unavailable);
	return gt_writer_meta(w, "metrics.unavailable", M.unavailable);
}

int metrics_device(struct gt_writer *w, uint32_t ordinal)
{
	if (!C.on || ordinal >= MAX_DEVICES)
		return 0;
	struct slot *sl = &S[ordinal];
	pthread_mutex_lock(&sl->mu);
	if (!sl->tried || sl->reported) {
		pthread_mutex_unlock(&sl->mu);
		return 0;
	}
	sl->reported = 1;
	char why[sizeof sl->why], dropped[sizeof sl->dropped], list[sizeof M.sampled] = "";
	snprintf(why, sizeof why, "%s", sl->why);
	snprintf(dropped, sizeof dropped, "%s", sl->dropped);
	if (sl->s)
		snprintf(list, sizeof list, "%s", pm_metrics(sl->s));
	pthread_mutex_unlock(&sl->mu);
	if (!list[0]) {
		char line[560];
		snprintf(line, sizeof line, "device %u: %s", ordinal, why);
		return unavailable(w, line, 0);
	}
	gtp_debug("device %u: sampling %s every %u us", ordinal, list, C.us);
	if (!M.sampled[0])
		snprintf(M.sampled, sizeof M.sampled, "%s", list);
	if (dropped[0] && !M.dropped[0]) {
		snprintf(M.dropped, sizeof M.dropped, "%s", dropped);
		gtp_log("GPUTRACE_METRICS: device %u does not offer %s in one sampling pass: left out", ordinal,
		        dropped);
	}
	return 0;
}

/* Decodes device d's samples (with its lock held); a sampler that fails says why once and stays, inert. */
static int decode_locked(struct gt_writer *w, uint32_t d)
{
	char why[512] = "", line[560];
	int rc = pm_decode(S[d].s, w, why, sizeof why);
	if (rc <= 0)
		return rc;
	snprintf(line, sizeof line, "device %u: %s", d, why);
	return unavailable(w, line, 1);
}

/* Writes device d's last samples and frees its sampler (with its lock held). A sampler still
 * running (no application thread stopped it: the program died of a signal, or its exiting thread
 * could not take the context) is never stopped here: on the writer thread, which has no context,
 * the PM sampling calls other than decoding crashed or hung programs on the H100 and H200. It is
 * left running to the process's end, with what it completed decoded, or, after a fatal signal,
 * with no CUPTI call at all (the process is going down; its state is unknown). */
static int release_locked(struct gt_writer *w, uint32_t d, int after_signal)
{
	struct slot *sl = &S[d];
	int running = pm_running(sl->s);
	gtp_debug("metrics: device %u: %s", d,
	          !running ? "stopped, decoding the last samples"
	          : after_signal ? "still running after a fatal signal: left alone, its last samples lost"
	                         : "still running: decoding what it completed, and leaving it running");
	int rc = !w || (after_signal && running) ? 0 : decode_locked(w, d);
	M.samples += pm_samples(sl->s);
	M.overflowed |= pm_overflowed(sl->s);
	if (running) {
		M.unfinished++;
		sl->abandoned = 1; /* s stays allocated and in its slot: nothing calls on it again */
	} else {
		pm_free(sl->s);
		sl->s = NULL;
	}
	if (sl->release) {
		/* The device's context is going: a context made on it later gets a sampler of its own. */
		sl->release = 0;
		sl->tried = 0;
	}
	pthread_cond_broadcast(&sl->released);
	gtp_debug("metrics: device %u: released", d);
	return rc < 0 ? rc : 0;
}

int metrics_decode(struct gt_writer *w)
{
	int rc = 0;
	for (uint32_t d = 0; d < MAX_DEVICES && !rc && C.on; d++) {
		pthread_mutex_lock(&S[d].mu);
		if (S[d].s && !S[d].abandoned && (S[d].release || w))
			rc = S[d].release ? release_locked(w, d, 0) : decode_locked(w, d);
		pthread_mutex_unlock(&S[d].mu);
	}
	return rc;
}

static void stop_in_context(struct slot *sl) { pm_stop(sl->s); }

/* Stops device d's sampler on this thread (with its context pushed when push_context: at exit the
 * exiting thread need not have it current) and waits until the writer has written its last samples
 * and freed it, RELEASE_WAIT_MS at most. */
static void release_and_wait(uint32_t d, int push_context)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until); /* the clock pthread_cond_timedwait measures by default */
	until.tv_sec += RELEASE_WAIT_MS / 1000;
	struct slot *sl = &S[d];
	pthread_mutex_lock(&sl->mu);
	if (!sl->s || sl->abandoned) {
		sl->tried = 0;
		pthread_mutex_unlock(&sl->mu);
		return;
	}
	/* Stopped here, in the context; its last samples are decoded by the writer while this thread
	 * waits, before the context and its buffers are gone. */
	if (push_context)
		with_context(sl->ctx, stop_in_context, sl);
	else
		stop_in_context(sl);
	sl->release = 1;
	buffers_wake();
	int rc = 0;
	while (sl->s && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&sl->released, &sl->mu, &until);
	int stuck = sl->s != NULL;
	pthread_mutex_unlock(&sl->mu);
	if (stuck)
		gtp_log("GPUTRACE_METRICS: device %u's last samples were not written within %d ms", d, RELEASE_WAIT_MS);
}

void metrics_context_destroying(uint32_t ordinal)
{
	if (C.on && ordinal < MAX_DEVICES)
		release_and_wait(ordinal, 0); /* CUPTI's callback: the context going is current */
}

void metrics_stop(void)
{
	for (uint32_t d = 0; d < MAX_DEVICES && C.on; d++)
		release_and_wait(d, 1);
}

/* At exit, before CUPTI's host library tears itself down (metrics_context_created). */
static void release_at_exit(void) { metrics_stop(); }

int metrics_finish(struct gt_writer *w, uint64_t cupti_now, int after_signal)
{
	int rc = 0;
	for (uint32_t d = 0; d < MAX_DEVICES && !rc && C.on; d++) {
		pthread_mutex_lock(&S[d].mu);
		if (S[d].s && !S[d].abandoned)
			rc = release_locked(w, d, after_signal);
		pthread_mutex_unlock(&S[d].mu);
	}
	if (rc || !M.sampled[0])
		return rc;
	char v[96];
	rc = gt_writer_meta(w, "metrics.sampled", M.sampled);
	snprintf(v, sizeof v, "%u", C.us);
	rc = rc ? rc : gt_writer_meta(w, "metrics.interval_us", v);
	snprintf(v, sizeof v, "%" PRIu64, M.samples);
	rc = rc ? rc : gt_writer_meta(w, "metrics.samples", v);
	if (M.dropped[0])
		rc = rc ? rc : gt_writer_meta(w, "metrics.left_out", M.dropped);
	if (M.overflowed)
		rc = rc ? rc : gt_writer_meta(w, "metrics.overflow", "the hardware buffer overflowed: samples "
		                                                     "after a gap are flagged partial");
	if (M.unfinished)
		rc = rc ? rc : gt_writer_meta(w, "metrics.unfinished",
		                              after_signal ? "the program ended by a fatal signal with the sampler running: "
		                                             "the samples after the last decode are lost"
		                                           : "no application thread stopped the sampler: the samples it "
		                                             "had not completed at the end are lost");
	gtp_debug("metrics: %" PRIu64 " samples; CUPTI clock now %" PRIu64, M.samples, cupti_now);
	return rc;
}

void metrics_forget(void)
{
	/* The parent's other threads do not exist here: what they held is made free again, and the
	 * samplers are the parent's. */
	slots_init();
	memset(&M, 0, sizeof M);
	C.on = 0;
}
