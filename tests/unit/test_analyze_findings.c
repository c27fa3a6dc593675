/* test_analyze_findings.c: the findings engine (analyze/engines/findings.c) and `gpuanalyze findings`.
 *
 * A clean trace (a busy GPU, async pinned copies, steady kernels, steady clocks, complete) gives no
 * finding at all; then each rule is planted alone in a trace of its own and must fire, with the
 * numbers worked out next to it, while its near misses must not (a 0.5 ms gap, a first launch
 * 1.5x the rest, a slow group of 5%). Severities follow the stated rule (error for losses; warning
 * at 5% of the GPU span; info below); --fail-on sets the exit status and nothing else does. Then
 * the real recordings, against counts derived here from their records.
 *
 *   test_analyze_findings write DIR   writes clean, planted and lost traces for the CLI test
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
#include "analyze/engines/findings.h"
#include "common/stats.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"
#include "helpers/tl_synth.h"

#define T 1000000000ull
#define US 1000ull
#define MS 1000000ull

static char *paths[8];
static int npaths;

static int setup(void **state)
{
	(void)state;
	/* Findings read measured peaks only for the small-copy thresholds' neighbour, bandwidth;
	 * keep the person's own peaks file out of the tests. */
	setenv("GPUTRACE_PEAKS", "/nonexistent/gt-test-peaks", 1);
	return 0;
}

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
	char *p = synth_temp_path("find");
	assert_non_null(p);
	paths[npaths++] = p;
	return p;
}

static struct gt_writer *open_trace(const char *path)
{
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, path, 0), 0);
	assert_int_equal(synth_device(w), 0);
	return w;
}

/* The clean base every planted trace starts from: 30 launches of "k" of 100 us back to back (1 us
 * apart) on stream 1 from T, an async pinned 1 MiB HtoD on stream 2 during them, three clock
 * samples at 1980 MHz with no reason set. GPU span: [T, T + 30 * 101 us - 1 us). */
static void base(struct gt_writer *w)
{
	for (uint64_t i = 0; i < 30; i++)
		assert_int_equal(tl_kernel(w, "_Z1kv", T + i * 101 * US, T + i * 101 * US + 100 * US, 1, (uint32_t)i + 1, 0), 0);
	assert_int_equal(tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 1 << 20, T + 10 * US, T + 40 * US, 2, 1), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tl_clock(w, T + (uint64_t)i * MS, 1980, 0), 0);
}
#define SPAN (30 * 101 * US - 1 * US)

static void run(struct gt_findings *F, const char *path)
{
	assert_int_equal(gt_findings_run(F, path, NULL), 0);
}

static const struct gt_finding *find(const struct gt_findings *F, const char *id)
{
	for (size_t i = 0; i < F->n; i++)
		if (!strcmp(F->f[i].id, id))
			return &F->f[i];
	return NULL;
}

static void only(const struct gt_findings *F, const char *id)
{
	for (size_t i = 0; i < F->n; i++)
		if (strcmp(F->f[i].id, id))
			fail_msg("unexpected finding %s: %s", F->f[i].id, F->f[i].what);
	assert_non_null(find(F, id));
}

static void test_clean_trace_has_no_findings(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	for (size_t i = 0; i < F.n; i++)
		fail_msg("finding on a clean trace: %s: %s", F.f[i].id, F.f[i].what);
	assert_int_equal(F.gpu_last - F.gpu_first, SPAN);
	assert_int_equal(gt_findings_max_severity(&F), -1);
	gt_findings_release(&F);
}

static void test_pageable_async_copy(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* async, pageable host end, 1 MiB in 400 us on stream 3, 500 us into the run */
	assert_int_equal(tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PAGEABLE, 1 << 20, T + 500 * US, T + 900 * US, 3, 1), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	only(&F, "pageable-async");
	const struct gt_finding *f = find(&F, "pageable-async");
	assert_int_equal(f->count, 1);
	assert_true(f->cost_ns == 400 * US);
	assert_int_equal(f->severity, GT_SEV_WARNING); /* 400 us >= 5% of 3029 us */
	assert_true(f->has_offset);
	assert_int_equal(f->offset_ns, 500 * US); /* origin: the first kernel, at T */
	assert_int_equal(f->stream, 3);
	gt_findings_release(&F);
}

static void test_sync_copies_and_memsets(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* two synchronous pinned copies of 1 MiB: one during the kernels (not critical), one after
	 * them alone (critical); 20 us each: 40 us = 1.3% of the span: info */
	assert_int_equal(tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 1 << 20, T + 200 * US, T + 220 * US, 4, 0), 0);
	assert_int_equal(tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 1 << 20, T + SPAN + 100 * US, T + SPAN + 120 * US, 4, 0), 0);
	/* a synchronous memset of 10 us */
	assert_int_equal(tl_memset(w, 4096, T + 300 * US, T + 310 * US, 4, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	const struct gt_finding *f = find(&F, "sync-copies");
	assert_non_null(f);
	assert_int_equal(f->count, 2);
	assert_true(f->cost_ns == 40 * US);
	assert_int_equal(f->severity, GT_SEV_INFO);
	assert_non_null(strstr(f->what, "1 of them (0.020 ms) ran while the device did nothing else"));
	f = find(&F, "sync-memsets");
	assert_non_null(f);
	assert_int_equal(f->count, 1);
	assert_true(f->cost_ns == 10 * US);
	assert_null(find(&F, "pageable-async"));
	gt_findings_release(&F);
}

static void test_blocking_syncs_counted_once_per_call(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* cudaDeviceSynchronize with its context SYNC record (one call, 300 us), a cuCtxSynchronize
	 * whose SYNC record is missing (100 us), and a stream sync (not device-wide) */
	assert_int_equal(tl_api(w, "cudaDeviceSynchronize", T + 1000 * US, T + 1300 * US, 1, 77), 0);
	assert_int_equal(tl_sync(w, GT_SYNC_CONTEXT, T + 1000 * US, T + 1300 * US, 77), 0);
	assert_int_equal(tl_api(w, "cuCtxSynchronize", T + 2000 * US, T + 2100 * US, 1, 78), 0);
	assert_int_equal(tl_sync(w, GT_SYNC_STREAM, T + 2500 * US, T + 2600 * US, 79), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	only(&F, "blocking-syncs");
	const struct gt_finding *f = find(&F, "blocking-syncs");
	assert_int_equal(f->count, 2);
	assert_true(f->cost_ns == 400 * US);
	assert_int_equal(f->severity, GT_SEV_WARNING);
	assert_int_equal(f->offset_ns, 1000 * US);
	gt_findings_release(&F);
}

static void test_idle_gap_over_threshold_only(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* after the base: a 0.5 ms gap (under 1 ms: not one), kernel "a", a 2 ms gap, kernel "b" */
	uint64_t t = T + SPAN + 500 * US;
	assert_int_equal(tl_kernel(w, "_Z1av", t, t + 100 * US, 5, 900, 0), 0);
	t += 100 * US + 2 * MS;
	assert_int_equal(tl_kernel(w, "_Z1bv", t, t + 100 * US, 6, 901, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	const struct gt_finding *f = find(&F, "idle-gaps");
	assert_non_null(f);
	assert_int_equal(f->count, 1);
	assert_true(f->cost_ns == 2 * MS);
	assert_int_equal(f->offset_ns, SPAN + 600 * US);
	assert_int_equal(f->stream, 6);
	assert_non_null(strstr(f->where, "after kernel a (stream 5), before kernel b (stream 6)"));
	gt_findings_release(&F);
}

/* 30 ms: one kernel busy for [0, 15 ms), then per 1 ms a 100 us kernel at its end. The 30 slices
 * are 1 ms: the last 15 are 10% busy (< 50%), one region, 15 x 900 us idle. No gap reaches 1 ms. */
static void test_low_utilization_slices(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(tl_kernel(w, "_Z4longv", T, T + 15 * MS, 1, 1, 0), 0);
	for (uint64_t i = 0; i < 15; i++)
		assert_int_equal(tl_kernel(w, "_Z4tickv", T + 15 * MS + i * MS + 900 * US, T + 16 * MS + i * MS, 1,
		                           (uint32_t)i + 2, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tl_clock(w, T + (uint64_t)i * 10 * MS, 1980, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	only(&F, "low-utilization");
	const struct gt_finding *f = find(&F, "low-utilization");
	assert_int_equal(f->count, 15);
	assert_true(fabs(f->cost_ns - 15 * 900 * US) <= 15); /* slice bounds round to the ns */
	assert_non_null(strstr(f->what, "15 of 30 slices"));
	assert_non_null(strstr(f->what, "in 1 region,"));
	assert_int_equal(f->severity, GT_SEV_WARNING);
	gt_findings_release(&F);
}

static void test_first_launch_and_its_near_miss(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* "warm": first 500 us, then 9 of 100 us (5x); "fine": first 120 us then 80 us (1.5x: not).
	 * Written last-launch first: the first launch is the earliest start, not the first record. */
	uint64_t t = T + SPAN + 10 * US;
	for (int i = 9; i >= 0; i--)
		assert_int_equal(tl_kernel(w, "_Z4warmv", t + (uint64_t)i * 600 * US, t + (uint64_t)i * 600 * US + (i ? 100 : 500) * US,
		                           7, 1000 + (uint32_t)i, 0), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(tl_kernel(w, "_Z4finev", t + (uint64_t)i * 600 * US + 510 * US,
		                           t + (uint64_t)i * 600 * US + 510 * US + (i ? 80 : 120) * US, 8, 2000 + (uint32_t)i, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	const struct gt_finding *f = find(&F, "first-launch");
	assert_non_null(f);
	assert_int_equal(f->count, 1); /* "fine" is 1.5x: under the 2x rule */
	assert_string_equal(f->kernel, "warm");
	assert_string_equal(f->kernel_name, "_Z4warmv");
	assert_true(f->cost_ns == 400 * US);
	assert_int_equal(f->severity, GT_SEV_WARNING); /* 400 of its 1400 us */
	assert_int_equal(f->offset_ns, SPAN + 10 * US);
	assert_int_equal(f->stream, 7);
	gt_findings_release(&F);
}

static void test_bimodal_and_its_near_miss(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	uint64_t t = T + SPAN + 10 * US;
	/* "bi": 30 launches of 100..129 us and 10 of 200 us (25%, gap 200/129 = 1.55x): bimodal.
	 * "uni": 38 of 100 us and 2 of 300 us (5%: under 10% on a side): not. */
	for (int i = 0; i < 40; i++) {
		uint64_t d = i < 30 ? (100 + (uint64_t)i) * US : 200 * US;
		assert_int_equal(tl_kernel(w, "_Z2biv", t, t + d, 9, 3000 + (uint32_t)i, 0), 0);
		t += d + 1 * US;
	}
	for (int i = 0; i < 40; i++) {
		uint64_t d = i < 38 ? 100 * US : 300 * US;
		assert_int_equal(tl_kernel(w, "_Z3univ", t, t + d, 9, 4000 + (uint32_t)i, 0), 0);
		t += d + 1 * US;
	}
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	only(&F, "bimodal");
	const struct gt_finding *f = find(&F, "bimodal");
	assert_string_equal(f->kernel, "bi");
	assert_int_equal(f->count, 10);
	/* fast median: 114.5 us (of 100..129); slow: 200 us; cost (200 - 114.5) x 10 */
	assert_true(fabs(f->cost_ns - 855 * US) < 1e-6);
	assert_non_null(strstr(f->what, "30 launches with median 114.500 us and 10 with median 200.000 us"));
	assert_int_equal(f->severity, GT_SEV_WARNING);
	gt_findings_release(&F);
}

static void test_clocks(void **state)
{
	(void)state;
	char buf[256];
	assert_string_equal(gt_clock_reasons_text(GT_CLK_SW_POWER_CAP | GT_CLK_SW_THERMAL, buf, sizeof buf),
	                    "SwPowerCap, SwThermalSlowdown");
	assert_string_equal(gt_clock_reasons_text(0x1ull | 0x200ull, buf, sizeof buf), "GpuIdle, 0x200");
	assert_string_equal(gt_clock_reasons_text(0, buf, sizeof buf), "");

	/* throttled and moved: 1980, 1980, then 1700 with SwThermalSlowdown; an idle sample at 345
	 * MHz does not count towards "moved" */
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T, T + 3 * MS, 1, 1, 0), 0);
	assert_int_equal(tl_clock(w, T, 1980, 0), 0);
	assert_int_equal(tl_clock(w, T + 1 * MS, 1980, 0), 0);
	assert_int_equal(tl_clock(w, T + 2 * MS, 1700, GT_CLK_SW_THERMAL), 0);
	assert_int_equal(tl_clock(w, T + 3 * MS, 345, GT_CLK_GPU_IDLE), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	const struct gt_finding *f = find(&F, "clocks-throttled");
	assert_non_null(f);
	assert_int_equal(f->severity, GT_SEV_WARNING);
	assert_non_null(strstr(f->what, "throttled in 1 of 4 clock samples: SwThermalSlowdown"));
	assert_int_equal(f->offset_ns, 2 * MS);
	f = find(&F, "clocks-moved");
	assert_non_null(f);
	assert_non_null(strstr(f->what, "1700..1980 MHz (14.1% of the maximum) over 3 samples"));
	assert_int_equal(f->severity, GT_SEV_WARNING);
	gt_findings_release(&F);

	/* one sample: unknown; a clock setting: reported, not blamed */
	p = temp();
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T, T + 3 * MS, 1, 1, 0), 0);
	assert_int_equal(tl_clock(w, T, 1500, GT_CLK_APP_CLOCKS), 0);
	assert_int_equal(gt_writer_close(w), 0);
	run(&F, p);
	assert_non_null(find(&F, "clocks-unknown"));
	f = find(&F, "clock-settings");
	assert_non_null(f);
	assert_int_equal(f->severity, GT_SEV_INFO);
	assert_non_null(strstr(f->what, "ApplicationsClocksSetting"));
	assert_null(find(&F, "clocks-throttled"));
	gt_findings_release(&F);

	/* no sample at all */
	p = temp();
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(tl_kernel(w, "_Z1kv", T, T + 3 * MS, 1, 1, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	run(&F, p);
	only(&F, "clocks-unknown");
	assert_non_null(strstr(find(&F, "clocks-unknown")->what, "no clock samples"));
	gt_findings_release(&F);
}

/* Drops, a filter, META losses, and a trace without its END record. */
static int write_lost(const char *path, int end)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	if (rc)
		return rc;
	rc = rc ? rc : synth_device(w);
	for (uint64_t i = 0; i < 30 && !rc; i++)
		rc = tl_kernel(w, "_Z1kv", T + i * 101 * US, T + i * 101 * US + 100 * US, 1, (uint32_t)i + 1, 0);
	for (int i = 0; i < 3 && !rc; i++)
		rc = tl_clock(w, T + (uint64_t)i * MS, 1980, 0);
	rc = rc ? rc : tl_dropped(w, GT_DROP_CUPTI, 17, T + 2 * MS);
	rc = rc ? rc : tl_dropped(w, GT_DROP_FILTERED, 5, T + 2 * MS);
	rc = rc ? rc : gt_writer_meta(w, "trace.kernel_filter", "composite");
	rc = rc ? rc : gt_writer_meta(w, "tracing.collision", "3 foreign, 1 of ours never returned");
	rc = rc ? rc : gt_writer_meta(w, "tracing.other_clients_refused", "1 other CUPTI client(s) refused while gputrace recorded");
	rc = rc ? rc : gt_writer_meta(w, "tracing.off", "disk full");
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	if (end)
		return gt_writer_close(w);
	rc = gt_writer_flush(w);
	gt_writer_abandon(w); /* what a killed recorder leaves: complete chunks, no END */
	return rc;
}

static void test_losses(void **state)
{
	(void)state;
	const char *p = temp();
	assert_int_equal(write_lost(p, 1), 0);
	struct gt_findings F;
	run(&F, p);
	const struct gt_finding *f = find(&F, "records-lost");
	assert_non_null(f);
	assert_int_equal(f->severity, GT_SEV_ERROR);
	assert_int_equal(f->count, 17);
	assert_non_null(strstr(f->what, "17 dropped by CUPTI"));
	assert_int_equal(f->offset_ns, 2 * MS);
	f = find(&F, "records-filtered");
	assert_non_null(f);
	assert_int_equal(f->severity, GT_SEV_INFO);
	assert_non_null(strstr(f->what, "GPUTRACE_KERNELS = 'composite'"));
	assert_int_equal(find(&F, "tracing-collision")->severity, GT_SEV_ERROR);
	assert_int_equal(find(&F, "tracing-off")->severity, GT_SEV_ERROR);
	assert_non_null(strstr(find(&F, "tracing-off")->what, "disk full"));
	assert_int_equal(find(&F, "other-clients-refused")->severity, GT_SEV_WARNING);
	assert_null(find(&F, "trace-incomplete"));
	/* errors first */
	assert_int_equal(F.f[0].severity, GT_SEV_ERROR);
	for (size_t i = 1; i < F.n; i++)
		assert_true(F.f[i].severity <= F.f[i - 1].severity);
	assert_int_equal(gt_findings_max_severity(&F), GT_SEV_ERROR);
	gt_findings_release(&F);

	p = temp();
	assert_int_equal(write_lost(p, 0), 0);
	char *msgs = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msgs, &len);
	assert_non_null(m);
	gt_diag_set_stream(m); /* the loader's "ends early" warning, held until said */
	run(&F, p);
	gt_diag_flush();
	gt_diag_set_stream(NULL);
	fclose(m);
	assert_non_null(strstr(msgs, "ends early"));
	free(msgs);
	f = find(&F, "trace-incomplete");
	assert_non_null(f);
	assert_int_equal(f->severity, GT_SEV_ERROR);
	gt_findings_release(&F);
}

static void test_small_copies_from_bandwidth(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w = open_trace(p);
	base(w);
	/* async pinned 4 KiB copies, 2 us each, under 4 x 2 us x 63 GB/s */
	for (int i = 0; i < 3; i++)
		assert_int_equal(tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 4096, T + (uint64_t)i * 100 * US,
		                         T + (uint64_t)i * 100 * US + 2 * US, 3, 1), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_findings F;
	run(&F, p);
	only(&F, "small-copies");
	const struct gt_finding *f = find(&F, "small-copies");
	assert_int_equal(f->count, 3);
	assert_true(f->cost_ns == 6 * US);
	assert_int_equal(f->severity, GT_SEV_INFO);
	gt_findings_release(&F);
}

/* --fail-on sets the exit status; without it findings never fail. */
static int cmd(const char *trace, const char *fail_on)
{
	const char *out = temp();
	char *av[8];
	int ac = 0;
	av[ac++] = "findings";
	if (fail_on) {
		av[ac++] = "--fail-on";
		av[ac++] = (char *)fail_on;
	}
	av[ac++] = "-o";
	av[ac++] = (char *)out;
	av[ac++] = (char *)trace;
	av[ac] = NULL;
	return cmd_findings(ac, av);
}

static void test_fail_on(void **state)
{
	(void)state;
	const char *warn = temp(), *clean = temp();
	struct gt_writer *w = open_trace(warn);
	base(w);
	assert_int_equal(tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PAGEABLE, 1 << 20, T + 500 * US, T + 900 * US, 3, 1), 0);
	assert_int_equal(gt_writer_close(w), 0);
	w = open_trace(clean);
	base(w);
	assert_int_equal(gt_writer_close(w), 0);
	assert_int_equal(cmd(warn, NULL), GT_EXIT_OK);
	assert_int_equal(cmd(warn, "info"), GT_EXIT_CHECK);
	assert_int_equal(cmd(warn, "warning"), GT_EXIT_CHECK);
	assert_int_equal(cmd(warn, "error"), GT_EXIT_OK);
	assert_int_equal(cmd(clean, "info"), GT_EXIT_OK);
	gt_diag_set_stream(fopen("/dev/null", "w"));
	assert_int_equal(cmd(warn, "fatal"), GT_EXIT_USAGE);
	fclose(gt_diag_stream());
	gt_diag_set_stream(NULL);
}

/* ---- the real recordings ----------------------------------------------------------------------- */

static const char *samples(void)
{
	const char *d = getenv("GT_SAMPLES_DIR");
	return d && *d ? d : "traces/samples";
}

struct facts {
	uint64_t sync_copies, pageable_async, sync_memsets, drops;
	uint64_t first_slow; /* kernels launched >= 3 times whose first launch >= 2x the others' median */
};

struct klaunches {
	uint32_t id;
	uint64_t *d, first_start, first_dur;
	size_t n, cap, first;
};

/* Counts the findings' inputs from the records, without the analyzer. */
static void facts_of(const char *path, struct facts *x)
{
	memset(x, 0, sizeof *x);
	static struct klaunches k[4096];
	size_t nk = 0;
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	while (gt_reader_next(r, &ev) > 0) {
		if (ev.type == GT_REC_MEMCPY) {
			const struct gt_memcpy *m = &ev.u.memcpy;
			int host = m->copy_kind == GT_COPY_HTOD ? m->src_kind : m->copy_kind == GT_COPY_DTOH ? m->dst_kind : -1;
			x->sync_copies += !(m->flags & GT_COPY_ASYNC);
			x->pageable_async += (m->flags & GT_COPY_ASYNC) && host == GT_MEM_PAGEABLE;
		} else if (ev.type == GT_REC_MEMSET) {
			x->sync_memsets += !(ev.u.memset.flags & GT_COPY_ASYNC);
		} else if (ev.type == GT_REC_DROPPED) {
			x->drops++;
		} else if (ev.type == GT_REC_KERNEL && !(ev.u.kernel.flags & GT_KERNEL_BAD_TIMES)) {
			size_t i;
			for (i = 0; i < nk && k[i].id != ev.u.kernel.name_id; i++)
				;
			if (i == nk) {
				assert_true(nk < 4096);
				memset(&k[nk], 0, sizeof k[nk]);
				k[nk++].id = ev.u.kernel.name_id;
			}
			struct klaunches *a = &k[i];
			if (a->n == a->cap) {
				a->cap = a->cap ? a->cap * 2 : 16;
				a->d = realloc(a->d, a->cap * sizeof *a->d);
				assert_non_null(a->d);
			}
			uint64_t d = ev.u.kernel.end - ev.u.kernel.start;
			if (!a->n || ev.u.kernel.start < a->first_start) {
				a->first_start = ev.u.kernel.start;
				a->first = a->n;
			}
			a->d[a->n++] = d;
		}
	}
	gt_reader_close(r);
	for (size_t i = 0; i < nk; i++) {
		struct klaunches *a = &k[i];
		if (a->n >= 3) {
			uint64_t first = a->d[a->first];
			a->d[a->first] = a->d[a->n - 1];
			gt_stats_sort_u64(a->d, a->n - 1);
			size_t m = a->n - 1;
			double med = m % 2 ? (double)a->d[m / 2] : ((double)a->d[m / 2 - 1] + (double)a->d[m / 2]) / 2;
			x->first_slow += med > 0 && (double)first >= 2 * med;
		}
		free(a->d);
	}
}

static void test_recordings(void **state)
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
		struct facts x;
		facts_of(path, &x);
		struct gt_findings F;
		run(&F, path);
		seen++;
		const struct gt_finding *f = find(&F, "sync-copies");
		assert_int_equal(f ? f->count : 0, x.sync_copies);
		f = find(&F, "pageable-async");
		assert_int_equal(f ? f->count : 0, x.pageable_async);
		f = find(&F, "sync-memsets");
		assert_int_equal(f ? f->count : 0, x.sync_memsets);
		f = find(&F, "first-launch");
		assert_int_equal(f ? f->count : 0, x.first_slow);
		if (!x.drops && F.complete)
			assert_null(find(&F, "records-lost"));
		for (size_t i = 0; i < F.n; i++) {
			f = &F.f[i];
			assert_true(f->what[0] && f->where[0] && f->cost_how[0] && f->todo[0]);
			assert_true(f->severity >= GT_SEV_INFO && f->severity <= GT_SEV_ERROR);
			if (i)
				assert_true(f->severity <= F.f[i - 1].severity);
			if (!isnan(f->cost_ns))
				assert_true(f->cost_ns >= 0);
		}
		gt_findings_release(&F);
	}
	closedir(d);
	assert_true(seen > 0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write")) {
		/* clean, planted (a pageable async copy, a synchronous copy, a slow first launch, a gap),
		 * and lost (drops and META losses, complete) */
		char p[4096];
		struct gt_writer *w;
		snprintf(p, sizeof p, "%s/planted.gtrace", argv[2]);
		int rc = synth_open(&w, p, 0);
		rc = rc ? rc : synth_device(w);
		for (uint64_t i = 0; i < 30 && !rc; i++)
			rc = tl_kernel(w, "_Z1kv", T + i * 101 * US, T + i * 101 * US + (i ? 100 : 900) * US, 1, (uint32_t)i + 1, 0);
		rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PAGEABLE, 1 << 20, T + 500 * US, T + 900 * US, 3, 1);
		rc = rc ? rc : tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 1 << 20, T + SPAN + 100 * US, T + SPAN + 120 * US, 4, 0);
		rc = rc ? rc : tl_kernel(w, "_Z4lateRKi", T + SPAN + 2 * MS, T + SPAN + 2100 * US, 1, 100, 0);
		for (int i = 0; i < 3 && !rc; i++)
			rc = tl_clock(w, T + (uint64_t)i * MS, 1980, 0);
		if (!rc)
			rc = gt_writer_close(w);
		else
			gt_writer_abandon(w);
		snprintf(p, sizeof p, "%s/clean.gtrace", argv[2]);
		if (!rc && !(rc = synth_open(&w, p, 0))) {
			rc = synth_device(w);
			for (uint64_t i = 0; i < 30 && !rc; i++)
				rc = tl_kernel(w, "_Z1kv", T + i * 101 * US, T + i * 101 * US + 100 * US, 1, (uint32_t)i + 1, 0);
			for (int i = 0; i < 3 && !rc; i++)
				rc = tl_clock(w, T + (uint64_t)i * MS, 1980, 0);
			if (!rc)
				rc = gt_writer_close(w);
			else
				gt_writer_abandon(w);
		}
		snprintf(p, sizeof p, "%s/lost.gtrace", argv[2]);
		rc = rc ? rc : write_lost(p, 1);
		if (rc)
			fprintf(stderr, "test_analyze_findings: cannot write the traces: %s\n", gt_strerror(rc));
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_clean_trace_has_no_findings, teardown),
		cmocka_unit_test_teardown(test_pageable_async_copy, teardown),
		cmocka_unit_test_teardown(test_sync_copies_and_memsets, teardown),
		cmocka_unit_test_teardown(test_blocking_syncs_counted_once_per_call, teardown),
		cmocka_unit_test_teardown(test_idle_gap_over_threshold_only, teardown),
		cmocka_unit_test_teardown(test_low_utilization_slices, teardown),
		cmocka_unit_test_teardown(test_first_launch_and_its_near_miss, teardown),
		cmocka_unit_test_teardown(test_bimodal_and_its_near_miss, teardown),
		cmocka_unit_test_teardown(test_clocks, teardown),
		cmocka_unit_test_teardown(test_losses, teardown),
		cmocka_unit_test_teardown(test_small_copies_from_bandwidth, teardown),
		cmocka_unit_test_teardown(test_fail_on, teardown),
		cmocka_unit_test_teardown(test_recordings, teardown),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
