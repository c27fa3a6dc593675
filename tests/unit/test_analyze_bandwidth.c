/* test_analyze_bandwidth.c: the bandwidth engine (analyze/engines/bandwidth.c), measured peaks
 * (analyze/blocks/peaks.c) and `gpuanalyze bandwidth`.
 *
 * Known answers: size buckets at their bounds; the rates of five copies with median, p10 and p90
 * from NumPy (numpy.median / numpy.percentile, default 'linear'); percent of the theoretical peak
 * from the device record's peak; the flags (pageable, small under 4 t0 peak, synchronous copies on
 * the critical path: overlapped by a kernel, by an async copy, by work of another device, by
 * nothing); the peaks file (UUID match in any case, last line wins, other devices, lines without
 * a UUID, malformed lines, quoted names, unknown kinds; $GPUTRACE_PEAKS, $XDG_CACHE_HOME (absolute
 * only), ~/.cache, --peaks that cannot be read). Then the real transfers recording, whose groups, rates and flags are derived
 * here from its records.
 *
 *   test_analyze_bandwidth write DIR   writes copies.gtrace and peaks for the CLI test
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
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/engines/bandwidth.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/blocks/peaks.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"
#include "helpers/tl_synth.h"

#define T 1000000000ull
#define MIB (1024ull * 1024)
#define SYNTH_UUID "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f" /* synth_device's bytes 0x10.. */

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
	unsetenv("GPUTRACE_PEAKS");
	return 0;
}

static const char *temp(void)
{
	char *p = synth_temp_path("bw");
	assert_non_null(p);
	paths[npaths++] = p;
	return p;
}

static void close_ok(struct gt_writer *w) { assert_int_equal(gt_writer_close(w), 0); }

static int close_eq(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

/* The synthetic device's peaks, as the trace library defines them. */
static double pcie_gbps(void)
{
	struct gt_device d;
	memset(&d, 0, sizeof d);
	d.pcie_gen = 5;
	d.pcie_width = 16;
	return gt_device_peak_pcie_bw(&d) / 1e9;
}

static double mem_gbps(void)
{
	struct gt_device d;
	memset(&d, 0, sizeof d);
	d.mem_clock_khz = 2619000;
	d.mem_bus_width_bits = 6144;
	return gt_device_peak_mem_bw(&d) / 1e9;
}

static const struct gt_bw_group *group(const struct gt_bandwidth *b, int kind, const char *memory, int bucket)
{
	for (size_t i = 0; i < b->ngroups; i++)
		if (b->groups[i].copy_kind == kind && !strcmp(b->groups[i].memory, memory) &&
		    b->groups[i].bucket == bucket)
			return &b->groups[i];
	fail_msg("no group %s %s %s", gt_copy_kind_name(kind), memory, gt_bw_bucket_name(bucket));
	return NULL;
}

static void test_buckets_and_names(void **state)
{
	(void)state;
	static const struct {
		uint64_t bytes;
		int bucket;
	} c[] = {
		{ 0, 0 }, { 4095, 0 }, { 4096, 1 }, { 65535, 1 }, { 65536, 2 }, { MIB - 1, 2 }, { MIB, 3 },
		{ 16 * MIB - 1, 3 }, { 16 * MIB, 4 }, { 256 * MIB - 1, 4 }, { 256 * MIB, 5 }, { UINT64_MAX, 5 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		assert_int_equal(gt_bw_bucket_of(c[i].bytes), c[i].bucket);
	assert_string_equal(gt_bw_bucket_name(2), "64KiB-1MiB");
	struct gt_device d;
	memset(&d, 0, sizeof d);
	char buf[48];
	assert_string_equal(gt_device_uuid_string(&d, buf, sizeof buf), ""); /* unknown: matches nothing */
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)(0x10 + i);
	assert_string_equal(gt_device_uuid_string(&d, buf, sizeof buf), SYNTH_UUID);
	assert_int_equal(gt_peak_kind_for(GT_COPY_HTOD, GT_MEM_PINNED), GT_PEAK_HTOD_PINNED);
	assert_int_equal(gt_peak_kind_for(GT_COPY_DTOH, GT_MEM_PAGEABLE), GT_PEAK_DTOH_PAGEABLE);
	assert_int_equal(gt_peak_kind_for(GT_COPY_DTOD, -1), GT_PEAK_DTOD);
	assert_int_equal(gt_peak_kind_for(GT_COPY_HTOD, GT_MEM_MANAGED), -1);
	assert_int_equal(gt_peak_kind_for(GT_COPY_PTOP, -1), -1);
}

/* Five pinned HtoD copies of 1 MiB taking 20, 21, 22, 23 and 100 us (async); a 64 MiB DtoD in
 * 40 us (1678 GB/s: under half the memory peak, as a real one must be); a 4 KiB pageable HtoD without
 * the async flag, made by a cudaMemcpy of 32 us; a copy of zero duration and one that ends before it
 * starts. */
static int write_copies(const char *path)
{
	struct gt_writer *w;
	int rc = synth_open(&w, path, 0);
	rc = rc ? rc : synth_device(w);
	static const uint64_t d[] = { 20000, 21000, 22000, 23000, 100000 };
	for (int i = 0; i < 5 && !rc; i++)
		rc = tl_copy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, MIB, T + i * 200000ull,
		             T + i * 200000ull + d[i], 1, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOD, GT_MEM_DEVICE, GT_MEM_DEVICE, 64 * MIB, T + 2000000, T + 2040000, 1, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_HTOD, GT_MEM_PAGEABLE, GT_MEM_DEVICE, 4096, T + 3000000, T + 3004000, 1, 0);
	/* its cudaMemcpy (correlation id 0, as every copy here), 32 us: 0.128 GB/s over the call */
	rc = rc ? rc : tl_api(w, "cudaMemcpy", T + 2990000, T + 3022000, 7, 0);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 4096, T + 4000000, T + 4000000, 1, 1);
	rc = rc ? rc : tl_copy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 4096, T + 5000000, T + 4999000, 1, 1);
	if (rc) {
		gt_writer_abandon(w);
		return rc;
	}
	return gt_writer_close(w);
}

static void test_rates_groups_and_peaks(void **state)
{
	(void)state;
	const char *p = temp(), *none = temp();
	assert_int_equal(write_copies(p), 0);
	unlink(none); /* a --peaks file that exists is needed below; here the default place is absent */
	setenv("GPUTRACE_PEAKS", none, 1);
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, p, NULL), 0);
	assert_int_equal(b.peaks_missing, 1); /* a missing default file is not an error */
	assert_int_equal(b.copies, 9);
	assert_int_equal(b.copies_bad, 1);
	assert_int_equal(b.copies_no_rate, 1);
	const struct gt_bw_group *g = group(&b, GT_COPY_HTOD, "pinned", 3);
	assert_int_equal(g->count, 5);
	assert_int_equal(g->bytes, 5 * MIB);
	assert_true(g->time_ns == 186000);
	/* numpy.median / numpy.percentile(., 10 / 90) of 1048576 / [20000, 21000, 22000, 23000, 100000] */
	assert_true(close_eq(g->median, 47.66254545454545));
	assert_true(close_eq(g->p10, 24.52756034782609));
	assert_true(close_eq(g->p90, 51.43015619047619));
	assert_true(close_eq(g->peak_theory, pcie_gbps()));
	assert_true(close_eq(g->pct_theory, 100 * g->median / pcie_gbps()));
	assert_true(isnan(g->pct_measured));
	assert_int_equal(g->small, 0); /* 1 MiB >= 4 x 2 us x 63 GB/s */
	g = group(&b, GT_COPY_DTOD, "device", 4);
	assert_true(close_eq(g->median, 64.0 * MIB / 40000));
	/* bytes once, against the memory peak: at most 50% for a DtoD copy */
	assert_true(close_eq(g->pct_theory, 100 * g->median / mem_gbps()));
	assert_int_equal(g->small, 0); /* 64 MiB is over 4 x 2 us x mem_peak / 2 */
	g = group(&b, GT_COPY_HTOD, "pageable", 1);
	assert_int_equal(g->small, 1);
	assert_int_equal(b.ndevices, 1);
	assert_true(close_eq(b.devices[0].small_host, 4 * 2000 * pcie_gbps()));
	assert_true(close_eq(b.devices[0].small_dtod, 4 * 2000 * mem_gbps() / 2));
	assert_string_equal(b.devices[0].uuid, SYNTH_UUID);
	/* flags: the pageable copy (also the only synchronous one, alone on the GPU: critical); small
	 * copies are counted from those with a rate */
	assert_int_equal(b.pageable.count, 1);
	assert_int_equal(b.pageable.first_start, T + 3000000);
	assert_int_equal(b.small.count, 1);
	assert_true(b.small.time_ns == 4000);
	assert_int_equal(b.sync.count, 1);
	assert_int_equal(b.sync_critical.count, 1);
	gt_bandwidth_release(&b);
}

/* Synchronous copies A..F on device 0, stream 1:
 *   A [1000,2000)  overlapped by a kernel on device 0            -> not critical
 *   B [3000,4000)  overlapped only by a kernel on device 1       -> critical
 *   C [5000,6000)  alone                                         -> critical
 *   E [7000,8000)  overlapped by an async copy on stream 2        -> not critical
 *   F [9000,10000) alone; an identical-looking copy on stream 3  -> not critical (another copy)
 *   G [11000,11500) alone, zero bytes                            -> critical (no rate, still a copy) */
static void test_sync_copies_on_the_critical_path(void **state)
{
	(void)state;
	const char *p = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	static const uint64_t s[] = { 1000, 3000, 5000, 7000, 9000 };
	for (int i = 0; i < 5; i++)
		assert_int_equal(tl_copy_dev(w, GT_COPY_HTOD, MIB, T + s[i], T + s[i] + 1000, 0, 1, 0), 0);
	assert_int_equal(tl_copy_dev(w, GT_COPY_HTOD, 0, T + 11000, T + 11500, 0, 1, 0), 0);
	assert_int_equal(tl_kernel_dev(w, "_Z1kv", T + 1500, T + 1600, 0, 1), 0);
	assert_int_equal(tl_kernel_dev(w, "_Z1kv", T + 3500, T + 3600, 1, 1), 0);
	assert_int_equal(tl_copy_dev(w, GT_COPY_DTOD, MIB, T + 7100, T + 7200, 0, 2, 1), 0);
	assert_int_equal(tl_copy_dev(w, GT_COPY_DTOD, MIB, T + 9000, T + 10000, 0, 3, 1), 0);
	close_ok(w);
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, p, NULL), 0);
	assert_int_equal(b.sync.count, 6);
	assert_int_equal(b.sync_critical.count, 3);
	assert_int_equal(b.sync_critical.first_start, T + 3000);
	assert_true(b.sync_critical.time_ns == 2500);
	gt_bandwidth_release(&b);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static const char peaks_text[] =
	"# gputrace peak output\n"
	"name=\"NVIDIA H200\" uuid=GPU-00000000-0000-0000-0000-000000000001 cc=9.0 kind=htod_pinned gbps=40.00 bytes=268435456 reps=7\n"
	"name=\"NVIDIA H200\" cc=9.0 kind=htod_pinned gbps=41.00 bytes=268435456 reps=7\n"
	"name=\"NVIDIA H200\" uuid=" SYNTH_UUID " kind=htod_pinned gbps=fast\n"
	"name=\"NVIDIA H200\" uuid=" SYNTH_UUID " cc=9.0 pci=0000:00:06.0 kind=htod_pinned gbps=50.00 bytes=268435456 reps=7\n"
	"name=\"NVIDIA H200 NVL\" uuid=GPU-10111213-1415-1617-1819-1A1B1C1D1E1F cc=9.0 kind=htod_pinned gbps=55.41 bytes=268435456 reps=7\n"
	"name=\"NVIDIA H200\" uuid=" SYNTH_UUID " kind=dtod gbps=1800.5 bytes=268435456 reps=5\n"
	"name=\"NVIDIA H200\" uuid=" SYNTH_UUID " kind=htod_managed gbps=9.9 bytes=1 reps=1\n";

static void test_measured_peaks_file(void **state)
{
	(void)state;
	const char *f = temp();
	write_text(f, peaks_text);
	struct gt_peaks pk;
	char err[128];
	assert_int_equal(gt_peaks_load(&pk, f, SYNTH_UUID, err, sizeof err), 0);
	assert_int_equal(pk.lines, 8); /* the comment counts as a line */
	assert_int_equal(pk.other_devices, 1);
	assert_int_equal(pk.no_uuid, 1);
	assert_int_equal(pk.malformed, 1);
	assert_true(pk.have[GT_PEAK_HTOD_PINNED] && pk.have[GT_PEAK_DTOD]);
	assert_false(pk.have[GT_PEAK_DTOH_PINNED]);
	assert_true(pk.p[GT_PEAK_HTOD_PINNED].gbps == 55.41); /* the last line for it, upper-case hex */
	assert_int_equal(pk.p[GT_PEAK_HTOD_PINNED].line, 6);
	assert_int_equal(pk.p[GT_PEAK_DTOD].reps, 5);
	gt_peaks_release(&pk);
	assert_int_equal(gt_peaks_load(&pk, f, "", err, sizeof err), 0); /* an unknown UUID matches nothing */
	assert_false(pk.have[GT_PEAK_HTOD_PINNED]);
	gt_peaks_release(&pk);

	/* Through the engine: --peaks, and percent of measured. */
	const char *p = temp();
	assert_int_equal(write_copies(p), 0);
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, p, f), 0);
	const struct gt_bw_group *g = group(&b, GT_COPY_HTOD, "pinned", 3);
	assert_true(g->peak_measured == 55.41);
	assert_true(close_eq(g->pct_measured, 100 * g->median / 55.41));
	g = group(&b, GT_COPY_DTOD, "device", 4);
	assert_true(close_eq(g->pct_measured, 100 * g->median / 1800.5));
	g = group(&b, GT_COPY_HTOD, "pageable", 1);
	/* No htod_pageable line for this device: the DMA median against the pinned peak, so labelled. */
	assert_int_equal(g->measured_kind, GT_PEAK_HTOD_PINNED);
	assert_int_equal(g->measured_rate, GT_BW_RATE_DMA);
	assert_true(close_eq(g->pct_measured, 100 * g->median / 55.41));
	gt_bandwidth_release(&b);

	/* $GPUTRACE_PEAKS names the default place. */
	setenv("GPUTRACE_PEAKS", f, 1);
	assert_int_equal(gt_bandwidth_run(&b, p, NULL), 0);
	assert_string_equal(b.peaks_file, f);
	assert_true(b.devices[0].peaks.have[GT_PEAK_HTOD_PINNED]);
	gt_bandwidth_release(&b);
}

/* The place rule, one variable at a time: $GPUTRACE_PEAKS over $XDG_CACHE_HOME over $HOME; a
 * relative XDG_CACHE_HOME is ignored, as the XDG Base Directory specification says. */
static void test_peaks_place_rule(void **state)
{
	(void)state;
	const char *oldhome = getenv("HOME");
	char *saved = oldhome ? strdup(oldhome) : NULL;
	char buf[512];
	int in_cache = -1;
	setenv("HOME", "/home/u", 1);
	setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
	setenv("GPUTRACE_PEAKS", "/data/peaks", 1);
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, &in_cache), "/data/peaks");
	assert_int_equal(in_cache, 0);
	unsetenv("GPUTRACE_PEAKS");
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, &in_cache), "/var/cache/u/gputrace/peaks");
	assert_int_equal(in_cache, 1);
	setenv("XDG_CACHE_HOME", "relative/cache", 1);
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, &in_cache), "/home/u/.cache/gputrace/peaks");
	setenv("XDG_CACHE_HOME", "", 1);
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, NULL), "/home/u/.cache/gputrace/peaks");
	unsetenv("HOME");
	assert_null(gt_peaks_default_path(buf, sizeof buf, NULL));
	setenv("XDG_CACHE_HOME", "/var/cache/u", 1);
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, NULL), "/var/cache/u/gputrace/peaks");
	/* a place that does not fit is none, not a cut path */
	assert_null(gt_peaks_default_path(buf, 10, NULL));
	unsetenv("XDG_CACHE_HOME");
	if (saved) {
		setenv("HOME", saved, 1);
		free(saved);
	}
}

static void test_default_place_and_unreadable_peaks(void **state)
{
	(void)state;
	char home[] = "/tmp/gt_bw_home_XXXXXX";
	assert_non_null(mkdtemp(home));
	const char *oldhome = getenv("HOME");
	char *saved = oldhome ? strdup(oldhome) : NULL;
	unsetenv("GPUTRACE_PEAKS");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", home, 1);
	char buf[512], want[512];
	snprintf(want, sizeof want, "%s/.cache/gputrace/peaks", home);
	assert_string_equal(gt_peaks_default_path(buf, sizeof buf, NULL), want);
	const char *p = temp();
	assert_int_equal(write_copies(p), 0);
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, p, NULL), 0);
	assert_int_equal(b.peaks_missing, 1);
	gt_bandwidth_release(&b);
	/* the file `gputrace peak` would have written there */
	char dir[512];
	snprintf(dir, sizeof dir, "%s/.cache", home);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof dir, "%s/.cache/gputrace", home);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(want, peaks_text);
	assert_int_equal(gt_bandwidth_run(&b, p, NULL), 0);
	assert_int_equal(b.peaks_missing, 0);
	assert_true(b.devices[0].peaks.have[GT_PEAK_DTOD]);
	gt_bandwidth_release(&b);
	unlink(want);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/.cache", home);
	rmdir(dir);
	rmdir(home);
	if (saved) {
		setenv("HOME", saved, 1);
		free(saved);
	}

	/* --peaks that cannot be read: an input error, in one line */
	char *msgs = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msgs, &len);
	assert_non_null(m);
	gt_diag_set_stream(m);
	assert_int_equal(gt_bandwidth_run(&b, p, "/nonexistent/peaks"), GT_ERR_IO);
	gt_bandwidth_release(&b);
	gt_diag_flush(); /* the engine holds its words (failure.h); the command would say them */
	gt_diag_set_stream(NULL);
	fclose(m);
	assert_string_equal(msgs, "gpuanalyze: cannot read peaks file '/nonexistent/peaks': No such file or directory\n");
	free(msgs);
}

static char *run_cmd(char **argv, int argc, int want_rc)
{
	const char *out = temp();
	char *av[16];
	int ac = 0;
	for (int i = 0; i < argc; i++)
		av[ac++] = argv[i];
	av[ac++] = "-o";
	av[ac++] = (char *)out;
	av[ac] = NULL;
	assert_int_equal(cmd_bandwidth(ac, av), want_rc);
	size_t len;
	char *text = synth_read_file(out, &len);
	assert_non_null(text);
	return text;
}

static void test_command_says_when_no_peak_matches(void **state)
{
	(void)state;
	const char *f = temp(), *p = temp();
	write_text(f, "name=\"x\" uuid=GPU-00000000-0000-0000-0000-000000000001 kind=dtod gbps=1\n");
	assert_int_equal(write_copies(p), 0);
	char *argv[] = { "bandwidth", "--peaks", (char *)f, (char *)p };
	char *t = run_cmd(argv, 4, 0);
	assert_non_null(strstr(t, "no measured peak for this device: "));
	assert_non_null(strstr(t, "is for its UUID (1 for other devices, 0 without a UUID)"));
	assert_non_null(strstr(t, "bytes counted once"));
	free(t);
}

/* ---- the real transfers recording ------------------------------------------------------------- */

struct copyrec {
	uint64_t start, end, bytes;
	uint32_t device, stream;
	int kind, host, async;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Groups, medians and flags recomputed here from the records of the recording. */
/* Call rates: a copy alone on its synchronous call gets bytes / the call's duration; a call that made
 * two copy records, an Async call and a call of zero duration give none; a pageable group is judged
 * by its call median against the pageable peak when the file has one. */
static void test_call_rates(void **state)
{
	(void)state;
	const char *p = temp(), *f = temp();
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.copy_kind = GT_COPY_HTOD;
	m.src_kind = GT_MEM_PAGEABLE;
	m.dst_kind = GT_MEM_DEVICE;
	m.bytes = MIB;
	/* 1 MiB in 20 us of DMA, calls of 150 and 170 us (corr 1, 2); two records of one call (3); a
	 * cudaMemcpyAsync (4); a call of zero duration (5); a cuMemcpyHtoD_v2 of 160 us (6). */
	static const struct {
		uint32_t corr;
		const char *call;
		uint64_t call_ns;
	} c[] = { { 1, "cudaMemcpy", 150000 }, { 2, "cudaMemcpy", 170000 }, { 3, "cudaMemcpy2D", 300000 },
		  { 3, NULL, 0 }, { 4, "cudaMemcpyAsync", 100000 }, { 5, "cudaMemcpy", 0 },
		  { 6, "cuMemcpyHtoD_v2", 160000 } };
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		uint64_t t = T + i * 1000000;
		m.start = t + 10000;
		m.end = m.start + 20000;
		m.correlation_id = c[i].corr;
		assert_int_equal(gt_writer_add(w, GT_REC_MEMCPY, &m), 0);
		if (c[i].call)
			assert_int_equal(tl_api(w, c[i].call, t, t + c[i].call_ns, 7, c[i].corr), 0);
	}
	close_ok(w);
	write_text(f, "name=x uuid=" SYNTH_UUID " kind=htod_pageable gbps=6.50\n"
	              "name=x uuid=" SYNTH_UUID " kind=htod_pinned gbps=50.00\n");
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, p, f), 0);
	const struct gt_bw_group *g = group(&b, GT_COPY_HTOD, "pageable", 3);
	assert_int_equal(g->count, 7);
	assert_int_equal(g->calls, 3);
	assert_true(close_eq(g->call_time_ns, 150000 + 170000 + 160000));
	assert_true(close_eq(g->call_median, (double)MIB / 160000)); /* the median of three */
	assert_true(close_eq(g->median, (double)MIB / 20000));
	assert_int_equal(g->measured_kind, GT_PEAK_HTOD_PAGEABLE);
	assert_int_equal(g->measured_rate, GT_BW_RATE_CALL);
	assert_true(close_eq(g->pct_measured, 100 * g->call_median / 6.5));
	assert_int_equal(b.calls_shared, 2);
	assert_int_equal(b.calls_bad, 1);
	assert_int_equal(b.pageable.calls, 3);
	assert_int_equal(b.sync.calls, 3);
	gt_bandwidth_release(&b);
}

static void test_transfers_recording(void **state)
{
	(void)state;
	const char *dir = getenv("GT_SAMPLES_DIR");
	char path[512];
	snprintf(path, sizeof path, "%s/h200-transfers.gtrace", dir && *dir ? dir : "traces/samples");
	if (access(path, R_OK) != 0)
		skip();
	static struct copyrec c[4096];
	static struct {
		uint64_t start, end;
		uint32_t device, stream;
	} ops[8192];
	size_t n = 0, nops = 0;
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	while (gt_reader_next(r, &ev) > 0) {
		if (ev.type == GT_REC_MEMCPY) {
			const struct gt_memcpy *m = &ev.u.memcpy;
			assert_true(n < 4096);
			int host = m->copy_kind == GT_COPY_HTOD ? m->src_kind : m->copy_kind == GT_COPY_DTOH ? m->dst_kind : -1;
			c[n++] = (struct copyrec){ m->start, m->end, m->bytes, m->device_id, m->stream_id, m->copy_kind,
				                   host, (m->flags & GT_COPY_ASYNC) != 0 };
		}
		if (ev.type == GT_REC_MEMCPY || ev.type == GT_REC_MEMSET || ev.type == GT_REC_KERNEL) {
			assert_true(nops < 8192);
			uint64_t s = ev.type == GT_REC_MEMCPY ? ev.u.memcpy.start : ev.type == GT_REC_MEMSET ? ev.u.memset.start : ev.u.kernel.start;
			uint64_t e = ev.type == GT_REC_MEMCPY ? ev.u.memcpy.end : ev.type == GT_REC_MEMSET ? ev.u.memset.end : ev.u.kernel.end;
			uint32_t d = ev.type == GT_REC_MEMCPY ? ev.u.memcpy.device_id : ev.type == GT_REC_MEMSET ? ev.u.memset.device_id : ev.u.kernel.device_id;
			uint32_t st = ev.type == GT_REC_MEMCPY ? ev.u.memcpy.stream_id : ev.type == GT_REC_MEMSET ? ev.u.memset.stream_id : ev.u.kernel.stream_id;
			ops[nops].start = s;
			ops[nops].end = e;
			ops[nops].device = d;
			ops[nops++].stream = st;
		}
	}
	gt_reader_close(r);
	assert_true(n > 0);
	struct gt_bandwidth b;
	assert_int_equal(gt_bandwidth_run(&b, path, "/dev/null"), 0);
	/* Every group: count, bytes and median from the copies that fall in it. */
	uint64_t grouped = 0;
	for (size_t gi = 0; gi < b.ngroups; gi++) {
		const struct gt_bw_group *g = &b.groups[gi];
		double rates[4096];
		size_t k = 0;
		uint64_t bytes = 0;
		for (size_t i = 0; i < n; i++) {
			if (c[i].kind != g->copy_kind || c[i].host != g->host_kind || gt_bw_bucket_of(c[i].bytes) != g->bucket ||
			    c[i].end <= c[i].start || !c[i].bytes)
				continue;
			if (g->host_kind < 0 && strcmp(g->memory, "device"))
				continue;
			rates[k++] = (double)c[i].bytes / (double)(c[i].end - c[i].start);
			bytes += c[i].bytes;
		}
		assert_int_equal(k, g->count);
		assert_int_equal(bytes, g->bytes);
		qsort(rates, k, sizeof *rates, cmp_double);
		double med = k % 2 ? rates[k / 2] : (rates[k / 2 - 1] + rates[k / 2]) / 2;
		assert_true(close_eq(g->median, med));
		grouped += k;
	}
	/* Flags: pageable host ends; synchronous copies, and those no other operation of their device
	 * overlapped (brute force). */
	uint64_t pageable = 0, sync = 0, critical = 0;
	for (size_t i = 0; i < n; i++) {
		pageable += c[i].host == GT_MEM_PAGEABLE;
		if (c[i].async)
			continue;
		sync++;
		int busy = 0;
		for (size_t j = 0; j < nops && !busy; j++) {
			if (ops[j].device != c[i].device || ops[j].end <= c[i].start || ops[j].start >= c[i].end)
				continue;
			if (ops[j].start == c[i].start && ops[j].end == c[i].end && ops[j].stream == c[i].stream)
				continue; /* itself */
			busy = 1;
		}
		critical += !busy;
	}
	assert_int_equal(b.pageable.count, pageable);
	assert_int_equal(b.sync.count, sync);
	assert_int_equal(b.sync_critical.count, critical);
	assert_int_equal(grouped + b.copies_no_rate + b.copies_bad, n);
	gt_bandwidth_release(&b);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write")) {
		char p[4096];
		snprintf(p, sizeof p, "%s/copies.gtrace", argv[2]);
		int rc = write_copies(p);
		snprintf(p, sizeof p, "%s/peaks", argv[2]);
		FILE *f = rc ? NULL : fopen(p, "w");
		if (!rc && (!f || fputs(peaks_text, f) < 0 || fclose(f) != 0))
			rc = GT_ERR_IO;
		if (rc)
			fprintf(stderr, "test_analyze_bandwidth: cannot write the files: %s\n", gt_strerror(rc));
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_and_names),
		cmocka_unit_test_teardown(test_rates_groups_and_peaks, teardown),
		cmocka_unit_test_teardown(test_sync_copies_on_the_critical_path, teardown),
		cmocka_unit_test_teardown(test_measured_peaks_file, teardown),
		cmocka_unit_test(test_peaks_place_rule),
		cmocka_unit_test_teardown(test_default_place_and_unreadable_peaks, teardown),
		cmocka_unit_test_teardown(test_command_says_when_no_peak_matches, teardown),
		cmocka_unit_test_teardown(test_call_rates, teardown),
		cmocka_unit_test_teardown(test_transfers_recording, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
