/* test_analyze_diff.c: the diff engine (analyze/engines/diff.c, analyze/blocks/samples.c) and `gpuanalyze diff`,
 * on traces built through the writer API.
 *
 * The verdict rule at its boundaries; a planted 10% slowdown is SLOWER and fails the check, a
 * redraw of the same distribution is SAME, 20% faster is FASTER, a 3% change under a 5% threshold is
 * never SLOWER, too few samples are UNCLEAR; warm-up dropped by position in each trace; kernels on
 * one side only are listed and never judged; the geometric mean; seeds reproduce; NVTX units are
 * compared when both traces have them; the command's exit statuses, JSON, CSV, Markdown and JUnit.
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

#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/diff.h"
#include "analyze/blocks/twosample.h"
#include "traces/gputrace.h"
#include "helpers/cmd_test.h"
#include "helpers/synth_trace.h"

#define T0 1000000000ull

struct kspec {
	const char *name;
	int n;                   /* launches */
	double median_ns;        /* durations: median * (1 + 0.01 * N(0,1)) */
	double first_ns;         /* > 0: the first two launches take this long (warm-up) */
};

/* A trace of the given kernels, launches interleaved 10 us apart, durations drawn from seed. */
static char *trace(const char *tag, const struct kspec *k, int nk, uint64_t seed)
{
	char *p = temp(tag);
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	struct gt_rng g;
	gt_rng_seed(&g, seed, 0);
	uint64_t t = T0;
	for (int i = 0;; i++) {
		int any = 0;
		for (int j = 0; j < nk; j++) {
			if (i >= k[j].n)
				continue;
			any = 1;
			double d = k[j].median_ns * (1 + 0.01 * gt_rng_normal(&g));
			if (k[j].first_ns > 0 && i < 2)
				d = k[j].first_ns;
			assert_int_equal(synth_kernel(w, k[j].name, t, t + (uint64_t)d, 0), 0);
			t += 10000 + (uint64_t)d;
		}
		if (!any)
			break;
	}
	assert_int_equal(gt_writer_close(w), 0);
	return p;
}

static const struct gt_diff_row *find(const struct gt_diff *d, const char *name)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (strcmp(d->rows[i].name, name) == 0)
			return &d->rows[i];
	fail_msg("no row '%s'", name);
	return NULL;
}

static void opts(struct gt_diff_options *o)
{
	gt_diff_options_default(o);
}

/* ---- the rule -------------------------------------------------------------------------------- */

static void test_verdict_rule(void **state)
{
	(void)state;
	struct gt_diff_options o;
	opts(&o);
	char why[160];
	double L = 1.05, inv = 1 / 1.05;
	/* SLOWER: the whole interval of old/new below 1/1.05, and the rank test rejects. */
	assert_int_equal(gt_diff_verdict(0.90, inv - 1e-9, 0.01, &o, why, sizeof why), GT_VERDICT_SLOWER);
	assert_non_null(strstr(why, "new/old"));
	/* ... but not when the rank test does not. */
	assert_int_equal(gt_diff_verdict(0.90, 0.92, 0.2, &o, why, sizeof why), GT_VERDICT_UNCLEAR);
	assert_non_null(strstr(why, "p = 0.2"));
	/* Touching the boundary is not beyond it: SAME includes its ends. */
	assert_int_equal(gt_diff_verdict(inv, L, 0.001, &o, why, sizeof why), GT_VERDICT_SAME);
	/* Straddling either boundary is UNCLEAR. */
	assert_int_equal(gt_diff_verdict(0.93, 0.99, 0.001, &o, why, sizeof why), GT_VERDICT_UNCLEAR);
	assert_non_null(strstr(why, "straddles 0.9524"));
	assert_int_equal(gt_diff_verdict(1.01, 1.08, 0.001, &o, why, sizeof why), GT_VERDICT_UNCLEAR);
	assert_non_null(strstr(why, "straddles 1.05"));
	/* FASTER mirrors SLOWER. */
	assert_int_equal(gt_diff_verdict(L + 1e-9, 1.3, 0.01, &o, why, sizeof why), GT_VERDICT_FASTER);
	/* No rank test (the geometric mean): the interval alone. */
	assert_int_equal(gt_diff_verdict(0.5, 0.6, NAN, &o, why, sizeof why), GT_VERDICT_SLOWER);
	assert_int_equal(gt_diff_verdict(NAN, NAN, 0.01, &o, why, sizeof why), GT_VERDICT_UNCLEAR);
	/* Threshold 0: SAME only for an interval that is exactly 1. */
	o.threshold = 0;
	assert_int_equal(gt_diff_verdict(1, 1, 1, &o, NULL, 0), GT_VERDICT_SAME);
	assert_int_equal(gt_diff_verdict(0.99, 1, 0.5, &o, NULL, 0), GT_VERDICT_UNCLEAR);
}

static void test_change_words(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(gt_diff_change(1.23, b, sizeof b), "1.23x faster");
	assert_string_equal(gt_diff_change(1 / 1.1, b, sizeof b), "1.10x slower");
	assert_string_equal(gt_diff_change(1, b, sizeof b), "1.00x (equal medians)");
	assert_string_equal(gt_diff_change(NAN, b, sizeof b), "n/a");
}

/* ---- the engine on traces ------------------------------------------------------------------- */

static void test_planted_slowdown(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 200, 100000, 0 }, { "_Z6reducev", 200, 20000, 0 } };
	struct kspec b[] = { { "_Z4stepv", 200, 110000, 0 }, { "_Z6reducev", 200, 20000, 0 } };
	char *pa = trace("base", a, 2, 1), *pb = trace("new", b, 2, 2);
	struct gt_diff_options o;
	opts(&o);
	struct gt_diff d;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	assert_int_equal(d.nboth, 2);
	const struct gt_diff_row *r = find(&d, "_Z4stepv");
	assert_int_equal(r->verdict, GT_VERDICT_SLOWER);
	assert_true(fabs(r->speedup - 1 / 1.1) < 0.01);
	assert_true(r->ci.hi < 1 / 1.05);
	assert_true(r->mwu.p < 1e-10);
	assert_int_equal(find(&d, "_Z6reducev")->verdict, GT_VERDICT_SAME);
	assert_true(gt_diff_failed(&d, 0));
	/* SLOWER rows come first. */
	assert_string_equal(d.rows[0].name, "_Z4stepv");
	/* The geometric mean of 1/1.1 and about 1: about 1/sqrt(1.1). */
	assert_int_equal(d.geo_k, 2);
	assert_true(fabs(d.geo_speedup - 1 / sqrt(1.1)) < 0.01);
	/* No NVTX ranges: units not compared, and the note says why. */
	assert_int_equal(d.units_done, 0);
	assert_non_null(strstr(d.units_note, "no NVTX range"));
	gt_diff_release(&d);
}

static void test_no_change_and_small_change(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 300, 100000, 0 } };
	struct kspec c[] = { { "_Z4stepv", 300, 103000, 0 } };
	char *pa = trace("base", a, 1, 1), *pb = trace("same", a, 1, 99), *pc = trace("small", c, 1, 3);
	struct gt_diff_options o;
	opts(&o);
	struct gt_diff d;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	assert_int_equal(find(&d, "_Z4stepv")->verdict, GT_VERDICT_SAME);
	assert_false(gt_diff_failed(&d, 1));
	gt_diff_release(&d);
	/* 3% slower under a 5% threshold: detectable, yet not SLOWER. */
	assert_int_equal(gt_diff_run(&d, pa, pc, &o), 0);
	const struct gt_diff_row *r = find(&d, "_Z4stepv");
	assert_true(r->mwu.p < 0.001);
	assert_int_not_equal(r->verdict, GT_VERDICT_SLOWER);
	assert_false(gt_diff_failed(&d, 0));
	gt_diff_release(&d);
	/* Under a 1% threshold it is. */
	o.threshold = 0.01;
	assert_int_equal(gt_diff_run(&d, pa, pc, &o), 0);
	assert_int_equal(find(&d, "_Z4stepv")->verdict, GT_VERDICT_SLOWER);
	gt_diff_release(&d);
}

static void test_faster_few_and_one_sided(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 100, 100000, 0 }, { "_Z3fewv", 5, 5000, 0 }, { "_Z3oldv", 20, 7000, 0 } };
	struct kspec b[] = { { "_Z4stepv", 100, 80000, 0 }, { "_Z3fewv", 5, 9000, 0 }, { "_Z3newv", 30, 3000, 0 } };
	char *pa = trace("base", a, 3, 1), *pb = trace("new", b, 3, 2);
	struct gt_diff_options o;
	opts(&o);
	struct gt_diff d;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	assert_int_equal(find(&d, "_Z4stepv")->verdict, GT_VERDICT_FASTER);
	const struct gt_diff_row *r = find(&d, "_Z3fewv");
	assert_int_equal(r->verdict, GT_VERDICT_UNCLEAR);
	assert_non_null(strstr(r->why, "too few samples: n = 5 in BASE, 5 in NEW (at least 10 each)"));
	assert_int_equal(d.nbase_only, 1);
	assert_int_equal(d.nnew_only, 1);
	r = find(&d, "_Z3oldv");
	assert_int_equal(r->side, GT_DIFF_BASE_ONLY);
	assert_null(r->new);
	assert_int_equal(r->base->n, 20);
	assert_int_equal(find(&d, "_Z3newv")->side, GT_DIFF_NEW_ONLY);
	/* Nothing SLOWER: exit 0; --strict fails on the UNCLEAR one. */
	assert_false(gt_diff_failed(&d, 0));
	assert_true(gt_diff_failed(&d, 1));
	/* The geometric mean leaves out the kernel with too few samples. */
	assert_int_equal(d.geo_k, 1);
	gt_diff_release(&d);
	/* --min-samples 5 lets the small one be judged: 1.8x slower. */
	o.min_samples = 5;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	assert_int_equal(find(&d, "_Z3fewv")->verdict, GT_VERDICT_SLOWER);
	gt_diff_release(&d);
}

/* The first two launches of BASE take 50x longer (module load, cold caches): without warm-up the
 * medians barely move, but MWU sees the shift in the tail; with --warmup 2 they are dropped, by
 * position, from BASE only (NEW's first launches are ordinary and are dropped too). */
static void test_warmup(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 40, 100000, 5000000 } };
	struct kspec b[] = { { "_Z4stepv", 40, 100000, 0 } };
	char *pa = trace("base", a, 1, 1), *pb = trace("new", b, 1, 2);
	struct gt_diff_options o;
	opts(&o);
	o.warmup = 2;
	struct gt_diff d;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	const struct gt_diff_row *r = find(&d, "_Z4stepv");
	assert_int_equal(r->base->n, 38);
	assert_int_equal(r->new->n, 38);
	assert_int_equal(r->base->dropped, 2);
	assert_true(r->base->st.max < 200000);
	assert_int_equal(d.base.warmup_dropped, 2);
	gt_diff_release(&d);
}

static void test_seed_reproduces(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 50, 100000, 0 } };
	struct kspec b[] = { { "_Z4stepv", 50, 104000, 0 } };
	char *pa = trace("base", a, 1, 1), *pb = trace("new", b, 1, 2);
	struct gt_diff_options o;
	opts(&o);
	o.seed = 77;
	struct gt_diff d1, d2;
	assert_int_equal(gt_diff_run(&d1, pa, pb, &o), 0);
	assert_int_equal(gt_diff_run(&d2, pa, pb, &o), 0);
	assert_true(d1.rows[0].ci.lo == d2.rows[0].ci.lo && d1.rows[0].ci.hi == d2.rows[0].ci.hi);
	gt_diff_release(&d2);
	o.seed = 78;
	assert_int_equal(gt_diff_run(&d2, pa, pb, &o), 0);
	assert_true(d1.rows[0].ci.lo != d2.rows[0].ci.lo || d1.rows[0].ci.hi != d2.rows[0].ci.hi);
	/* The point estimate does not depend on the seed. */
	assert_true(d1.rows[0].speedup == d2.rows[0].speedup);
	gt_diff_release(&d1);
	gt_diff_release(&d2);
}

/* Frames marked with NVTX on both sides: their wall and kernel time are compared too. */
static char *frames(const char *tag, int nframes, double kernel_ns, uint64_t seed)
{
	char *p = temp(tag);
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	struct gt_rng g;
	gt_rng_seed(&g, seed, 0);
	uint32_t name = gt_writer_intern(w, "frame");
	assert_true(name != 0);
	uint64_t t = T0;
	for (int i = 0; i < nframes; i++) {
		uint64_t d = (uint64_t)(kernel_ns * (1 + 0.01 * gt_rng_normal(&g)));
		uint64_t f0 = t, k0 = t + 20000;
		assert_int_equal(synth_kernel(w, "_Z4drawv", k0, k0 + d, 0), 0);
		struct gt_nvtx n;
		memset(&n, 0, sizeof n);
		n.start = f0;
		n.end = k0 + d + 30000;
		n.name_id = name;
		n.thread_id = 1;
		n.kind = GT_NVTX_PUSH_POP;
		n.range_id = (uint64_t)i + 1;
		assert_int_equal(gt_writer_add(w, GT_REC_NVTX, &n), 0);
		t = n.end + 5000;
	}
	assert_int_equal(gt_writer_close(w), 0);
	return p;
}

static void test_units(void **state)
{
	(void)state;
	char *pa = frames("fa", 30, 1000000, 1), *pb = frames("fb", 30, 1200000, 2);
	struct gt_diff_options o;
	opts(&o);
	o.warmup = 1;
	struct gt_diff d;
	assert_int_equal(gt_diff_run(&d, pa, pb, &o), 0);
	assert_int_equal(d.units_done, 1);
	assert_string_equal(d.unit_range, "frame");
	assert_int_equal(d.units_base, 29);
	const struct gt_diff_row *wall = find(&d, "frame: wall"), *k = find(&d, "frame: kernel");
	assert_int_equal(wall->unit, 1);
	assert_int_equal(wall->verdict, GT_VERDICT_SLOWER);
	assert_int_equal(k->verdict, GT_VERDICT_SLOWER);
	/* The kernel row itself, and the unit rows, count for the check; copies are absent: no row. */
	assert_int_equal(find(&d, "_Z4drawv")->verdict, GT_VERDICT_SLOWER);
	for (size_t i = 0; i < d.nrows; i++)
		assert_null(strstr(d.rows[i].name, "HtoD"));
	gt_diff_release(&d);
}

/* ---- the command ----------------------------------------------------------------------------- */

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void test_command(void **state)
{
	(void)state;
	struct kspec a[] = { { "_Z4stepv", 60, 100000, 0 }, { "_Z3oldv", 20, 7000, 0 } };
	struct kspec b[] = { { "_Z4stepv", 60, 110000, 0 } };
	char *pa = trace("base", a, 2, 1), *pb = trace("new", b, 1, 2), *out = temp("out");
	char *err;

	err = run_capture(cmd_diff, GT_EXIT_CHECK, (char *[]){ "diff", "--format", "json", "-o", out, pa, pb, NULL });
	free(err);
	char *s = synth_read_file(out, NULL);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"command\": \"diff\""));
	assert_non_null(strstr(s, "\"exit_status\": 1"));
	assert_non_null(strstr(s, "\"verdict\": \"SLOWER\""));
	assert_non_null(strstr(s, "\"change\": \"1.10x slower\""));
	assert_non_null(strstr(s, "\"base_only\": [\n"));
	assert_non_null(strstr(s, "\"name\": \"_Z3oldv\""));
	free(s);

	err = run_capture(cmd_diff, GT_EXIT_CHECK, (char *[]){ "diff", "--format", "csv", "-o", out, pa, pb, NULL });
	free(err);
	s = synth_read_file(out, NULL);
	assert_true(starts(s, "kind,side,verdict,n_base,n_new,"));
	assert_non_null(strstr(s, "\nkernel,both,SLOWER,60,60,"));
	assert_non_null(strstr(s, "\nkernel,base_only,,20,0,"));
	free(s);

	err = run_capture(cmd_diff, GT_EXIT_CHECK, (char *[]){ "diff", "--format", "md", "-o", out, pa, pb, NULL });
	free(err);
	s = synth_read_file(out, NULL);
	if (!starts(s, "## gpuanalyze diff: 1 of 1 kernel SLOWER (threshold 5%)\n"))
		fail_msg("markdown starts: %.80s", s);
	assert_non_null(strstr(s, "| SLOWER "));
	assert_non_null(strstr(s, "### only in BASE (no verdict)"));
	free(s);

	err = run_capture(cmd_diff, GT_EXIT_CHECK, (char *[]){ "diff", "--format", "junit", "-o", out, pa, pb, NULL });
	free(err);
	s = synth_read_file(out, NULL);
	assert_non_null(strstr(s, "<testsuite name=\"gpuanalyze diff\" tests=\"2\" failures=\"1\""));
	assert_non_null(strstr(s, "<failure message=\"SLOWER 1.10x slower"));
	assert_non_null(strstr(s, "<skipped message=\"only in BASE: no comparison\""));
	free(s);

	/* A threshold above the change: UNCLEAR or SAME, exit 0. */
	err = run_capture(cmd_diff, GT_EXIT_OK, (char *[]){ "diff", "--threshold", "20%", "-o", out, pa, pb, NULL });
	free(err);
	/* --kernel selects; the other kernel is counted as left out, not as one-sided. */
	err = run_capture(cmd_diff, GT_EXIT_OK, (char *[]){ "diff", "--kernel", "old", "-o", out, pa, pb, NULL });
	free(err);
	s = synth_read_file(out, NULL);
	assert_non_null(strstr(s, "only those matching --kernel 'old' (1 in BASE and 1 in NEW left out)"));
	free(s);

	/* Usage and input errors: 2, one line. */
	err = run_capture(cmd_diff, GT_EXIT_USAGE, (char *[]){ "diff", "--threshold", "five", pa, pb, NULL });
	assert_string_equal(err, "gpuanalyze: diff: option '--threshold' wants a percentage such as 5% (0 to "
	                         "1000), not 'five' (see 'gpuanalyze diff --help')\n");
	free(err);
	err = run_capture(cmd_diff, GT_EXIT_USAGE, (char *[]){ "diff", pa, NULL });
	free(err);
	err = run_capture(cmd_diff, GT_EXIT_USAGE, (char *[]){ "diff", pa, "/nonexistent/x.gtrace", NULL });
	assert_non_null(strstr(err, "gpuanalyze: cannot open trace '/nonexistent/x.gtrace'"));
	free(err);
	err = run_capture(cmd_diff, GT_EXIT_USAGE, (char *[]){ "diff", "--bootstrap", "5", pa, pb, NULL });
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_rule),
		cmocka_unit_test(test_change_words),
		cmocka_unit_test_teardown(test_planted_slowdown, temp_teardown),
		cmocka_unit_test_teardown(test_no_change_and_small_change, temp_teardown),
		cmocka_unit_test_teardown(test_faster_few_and_one_sided, temp_teardown),
		cmocka_unit_test_teardown(test_warmup, temp_teardown),
		cmocka_unit_test_teardown(test_seed_reproduces, temp_teardown),
		cmocka_unit_test_teardown(test_units, temp_teardown),
		cmocka_unit_test_teardown(test_command, temp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
