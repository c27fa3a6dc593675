/* test_analyze_split.c: the split engine (analyze/engines/split.c) and `gpuanalyze split`.
 *
 * Small traces with answers worked out by hand (written next to each): unions rather than sums for
 * concurrent kernels and API calls on two threads, copies by direction, copy/kernel overlap, GPU
 * idle, launch latency paired by correlation id (with and without queued timestamps, and a kernel
 * whose call is missing), a kernel spanning two units (counted in both, timed in parts), warm-up
 * dropped by position, the choice of range (most frequent top-level, ties, --range of a nested one,
 * an unknown one), and the fallbacks: intervals between host synchronisations (stream, context and
 * event syncs cut; a stream-wait-event does not; intervals without GPU work are left out), then the
 * whole process.
 *
 * Then the real renderer recording (traces/samples/h200-splat_render.gtrace): every number the
 * test compares with is derived here from the trace's own records, not written down, so the test
 * holds for a re-recorded fixture. When the renderer's printed timings are beside the trace
 * (h200-splat_render.out), split's per-frame wall is checked against the program's own end-to-end
 * time. Every other sample trace is checked for the invariants any split must keep.
 *
 *   test_analyze_split write DIR   writes the traces tests/cli/test_gpuanalyze_split.sh reads
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/split.h"
#include "common/stats.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"
#include "helpers/tl_synth.h"

#define T 1000000000ull /* every synthetic time below is T + the number written */
/* The writers take a scale: 1 for the tests here (times in ns as written), 1000 for the CLI test
 * (the same shapes in microseconds, which read better in its output). */
#define S(x) (T + (uint64_t)(x) * scale)
/* The sample recordings; GT_SAMPLES_DIR points elsewhere (a test of this test uses a copy). */
static const char *samples(void)
{
	const char *d = getenv("GT_SAMPLES_DIR");
	return d && *d ? d : "traces/samples";
}

static char *paths[8];
static int npaths;

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < npaths; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	npaths = 0;
	gt_diag_set_stream(NULL);
	return 0;
}

static const char *temp(void)
{
	char *p = synth_temp_path("split");
	assert_non_null(p);
	paths[npaths++] = p;
	return p;
}

/* ---- the traces ------------------------------------------------------------------------------ */

/* NVTX mode. Three "frame" ranges at depth 0 on thread 1 and one "setup"; "inner" at depth 1.
 *   F0 [1000,2000)  F1 [2000,3000)  F2 [3000,5000)   setup [500,900)
 * Kernels: K1 [1100,1400) stream 1, queued 1050, call [1000,1020) thread 1, corr 1
 *          K2 [1300,1600) stream 2, no queued,  call [1010,1030) thread 2, corr 2
 *          K3 [1900,2200) stream 1 (spans F0|F1), call [1800,1810), corr 3
 *          K4 [3100,3200) stream 1, corr 4, no call in the trace
 * Copies:  HtoD [1050,1150) pinned; DtoH [2500,2700) pinned; DtoD [3300,3400); memset [3500,3600)
 * Other API: cudaStreamSynchronize [2100,2800); cudaMemcpy [3300,3420)
 * Records are written out of time order on purpose (frames after their contents, K3 first). */
static int write_nvtx(const char *path, uint64_t scale)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	rc = rc ? rc : tl_kernel(w, "_Z4tailv", S(1900), S(2200), 1, 3, 0);
	rc = rc ? rc : tl_kernel(w, "_Z6shaderi", S(1100), S(1400), 1, 1, S(1050));
	rc = rc ? rc : tl_kernel(w, "_Z6shaderi", S(1300), S(1600), 2, 2, 0);
	rc = rc ? rc : tl_kernel(w, "_Z4tailv", S(3100), S(3200), 1, 4, 0);
	rc = rc ? rc : tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 4096, S(1050), S(1150), 1, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 4096, S(2500), S(2700), 1, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOD, GT_MEM_DEVICE, GT_MEM_DEVICE, 4096, S(3300), S(3400), 1, 0);
	rc = rc ? rc : tl_memset(w, 4096, S(3500), S(3600), 1, 1);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", S(1000), S(1020), 1, 1);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", S(1010), S(1030), 2, 2);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", S(1800), S(1810), 1, 3);
	rc = rc ? rc : tl_api(w, "cudaStreamSynchronize", S(2100), S(2800), 1, 5);
	rc = rc ? rc : tl_api(w, "cudaMemcpy", S(3300), S(3420), 1, 6);
	rc = rc ? rc : tl_nvtx(w, "inner", S(1100), S(1200), 1, 1);
	rc = rc ? rc : tl_nvtx(w, "inner", S(2100), S(2150), 1, 1);
	rc = rc ? rc : tl_nvtx(w, "frame", S(2000), S(3000), 0, 1);
	rc = rc ? rc : tl_nvtx(w, "frame", S(1000), S(2000), 0, 1);
	rc = rc ? rc : tl_nvtx(w, "setup", S(500), S(900), 0, 1);
	rc = rc ? rc : tl_nvtx(w, "frame", S(3000), S(5000), 0, 1);
	rc = rc ? rc : tl_nvtx(w, "mark", S(4000), S(4000), 0, 1); /* a mark: never a unit */
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

/* Sync mode. First API call [1000,1010); kernels [1500,1600) [2500,2600) [3400,3600) [4200,4500);
 * host syncs ending at 2000 (stream), 2005 (stream: the interval [2000,2005) has no GPU work),
 * 3000 (context), 4000 (event); a stream-wait-event ending at 3500 does not cut. Units:
 * [1000,2000) [2005,3000) [3000,4000) [4000,4500). */
static int write_sync(const char *path, uint64_t scale)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	rc = rc ? rc : tl_api(w, "cudaMalloc", S(1000), S(1010), 1, 1);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", S(1500), S(1600), 1, 10, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", S(2500), S(2600), 1, 11, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", S(3400), S(3600), 1, 12, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", S(4200), S(4500), 1, 13, 0);
	rc = rc ? rc : tl_sync(w, GT_SYNC_STREAM, S(1900), S(2000), 20);
	rc = rc ? rc : tl_sync(w, GT_SYNC_STREAM, S(2001), S(2005), 21);
	rc = rc ? rc : tl_sync(w, GT_SYNC_STREAM_WAIT_EVENT, S(3490), S(3500), 22);
	rc = rc ? rc : tl_sync(w, GT_SYNC_CONTEXT, S(2900), S(3000), 23);
	rc = rc ? rc : tl_sync(w, GT_SYNC_EVENT, S(3900), S(4000), 24);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

/* The same timeline with the syncs as API calls only (sync records are off by default): the same
 * units. With sync_record, one context sync record is there too: the records are the syncs then,
 * and the API calls do not cut a second time. */
static int write_api_sync(const char *path, int sync_record)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	rc = rc ? rc : tl_api(w, "cudaMalloc", T + 1000, T + 1010, 1, 1);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", T + 1500, T + 1600, 1, 10, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", T + 2500, T + 2600, 1, 11, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", T + 3400, T + 3600, 1, 12, 0);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", T + 4200, T + 4500, 1, 13, 0);
	rc = rc ? rc : tl_api(w, "cudaStreamSynchronize_v3020", T + 1900, T + 2000, 1, 20);
	rc = rc ? rc : tl_api(w, "cuStreamSynchronize", T + 2001, T + 2005, 1, 21);
	rc = rc ? rc : tl_api(w, "cudaStreamWaitEvent_v3020", T + 3490, T + 3500, 1, 22);
	rc = rc ? rc : tl_api(w, "cudaDeviceSynchronize_v3020", T + 2900, T + 3000, 1, 23);
	rc = rc ? rc : tl_api(w, "cuEventSynchronize", T + 3900, T + 4000, 1, 24);
	if (sync_record)
		rc = rc ? rc : tl_sync(w, GT_SYNC_CONTEXT, T + 2900, T + 3000, 23);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

/* Process mode: no NVTX, no syncs. With PROCESS records (start 100, exit 9000) the unit is the
 * process; without, [first start, last end] = [1000, 2500). */
static int write_process(const char *path, uint64_t scale, int with_process)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	if (with_process) {
		rc = rc ? rc : tl_process(w, GT_PROCESS_START, S(100));
		rc = rc ? rc : tl_process(w, GT_PROCESS_EXIT, S(9000));
	}
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", S(1000), S(1005), 1, 1);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", S(1010), S(2010), 1, 1, 0);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PAGEABLE, 100, S(2100), S(2500), 1, 0);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static void run(struct gt_split *s, const char *path, const char *range, uint64_t warmup)
{
	struct gt_split_options o = { range, warmup };
	assert_int_equal(gt_split_run(s, path, &o), 0);
}

#define V(u, m) ((u)->v[GT_M_##m])

/* The statistics across units equal stats.h's on the same values by its double path (split takes
 * the integer path where it can, halving for half-nanosecond medians): field by field, exactly. */
static void check_stats_exact(const struct gt_split *s)
{
	double *v = malloc((s->nunits ? s->nunits : 1) * sizeof *v);
	assert_non_null(v);
	for (int m = 0; m < GT_M_COUNT; m++) {
		size_t k = 0;
		for (size_t i = 0; i < s->nunits; i++)
			if (!isnan(s->units[i].v[m]))
				v[k++] = s->units[i].v[m];
		struct gt_stats want;
		assert_int_equal(gt_stats_compute_double(&want, v, k), 0);
		const struct gt_stats *got = &s->st[m];
		assert_int_equal(got->n, want.n);
		assert_int_equal(got->outliers, want.outliers);
		const double g[] = { got->total, got->min, got->max, got->median, got->mad, got->mad_scaled,
			             got->p25, got->p75, got->p90, got->p99, got->iqr, got->mean };
		const double w[] = { want.total, want.min, want.max, want.median, want.mad, want.mad_scaled,
			             want.p25, want.p75, want.p90, want.p99, want.iqr, want.mean };
		for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
			if (!(g[i] == w[i] || (isnan(g[i]) && isnan(w[i]))))
				fail_msg("%s: statistic %zu is %.17g, by the double path %.17g", gt_split_metric_key(m), i, g[i], w[i]);
	}
	free(v);
}

/* ---- NVTX mode ---------------------------------------------------------------------------------- */

static void test_nvtx_units_unions_and_latency(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_nvtx(p, 1), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_NVTX);
	assert_string_equal(s.range, "frame"); /* 3 instances against setup's 1 */
	assert_int_equal(s.range_given, 0);
	assert_int_equal(s.nunits, 3);
	assert_int_equal(s.nnames, 2);
	assert_string_equal(s.names[0].name, "frame");
	assert_int_equal(s.names[0].count, 3);
	assert_int_equal(s.origin, T + 500); /* the earliest timestamp: setup's start */

	const struct gt_split_unit *u = &s.units[0];
	assert_int_equal(u->start, T + 1000);
	assert_true(V(u, WALL) == 1000);
	/* K1 u K2 = [1100,1600) = 500 (their sum would be 600), plus K3's [1900,2000) = 100 */
	assert_true(V(u, KERNEL) == 600);
	assert_true(V(u, HTOD) == 100 && V(u, DTOH) == 0 && V(u, DTOD) == 0);
	assert_true(V(u, OVERLAP) == 50);      /* HtoD [1050,1150) n kernels [1100,...) */
	assert_true(V(u, API) == 40);          /* [1000,1030) on two threads, and [1800,1810) */
	assert_true(V(u, IDLE) == 350);        /* 1000 - |[1050,1600) u [1900,2000)| */
	assert_true(V(u, LAUNCH) == 100);      /* median of 100 (K1), 290 (K2), 100 (K3) */
	assert_true(V(u, LAUNCH_QUEUE) == 50); /* K1 only has queued: 1050 - 1000 */
	assert_true(V(u, LAUNCH_START) == 50); /* 1100 - 1050 */
	assert_int_equal(u->kernels, 3);
	assert_int_equal(u->copies, 1);

	u = &s.units[1];
	assert_true(V(u, WALL) == 1000);
	assert_true(V(u, KERNEL) == 200); /* K3's [2000,2200): the part inside */
	assert_true(V(u, DTOH) == 200 && V(u, OVERLAP) == 0);
	assert_true(V(u, API) == 700);
	assert_true(V(u, IDLE) == 600);
	assert_true(V(u, LAUNCH) == 100);
	assert_true(isnan(V(u, LAUNCH_QUEUE)));
	assert_int_equal(u->kernels, 1); /* K3 counts in both units it overlaps */

	u = &s.units[2];
	assert_true(V(u, WALL) == 2000);
	assert_true(V(u, KERNEL) == 100 && V(u, DTOD) == 100 && V(u, MEMSET) == 100);
	assert_true(V(u, API) == 120);
	assert_true(V(u, IDLE) == 1700);
	assert_true(isnan(V(u, LAUNCH))); /* K4's call is not in the trace */

	assert_int_equal(s.launches_paired, 3);
	assert_int_equal(s.launches_queued, 1);
	check_stats_exact(&s);
	/* Across units: walls 1000, 1000, 2000; kernel 600, 200, 100; launch 100, 100 (one NaN). */
	assert_true(s.st[GT_M_WALL].median == 1000);
	assert_true(s.st[GT_M_KERNEL].median == 200);
	assert_true(s.st[GT_M_KERNEL].mad == 100);
	assert_int_equal(s.st[GT_M_LAUNCH].n, 2);
	gt_split_release(&s);
}

static void test_warmup_drops_units_by_position(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_nvtx(p, 1), 0);
	struct gt_split s;
	run(&s, p, NULL, 1);
	assert_int_equal(s.units_total, 3);
	assert_int_equal(s.warmup_dropped, 1);
	assert_int_equal(s.nunits, 2);
	assert_int_equal(s.units[0].index, 1);
	assert_int_equal(s.units[0].start, T + 2000);
	/* The sweep still saw the dropped unit: K3 is counted in F1. */
	assert_int_equal(s.units[0].kernels, 1);
	assert_true(s.st[GT_M_WALL].median == 1500);
	gt_split_release(&s);
	run(&s, p, NULL, 5); /* more than there are: none left, statistics n/a */
	assert_int_equal(s.nunits, 0);
	assert_int_equal(s.st[GT_M_WALL].n, 0);
	assert_true(isnan(s.st[GT_M_WALL].median));
	gt_split_release(&s);
}

static void test_range_option_picks_nested_and_rejects_unknown(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_nvtx(p, 1), 0);
	struct gt_split s;
	run(&s, p, "inner", 0);
	assert_int_equal(s.range_given, 1);
	assert_int_equal(s.nunits, 2);
	/* inner [1100,1200): K1 runs throughout, K2 from 1300: 100 */
	assert_true(V(&s.units[0], KERNEL) == 100);
	assert_true(V(&s.units[0], OVERLAP) == 50); /* HtoD until 1150 */
	gt_split_release(&s);

	char *msgs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&msgs, &len);
	assert_non_null(f);
	gt_diag_set_stream(f);
	struct gt_split_options o = { "nope", 0 };
	assert_int_equal(gt_split_run(&s, p, &o), GT_ERR_ARG);
	gt_split_release(&s);
	gt_diag_flush(); /* the engine holds its words (failure.h); the command would say them */
	gt_diag_set_stream(NULL);
	fclose(f);
	char want[512];
	snprintf(want, sizeof want,
	         "gpuanalyze: no NVTX range named 'nope' in trace '%s' (top-level ranges: 'frame' (3), "
	         "'setup' (1))\n",
	         p);
	assert_string_equal(msgs, want);
	free(msgs);
}

/* Equal counts: the name whose first instance starts first wins, whatever the file order. */
static void test_most_frequent_ties_go_to_earliest(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_nvtx(w, "late", T + 500, T + 600, 0, 1), 0);
	assert_int_equal(tl_nvtx(w, "late", T + 700, T + 800, 0, 1), 0);
	assert_int_equal(tl_nvtx(w, "early", T + 100, T + 200, 0, 2), 0);
	assert_int_equal(tl_nvtx(w, "early", T + 900, T + 950, 0, 2), 0);
	assert_int_equal(tl_nvtx(w, "deep", T + 100, T + 110, 1, 2), 0);
	assert_int_equal(tl_nvtx(w, "deep", T + 120, T + 130, 1, 2), 0);
	assert_int_equal(tl_nvtx(w, "deep", T + 140, T + 150, 1, 2), 0); /* most frequent, not top-level */
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_string_equal(s.range, "early");
	assert_int_equal(s.nunits, 2);
	assert_int_equal(s.units[1].thread_id, 2);
	gt_split_release(&s);
}

/* A unit whose launch latency median falls on a half nanosecond (two launches, 100 and 101 ns),
 * another at 200: the statistics across units must be those of 100.5 and 200, exactly. */
static void test_half_nanosecond_medians(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_nvtx(w, "f", T + 0, T + 1000, 0, 1), 0);
	assert_int_equal(tl_nvtx(w, "f", T + 1000, T + 2000, 0, 1), 0);
	assert_int_equal(tl_api(w, "cudaLaunchKernel", T + 10, T + 20, 1, 1), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T + 110, T + 200, 1, 1, 0), 0);
	assert_int_equal(tl_api(w, "cudaLaunchKernel", T + 30, T + 40, 1, 2), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T + 131, T + 300, 1, 2, 0), 0);
	assert_int_equal(tl_api(w, "cudaLaunchKernel", T + 1010, T + 1020, 1, 3), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T + 1210, T + 1300, 1, 3, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.nunits, 2);
	assert_true(V(&s.units[0], LAUNCH) == 100.5);
	assert_true(s.st[GT_M_LAUNCH].median == 150.25);
	assert_true(s.st[GT_M_LAUNCH].mad == 49.75);
	check_stats_exact(&s);
	gt_split_release(&s);
}

/* Units that overlap (frames of two threads): each sees all of its own time, shared spans included.
 *   thread 1: [1000,3000)   thread 2: [2000,4000)
 *   kernel [2500,2600); HtoD copy [1500,3500); API call [2900,3100) */
static void test_overlapping_units(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_nvtx(w, "frame", T + 1000, T + 3000, 0, 1), 0);
	assert_int_equal(tl_nvtx(w, "frame", T + 2000, T + 4000, 0, 2), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T + 2500, T + 2600, 1, 1, 0), 0);
	assert_int_equal(tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 1 << 20, T + 1500, T + 3500, 2, 1), 0);
	assert_int_equal(tl_api(w, "cudaMemcpyAsync", T + 2900, T + 3100, 1, 9), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.nunits, 2);
	const struct gt_split_unit *a = &s.units[0], *b = &s.units[1];
	assert_true(V(a, HTOD) == 1500 && V(b, HTOD) == 1500);
	assert_true(V(a, KERNEL) == 100 && V(b, KERNEL) == 100);
	assert_true(V(a, OVERLAP) == 100 && V(b, OVERLAP) == 100);
	assert_true(V(a, API) == 100 && V(b, API) == 200);
	assert_true(V(a, IDLE) == 500 && V(b, IDLE) == 500);
	assert_int_equal(a->kernels, 1);
	assert_int_equal(b->kernels, 1);
	assert_int_equal(a->copies, 1);
	assert_int_equal(b->copies, 1);
	gt_split_release(&s);
}

/* A DDP-like trace: NCCL marks its own ranges in its domain, one never closed at depth 0 on the
 * main thread (so the program's steps are recorded at depth 1) and many collectives at depth 0 on
 * another thread. The default is still the program's "step": top-level among its own ranges. A
 * trace whose ranges are all in named domains takes them all. */
static void test_default_domain_first(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_nvtx_domain(w, "NCCL", "ncclCommInitRankConfig", T + 10, 0, 0, 1), 0);
	for (uint64_t i = 0; i < 3; i++) {
		assert_int_equal(tl_nvtx(w, "step", T + 1000 * (i + 1), T + 1000 * (i + 1) + 900, 1, 1), 0);
		assert_int_equal(tl_nvtx(w, "fwd", T + 1000 * (i + 1) + 10, T + 1000 * (i + 1) + 400, 2, 1), 0);
	}
	for (uint64_t i = 0; i < 8; i++)
		assert_int_equal(tl_nvtx_domain(w, "NCCL", "ncclAllReduce", T + 1000 + 300 * i, T + 1000 + 300 * i + 50, 0, 2), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_string_equal(s.range, "step");
	assert_int_equal(s.range_domain_default, 1);
	assert_int_equal(s.nunits, 3);
	assert_int_equal(s.nnames, 1); /* fwd is inside step; NCCL's are not the program's */
	gt_split_release(&s);
	run(&s, p, "ncclAllReduce", 0); /* named, any domain */
	assert_int_equal(s.nunits, 8);
	gt_split_release(&s);

	p = temp();
	assert_int_equal(synth_open(&w, p, 0), 0);
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(tl_nvtx_domain(w, "lib", "phase", T + 100 * i, T + 100 * i + 50, 0, 1), 0);
	assert_int_equal(gt_writer_close(w), 0);
	run(&s, p, NULL, 0);
	assert_string_equal(s.range, "phase");
	assert_int_equal(s.range_domain_default, 0);
	assert_int_equal(s.nunits, 4);
	gt_split_release(&s);
}

/* A parent and its first child start at the same nanosecond: the parent is the top-level one. */
static void test_parent_and_child_starting_together(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	for (uint64_t i = 0; i < 3; i++) {
		assert_int_equal(tl_nvtx(w, "child", T + 1000 * i, T + 1000 * i + 100, 1, 1), 0);
		assert_int_equal(tl_nvtx(w, "child", T + 1000 * i + 200, T + 1000 * i + 300, 1, 1), 0);
		assert_int_equal(tl_nvtx(w, "frame", T + 1000 * i, T + 1000 * i + 900, 0, 1), 0); /* popped last */
	}
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_string_equal(s.range, "frame");
	assert_int_equal(s.nunits, 3);
	gt_split_release(&s);
}

/* ---- fallbacks ---------------------------------------------------------------------------------- */

static void test_sync_intervals_without_nvtx(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_sync(p, 1), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_SYNC);
	assert_int_equal(s.syncs, 4);         /* the stream-wait-event is not a host sync */
	assert_int_equal(s.empty_dropped, 1); /* [2000,2005) */
	assert_int_equal(s.nunits, 4);
	static const uint64_t a[] = { 1000, 2005, 3000, 4000 }, b[] = { 2000, 3000, 4000, 4500 };
	static const double k[] = { 100, 100, 200, 300 };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s.units[i].start, T + a[i]);
		assert_int_equal(s.units[i].end, T + b[i]);
		assert_true(V(&s.units[i], KERNEL) == k[i]);
		assert_int_equal(s.units[i].kernels, 1);
	}
	gt_split_release(&s);
}

static void test_sync_intervals_from_api_calls(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_api_sync(p, 0), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_SYNC);
	assert_int_equal(s.syncs, 4);         /* cudaStreamWaitEvent is not a host sync */
	assert_int_equal(s.syncs_read, 0);
	assert_int_equal(s.empty_dropped, 1); /* [2000,2005) */
	assert_int_equal(s.nunits, 4);
	static const uint64_t a[] = { 1000, 2005, 3000, 4000 }, b[] = { 2000, 3000, 4000, 4500 };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(s.units[i].start, T + a[i]);
		assert_int_equal(s.units[i].end, T + b[i]);
		assert_int_equal(s.units[i].kernels, 1);
	}
	gt_split_release(&s);

	p = temp();
	assert_int_equal(write_api_sync(p, 1), 0);
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_SYNC);
	assert_int_equal(s.syncs, 1); /* the record alone */
	assert_int_equal(s.nunits, 2);
	gt_split_release(&s);
}

static void test_whole_process_without_syncs(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_process(p, 1, 1), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_PROCESS);
	assert_int_equal(s.nunits, 1);
	const struct gt_split_unit *u = &s.units[0];
	assert_int_equal(u->start, T + 100);
	assert_int_equal(u->end, T + 9000);
	assert_true(V(u, KERNEL) == 1000 && V(u, DTOH) == 400 && V(u, API) == 5);
	assert_true(V(u, IDLE) == 8900 - 1400);
	assert_true(V(u, LAUNCH) == 10);
	gt_split_release(&s);

	p = temp();
	assert_int_equal(write_process(p, 1, 0), 0);
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_PROCESS);
	assert_int_equal(s.units[0].start, T + 1000);
	assert_int_equal(s.units[0].end, T + 2500);
	assert_true(V(&s.units[0], IDLE) == 1500 - 1400);
	gt_split_release(&s);
}

/* Window mode (GPUTRACE_WINDOW): process [100, 9000); windows open at 100 (closed 1100), 5000
 * (closed 6000; a second open at 5500 inside it is ignored) and 8000 (never closed: it ends at the
 * exit); a close at 50 before any window is ignored. A sync at 600 would cut a sync-mode unit, but
 * the windows are the units: the time between them holds no records. */
static int write_windows(const char *path, int with_nvtx)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	rc = rc ? rc : tl_process(w, GT_PROCESS_START, 100);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_CLOSE, 50);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_OPEN, 100);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", 200, 300, 1, 1, 0);
	rc = rc ? rc : tl_sync(w, GT_SYNC_CONTEXT, 500, 600, 2);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", 700, 900, 1, 3, 0);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_CLOSE, 1100);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_OPEN, 5000);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", 5100, 5400, 1, 4, 0);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_OPEN, 5500);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_CLOSE, 6000);
	rc = rc ? rc : tl_process(w, GT_PROCESS_WINDOW_OPEN, 8000);
	rc = rc ? rc : tl_kernel(w, "_Z1kv", 8100, 8500, 1, 5, 0);
	if (with_nvtx) {
		rc = rc ? rc : tl_nvtx(w, "step", 150, 1000, 0, 1);
		rc = rc ? rc : tl_nvtx(w, "step", 5050, 5900, 0, 1);
	}
	rc = rc ? rc : tl_process(w, GT_PROCESS_EXIT, 9000);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static void test_windows_are_units(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_windows(p, 0), 0);
	struct gt_split s;
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_WINDOW);
	assert_int_equal(s.windows, 3);
	assert_int_equal(s.window_ns, 3000);
	assert_int_equal(s.run_ns, 8900);
	assert_int_equal(s.nunits, 3);
	static const uint64_t a[] = { 100, 5000, 8000 }, b[] = { 1100, 6000, 9000 };
	static const double k[] = { 300, 300, 400 };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s.units[i].start, a[i]);
		assert_int_equal(s.units[i].end, b[i]);
		assert_true(V(&s.units[i], KERNEL) == k[i]);
	}
	gt_split_release(&s);

	/* With NVTX ranges the ranges stay the units; the windows are still counted. */
	p = temp();
	assert_int_equal(write_windows(p, 1), 0);
	run(&s, p, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_NVTX);
	assert_int_equal(s.nunits, 2);
	assert_int_equal(s.windows, 3);
	assert_int_equal(s.window_ns, 3000);
	gt_split_release(&s);
}

/* ---- the command ------------------------------------------------------------------------------- */

static char *run_cmd(int argc, char **argv, int want_rc)
{
	const char *out = temp();
	char *av[16];
	int ac = 0;
	for (int i = 0; i < argc; i++)
		av[ac++] = argv[i];
	av[ac++] = "-o";
	av[ac++] = (char *)out;
	av[ac] = NULL;
	assert_int_equal(cmd_split(ac, av), want_rc);
	size_t len;
	char *text = synth_read_file(out, &len);
	assert_non_null(text);
	return text;
}

static void test_command_formats(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_nvtx(p, 1), 0);
	char *argv[] = { "split", "--format", "json", (char *)p };
	char *j = run_cmd(4, argv, 0);
	assert_non_null(strstr(j, "\"mode\": \"nvtx\""));
	assert_non_null(strstr(j, "\"range\": \"frame\""));
	assert_non_null(strstr(j, "\"kernel_ns\": 600"));
	free(j);
	char *argv2[] = { "split", "--format", "csv", "--warmup", "1", (char *)p };
	char *c = run_cmd(6, argv2, 0);
	assert_true(strncmp(c, "index,start_ns,", 15) == 0);
	/* only the two units after warm-up, plus the header: the distribution is --distribution's */
	int lines = 0;
	for (char *q = c; *q; q++)
		lines += *q == '\n';
	assert_int_equal(lines, 1 + 2);
	free(c);
	char *argv_d[] = { "split", "--format", "csv", "--distribution", "--warmup", "1", (char *)p };
	c = run_cmd(7, argv_d, 0);
	assert_true(strncmp(c, "metric,n,median_ns,", 19) == 0);
	assert_non_null(strstr(c, "\nwall_ns,2,"));
	lines = 0;
	for (char *q = c; *q; q++)
		lines += *q == '\n';
	assert_int_equal(lines, 1 + GT_M_COUNT); /* one row per column of the units */
	free(c);
	char *argv3[] = { "split", "--units", "1", (char *)p };
	char *t = run_cmd(4, argv3, 0);
	assert_non_null(strstr(t, "units (us; start in ms from the trace's start): 1 of 3 shown (--units 0 shows all)"));
	assert_non_null(strstr(t, "medians across units: end to end 0.001 ms, kernel 0.000 ms (20.0% of end to end)"));
	free(t);
}

/* ---- the real recordings ----------------------------------------------------------------------- */

struct rec {
	uint64_t start, end;
};

struct fixture {
	struct rec frames[4096], uploads[4096], downloads[4096];
	size_t nframes, nuploads, ndownloads;
	struct rec kernels[4096], htod[4096], dtoh[4096];
	uint32_t kcorr[4096];
	size_t nkernels, nhtod, ndtoh;
	uint64_t call_start[65536]; /* by correlation id */
	uint64_t sync_cupti[2], sync_mono[2];
	int nsync;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The renderer's records, read here without the analyzer. */
static void read_renderer(const char *path, struct fixture *f)
{
	memset(f, 0, sizeof *f);
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_NVTX) {
			const char *n = gt_reader_string(r, ev.u.nvtx.name_id);
			struct rec x = { ev.u.nvtx.start, ev.u.nvtx.end };
			if (!strcmp(n, "render_frame") && ev.u.nvtx.depth == 0)
				f->frames[f->nframes++] = x;
			else if (!strcmp(n, "upload"))
				f->uploads[f->nuploads++] = x;
			else if (!strcmp(n, "download"))
				f->downloads[f->ndownloads++] = x;
		} else if (ev.type == GT_REC_KERNEL) {
			f->kcorr[f->nkernels] = ev.u.kernel.correlation_id;
			f->kernels[f->nkernels++] = (struct rec){ ev.u.kernel.start, ev.u.kernel.end };
		} else if (ev.type == GT_REC_MEMCPY && ev.u.memcpy.copy_kind == GT_COPY_HTOD && f->nhtod < 4096) {
			f->htod[f->nhtod++] = (struct rec){ ev.u.memcpy.start, ev.u.memcpy.end };
		} else if (ev.type == GT_REC_MEMCPY && ev.u.memcpy.copy_kind == GT_COPY_DTOH && f->ndtoh < 4096) {
			f->dtoh[f->ndtoh++] = (struct rec){ ev.u.memcpy.start, ev.u.memcpy.end };
		} else if (ev.type == GT_REC_API && ev.u.api.correlation_id < 65536 &&
		           strstr(gt_reader_string(r, ev.u.api.name_id), "Launch")) {
			f->call_start[ev.u.api.correlation_id] = ev.u.api.start;
		} else if (ev.type == GT_REC_CLOCK_SYNC && f->nsync < 2) {
			f->sync_cupti[f->nsync] = ev.u.clock_sync.cupti_ns;
			f->sync_mono[f->nsync++] = ev.u.clock_sync.monotonic_ns;
		}
		assert_true(f->nframes < 4096 && f->nkernels < 4096 && f->nuploads < 4096 && f->ndownloads < 4096);
	}
	assert_int_equal(rc, 0);
	gt_reader_close(r);
	qsort(f->frames, f->nframes, sizeof *f->frames, cmp_rec);
	qsort(f->uploads, f->nuploads, sizeof *f->uploads, cmp_rec);
	qsort(f->downloads, f->ndownloads, sizeof *f->downloads, cmp_rec);
	qsort(f->htod, f->nhtod, sizeof *f->htod, cmp_rec);
	qsort(f->dtoh, f->ndtoh, sizeof *f->dtoh, cmp_rec);
}

/* The renderer's recordings among the samples: the trace beside its printed timings when they are
 * there (the -timed one of the final GPU run), and the first recording. */
static const char *const renderers[] = { "h200-splat_render", "h200-splat_render-timed" };
#define NRENDERERS (sizeof renderers / sizeof renderers[0])

static struct fixture fx;

/* Per frame: wall = the render_frame range's duration; kernel busy = the composite kernel's
 * duration (the renderer launches one kernel per frame, and it runs inside its frame: both facts
 * are checked from the records first); launch latency = that kernel's start - its launch call's
 * start. */
static void renderer_frames(const char *path)
{
	read_renderer(path, &fx);
	assert_true(fx.nframes > 0);
	assert_int_equal(fx.nkernels, fx.nframes);
	struct gt_split s;
	run(&s, path, NULL, 0);
	assert_int_equal(s.mode, GT_SPLIT_NVTX);
	assert_string_equal(s.range, "render_frame");
	assert_int_equal(s.nunits, fx.nframes);
	for (size_t i = 0; i < s.nunits; i++) {
		const struct gt_split_unit *u = &s.units[i];
		const struct rec *fr = &fx.frames[i];
		assert_int_equal(u->start, fr->start);
		assert_true(V(u, WALL) == (double)(fr->end - fr->start));
		/* the frame's one kernel */
		const struct rec *k = NULL;
		uint32_t corr = 0;
		for (size_t j = 0; j < fx.nkernels; j++) {
			if (fx.kernels[j].start < fr->end && fx.kernels[j].end > fr->start) {
				assert_null(k); /* one kernel per frame */
				k = &fx.kernels[j];
				corr = fx.kcorr[j];
			}
		}
		assert_non_null(k);
		assert_true(k->start >= fr->start && k->end <= fr->end);
		assert_true(V(u, KERNEL) == (double)(k->end - k->start));
		assert_int_equal(u->kernels, 1);
		assert_true(fx.call_start[corr] != 0);
		assert_true(V(u, LAUNCH) == (double)(int64_t)(k->start - fx.call_start[corr]));
		assert_true(V(u, IDLE) >= 0 && V(u, IDLE) <= V(u, WALL) - V(u, KERNEL));
	}
	gt_split_release(&s);
}

static void test_renderer_frames(void **state)
{
	(void)state;
	int seen = 0;
	for (size_t r = 0; r < NRENDERERS; r++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s.gtrace", samples(), renderers[r]);
		if (access(path, R_OK) != 0)
			continue;
		renderer_frames(path);
		seen++;
	}
	if (!seen)
		skip();
}

/* The renderer prints, per frame, "warmup N kernel_ms K e2e_ms E" or "frame N ...", warm-up frames
 * first, in the order it ran them (kernels/splat_render.cu):
 *
 *   e2e is steady_clock around upload + composite + download + sync, read just inside the
 *   render_frame range and just outside the upload and download ranges. So, per frame,
 *       download.end - upload.start  <=  e2e  <=  render_frame.end - render_frame.start = wall,
 *   on one clock: split's per-frame wall is the program's own end to end, plus at most what its
 *   NVTX calls and one clock read cost (under a microsecond on the H200 recording).
 *
 *   kernel_ms is cudaEventElapsedTime between events recorded in the stream just before and just
 *   after the kernel, and after the upload / before the download in stream order. So
 *       kernel.end - kernel.start  <=  kernel_ms  <=  download copy.start - upload copy.end,
 *   on the GPU's clock: split's kernel column (here the kernel's duration) is the event time
 *   less the events' own cost.
 *
 * Tolerances, each a stated cause: the printing rounds to 1e-4 ms (50 ns either way); CUDA events
 * resolve about 0.5 us (CUDA Runtime API, cudaEventElapsedTime), so 550 ns for kernel_ms; and
 * steady_clock (CLOCK_MONOTONIC) may tick at a slightly different rate from CUPTI's clock: the
 * trace's first and last CLOCK_SYNC pairs measure it, the test requires it under 10 ppm (0.16 and
 * 0.62 ppm on the H200 recordings) and allows 10 ppm of the wall. */
static void renderer_printed(const char *path, FILE *f)
{
	read_renderer(path, &fx);
	assert_int_equal(fx.nsync, 2);
	double rate = (double)(fx.sync_cupti[1] - fx.sync_cupti[0]) / (double)(fx.sync_mono[1] - fx.sync_mono[0]);
	assert_true(fabs(rate - 1) < 10e-6);
	assert_int_equal(fx.nuploads, fx.nframes);
	assert_int_equal(fx.ndownloads, fx.nframes);
	assert_int_equal(fx.nhtod, fx.nframes);
	assert_int_equal(fx.ndtoh, fx.nframes);
	struct gt_split s;
	run(&s, path, NULL, 0);
	char line[512];
	size_t i = 0;
	while (fgets(line, sizeof line, f)) {
		int idx;
		double kms, ems;
		if (sscanf(line, "warmup %d kernel_ms %lf e2e_ms %lf", &idx, &kms, &ems) != 3 &&
		    sscanf(line, "frame %d kernel_ms %lf e2e_ms %lf", &idx, &kms, &ems) != 3)
			continue;
		assert_true(i < s.nunits);
		const struct gt_split_unit *u = &s.units[i];
		double e2e = ems * 1e6, wall = V(u, WALL);
		double inner = (double)(fx.downloads[i].end - fx.uploads[i].start);
		double tol = 50 + 10e-6 * wall;
		if (!(e2e <= wall + tol && e2e >= inner - tol))
			fail_msg("%s frame %zu: printed e2e %.1f ns outside [%.1f, %.1f] ns (+-%.1f)", path, i, e2e, inner,
			         wall, tol);
		double k = kms * 1e6, kernel = V(u, KERNEL);
		double outer = (double)(fx.dtoh[i].start - fx.htod[i].end);
		if (!(k >= kernel - 550 && k <= outer + 550))
			fail_msg("%s frame %zu: printed kernel %.1f ns outside [%.1f, %.1f] ns (+-550)", path, i, k, kernel, outer);
		i++;
	}
	assert_int_equal(i, s.nunits); /* one printed line per unit, warm-up frames included */
	gt_split_release(&s);
}

static void test_renderer_wall_matches_printed_e2e(void **state)
{
	(void)state;
	int seen = 0;
	for (size_t r = 0; r < NRENDERERS; r++) {
		char path[512], out[512];
		snprintf(path, sizeof path, "%s/%s.gtrace", samples(), renderers[r]);
		snprintf(out, sizeof out, "%s/%s.out", samples(), renderers[r]);
		FILE *f = fopen(out, "r");
		if (!f)
			continue; /* a recording without the program's printed timings */
		renderer_printed(path, f);
		fclose(f);
		seen++;
	}
	if (!seen)
		skip();
}

/* What every split must satisfy, on every sample trace. */
static void test_invariants_on_every_sample(void **state)
{
	(void)state;
	DIR *d = opendir(samples());
	if (!d)
		skip();
	struct dirent *e;
	int seen = 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 8 || strcmp(e->d_name + n - 7, ".gtrace"))
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", samples(), e->d_name);
		struct gt_split s;
		run(&s, path, NULL, 0);
		seen++;
		assert_int_equal(s.nunits, s.units_total);
		for (size_t i = 0; i < s.nunits; i++) {
			const struct gt_split_unit *u = &s.units[i];
			double wall = V(u, WALL), copies = 0;
			assert_true(u->end >= u->start && wall == (double)(u->end - u->start));
			assert_true(V(u, KERNEL) >= 0 && V(u, KERNEL) <= wall);
			for (int m = GT_M_HTOD; m <= GT_M_OTHER; m++) {
				assert_true(u->v[m] >= 0 && u->v[m] <= wall);
				copies += u->v[m];
			}
			assert_true(V(u, OVERLAP) <= V(u, KERNEL) && V(u, OVERLAP) <= copies);
			assert_true(V(u, API) >= 0 && V(u, API) <= wall);
			/* GPU busy >= each of its parts, <= their sum */
			double busy = wall - V(u, IDLE);
			assert_true(busy >= V(u, KERNEL) && busy >= V(u, MEMSET));
			assert_true(busy <= V(u, KERNEL) + copies + V(u, MEMSET));
			if (i)
				assert_true(u->start >= s.units[i - 1].start);
		}
		if (s.mode == GT_SPLIT_SYNC)
			assert_true(s.nunits + s.empty_dropped <= s.syncs + 1);
		check_stats_exact(&s);
		gt_split_release(&s);
	}
	closedir(d);
	assert_true(seen > 0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write")) {
		char p[4096];
		snprintf(p, sizeof p, "%s/nvtx.gtrace", argv[2]);
		int rc = write_nvtx(p, 1000);
		snprintf(p, sizeof p, "%s/sync.gtrace", argv[2]);
		rc = rc ? rc : write_sync(p, 1000);
		snprintf(p, sizeof p, "%s/process.gtrace", argv[2]);
		rc = rc ? rc : write_process(p, 1000, 1);
		if (rc)
			fprintf(stderr, "test_analyze_split: cannot write the traces: %s\n", gt_strerror(rc));
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_nvtx_units_unions_and_latency, teardown),
		cmocka_unit_test_teardown(test_warmup_drops_units_by_position, teardown),
		cmocka_unit_test_teardown(test_range_option_picks_nested_and_rejects_unknown, teardown),
		cmocka_unit_test_teardown(test_most_frequent_ties_go_to_earliest, teardown),
		cmocka_unit_test_teardown(test_half_nanosecond_medians, teardown),
		cmocka_unit_test_teardown(test_overlapping_units, teardown),
		cmocka_unit_test_teardown(test_default_domain_first, teardown),
		cmocka_unit_test_teardown(test_parent_and_child_starting_together, teardown),
		cmocka_unit_test_teardown(test_sync_intervals_without_nvtx, teardown),
		cmocka_unit_test_teardown(test_sync_intervals_from_api_calls, teardown),
		cmocka_unit_test_teardown(test_whole_process_without_syncs, teardown),
		cmocka_unit_test_teardown(test_windows_are_units, teardown),
		cmocka_unit_test_teardown(test_command_formats, teardown),
		cmocka_unit_test_teardown(test_renderer_frames, teardown),
		cmocka_unit_test_teardown(test_renderer_wall_matches_printed_e2e, teardown),
		cmocka_unit_test_teardown(test_invariants_on_every_sample, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
