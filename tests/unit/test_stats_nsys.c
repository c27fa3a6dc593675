/* test_stats_nsys.c: the nsys reports of stats_nsys.h on a hand-made trace whose every value is
 * worked out below: queue time present and absent (cuda_kern_exec_trace), the push/pop tree with a
 * range that does not nest in its parent (nvtx_pushpop_trace), projections of push/pop ranges on
 * their thread only and of a start/end range on every thread (nvtx_gpu_proj_trace), and a kernel
 * whose call is missing, counted and left out.
 *
 * The trace (ns): thread 7 calls cudaLaunchKernel at [100, 200) (corr 1, its kernel at [250, 300):
 * queued 50 after the call) and at [400, 500) (corr 2, kernel [450, 600): started before the call
 * returned, no queue); thread 9 calls at [120, 130) (corr 3, kernel [700, 710)). Push/pop ranges on
 * thread 7: "outer" [50, 1000), "inner" [390, 410) inside it, "late" [900, 1200) that starts inside
 * outer and ends after it (hostile: a child past its parent's end). Start/end "se" [0, 150) on
 * thread 9: it holds the calls of corr 1 (thread 7) and corr 3 (thread 9). Kernel corr 4 has no
 * call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/engines/stats_nsys.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"
#include "helpers/tl_synth.h"

static char *path;

static int kernel(struct gt_writer *w, uint32_t corr, uint64_t s, uint64_t e)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = s;
	k.end = e;
	k.correlation_id = corr;
	k.grid_x = k.grid_y = k.grid_z = 1;
	k.block_x = k.block_y = k.block_z = 32;
	if (!(k.name_id = gt_writer_intern(w, "_Z1kv")))
		return GT_ERR_NOMEM;
	return gt_writer_add(w, GT_REC_KERNEL, &k);
}

static int range(struct gt_writer *w, const char *name, uint64_t s, uint64_t e, uint32_t thread, int kind)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = s;
	n.end = e;
	n.thread_id = thread;
	n.kind = (uint8_t)kind;
	if (!(n.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	return gt_writer_add(w, GT_REC_NVTX, &n);
}

static int write_trace(const char *p)
{
	struct gt_writer *w;
	int rc = synth_open(&w, p, 0);
	if (rc)
		return rc;
	rc = synth_device(w);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", 100, 200, 7, 1);
	rc = rc ? rc : kernel(w, 1, 250, 300);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", 400, 500, 7, 2);
	rc = rc ? rc : kernel(w, 2, 450, 600);
	rc = rc ? rc : tl_api(w, "cudaLaunchKernel", 120, 130, 9, 3);
	rc = rc ? rc : kernel(w, 3, 700, 710);
	rc = rc ? rc : kernel(w, 4, 800, 810);
	rc = rc ? rc : range(w, "outer", 50, 1000, 7, GT_NVTX_PUSH_POP);
	rc = rc ? rc : range(w, "inner", 390, 410, 7, GT_NVTX_PUSH_POP);
	rc = rc ? rc : range(w, "late", 900, 1200, 7, GT_NVTX_PUSH_POP);
	rc = rc ? rc : range(w, "se", 0, 150, 9, GT_NVTX_START_END);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static int setup(void **state)
{
	(void)state;
	path = synth_temp_path("stats_nsys");
	return path && write_trace(path) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	if (path)
		unlink(path);
	free(path);
	path = NULL;
	return 0;
}

/* The cell of row, col as an integer; -1 for a null one. */
static int64_t num(const struct gt_nsys_report *rep, size_t row, size_t col)
{
	struct gt_nsys_cell c;
	gt_nsys_cell(rep, row, col, &c);
	switch (c.type) {
	case GT_NSYS_U64: return (int64_t)c.u;
	case GT_NSYS_I64: return c.i;
	case GT_NSYS_NUM: return (int64_t)c.d;
	case GT_NSYS_NULL: return -1;
	default: fail_msg("cell %zu,%zu is not a number", row, col); return 0;
	}
}

static const char *str(const struct gt_nsys_report *rep, size_t row, size_t col)
{
	struct gt_nsys_cell c;
	gt_nsys_cell(rep, row, col, &c);
	assert_int_equal(c.type, GT_NSYS_STR);
	return c.s;
}

/* cuda_kern_exec_trace: API Start, API Dur, Queue Start, Queue Dur, Kernel Start, Kernel Dur,
 * Total Dur; by the call's start (100, 120, 400); corr 4 left out for its missing call. */
static void test_kern_exec_trace(void **state)
{
	(void)state;
	struct gt_nsys_report rep;
	assert_int_equal(gt_nsys_report_run(&rep, GT_NSYS_KERN_EXEC_TRACE, path), 0);
	assert_int_equal(rep.nrows, 3);
	assert_int_equal(rep.trace.no_call, 1);
	const int64_t want[3][7] = { { 100, 100, 200, 50, 250, 50, 200 }, { 120, 10, 130, 570, 700, 10, 590 },
		                     { 400, 100, -1, -1, 450, 150, 200 } };
	for (size_t r = 0; r < 3; r++)
		for (size_t c = 0; c < 7; c++)
			assert_int_equal(num(&rep, r, c), want[r][c]);
	assert_string_equal(str(&rep, 0, 11), "1 1 1");
	gt_nsys_report_release(&rep);
}

/* cuda_kern_exec_sum: thread 7's two launches are one group: Count 2, QCount 1, TMin 200. */
static void test_kern_exec_sum(void **state)
{
	(void)state;
	struct gt_nsys_report rep;
	assert_int_equal(gt_nsys_report_run(&rep, GT_NSYS_KERN_EXEC_SUM, path), 0);
	assert_int_equal(rep.nrows, 2);
	assert_int_equal(num(&rep, 0, 1), 9); /* the larger total first: 590 against 400 */
	assert_int_equal(num(&rep, 1, 1), 7);
	assert_int_equal(num(&rep, 1, 3), 2);
	assert_int_equal(num(&rep, 1, 4), 1);
	assert_int_equal(num(&rep, 1, 7), 200); /* TMin */
	assert_int_equal(num(&rep, 1, 18), 50); /* QMax: the one queue */
	gt_nsys_report_release(&rep);
}

/* nvtx_pushpop_trace: outer (id 1) holds inner (2) and late (3), which ends past it: DurChild 320,
 * DurNonChild 630, NumChild 2; RangeStack :1:3. */
static void test_pushpop_tree(void **state)
{
	(void)state;
	struct gt_nsys_report rep;
	assert_int_equal(gt_nsys_report_run(&rep, GT_NSYS_PUSHPOP_TRACE, path), 0);
	assert_int_equal(rep.nrows, 3);
	assert_string_equal(str(&rep, 0, 5), "outer");
	assert_int_equal(num(&rep, 0, 3), 320);
	assert_int_equal(num(&rep, 0, 4), 630);
	assert_int_equal(num(&rep, 0, 9), 2);
	assert_int_equal(num(&rep, 0, 11), -1);
	assert_string_equal(str(&rep, 2, 5), "late");
	assert_int_equal(num(&rep, 2, 8), 1);
	assert_int_equal(num(&rep, 2, 11), 1);
	assert_string_equal(str(&rep, 2, 12), ":1:3");
	assert_string_equal(str(&rep, 2, 13), "--late");
	gt_nsys_report_release(&rep);
}

/* nvtx_gpu_proj_trace: outer projects to [250, 600) with 2 operations (thread 9's call is not its
 * thread's), inner to [450, 600) with 1, late to none (left out); se, on every thread, holds corr
 * 1 and 3: [250, 710), 2 operations. */
static void test_projection(void **state)
{
	(void)state;
	struct gt_nsys_report rep;
	assert_int_equal(gt_nsys_report_run(&rep, GT_NSYS_GPU_PROJ_TRACE, path), 0);
	assert_int_equal(rep.nrows, 3);
	const char *names[3] = { "outer", "inner", "se" };
	const int64_t want[3][4] = { { 250, 350, 2, 1 }, { 450, 150, 1, 2 }, { 250, 460, 2, 4 } };
	for (size_t r = 0; r < 3; r++) {
		assert_string_equal(str(&rep, r, 0), names[r]);
		assert_int_equal(num(&rep, r, 1), want[r][0]);
		assert_int_equal(num(&rep, r, 2), want[r][1]);
		assert_int_equal(num(&rep, r, 8), want[r][2]);
		assert_int_equal(num(&rep, r, 11), want[r][3]);
	}
	assert_string_equal(str(&rep, 2, 5), "StartEnd");
	gt_nsys_report_release(&rep);

	assert_int_equal(gt_nsys_report_run(&rep, GT_NSYS_GPU_PROJ_SUM, path), 0);
	assert_int_equal(rep.nrows, 3);
	assert_string_equal(str(&rep, 0, 0), "se"); /* by total projected time: 460, 350, 150 */
	assert_int_equal(num(&rep, 0, 2), 460);
	assert_int_equal(num(&rep, 0, 3), 150);
	assert_int_equal(num(&rep, 1, 10), 2);
	gt_nsys_report_release(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kern_exec_trace),
		cmocka_unit_test(test_kern_exec_sum),
		cmocka_unit_test(test_pushpop_tree),
		cmocka_unit_test(test_projection),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
