/* test_preload_metrics.c: the recorder's samplers across threads (preload/metrics.c), with the PM
 * sampler (cupti/pmsampling.h) and the driver's context calls faked here.
 *
 * What the H100 and H200 runs taught, as rules this test holds the code to: a sampler starts on
 * the thread that creates the context, with that context pushed current and popped after; it is
 * stopped on an application thread (the one destroying the context, which then waits until the
 * writer has written the last samples and freed it; or the one exiting), never by the writer; a
 * later context on the device gets a sampler of its own; and a
 * device whose sampler could not start gets one line and META metrics.unavailable, no samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cupti/libs.h"
#include "cupti/pmsampling.h"
#include "helpers/synth_trace.h"
#include "preload/log.h"
#include "preload/metrics.h"

/* ---- the fakes ------------------------------------------------------------------------------- */

struct cuda_fns cuda_fn;

struct pm_sampler {
	int running;
	uint64_t samples;
};

static struct {
	struct pm_sampler s;
	int starts, start_fails, decodes, stops, frees;
	CUcontext current, at_start;
	pthread_t stopped_on;
	int pushes, pops;
} F;

int pm_start(struct pm_sampler **out, uint32_t ordinal, const struct metric_list *metrics, uint64_t interval_ns,
             char *why, size_t nwhy, char *dropped, size_t ndropped)
{
	(void)ordinal, (void)metrics, (void)interval_ns;
	F.starts++;
	F.at_start = F.current;
	if (ndropped)
		dropped[0] = '\0';
	if (F.start_fails) {
		snprintf(why, nwhy, "the fake refuses");
		*out = NULL;
		return -1;
	}
	memset(&F.s, 0, sizeof F.s);
	F.s.running = 1;
	*out = &F.s;
	return 0;
}

int pm_decode(struct pm_sampler *s, struct gt_writer *w, char *why, size_t nwhy)
{
	(void)w, (void)why, (void)nwhy;
	F.decodes++;
	s->samples += 2;
	return 0;
}

void pm_stop(struct pm_sampler *s)
{
	if (!s || !s->running)
		return;
	s->running = 0;
	F.stops++;
	F.stopped_on = pthread_self();
}

void pm_free(struct pm_sampler *s)
{
	assert_false(s->running); /* stopped first, on some thread */
	F.frees++;
}

int pm_running(const struct pm_sampler *s) { return s && s->running; }
const char *pm_metrics(const struct pm_sampler *s) { return s ? "dram__bytes_read.sum" : ""; }
uint64_t pm_samples(const struct pm_sampler *s) { return s ? s->samples : 0; }
int pm_overflowed(const struct pm_sampler *s) { (void)s; return 0; }

static atomic_int wakes;
void buffers_wake(void) { atomic_fetch_add(&wakes, 1); }

static CUresult push(CUcontext c)
{
	F.pushes++;
	F.current = c;
	return CUDA_SUCCESS;
}

static CUresult pop(CUcontext *c)
{
	F.pops++;
	*c = F.current;
	F.current = NULL;
	return CUDA_SUCCESS;
}

/* ---- the tests ------------------------------------------------------------------------------- */

static char *path;
static struct gt_writer *w;

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof F);
	metrics_forget();
	cuda_fn.cuCtxPushCurrent_v2 = push;
	cuda_fn.cuCtxPopCurrent_v2 = pop;
	struct gtp_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.metrics, sizeof c.metrics, "memory");
	c.metrics_us = 1000;
	metrics_configure(&c);
	path = synth_temp_path("metrics");
	return synth_open(&w, path, 0);
}

static int teardown(void **state)
{
	(void)state;
	if (w)
		gt_writer_abandon(w);
	w = NULL;
	unlink(path);
	free(path);
	return 0;
}

/* META key's value in the closed trace (malloc'd), NULL if absent. */
static char *meta_of(const char *key)
{
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	assert_int_equal(gt_reader_scan_definitions(r), 0);
	const char *v = gt_reader_meta(r, key);
	char *out = v ? strdup(v) : NULL;
	gt_reader_close(r);
	return out;
}

/* Closes the trace and returns META key's value (malloc'd), NULL if absent. */
static char *meta_after_close(const char *key)
{
	assert_int_equal(gt_writer_close(w), 0);
	w = NULL;
	return meta_of(key);
}

static atomic_int destroyed;

/* The writer thread's loop, while `writing`: what the recorder's writer does every pass. */
static atomic_int writing;

static void *writer_loop(void *arg)
{
	(void)arg;
	while (atomic_load(&writing)) {
		metrics_decode(w);
		usleep(1000);
	}
	return NULL;
}

static void *destroy_context(void *arg)
{
	(void)arg;
	metrics_context_destroying(0);
	atomic_store(&destroyed, 1);
	return NULL;
}

static void test_started_in_context_stopped_by_its_destroyer(void **state)
{
	(void)state;
	CUcontext first = (CUcontext)(uintptr_t)0x1000, second = (CUcontext)(uintptr_t)0x2000;
	metrics_context_created(0, first);
	assert_int_equal(F.starts, 1);
	assert_ptr_equal(F.at_start, first); /* started with the new context current */
	assert_int_equal(F.pushes, 1);
	assert_int_equal(F.pops, 1);
	assert_null(F.current); /* and the thread given back what it had */
	metrics_context_created(0, first); /* the same device again: no second sampler */
	assert_int_equal(F.starts, 1);
	assert_int_equal(metrics_device(w, 0), 0);
	assert_int_equal(metrics_decode(w), 0);
	assert_int_equal(F.decodes, 1);

	/* The context goes on another thread: it stops the sampler itself and waits while this
	 * thread, the writer, decodes the rest and frees it. */
	atomic_store(&destroyed, 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, destroy_context, NULL), 0);
	while (!atomic_load(&destroyed)) {
		assert_int_equal(metrics_decode(w), 0);
		usleep(1000);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(F.stops, 1);
	assert_true(pthread_equal(F.stopped_on, t));
	assert_int_equal(F.frees, 1);
	assert_true(atomic_load(&wakes) >= 1);
	int decodes = F.decodes;
	assert_int_equal(metrics_decode(w), 0);
	assert_int_equal(F.decodes, decodes); /* freed: nothing more to decode */

	/* A later context on the device gets a sampler of its own; the exiting thread stops it and
	 * waits while the writer frees it, and the writer's finish writes what was sampled over both. */
	metrics_context_created(0, second);
	assert_int_equal(F.starts, 2);
	assert_ptr_equal(F.at_start, second);
	atomic_store(&writing, 1);
	assert_int_equal(pthread_create(&t, NULL, writer_loop, NULL), 0);
	metrics_stop(); /* returns once the writer has released it */
	assert_int_equal(F.stops, 2);
	assert_true(pthread_equal(F.stopped_on, pthread_self()));
	assert_int_equal(F.frees, 2);
	atomic_store(&writing, 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(metrics_finish(w, 0, 0), 0);
	char *sampled = meta_after_close("metrics.sampled");
	assert_non_null(sampled);
	assert_string_equal(sampled, "dram__bytes_read.sum");
	free(sampled);
}

/* A sampler no application thread stopped (its exiting thread could not take the context) is not
 * stopped by the writer, which has no context (on the H100 a stop there hung the program): what it
 * completed is decoded, it is left running and untouched after, and META says the rest is lost. */
static void test_finish_leaves_unstopped_sampler_running(void **state)
{
	(void)state;
	metrics_context_created(0, (CUcontext)(uintptr_t)0x1000);
	assert_int_equal(metrics_device(w, 0), 0);
	assert_int_equal(metrics_finish(w, 0, 0), 0);
	assert_int_equal(F.stops, 0);
	assert_int_equal(F.decodes, 1);
	assert_int_equal(F.frees, 0);
	metrics_stop(); /* left alone from now on */
	metrics_context_destroying(0);
	assert_int_equal(metrics_decode(w), 0);
	assert_int_equal(F.stops, 0);
	assert_int_equal(F.decodes, 1);
	char *n = meta_after_close("metrics.unfinished");
	assert_non_null(n);
	assert_non_null(strstr(n, "no application thread stopped the sampler"));
	free(n);
}

/* After a fatal signal the writer makes no call on a running sampler, not even a decode: the
 * trace is finished with what was decoded before, and META says the rest is lost. */
static void test_finish_after_signal_calls_nothing(void **state)
{
	(void)state;
	metrics_context_created(0, (CUcontext)(uintptr_t)0x1000);
	assert_int_equal(metrics_device(w, 0), 0);
	assert_int_equal(metrics_decode(w), 0);
	assert_int_equal(metrics_finish(w, 0, 1), 0);
	assert_int_equal(F.stops, 0);
	assert_int_equal(F.decodes, 1); /* the run's own decode, none at the end */
	assert_int_equal(F.frees, 0);
	char *unfinished = meta_after_close("metrics.unfinished"), *samples = meta_of("metrics.samples");
	assert_non_null(unfinished);
	assert_non_null(strstr(unfinished, "fatal signal"));
	assert_non_null(samples);
	assert_string_equal(samples, "2");
	free(unfinished);
	free(samples);
}

static int report_fd = -1;
static pthread_t exiting;

/* What the fake saw, for the parent: a destructor of this program, which runs after every exit
 * handler (a handler registered by an earlier test's sampler was inherited by the child). */
__attribute__((destructor)) static void report(void)
{
	if (report_fd < 0)
		return;
	atomic_store(&writing, 0);
	int got[4] = { F.stops, F.frees, F.stops && pthread_equal(F.stopped_on, exiting), F.pushes };
	ssize_t k = write(report_fd, got, sizeof got);
	(void)k;
}


/* At exit, before CUPTI's host library frees its state in exit handlers registered before ours
 * (it crashed PyTorch programs at exit on the H100), every sampler is stopped on the exiting thread
 * and released by the writer: a handler registered at the first start does it. A child exits with
 * its writer still running; it reports what the fake saw. */
static void test_exit_handler_releases_every_sampler(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		exiting = pthread_self();
		metrics_context_created(0, (CUcontext)(uintptr_t)0x1000);
		atomic_store(&writing, 1);
		pthread_t t;
		if (pthread_create(&t, NULL, writer_loop, NULL) != 0)
			_exit(3);
		F.current = NULL; /* the exiting thread without the context current: it is pushed */
		exit(0);
	}
	close(p[1]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	int got[4] = { -1, -1, -1, -1 };
	assert_int_equal(read(p[0], got, sizeof got), (ssize_t)sizeof got);
	close(p[0]);
	assert_int_equal(got[0], 1); /* stopped once */
	assert_int_equal(got[1], 1); /* freed once, by the writer */
	assert_int_equal(got[2], 1); /* on the exiting thread */
	assert_int_equal(got[3], 2); /* its context pushed: at the start and again at exit */
}

/* When the trace can no longer be written (a full disk), the writer still frees a sampler whose
 * context is going, without decoding: the destroying thread is not kept waiting. */
static void test_release_without_a_trace(void **state)
{
	(void)state;
	metrics_context_created(0, (CUcontext)(uintptr_t)0x1000);
	atomic_store(&destroyed, 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, destroy_context, NULL), 0);
	while (!atomic_load(&destroyed)) {
		assert_int_equal(metrics_decode(NULL), 0);
		usleep(1000);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(F.stops, 1);
	assert_int_equal(F.frees, 1);
	assert_int_equal(F.decodes, 0);
}

/* Refused: one reason in META, no sampler to decode, nothing sampled. */
static void test_refused_says_why(void **state)
{
	(void)state;
	F.start_fails = 1;
	metrics_context_created(0, (CUcontext)(uintptr_t)0x1000);
	assert_int_equal(F.starts, 1);
	assert_int_equal(metrics_device(w, 0), 0);
	assert_int_equal(metrics_decode(w), 0);
	assert_int_equal(F.decodes, 0);
	metrics_context_destroying(0); /* no sampler: returns at once */
	assert_int_equal(metrics_finish(w, 0, 0), 0);
	assert_int_equal(F.frees, 0);
	char *why = meta_after_close("metrics.unavailable");
	assert_non_null(why);
	assert_non_null(strstr(why, "device 0: the fake refuses"));
	free(why);
}

int main(void)
{
	gtp_log_setup(1, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_started_in_context_stopped_by_its_destroyer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_leaves_unstopped_sampler_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish_after_signal_calls_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_without_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_handler_releases_every_sampler, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
