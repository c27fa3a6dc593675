/* test_launcher_replay_times.c: the timing table after `gputrace replay` (preload/
 * launcher_replay_times.c), on traces written through the writer: the replay trace's kernels cut
 * into each capture's by the worker's results file (in start order, whatever the file order), the
 * self-check launch dropped, the run's launches of the same kernel taken only with the captured
 * grid, block and shared memory, the captured launch found by its correlation id, a kernel naming
 * an undefined string id ignored at no cost, the profiler's own kernels (no launch call made them)
 * left out, and a replay trace whose kernel count disagrees with the results refused rather than
 * misattributed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/synth_trace.h"
#include "preload/launcher/launcher_replay.h"

static int kernel(struct gt_writer *w, const char *name, uint64_t start, uint64_t dur, uint32_t grid,
                  uint32_t corr)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = start;
	k.end = start + dur;
	k.name_id = gt_writer_intern(w, name);
	k.correlation_id = corr;
	k.grid_x = grid;
	k.grid_y = k.grid_z = 1;
	k.block_x = 128;
	k.block_y = k.block_z = 1;
	return gt_writer_add(w, GT_REC_KERNEL, &k);
}

struct fixture {
	char *run, *replay, *results;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	f->run = synth_temp_path("rt_run");
	f->replay = synth_temp_path("rt_replay");
	f->results = synth_temp_path("rt_results");
	struct gt_writer *w;
	/* The run: five launches with the captured configuration (2, 3, 4, 5, 6 us; the one with
	 * correlation id 42 took 4 us), two at another grid (100 us: must not count), another kernel. */
	assert_int_equal(synth_open(&w, f->run, 0), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(kernel(w, "_Z3fooPf", 1000000 + (uint64_t)i * 100000, 2000 + (uint64_t)i * 1000, 10,
		                        i == 2 ? 42 : (uint32_t)(100 + i)), 0);
	assert_int_equal(kernel(w, "_Z3fooPf", 3000000, 100000, 20, 7), 0);
	assert_int_equal(kernel(w, "_Z3fooPf", 3500000, 100000, 20, 8), 0);
	assert_int_equal(kernel(w, "_Z3barv", 4000000, 50000, 10, 9), 0);
	/* A kernel naming a string the trace never defined, the largest id there is: ignored, and it
	 * must not size anything (a table indexed by it would take 16 GiB). */
	struct gt_kernel hostile;
	memset(&hostile, 0, sizeof hostile);
	hostile.start = 5000000;
	hostile.end = 5000100;
	hostile.name_id = UINT32_MAX;
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &hostile), 0);
	assert_int_equal(gt_writer_close(w), 0);
	/* The replay: capture 1 made 1 + 5 launches (the first, 10 us, is the self-check), capture 3
	 * made 1 + 2 of another kernel; written out of start order, as CUPTI's buffers may hand them. */
	assert_int_equal(synth_open(&w, f->replay, 0), 0);
	static const uint64_t foo[6] = { 10000, 1000, 1100, 1200, 1300, 1400 };
	for (int i = 5; i >= 0; i--)
		assert_int_equal(kernel(w, "_Z3fooPf", 1000 + (uint64_t)i * 20000, foo[i], 10, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(kernel(w, "_Z3barv", 500000 + (uint64_t)i * 100000, 40000 + (uint64_t)i, 10, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unlink(f->run);
	unlink(f->replay);
	unlink(f->results);
	free(f->run);
	free(f->replay);
	free(f->results);
	free(f);
	return 0;
}

static void write_results(const char *path, const char *text)
{
	FILE *r = fopen(path, "w");
	assert_non_null(r);
	assert_int_equal(fputs(text, r) >= 0, 1);
	assert_int_equal(fclose(r), 0);
}

/* The table for the fixture, in a malloc'ed string. */
static char *table(struct fixture *f, const char *results, int *rc)
{
	write_results(f->results, results);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	*rc = launcher_replay_times(f->run, f->replay, f->results, out);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void test_cut_and_compared(void **state)
{
	int rc;
	/* Capture 2 launched nothing (not replayable): it takes no kernels from the trace. */
	char *t = table(*state, "1 6 0 42 0\n2 0 5 0 0\n3 3 0 0 0\n", &rc);
	assert_int_equal(rc, 0);
	/* Capture 1: the self-check (10 us) dropped, median of 1.0 .. 1.4 us; the run's five launches
	 * at grid 10 (the 100 us ones at grid 20 left out), median 4 us; the captured launch 4 us. */
	assert_non_null(strstr(t, "capture 1: grid 10x1x1, block 128x1x1"));
	assert_non_null(strstr(t, "in isolation n 5      median     1.200 us"));
	assert_non_null(strstr(t, "in the run   n 5      median     4.000 us"));
	assert_non_null(strstr(t, "the captured launch itself took 4.000 us"));
	assert_non_null(strstr(t, "in the run 4.000 us, in isolation 1.200 us median: 3.33x"));
	assert_non_null(strstr(t, "capture 2: no timed replays\n"));
	/* Capture 3: two timed replays of bar (40.001, 40.002 us), the run's one launch 50 us. */
	assert_non_null(strstr(t, "in isolation n 2      median    40.002 us"));
	assert_non_null(strstr(t, "in the run   n 1      median    50.000 us"));
	assert_null(strstr(t, "100.000"));
	free(t);
}

static void test_profiled_not_timed(void **state)
{
	int rc;
	/* The last launches of a capture made under the profiler (replay --metrics) are slower by
	 * design: capture 1's last two and capture 3's last one are left out of the timing. */
	char *t = table(*state, "1 6 0 42 2\n2 0 5 0 0\n3 3 0 0 1\n", &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "in isolation n 3      median     1.100 us"));
	assert_non_null(strstr(t, "in isolation n 1      median    40.001 us"));
	free(t);
}

static void test_count_mismatch_refused(void **state)
{
	int rc;
	/* One launch more than the trace holds: nothing is attributed, and the table says why. */
	char *t = table(*state, "1 7 0 42 0\n3 3 0 0 0\n", &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "the replay trace holds 9 kernels, the replay made 10 launches"));
	assert_null(strstr(t, "in isolation"));
	free(t);
}

/* Under --metrics the Range Profiler runs kernels of its own between passes (WaitNs on the H200),
 * which no launch call of the worker made: a replay trace with launch calls keeps only the kernels
 * they made, so the cut is the same as without the profiler's. */
static void test_profiler_kernels_left_out(void **state)
{
	struct fixture *f = *state;
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, f->replay, 0), 0); /* over the fixture's */
	static const uint64_t foo[6] = { 10000, 1000, 1100, 1200, 1300, 1400 };
	uint32_t corr = 1;
	for (int i = 0; i < 9; i++, corr++) {
		uint64_t t = i < 6 ? 1000 + (uint64_t)i * 20000 : 500000 + (uint64_t)(i - 6) * 100000;
		if (i < 6)
			assert_int_equal(kernel(w, "_Z3fooPf", t, foo[i], 10, corr), 0);
		else
			assert_int_equal(kernel(w, "_Z3barv", t, 40000 + (uint64_t)(i - 6), 10, corr), 0);
		struct gt_api a;
		memset(&a, 0, sizeof a);
		a.start = t - 500;
		a.end = t - 400;
		a.name_id = gt_writer_intern(w, i % 2 ? "cuLaunchKernel" : "cuLaunchKernelEx");
		a.correlation_id = corr;
		a.domain = GT_API_DRIVER;
		assert_int_equal(gt_writer_add(w, GT_REC_API, &a), 0);
		/* the profiler's kernel after each launch: no launch call, and a correlation id none has */
		assert_int_equal(kernel(w, "WaitNs", t + 15000, 10, 1, 1000 + corr), 0);
	}
	assert_int_equal(gt_writer_close(w), 0);
	int rc;
	char *t = table(f, "1 6 0 42 0\n2 0 5 0 0\n3 3 0 0 0\n", &rc);
	assert_int_equal(rc, 0);
	assert_null(strstr(t, "the replay trace holds"));
	assert_non_null(strstr(t, "in isolation n 5      median     1.200 us"));
	assert_non_null(strstr(t, "in isolation n 2      median    40.002 us"));
	free(t);
}

static void test_missing_replay_trace(void **state)
{
	struct fixture *f = *state;
	write_results(f->results, "1 6 0 42 0\n");
	FILE *out = tmpfile();
	assert_non_null(out);
	assert_int_equal(launcher_replay_times(f->run, "/nonexistent/replay.gtrace", f->results, out), -1);
	fclose(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_profiled_not_timed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_compared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_mismatch_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profiler_kernels_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_replay_trace, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
