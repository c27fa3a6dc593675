/* test_analyze_ceiling.c: the rules of the ceiling analysis, on records built by hand.
 *
 * apportion: a sample's count spread over the busy time inside it, time alone given to its kernel
 * and counted as covered, shared time and samples over idle time left out and summed, samples
 * with bad times or values skipped, results added across calls. The bound rule at and around its
 * threshold and with either fraction unknown. The role table's rows. The engine on a trace with
 * replay values: exact bytes, FLOPs, rates and percentages against a peaks file, a NaN value and
 * an unknown metric left out and counted, a kernel without counters "not measured" (NaN); samples
 * with NaN, infinite or negative values or bad times not measured, in the engine and in stats.
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

#include "analyze/blocks/apportion.h"
#include "analyze/blocks/metric_roles.h"
#include "analyze/engines/ceiling.h"
#include "analyze/engines/stats_metrics.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define UUID "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f" /* synth_device's */

static int teardown(void **state) { return temp_teardown(state); }

/* Device 0: A [0,100), B [50,150) (shared [50,100)), idle [150,300), C [300,400). */
static void test_apportion_rule(void **state)
{
	(void)state;
	struct gt_ap_launch l[] = { { 300, 400, 0, 2 }, { 0, 100, 0, 0 }, { 50, 150, 0, 1 }, { 10, 10, 0, 1 } };
	struct gt_ap_sample s[] = {
		{ 0, 200, 300, 0, 0 },      /* busy 150 ns: 2 per ns; A 50 alone, B 50 alone, 50 shared */
		{ 250, 350, 50, 0, 0 },     /* busy 50 ns (C's first half): 1 per ns */
		{ 500, 600, 7, 0, 0 },      /* nothing ran: idle */
		{ 0, 100, 40, 0, 1 },       /* slot 1: busy 100 ns, 0.4 per ns: A 20, shared 20 */
		{ 0, 100, NAN, 0, 1 },      /* skipped: not a number */
		{ 0, 100, INFINITY, 0, 1 }, /* skipped */
		{ 0, 100, -1, 0, 1 },       /* skipped: a count is never negative */
		{ 100, 100, 5, 0, 1 },      /* skipped: no interval */
		{ 0, 100, 9, 1, 1 },        /* device 1 ran nothing: idle */
	};
	double amount[6] = { 0 }, covered[6] = { 0 }, solo[3] = { 0 }, shared[3] = { 0 }, conc[2] = { 0 },
	       idle[2] = { 0 };
	struct gt_ap_out o = { 3, 2, amount, covered, solo, shared, conc, idle, 0 };
	assert_int_equal(gt_apportion(l, 4, s, 9, &o), 0);
	/* amount[group * 2 + slot] */
	assert_true(amount[0] == 100 && covered[0] == 50);  /* A, slot 0 */
	assert_true(amount[2] == 100 && covered[2] == 50);  /* B */
	assert_true(amount[4] == 50 && covered[4] == 50);   /* C: covered only where the sample was */
	assert_true(amount[1] == 20 && covered[1] == 50);   /* A, slot 1 */
	assert_true(amount[3] == 0 && covered[3] == 0);     /* B: its alone time is after the sample */
	assert_true(conc[0] == 100 && conc[1] == 20);
	assert_true(idle[0] == 7 && idle[1] == 9);
	assert_int_equal(o.skipped, 4);
	assert_true(solo[0] == 50 && shared[0] == 50);
	assert_true(solo[1] == 50 && shared[1] == 50);
	assert_true(solo[2] == 100 && shared[2] == 0);
	/* A second file adds to the same arrays. */
	struct gt_ap_launch l2[] = { { 0, 10, 0, 2 } };
	struct gt_ap_sample s2[] = { { 0, 10, 30, 0, 0 } };
	assert_int_equal(gt_apportion(l2, 1, s2, 1, &o), 0);
	assert_true(amount[4] == 80 && covered[4] == 60 && solo[2] == 110 && shared[0] == 50);
	/* Samples and no launch at all (NULL arrays): idle. */
	struct gt_ap_sample s3[] = { { 0, 10, 4, 0, 0 } };
	assert_int_equal(gt_apportion(NULL, 0, s3, 1, &o), 0);
	assert_int_equal(gt_apportion(NULL, 0, NULL, 0, &o), 0);
	assert_true(idle[0] == 11);
}

static void test_bound_rule(void **state)
{
	(void)state;
	assert_int_equal(gt_ceil_bound_of(70, 20), GT_BOUND_MEMORY);
	assert_int_equal(gt_ceil_bound_of(20, 70), GT_BOUND_COMPUTE);
	assert_int_equal(gt_ceil_bound_of(60, 60), GT_BOUND_MEMORY); /* a tie: memory */
	assert_int_equal(gt_ceil_bound_of(60, 10), GT_BOUND_MEMORY); /* the threshold itself counts */
	assert_int_equal(gt_ceil_bound_of(59.9, 59.9), GT_BOUND_LATENCY);
	assert_int_equal(gt_ceil_bound_of(NAN, 61), GT_BOUND_COMPUTE);
	assert_int_equal(gt_ceil_bound_of(NAN, 30), GT_BOUND_UNDECIDED);
	assert_int_equal(gt_ceil_bound_of(30, NAN), GT_BOUND_UNDECIDED);
	assert_int_equal(gt_ceil_bound_of(NAN, NAN), GT_BOUND_NOT_MEASURED);
	assert_string_equal(gt_ceil_bound_name(GT_BOUND_LATENCY), "latency");
}

static void test_roles_table(void **state)
{
	(void)state;
	int r = gt_metric_role_find("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
	assert_true(r >= 0);
	assert_int_equal(gt_metric_role_rows[r].role, GT_ROLE_FP32_FLOPS);
	assert_true(gt_metric_role_rows[r].factor == 2.0);
	r = gt_metric_role_find("dram__bytes_read.sum");
	assert_true(r >= 0 && gt_metric_role_rows[r].role == GT_ROLE_DRAM_READ_BYTES);
	assert_int_equal(gt_metric_role_find("dram__bytes_read.summ"), -1);
	assert_int_equal(gt_metric_role_find(NULL), -1);
	assert_true(gt_metric_role_is_pct(GT_ROLE_SM_PCT) && !gt_metric_role_is_pct(GT_ROLE_L2_BYTES));
	/* every row's name is unique: a renamed metric is one row */
	for (size_t i = 0; i < gt_metric_role_nrows; i++)
		assert_int_equal(gt_metric_role_find(gt_metric_role_rows[i].metric), (int)i);
	/* rows of one quantity are adjacent and share a role (gt_metric_role_pick walks runs) */
	for (size_t i = 0; i < gt_metric_role_nrows; i++)
		for (size_t j = i + 2; j < gt_metric_role_nrows; j++)
			if (!strcmp(gt_metric_role_rows[i].quantity, gt_metric_role_rows[j].quantity))
				assert_string_equal(gt_metric_role_rows[j - 1].quantity, gt_metric_role_rows[i].quantity);
	for (size_t i = 1; i < gt_metric_role_nrows; i++)
		if (!strcmp(gt_metric_role_rows[i].quantity, gt_metric_role_rows[i - 1].quantity))
			assert_int_equal(gt_metric_role_rows[i].role, gt_metric_role_rows[i - 1].role);
	/* with data under several variants, only the lowest is used; variants that add up are kept together */
	unsigned char have[GT_METRIC_ROLE_MAX_ROWS] = { 0 }, use[GT_METRIC_ROLE_MAX_ROWS];
	int sm = gt_metric_role_find("sm__sass_thread_inst_executed_op_ffma_pred_on.sum");
	int smsp = gt_metric_role_find("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
	int f16 = gt_metric_role_find("sm__ops_path_tensor_src_fp16.sum");
	int f16a = gt_metric_role_find("sm__ops_path_tensor_src_fp16_dst_fp32.sum");
	int f16b = gt_metric_role_find("sm__ops_path_tensor_src_fp16_dst_fp16.sum");
	assert_true(sm >= 0 && smsp >= 0 && f16 >= 0 && f16a >= 0 && f16b >= 0);
	have[sm] = have[smsp] = have[f16a] = have[f16b] = 1;
	gt_metric_role_pick(have, use);
	assert_true(use[sm] && !use[smsp] && use[f16a] && use[f16b] && !use[f16]);
	have[sm] = 0;
	have[f16] = 1;
	gt_metric_role_pick(have, use);
	assert_true(!use[sm] && use[smsp] && use[f16] && !use[f16a] && !use[f16b]);
}

static int launch_metric(struct gt_writer *w, const char *metric, const char *kernel, uint64_t start,
                         uint64_t end, double v)
{
	struct gt_launch_metric m = { .start = start, .end = end, .value = v, .device_id = 0,
		.metric_id = gt_writer_intern(w, metric), .name_id = gt_writer_intern(w, kernel), .passes = 1 };
	return gt_writer_add(w, GT_REC_LAUNCH_METRIC, &m);
}

/* A peaks file holding text, at path. */
static void write_peaks(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* Kernel k: 2 launches of 1000 ns, 2e6 bytes read, 1e6 written and 1e6 FFMAs each: 3e6 bytes and
 * 2e6 FLOPs per launch, 3000 GB/s (75% of a 4000 GB/s ceiling), 2000 GFLOP/s (4% of 50000). */
static void test_engine_replay_values(void **state)
{
	(void)state;
	const char *trace = temp("ceil"), *peaks = temp("pk");
	write_peaks(peaks, "name=\"NVIDIA H200\" uuid=" UUID " kind=dram_copy gbps=4000 theory_gbps=4800 reps=7\n"
	                   "name=\"NVIDIA H200\" uuid=" UUID " kind=dram_read gbps=3900 theory_gbps=4800 reps=7\n"
	                   "name=\"NVIDIA H200\" uuid=" UUID " kind=fp32_fma gflops=50000 theory_gflops=unknown\n");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	for (int i = 0; i < 2; i++) {
		uint64_t t = 10000 + 5000 * (uint64_t)i;
		assert_int_equal(synth_kernel(w, "k", t, t + 1000, 0), 0);
		assert_int_equal(launch_metric(w, "dram__bytes_read.sum", "k", t, t + 1000, 2e6), 0);
		assert_int_equal(launch_metric(w, "dram__bytes_write.sum", "k", t, t + 1000, 1e6), 0);
		assert_int_equal(launch_metric(w, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "k", t,
		                               t + 1000, 1e6), 0);
		/* the same count under its smsp__ name: an alternative, never added to it */
		assert_int_equal(launch_metric(w, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "k", t,
		                               t + 1000, 7e6), 0);
	}
	assert_int_equal(launch_metric(w, "dram__bytes_read.sum", "k", 30000, 31000, NAN), 0);
	assert_int_equal(launch_metric(w, "no__such_metric.sum", "k", 30000, 31000, 1), 0);
	assert_int_equal(synth_kernel(w, "q", 40000, 41000, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_ceil_analysis c;
	char *paths[] = { (char *)trace };
	assert_int_equal(gt_ceiling_run(&c, paths, 1, peaks), 0);
	assert_true(gt_ceiling_has_metrics(&c));
	assert_int_equal(c.launch_metrics, 10);
	assert_int_equal(c.launches_left_out, 1);
	assert_int_equal(c.unknown_metric, 1);
	const struct gt_ceil_kernel *k = gt_ceiling_find(&c, "k");
	assert_non_null(k);
	assert_int_equal(k->launches, 2);
	assert_int_equal(k->source, GT_CEIL_SRC_REPLAY);
	assert_true(isnan(k->coverage));
	assert_true(k->dram_bytes == 3e6 && k->dram_gbps == 3000);
	assert_true(fabs(k->mem_pct - 75.0) < 1e-9);       /* the largest DRAM ceiling: dram_copy */
	/* The synthetic device's theoretical memory peak: 2 x 2619 MHz x 6144 bits / 8 = 4022.784 GB/s. */
	assert_true(fabs(c.devices[k->device].theory[GT_CEIL_DRAM_READ] - 4022.784) < 1e-6);
	assert_true(fabs(k->mem_pct_theory - 100 * 3000 / 4022.784) < 1e-9);
	assert_true(k->flops == 2e6 && k->gflops == 2000);
	assert_true(fabs(k->compute_pct - 4.0) < 1e-9);
	assert_string_equal(k->compute_vs, "fp32_fma");
	assert_true(fabs(k->intensity - 2.0 / 3.0) < 1e-12);
	assert_int_equal(k->bound, GT_BOUND_MEMORY);
	const struct gt_ceil_kernel *q = gt_ceiling_find(&c, "q");
	assert_non_null(q);
	assert_int_equal(q->source, GT_CEIL_SRC_NONE);
	assert_true(isnan(q->dram_bytes) && isnan(q->flops) && isnan(q->intensity) && isnan(q->mem_pct));
	assert_int_equal(q->bound, GT_BOUND_NOT_MEASURED);
	gt_ceiling_release(&c);
}

/* A replay counts tensor FLOPs only (FP32/FP64 counts are SASS-patched: not the Range Profiler's).
 * An FP32 kernel whose tensor count is 0 has no FLOPs measured, not 0 FLOPs, and its FMA pipe's
 * activity stands for compute; a GEMM's tensor FLOPs are its FLOPs, against the tensor ceiling. */
static void test_tensor_only_replay(void **state)
{
	(void)state;
	const char *trace = temp("tens"), *peaks = temp("pk");
	write_peaks(peaks, "name=\"NVIDIA H200\" uuid=" UUID " kind=fp16_mma gflops=500000 theory_gflops=unknown\n");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "fp32k", 10000, 11000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "fp32k", 10000, 11000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "fp32k", 10000,
	                               11000, 60), 0);
	assert_int_equal(synth_kernel(w, "gemm", 20000, 21000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "gemm", 20000, 21000, 1e8), 0);
	assert_int_equal(launch_metric(w, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "gemm",
	                               20000, 21000, 90), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_ceil_analysis c;
	char *paths[] = { (char *)trace };
	assert_int_equal(gt_ceiling_run(&c, paths, 1, peaks), 0);
	const struct gt_ceil_kernel *k = gt_ceiling_find(&c, "fp32k");
	assert_non_null(k);
	assert_true(isnan(k->flops) && isnan(k->gflops) && isnan(k->intensity));
	assert_true(fabs(k->compute_pct - 60.0) < 1e-9);
	assert_string_equal(k->compute_vs, "busiest pipe's activity");
	const struct gt_ceil_kernel *g = gt_ceiling_find(&c, "gemm");
	assert_non_null(g);
	assert_true(g->flops == 1e8 && g->gflops == 1e5); /* 1e8 FLOPs in 1000 ns */
	assert_true(fabs(g->compute_pct - 20.0) < 1e-9); /* 100000 of 500000 GFLOP/s */
	assert_string_equal(g->compute_vs, "fp16_mma");
	gt_ceiling_release(&c);
}

/* Where the probe measured a library GEMM above mma.sync (wgmma on sm_90), tensor FLOPs are held to
 * the GEMM's ceiling, and the table says so. */
static void test_tensor_against_library_gemm(void **state)
{
	(void)state;
	const char *trace = temp("gemm"), *peaks = temp("pk");
	write_peaks(peaks, "name=\"NVIDIA H200\" uuid=" UUID " kind=fp16_mma gflops=500000\n"
	                   "name=\"NVIDIA H200\" uuid=" UUID " kind=fp16_gemm gflops=800000\n");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "gemm", 20000, 21000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "gemm", 20000, 21000, 6e8), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_ceil_analysis c;
	char *paths[] = { (char *)trace };
	assert_int_equal(gt_ceiling_run(&c, paths, 1, peaks), 0);
	const struct gt_ceil_kernel *g = gt_ceiling_find(&c, "gemm");
	assert_non_null(g);
	assert_true(fabs(g->compute_pct - 75.0) < 1e-9); /* 600000 of 800000 GFLOP/s, not 120% of mma's */
	assert_string_equal(g->compute_vs, "fp16_gemm");
	assert_int_equal(g->bound, GT_BOUND_COMPUTE);
	gt_ceiling_release(&c);
}

/* Without a peaks file the theoretical peaks stand in: a tensor kernel's FLOPs against the device's
 * dense FP16 rate beside its pipe's activity, which decides the bound where it was counted (mma.sync
 * keeps the pipe busy below the theoretical rate); without pipe counters the theoretical figure
 * decides it; a device whose rates are not published has no theoretical figure. */
static void test_theoretical_compute(void **state)
{
	(void)state;
	const char *trace = temp("theory");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "mma", 10000, 11000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "mma", 10000, 11000, 5e8), 0);
	assert_int_equal(launch_metric(w, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "mma",
	                               10000, 11000, 99), 0);
	assert_int_equal(synth_kernel(w, "bare", 20000, 21000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "bare", 20000, 21000, 8e8), 0);
	assert_int_equal(synth_kernel(w, "small", 30000, 31000, 0), 0);
	assert_int_equal(launch_metric(w, "sm__ops_path_tensor_src_fp16.sum", "small", 30000, 31000, 1e8), 0);
	assert_int_equal(launch_metric(w, "dram__bytes_read.sum", "small", 30000, 31000, 1e5), 0);
	assert_int_equal(launch_metric(w, "dram__bytes_write.sum", "small", 30000, 31000, 1e5), 0);
	assert_int_equal(gt_writer_close(w), 0);
	const char *none = temp("nopeaks");
	assert_int_equal(remove(none), 0);
	struct gt_ceil_analysis c;
	char *paths[] = { (char *)trace };
	assert_int_equal(setenv("GPUTRACE_PEAKS", none, 1), 0);
	assert_int_equal(gt_ceiling_run_again(&c, paths, 1), 0);
	assert_true(c.peaks_missing);
	const double tensor = 132 * 4096 * 1.98e9 / 1e9; /* synth_device: sm_90, 132 SMs, 1980 MHz */
	assert_true(fabs(c.devices[0].theory[GT_CEIL_FP16_MMA] - tensor) < 1e-6);
	const struct gt_ceil_kernel *k = gt_ceiling_find(&c, "mma");
	assert_non_null(k);
	assert_true(fabs(k->compute_pct_theory - 100 * 5e5 / tensor) < 1e-9); /* 5e8 flops in 1000 ns */
	assert_true(fabs(k->compute_pct - 99) < 1e-9);
	assert_string_equal(k->compute_vs, "busiest pipe's activity");
	assert_int_equal(k->bound, GT_BOUND_COMPUTE);
	const struct gt_ceil_kernel *b = gt_ceiling_find(&c, "bare");
	assert_non_null(b);
	assert_true(isnan(b->compute_pct) && fabs(b->compute_pct_theory - 100 * 8e5 / tensor) < 1e-9);
	assert_string_equal(b->compute_vs, "no measured compute ceiling");
	assert_true(fabs(gt_ceil_compute_pct(b) - b->compute_pct_theory) < 1e-12);
	assert_int_equal(b->bound, GT_BOUND_COMPUTE); /* 74.7% of the theoretical rate */
	const struct gt_ceil_kernel *s = gt_ceiling_find(&c, "small");
	assert_non_null(s);
	assert_true(s->compute_pct_theory < 60 && s->mem_pct_theory < 60);
	assert_int_equal(s->bound, GT_BOUND_LATENCY); /* both theoretical figures known and low */
	gt_ceiling_release(&c);
	assert_int_equal(unsetenv("GPUTRACE_PEAKS"), 0);
}

/* A kernel that keeps L2 busy and DRAM and the pipes not: memory-bound against a measured l2_read
 * ceiling (the higher of DRAM's and L2's percentages is M), latency-bound without one. */
static void test_l2_keeps_memory_busy(void **state)
{
	(void)state;
	const char *trace = temp("l2"), *peaks = temp("pk");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "l2k", 10000, 11000, 0), 0);
	assert_int_equal(launch_metric(w, "dram__bytes_read.sum", "l2k", 10000, 11000, 1e5), 0);
	assert_int_equal(launch_metric(w, "dram__bytes_write.sum", "l2k", 10000, 11000, 1e5), 0);
	assert_int_equal(launch_metric(w, "lts__t_bytes.sum", "l2k", 10000, 11000, 6e6), 0);
	assert_int_equal(launch_metric(w, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "l2k", 10000,
	                               11000, 10), 0);
	assert_int_equal(gt_writer_close(w), 0);
	char *paths[] = { (char *)trace };
	struct gt_ceil_analysis c;
	write_peaks(peaks, "name=\"NVIDIA H200\" uuid=" UUID " kind=dram_copy gbps=4000\n"
	                   "name=\"NVIDIA H200\" uuid=" UUID " kind=l2_read gbps=8000\n");
	assert_int_equal(gt_ceiling_run(&c, paths, 1, peaks), 0);
	const struct gt_ceil_kernel *k = gt_ceiling_find(&c, "l2k");
	assert_non_null(k);
	assert_true(fabs(k->mem_pct - 5.0) < 1e-9);  /* 200 GB/s of DRAM */
	assert_true(fabs(k->l2_pct - 75.0) < 1e-9);  /* 6000 of 8000 GB/s */
	assert_true(fabs(gt_ceil_mem_pct(k) - 75.0) < 1e-9);
	assert_int_equal(k->bound, GT_BOUND_MEMORY);
	gt_ceiling_release(&c);
	write_peaks(peaks, "name=\"NVIDIA H200\" uuid=" UUID " kind=dram_copy gbps=4000\n");
	assert_int_equal(gt_ceiling_run(&c, paths, 1, peaks), 0);
	k = gt_ceiling_find(&c, "l2k");
	assert_non_null(k);
	assert_true(isnan(k->l2_pct) && fabs(gt_ceil_mem_pct(k) - 5.0) < 1e-9);
	assert_int_equal(k->bound, GT_BOUND_LATENCY);
	gt_ceiling_release(&c);
}

static int sample(struct gt_writer *w, const char *metric, uint64_t start, uint64_t end, double v, uint32_t flags)
{
	struct gt_metric_sample m = { .start = start, .end = end, .value = v, .device_id = 0,
		.metric_id = gt_writer_intern(w, metric), .flags = flags };
	return gt_writer_add(w, GT_REC_METRIC_SAMPLE, &m);
}

/* Samples whose value is NaN, infinite or negative, or whose times are bad, are not measured: the
 * ceiling engine leaves them out (counted) and its figures come from the good ones alone; the stats
 * report counts them as not measured, its total the good ones'. */
static void test_bad_values_not_measured(void **state)
{
	(void)state;
	const char *trace = temp("bad");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, trace, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(synth_kernel(w, "k", 1000, 2000, 0), 0);
	const char *rd = "dram__bytes_read.sum", *wr = "dram__bytes_write.sum";
	assert_int_equal(sample(w, rd, 1000, 2000, 5000, 0), 0);
	assert_int_equal(sample(w, wr, 1000, 2000, 1000, 0), 0);
	assert_int_equal(sample(w, rd, 1000, 2000, NAN, 0), 0);
	assert_int_equal(sample(w, rd, 1000, 2000, INFINITY, 0), 0);
	assert_int_equal(sample(w, rd, 1000, 2000, -3, 0), 0);
	assert_int_equal(sample(w, rd, 1000, 2000, 7, GT_METRIC_BAD_TIMES), 0);
	assert_int_equal(sample(w, rd, 2000, 1000, 7, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_ceil_analysis c;
	char *paths[] = { (char *)trace };
	assert_int_equal(gt_ceiling_run(&c, paths, 1, "/nonexistent/peaks") , GT_ERR_IO); /* a given file must be readable */
	gt_ceiling_release(&c);
	assert_int_equal(gt_ceiling_run_again(&c, paths, 1), 0);
	assert_int_equal(c.metric_samples, 7);
	assert_int_equal(c.samples_left_out, 5);
	const struct gt_ceil_kernel *k = gt_ceiling_find(&c, "k");
	assert_non_null(k);
	assert_int_equal(k->source, GT_CEIL_SRC_SAMPLES);
	assert_true(k->coverage == 1.0 && k->dram_bytes == 6000 && k->dram_gbps == 6.0);
	assert_true(isnan(k->flops) && isnan(k->compute_pct));
	gt_ceiling_release(&c);
	struct gt_stats_metrics m;
	assert_int_equal(gt_stats_metrics_run(&m, trace), 0);
	assert_int_equal(m.n, 2);
	const struct gt_stats_metric_row *r = !strcmp(m.rows[0].metric, rd) ? &m.rows[0] : &m.rows[1];
	assert_string_equal(r->metric, rd);
	assert_int_equal(r->records, 6);
	assert_int_equal(r->not_measured, 5);
	assert_true(r->total == 5000 && r->per_second == 5e9 && r->st.n == 1);
	gt_stats_metrics_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apportion_rule),
		cmocka_unit_test(test_bound_rule),
		cmocka_unit_test(test_roles_table),
		cmocka_unit_test_teardown(test_engine_replay_values, teardown),
		cmocka_unit_test_teardown(test_tensor_only_replay, teardown),
		cmocka_unit_test_teardown(test_theoretical_compute, teardown),
		cmocka_unit_test_teardown(test_tensor_against_library_gemm, teardown),
		cmocka_unit_test_teardown(test_l2_keeps_memory_busy, teardown),
		cmocka_unit_test_teardown(test_bad_values_not_measured, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
