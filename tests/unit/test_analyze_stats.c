/* test_analyze_stats.c: the nsys-style reports (analyze/engines/stats_reports.c) on a synthetic trace whose
 * answers are worked out here by hand, and the trace that tests/cli/test_gpuanalyze_stats.sh
 * checks against SQL over its SQLite export.
 *
 * The trace (write_trace): two threads whose API records carry 64-bit thread handles and whose
 * NVTX records carry their low 32 bits, as real recordings do; three "step" push/pop ranges on
 * thread A, each holding a "forward" range; a start/end range "epoch" over the first two steps;
 * an NCCL-domain range on thread B; a mark and a range never closed; kernels launched inside and
 * outside ranges, on both threads, one without its API call, one with bad timestamps, two sharing
 * a graph launch's correlation id, one kernel in two launch configurations; copies of three kinds,
 * one the recorder's own, one with end < start; memsets; API calls with end < start; names that
 * CSV must quote or neutralise, and one that is not UTF-8.
 *
 *   test_analyze_stats write DIR   writes DIR/stats.gtrace and DIR/deep.gtrace for the CLI test
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/support/demangle.h"
#include "analyze/support/diag.h"
#include "analyze/engines/stats_reports.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"
#include "helpers/tl_synth.h"

#define T0 1000000000ull
#define THREAD_A 0x7f3a00001111ull
#define THREAD_B 0x7f3a00002222ull
#define NVTX_A 0x1111u
#define NVTX_B 0x2222u

static const char *const hostile = "=HYPERLINK(\"x\",\"y\"), k";
static const char *const not_utf8 = "bad\xff" "name";

static int range(struct gt_writer *w, const char *domain, const char *name, uint64_t s, uint64_t e,
                 uint32_t depth, uint32_t thread, int kind)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = s;
	n.end = e;
	if (!(n.name_id = gt_writer_intern(w, name)) || (domain && !(n.domain_id = gt_writer_intern(w, domain))))
		return GT_ERR_NOMEM;
	n.thread_id = thread;
	n.depth = depth;
	n.kind = (uint8_t)kind;
	return gt_writer_add(w, GT_REC_NVTX, &n);
}

/* A kernel with its configuration, and (call != 0) the cudaLaunchKernel call at `call`. */
static int launch(struct gt_writer *w, const char *name, uint64_t call, uint64_t thread, uint32_t corr,
                  uint64_t start, uint64_t dur, uint32_t grid, uint32_t smem)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = start;
	k.end = start + dur;
	if (!(k.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	k.correlation_id = corr;
	k.stream_id = 7;
	k.grid_x = grid;
	k.grid_y = k.grid_z = 1;
	k.block_x = 256;
	k.block_y = k.block_z = 1;
	k.dynamic_smem = smem;
	k.registers = 32;
	int rc = gt_writer_add(w, GT_REC_KERNEL, &k);
	return rc || !call ? rc : tl_api(w, "cudaLaunchKernel", call, call + 3000, thread, corr);
}

static int write_trace(const char *path)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = synth_device(w);
	uint32_t corr = 100;
	/* Three steps on thread A, 1 ms apart; each with a forward range and two launches inside it,
	 * one more in the step after forward. */
	for (int s = 0; s < 3 && !rc; s++) {
		uint64_t t = T0 + (uint64_t)s * 1000000;
		rc = range(w, NULL, "step", t, t + 900000, 0, NVTX_A, GT_NVTX_PUSH_POP);
		rc = rc ? rc : range(w, NULL, "forward", t + 10000, t + 400000, 1, NVTX_A, GT_NVTX_PUSH_POP);
		rc = rc ? rc : launch(w, "_Z4gemmPfi", t + 20000, THREAD_A, corr++, t + 30000, 50000 + s * 1000, 128, 0);
		rc = rc ? rc : launch(w, hostile, t + 30000, THREAD_A, corr++, t + 90000, 7000 + s * 10, 1, 0);
		rc = rc ? rc : launch(w, "_Z4gemmPfi", t + 500000, THREAD_A, corr++, t + 510000, 60000, 256, 4096);
	}
	/* epoch: a start/end range over the first two steps; a launch on thread B inside it (and in no
	 * push/pop range, since B has none then). */
	rc = rc ? rc : range(w, NULL, "epoch", T0 - 1000, T0 + 1950000, 0, NVTX_A, GT_NVTX_START_END);
	rc = rc ? rc : launch(w, not_utf8, T0 + 1200000, THREAD_B, corr++, T0 + 1210000, 3000, 1, 0);
	/* NCCL's range on thread B, later, with one launch. */
	rc = rc ? rc : range(w, "NCCL", "ncclAllReduce", T0 + 2500000, T0 + 2600000, 0, NVTX_B, GT_NVTX_PUSH_POP);
	rc = rc ? rc : launch(w, "ncclKernel", T0 + 2510000, THREAD_B, corr++, T0 + 2520000, 40000, 8, 0);
	/* A call outside every range; a kernel whose call is missing; one with bad timestamps. */
	rc = rc ? rc : launch(w, "_Z4gemmPfi", T0 + 3100000, THREAD_A, corr++, T0 + 3110000, 52000, 128, 0);
	rc = rc ? rc : launch(w, "_Z4gemmPfi", 0, 0, corr++, T0 + 3200000, 51000, 128, 0);
	struct gt_kernel bad;
	memset(&bad, 0, sizeof bad);
	bad.start = T0 + 3300000;
	bad.end = T0 + 3200000;
	bad.name_id = gt_writer_intern(w, "_Z4gemmPfi");
	bad.flags = GT_KERNEL_BAD_TIMES;
	rc = rc ? rc : gt_writer_add(w, GT_REC_KERNEL, &bad);
	/* Two kernels of a graph, launched by one cudaGraphLaunch inside a fourth, short step. */
	rc = rc ? rc : tl_api(w, "cudaGraphLaunch", T0 + 2960000, T0 + 2965000, THREAD_A, 900);
	rc = rc ? rc : range(w, NULL, "step", T0 + 2950000, T0 + 3050000, 0, NVTX_A, GT_NVTX_PUSH_POP);
	rc = rc ? rc : launch(w, "graphnode", 0, 0, 900, T0 + 2970000, 1000, 4, 0);
	rc = rc ? rc : launch(w, "graphnode", 0, 0, 900, T0 + 2972000, 1100, 4, 0);
	/* A mark, a range never closed, an API call with end < start. */
	rc = rc ? rc : tl_nvtx(w, "checkpoint", T0 + 5000, T0 + 5000, 1, NVTX_A);
	rc = rc ? rc : range(w, NULL, "forever", T0 + 4000000, 0, 0, NVTX_A, GT_NVTX_PUSH_POP);
	rc = rc ? rc : tl_api(w, "cudaStreamSynchronize", T0 + 4100000, T0 + 4000000, THREAD_A, 990);
	rc = rc ? rc : tl_api(w, "cudaStreamSynchronize", T0 + 4200000, T0 + 4260000, THREAD_A, 991);
	rc = rc ? rc : tl_api(w, "cudaStreamSynchronize", T0 + 4300000, T0 + 4340000, THREAD_B, 992);
	/* A range whose name holds a newline and a quote. */
	rc = rc ? rc : range(w, NULL, "two\nlines \"q\"", T0 + 4400000, T0 + 4500000, 0, NVTX_B, GT_NVTX_PUSH_POP);
	/* Copies: HtoD twice, DtoH, DtoD, the recorder's own, one with end < start; memsets. */
	rc = rc ? rc : tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 1 << 20, T0 + 100, T0 + 20100, 7, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_HTOD, GT_MEM_PAGEABLE, GT_MEM_DEVICE, 4096, T0 + 30000, T0 + 32000, 7, 0);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 3 << 20, T0 + 40000, T0 + 100000, 7, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOD, GT_MEM_DEVICE, GT_MEM_DEVICE, 8 << 20, T0 + 110000, T0 + 115000, 7, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 1000, T0 + 120000, T0 + 119000, 7, 1);
	struct gt_memcpy tool;
	memset(&tool, 0, sizeof tool);
	tool.start = T0 + 130000;
	tool.end = T0 + 140000;
	tool.bytes = 12345;
	tool.copy_kind = GT_COPY_DTOH;
	tool.flags = GT_COPY_TOOL;
	rc = rc ? rc : gt_writer_add(w, GT_REC_MEMCPY, &tool);
	rc = rc ? rc : tl_memset(w, 1 << 16, T0 + 150000, T0 + 151000, 7, 1);
	rc = rc ? rc : tl_memset(w, 1 << 18, T0 + 160000, T0 + 163000, 7, 1);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

/* Nesting deeper than GT_NVTX_KERN_MAX_OPEN: 70 ranges, one inside the other, on thread A, and
 * two launches inside the innermost. */
#define DEEP 70
static int write_deep(const char *path)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	for (int d = 0; d < DEEP && !rc; d++) {
		char name[24];
		snprintf(name, sizeof name, "level%02d", d);
		rc = range(w, NULL, name, T0 + (uint64_t)d * 10, T0 + 1000000 - (uint64_t)d * 10, (uint32_t)d, NVTX_A,
		           GT_NVTX_PUSH_POP);
	}
	rc = rc ? rc : launch(w, "k", T0 + 5000, THREAD_A, 1, T0 + 6000, 100, 1, 0);
	rc = rc ? rc : launch(w, "k", T0 + 7000, THREAD_A, 2, T0 + 8000, 300, 1, 0);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static char *path;

static int teardown(void **state)
{
	(void)state;
	if (path)
		unlink(path);
	free(path);
	path = NULL;
	gt_diag_set_stream(NULL);
	return 0;
}

static const struct gt_stats_row *find(const struct gt_stats_report *rep, const char *name, const char *kernel)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].name, name) && (!kernel || !strcmp(rep->rows[i].kernel, kernel)))
			return &rep->rows[i];
	fail_msg("no row %s %s", name, kernel ? kernel : "");
	return NULL;
}

static void run(struct gt_stats_report *rep, int kind, int (*writer)(const char *))
{
	assert_non_null(path = synth_temp_path("stats"));
	assert_int_equal(writer(path), 0);
	assert_int_equal(gt_stats_report_run(rep, kind, path), 0);
}

/* Kernels into ranges: each step holds its three launches (nested forward too), the graph launch's
 * two kernels in the fourth step, epoch holds thread A's launches of steps 1-2 and thread B's. */
static void test_nvtx_kern_sum(void **state)
{
	(void)state;
	struct gt_stats_report rep;
	run(&rep, GT_STATS_NVTX_KERN_SUM, write_trace);
	const struct gt_stats_row *r = find(&rep, "step", "_Z4gemmPfi");
	assert_int_equal(r->instances, 3);
	assert_int_equal(r->st.n, 6);
	assert_true(r->st.total == 50000 + 51000 + 52000 + 3 * 60000.0);
	assert_string_equal(r->style, "PushPop");
	r = find(&rep, "forward", "_Z4gemmPfi");
	assert_int_equal(r->instances, 3);
	assert_int_equal(r->st.n, 3);
	assert_true(r->st.median == 51000);
	r = find(&rep, "forward", hostile);
	assert_int_equal(r->st.n, 3);
	r = find(&rep, "step", "graphnode");
	assert_int_equal(r->instances, 1);
	assert_int_equal(r->st.n, 2);
	r = find(&rep, "epoch", "_Z4gemmPfi");
	assert_string_equal(r->style, "StartEnd");
	assert_int_equal(r->instances, 1);
	assert_int_equal(r->st.n, 4); /* steps 1 and 2 */
	r = find(&rep, "epoch", not_utf8);
	assert_int_equal(r->st.n, 1);
	r = find(&rep, "ncclAllReduce", "ncclKernel");
	assert_string_equal(r->domain, "NCCL");
	assert_int_equal(rep.trace.no_call, 1);
	assert_int_equal(rep.outside, 1); /* the launch at 3.1 ms */
	assert_int_equal(rep.trace.bad_times, 1);
	assert_int_equal(rep.trace.marks, 1);
	assert_int_equal(rep.trace.unclosed, 1);
	assert_int_equal(rep.capped, 0);
	gt_stats_report_release(&rep);
}

static void test_nesting_past_the_cap(void **state)
{
	(void)state;
	struct gt_stats_report rep;
	run(&rep, GT_STATS_NVTX_KERN_SUM, write_deep);
	assert_int_equal(rep.nrows, GT_NVTX_KERN_MAX_OPEN);
	assert_int_equal(rep.capped, 2 * (DEEP - GT_NVTX_KERN_MAX_OPEN));
	/* The innermost ranges keep their kernels; the outermost lose them. */
	find(&rep, "level69", "k");
	for (size_t i = 0; i < rep.nrows; i++)
		assert_true(strcmp(rep.rows[i].name, "level05") > 0);
	gt_stats_report_release(&rep);
}

static void test_api_and_memory_reports(void **state)
{
	(void)state;
	struct gt_stats_report rep;
	run(&rep, GT_STATS_CUDA_API_SUM, write_trace);
	const struct gt_stats_row *r = find(&rep, "cudaStreamSynchronize", NULL);
	assert_int_equal(r->st.n, 2);
	assert_true(r->st.median == 50000 && r->st.min == 40000 && r->st.max == 60000);
	assert_int_equal(rep.trace.bad_times, 1);
	double pct = 0;
	for (size_t i = 0; i < rep.nrows; i++)
		pct += rep.rows[i].pct;
	assert_true(fabs(pct - 100) < 1e-9);
	gt_stats_report_release(&rep);
	teardown(NULL);

	run(&rep, GT_STATS_GPU_MEM_SIZE_SUM, write_trace);
	r = find(&rep, "[CUDA memcpy Host-to-Device]", NULL);
	assert_int_equal(r->st.n, 2);
	assert_true(r->st.total == (1 << 20) + 4096);
	assert_string_equal(r->copy_kind, "HtoD");
	r = find(&rep, "[CUDA memcpy Device-to-Host]", NULL);
	assert_int_equal(r->st.n, 1); /* the tool's and the bad one left out */
	r = find(&rep, "[CUDA memset]", NULL);
	assert_true(r->st.median == ((1 << 16) + (1 << 18)) / 2.0);
	assert_int_equal(rep.trace.tool_copies, 1);
	assert_int_equal(rep.trace.bad_times, 1);
	assert_string_equal(rep.rows[0].name, "[CUDA memcpy Device-to-Device]"); /* the largest total first */
	gt_stats_report_release(&rep);
}

static void test_launch_configurations(void **state)
{
	(void)state;
	struct gt_stats_report rep;
	run(&rep, GT_STATS_KERN_LAUNCH_SUM, write_trace);
	size_t gemm = 0;
	for (size_t i = 0; i < rep.nrows; i++) {
		const struct gt_stats_row *r = &rep.rows[i];
		if (strcmp(r->name, "_Z4gemmPfi"))
			continue;
		gemm++;
		if (r->grid[0] == 128) {
			assert_int_equal(r->st.n, 5); /* three steps, outside, without a call */
			assert_int_equal(r->dynamic_smem, 0);
		} else {
			assert_int_equal(r->grid[0], 256);
			assert_int_equal(r->dynamic_smem, 4096);
			assert_int_equal(r->st.n, 3);
		}
		if (gt_demangle_available())
			assert_string_equal(r->demangled, "gemm(float*, int)");
	}
	assert_int_equal(gemm, 2);
	assert_int_equal(rep.rows[0].st.n, 5); /* most launches first */
	gt_stats_report_release(&rep);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write")) {
		char p[4096];
		snprintf(p, sizeof p, "%s/stats.gtrace", argv[2]);
		int rc = write_trace(p);
		snprintf(p, sizeof p, "%s/deep.gtrace", argv[2]);
		rc = rc ? rc : write_deep(p);
		if (rc)
			fprintf(stderr, "test_analyze_stats: cannot write the traces: %s\n", gt_strerror(rc));
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_nvtx_kern_sum, teardown),
		cmocka_unit_test_teardown(test_nesting_past_the_cap, teardown),
		cmocka_unit_test_teardown(test_api_and_memory_reports, teardown),
		cmocka_unit_test_teardown(test_launch_configurations, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
