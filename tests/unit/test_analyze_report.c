/* test_analyze_report.c: `gpuanalyze report` (analyze/engines/report.c computing, analyze/commands/report_*.c
 * writing) and its figures (analyze/output/svg.c), on
 * traces built through the writer API.
 *
 * The figures: every launch a dot (or 400 at evenly spaced ranks), names escaped, an axis that fits
 * a narrow distribution and reaches past the data with a tick, labels unique where long names cut
 * alike, bars cut and labelled above 1.5 x p90. The report: every heading in the
 * seeds' order; a synthetic trace said to be synthetic; correctness "not checked" with its reason
 * and never "PASS"; clock ranges and throttling from the samples, "not sampled" without them;
 * launch configurations and copy sizes; warm-up stated; figures written beside the report and
 * linked, or a note when there is no place for them; the baseline comparison marked as speed only
 * when correctness was not checked; the command's errors.
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

#include "analyze/commands/commands.h"
#include "analyze/commands/report_doc.h"
#include "analyze/support/diag.h"
#include "analyze/support/outfile.h"
#include "analyze/engines/report.h"
#include "analyze/output/svg.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define T0 2000000000ull

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* Not inlined: GCC 12 then mistakes the returned buffer for the address of a local (-Wdangling-pointer). */
__attribute__((noinline)) static char *to_string(int (*fn)(FILE *, void *), void *arg, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(f, arg), want);
	fclose(f);
	return buf;
}

/* ---- figures -------------------------------------------------------------------------------- */

struct dur_args {
	const struct gt_svg_series *s;
	size_t n;
};

static int durations(FILE *f, void *a)
{
	const struct dur_args *d = a;
	return gt_svg_durations(f, "t <&> \"x\"", "us", d->s, d->n);
}

static void test_svg_durations(void **state)
{
	(void)state;
	static double many[1000], few[3] = { 530.1, 532.7, 548.0 };
	for (int i = 0; i < 1000; i++)
		many[i] = 0.8 + 0.001 * i;
	struct gt_svg_series s[2] = { { "void f<a&b>(int*)", many, 1000 }, { "composite", few, 3 } };
	struct dur_args a = { s, 2 };
	char *svg = to_string(durations, &a, 0);
	assert_true(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 78) == 0);
	assert_non_null(strstr(svg, "</svg>\n"));
	/* 400 dots for the thousand launches, 3 for the three. */
	assert_int_equal(count(svg, "<circle "), 403);
	/* Names and the title are escaped. */
	assert_non_null(strstr(svg, ">void f&lt;a&amp;b&gt;(int*)</text>"));
	assert_non_null(strstr(svg, "<title>t &lt;&amp;&gt; &quot;x&quot;</title>"));
	assert_null(strstr(svg, "<&>"));
	assert_non_null(strstr(svg, "median 532.700 us"));
	assert_non_null(strstr(svg, "n = 1000"));
	/* The axis spans 0.8 us to 548 us: ticks at 1, 2, 5, 10 ... 500 us. */
	assert_non_null(strstr(svg, ">1 us</text>"));
	assert_non_null(strstr(svg, ">500 us</text>"));
	free(svg);
	/* One narrow distribution: the axis narrows too, with ticks inside it. */
	a.s = &s[1];
	a.n = 1;
	svg = to_string(durations, &a, 0);
	assert_true(count(svg, " us</text>") >= 3);
	free(svg);
	a.n = 0;
	svg = to_string(durations, &a, GT_ERR_ARG);
	free(svg);
}

static int stacked(FILE *f, void *a)
{
	static const struct gt_svg_part parts[2] = { { "kernels", "#4477aa" }, { "idle", "#cccccc" } };
	const double *v = a;
	return gt_svg_stacked(f, "frames", "frame", "ms", parts, 2, v, v ? 10 : 0, NULL);
}

static void test_svg_stacked(void **state)
{
	(void)state;
	double v[20];
	for (int i = 0; i < 10; i++) {
		v[2 * i] = 1.0;
		v[2 * i + 1] = 0.3;
	}
	v[1] = 400; /* a first frame 300x longer, idle */
	char *svg = to_string(stacked, v, 0);
	assert_non_null(strstr(svg, ">401 ms (cut)</text>"));
	assert_int_equal(count(svg, "(cut)"), 1);
	assert_non_null(strstr(svg, "cut at the top and labelled"));
	/* 10 bars of 2 parts, and 2 legend squares. */
	assert_int_equal(count(svg, "<rect "), 1 + 20 + 2);
	free(svg);
	svg = to_string(stacked, NULL, GT_ERR_ARG);
	free(svg);
}

/* ---- the report ----------------------------------------------------------------------------- */

static void clock(struct gt_writer *w, uint64_t ts, uint32_t sm, uint64_t reasons)
{
	struct gt_clock_sample c;
	memset(&c, 0, sizeof c);
	c.timestamp = ts;
	c.sm_clock_mhz = sm;
	c.mem_clock_mhz = 2619;
	c.temperature_c = 60;
	c.power_mw = 500000;
	c.throttle_reasons = reasons;
	assert_int_equal(gt_writer_add(w, GT_REC_CLOCK_SAMPLE, &c), 0);
}

/* 30 frames, each an NVTX range around a copy and a kernel of about `kernel_ns`; three clock samples
 * (one throttled) unless clocks is 0. */
static char *trace(const char *tag, double kernel_ns, int clocks)
{
	char *p = temp(tag);
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	uint32_t frame = gt_writer_intern(w, "frame");
	uint64_t t = T0;
	for (int i = 0; i < 30; i++) {
		uint64_t k0 = t + 20000, d = (uint64_t)(kernel_ns * (1 + 0.002 * (i % 7)));
		assert_int_equal(synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 524288, t + 1000, t + 13000), 0);
		assert_int_equal(synth_kernel(w, "_Z9compositePfi", k0, k0 + d, 0), 0);
		struct gt_nvtx n;
		memset(&n, 0, sizeof n);
		n.start = t;
		n.end = k0 + d + 10000;
		n.name_id = frame;
		n.thread_id = 5;
		n.kind = GT_NVTX_PUSH_POP;
		assert_int_equal(gt_writer_add(w, GT_REC_NVTX, &n), 0);
		t = n.end + 2000;
	}
	if (clocks) {
		clock(w, T0, 1980, 0);
		clock(w, T0 + 500000, 1755, 0x4); /* SwPowerCap */
		clock(w, T0 + 900000, 1980, 0);
	}
	assert_int_equal(gt_writer_close(w), 0);
	return p;
}

struct run_args {
	const char *path;
	struct gt_report_options o;
	struct gt_report_figure_options fo;
	struct gt_report_result res;
};

static int run_report(FILE *f, void *a)
{
	struct run_args *r = a;
	struct gt_doc *d = gt_doc_open(GT_FMT_MD, f);
	assert_non_null(d);
	int rc = gt_report_doc(d, r->path, &r->o, &r->fo, &r->res);
	assert_int_equal(gt_doc_close(d), 0);
	/* In place of the runner: the figures replace their targets when the report has succeeded. */
	assert_int_equal(gt_outfile_end(rc == 0), 0);
	return rc;
}

static void test_report(void **state)
{
	(void)state;
	char *p = trace("rep", 500000, 1);
	char *fig = temp("fig");
	struct run_args a = { .path = p };
	gt_report_options_default(&a.o);
	a.o.warmup = 2;
	a.fo.prefix = fig;
	a.fo.link_prefix = "REPORT";
	char *md = to_string(run_report, &a, 0);
	/* The seeds' headings, in order. */
	const char *h[] = { "\n## Hardware\n", "\n## Toolkit\n", "\n## Clock state\n", "\n## Sizes\n", "\n## Method\n",
		            "\n## Correctness\n", "\n## Result\n", "\n## Limitations\n" };
	const char *prev = md;
	for (size_t i = 0; i < sizeof h / sizeof *h; i++) {
		const char *at = strstr(md, h[i]);
		if (!at || at < prev)
			fail_msg("heading %s missing or out of order", h[i] + 1);
		prev = at;
	}
	assert_null(strstr(md, "## Compared with the baseline"));
	assert_non_null(strstr(md, "> **SYNTHETIC trace**"));
	/* Correctness: not checked, with the reason; never a pass. */
	assert_non_null(strstr(md, "- Not checked: the trace holds no shadow captures"));
	assert_null(strstr(md, "PASS"));
	assert_int_equal(a.res.correctness, -1);
	/* Hardware, clocks, sizes, method. */
	assert_non_null(strstr(md, "- GPU 0: NVIDIA H200 ("));
	assert_non_null(strstr(md, "- 3 samples over 0.001 s (3 while the GPU was busy): SM clock 1755 to 1980 MHz"));
	assert_non_null(strstr(md, "- Throttling in 1 of 3 samples: SwPowerCap\n"));
	assert_non_null(strstr(md, "| `composite(float*, int)` | 30 | 256 x 1 x 1 | 128 x 1 x 1 | 0 + 0 B | 32 |"));
	assert_non_null(strstr(md, "| HtoD pinned-\\>device | 30 | 524.3 kB | 524.3 kB | 524.3 kB | 15.73 MB |"));
	assert_non_null(strstr(md, "- Warm-up: the first 2 launches of each kernel dropped, by start time, never by value (2 launches in all)"));
	assert_non_null(strstr(md, "- Samples: 28 kernel launches counted of 30 recorded"));
	assert_non_null(strstr(md, "- Units of work (end to end): each instance of the NVTX range 'frame', 28 of them after 2 dropped"));
	/* Result and figures: written, and linked by the given name. */
	assert_non_null(strstr(md, "| `composite(float*, int)` | 28 | "));
	assert_non_null(strstr(md, "![GPU durations per launch of the top kernels](REPORT-kernels.svg)"));
	assert_non_null(strstr(md, "![Each unit's wall time: GPU kernels, other GPU work, GPU idle](REPORT-split.svg)"));
	assert_int_equal(a.res.figures, 1);
	char file[1024];
	snprintf(file, sizeof file, "%s-kernels.svg", fig);
	char *svg = synth_read_file(file, NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<circle "));
	free(svg);
	unlink(file);
	snprintf(file, sizeof file, "%s-split.svg", fig);
	svg = synth_read_file(file, NULL);
	assert_non_null(svg);
	/* The background, 28 bars of at least one part, 3 legend squares. */
	assert_true(count(svg, "<rect ") >= 1 + 28 + 3);
	assert_non_null(strstr(svg, ">GPU kernels</text>"));
	free(svg);
	unlink(file);
	/* Limitations follow from what the trace shows. */
	assert_non_null(strstr(md, "- Clocks moved during the run (SM 1755 to 1980 MHz, with throttling)"));
	assert_non_null(strstr(md, "- Correctness not checked: the timings say nothing about whether the results are right"));
	assert_non_null(strstr(md, "- The trace is synthetic: no number in it was measured on a GPU"));
	free(md);
}

/* The largest tick of a durations figure, in us (its labels: "500 us", "1 ms", ...). */
static double last_tick_us(const char *svg)
{
	double best = 0;
	const char *key = "text-anchor=\"middle\" fill=\"#";
	for (const char *p = svg; (p = strstr(p, key)) != NULL; p += strlen(key)) {
		const char *v = strchr(p, '>');
		double x;
		char unit[4];
		if (!v || sscanf(v + 1, "%lf %3[a-z]<", &x, unit) != 2)
			continue;
		double us = strcmp(unit, "ns") == 0 ? x / 1e3 : strcmp(unit, "ms") == 0 ? x * 1e3 : strcmp(unit, "s") == 0 ? x * 1e6 : x;
		best = us > best ? us : best;
	}
	return best;
}

/* Two kernels whose long names differ only in the middle (as cuBLAS's do) get two different labels
 * in the kernel figure, and the axis reaches past the slowest launch (340 us) with a tick. */
static void test_report_figure_labels_and_axis(void **state)
{
	(void)state;
	const char *a = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_execute_kernel__5x_cublas";
	const char *b = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_execute_kernel__5x_cublas";
	char *p = temp("labels");
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	assert_int_equal(synth_device(w), 0);
	uint64_t t = T0;
	for (int i = 0; i < 20; i++) {
		uint64_t da = 300000 + 2000 * (uint64_t)i, db = 50000 + 100 * (uint64_t)i; /* a: 300 to 338 us */
		if (i == 19)
			da = 340000;
		assert_int_equal(synth_kernel(w, a, t, t + da, 0), 0);
		assert_int_equal(synth_kernel(w, b, t + da + 1000, t + da + 1000 + db, 0), 0);
		t += da + db + 10000;
	}
	assert_int_equal(gt_writer_close(w), 0);
	char *fig = temp("labelsfig");
	struct run_args r = { .path = p };
	gt_report_options_default(&r.o);
	r.fo.prefix = fig;
	r.fo.link_prefix = "REPORT";
	free(to_string(run_report, &r, 0));
	char file[1024];
	snprintf(file, sizeof file, "%s-kernels.svg", fig);
	char *svg = synth_read_file(file, NULL);
	assert_non_null(svg);
	/* The row labels: right-aligned texts left of the plot. */
	char labels[2][128];
	size_t nl = 0;
	const char *key = "text-anchor=\"end\">";
	for (const char *q = svg; nl < 2 && (q = strstr(q, key)) != NULL; q += strlen(key)) {
		const char *e = strstr(q, "</text>");
		assert_non_null(e);
		size_t len = (size_t)(e - q - strlen(key));
		assert_true(len < sizeof labels[0]);
		memcpy(labels[nl], q + strlen(key), len);
		labels[nl++][len] = '\0';
	}
	assert_int_equal(nl, 2);
	assert_true(strlen(labels[0]) <= 60 && strlen(labels[1]) <= 60);
	if (strcmp(labels[0], labels[1]) == 0)
		fail_msg("both kernels are labelled '%s'", labels[0]);
	/* Each label names its own kernel's distinguishing part. */
	assert_true(strstr(labels[0], "_tn_") || strstr(labels[1], "_tn_"));
	assert_true(strstr(labels[0], "_nn_") || strstr(labels[1], "_nn_"));
	double last = last_tick_us(svg);
	if (last < 340)
		fail_msg("the last tick is %g us, below the slowest launch (340 us)", last);
	free(svg);
	unlink(file);
	snprintf(file, sizeof file, "%s-split.svg", fig);
	unlink(file);
}

static void test_report_baseline_and_stdout(void **state)
{
	(void)state;
	char *base = trace("base", 500000, 0), *slow = trace("slow", 560000, 0);
	struct run_args a = { .path = slow };
	gt_report_options_default(&a.o);
	a.o.baseline = base;
	char *md = to_string(run_report, &a, 0);
	assert_non_null(strstr(md, "\n## Compared with the baseline\n"));
	assert_non_null(strstr(md, "- Correctness not checked: what follows compares speed only\n"));
	assert_non_null(strstr(md, "| SLOWER | `composite(float*, int)` | 30 | 30 | "));
	assert_non_null(strstr(md, "| 1.12x slower |"));
	assert_int_equal(a.res.compared, 1);
	assert_true(a.res.slower >= 1);
	/* No clock samples: not sampled, and a limitation. */
	assert_non_null(strstr(md, "- Not sampled: the trace holds no NVML clock samples"));
	assert_non_null(strstr(md, "- Clock state unknown (not sampled)"));
	/* No figure prefix (standard output): a note instead of links. */
	assert_non_null(strstr(md, "Figures: not written (the report went to standard output"));
	assert_null(strstr(md, "]("));
	free(md);
}

static void test_command(void **state)
{
	(void)state;
	char *p = trace("cmd", 500000, 1);
	char dir[] = "/tmp/gt_report_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char out[256], k[256], s[256];
	snprintf(out, sizeof out, "%s/REPORT.md", dir);
	snprintf(k, sizeof k, "%s/REPORT-kernels.svg", dir);
	snprintf(s, sizeof s, "%s/REPORT-split.svg", dir);
	free(run_capture(cmd_report, 0, (char *[]){ "report", "-o", out, p, NULL }));
	char *md = synth_read_file(out, NULL);
	assert_non_null(md);
	assert_non_null(strstr(md, "](REPORT-kernels.svg)"));
	free(md);
	assert_int_equal(access(k, R_OK), 0);
	assert_int_equal(access(s, R_OK), 0);
	unlink(out);
	unlink(k);
	unlink(s);
	rmdir(dir);
	char *err = run_capture(cmd_report, GT_EXIT_USAGE, (char *[]){ "report", "--threshold", "lots", p, NULL });
	assert_non_null(strstr(err, "gpuanalyze: report: option '--threshold' wants a percentage"));
	free(err);
	err = run_capture(cmd_report, GT_EXIT_USAGE, (char *[]){ "report", "/nonexistent.gtrace", NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot open trace '/nonexistent.gtrace'"));
	free(err);
	err = run_capture(cmd_report, GT_EXIT_USAGE, (char *[]){ "report", "--baseline", "/nonexistent-base.gtrace", p, NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot open trace '/nonexistent-base.gtrace'"));
	free(err);
	err = run_capture(cmd_report, GT_EXIT_USAGE, (char *[]){ "report", "-o", "/nonexistent/dir/R.md", p, NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot write '/nonexistent/dir/R.md'"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_durations),
		cmocka_unit_test(test_svg_stacked),
		cmocka_unit_test_teardown(test_report, temp_teardown),
		cmocka_unit_test_teardown(test_report_figure_labels_and_axis, temp_teardown),
		cmocka_unit_test_teardown(test_report_baseline_and_stdout, temp_teardown),
		cmocka_unit_test_teardown(test_command, temp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
