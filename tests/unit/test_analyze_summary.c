/* test_analyze_summary.c: the summary engine (analyze/engines/summary.c) and `gpuanalyze summary`, on
 * traces built through the writer API.
 *
 * Warm-up by position and not by value (the fastest launches first, still dropped), by start time
 * and not file order, after excluding bad timestamps, per file; kernels merged by name across
 * files whose string ids differ; --kernel on either name with the share taken of all kernels;
 * copies and memsets grouped by kind; durations beyond 32 bits; sorting; the command's output.
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
#include "analyze/engines/summary.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"

#define T0 1000000000ull

static char *paths[4];
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

/* A fresh trace file; the writer is returned open with the standard metadata written. */
static struct gt_writer *new_trace(const char **path)
{
	char *p = synth_temp_path("sum");
	assert_non_null(p);
	paths[npaths++] = p;
	struct gt_writer *w;
	assert_int_equal(synth_open(&w, p, 0), 0);
	*path = p;
	return w;
}

/* Kernel launches of one name, launch i starting at start0 + i * 100 us with duration d[i]. */
static void launches(struct gt_writer *w, const char *name, uint64_t start0, const uint64_t *d, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t s = start0 + (uint64_t)i * 100000;
		assert_int_equal(synth_kernel(w, name, s, s + d[i], 0), 0);
	}
}

static const struct gt_summary_row *find(const struct gt_summary *s, const char *name)
{
	for (size_t i = 0; i < s->nkernels; i++)
		if (strcmp(s->kernels[i].name, name) == 0)
			return &s->kernels[i];
	fail_msg("no kernel '%s' in the summary", name);
	return NULL;
}

static void summarize(struct gt_summary *s, uint64_t warmup, const struct gt_name_filter *filter,
                      int nfiles, const char **files)
{
	assert_int_equal(gt_summary_init(s, warmup), 0);
	for (int i = 0; i < nfiles; i++)
		assert_int_equal(gt_summary_add_trace(s, files[i]), 0);
	assert_int_equal(gt_summary_finish(s, filter), 0);
}

/* The first launches are the fastest here; warm-up must still drop them (by position), and the
 * statistics must be those of the later, slower launches. */
static void test_warmup_drops_first_launches_even_when_fastest(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	static const uint64_t d[] = { 100, 110, 120, 500, 510, 520, 530 };
	launches(w, "k", T0, d, 7);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 3, NULL, 1, &p);
	const struct gt_summary_row *r = find(&s, "k");
	assert_int_equal(r->st.n, 4);
	assert_int_equal(r->launches, 7);
	assert_int_equal(r->warmup_dropped, 3);
	assert_int_equal(s.warmup_dropped, 3);
	assert_true(r->st.min == 500 && r->st.max == 530 && r->st.median == 515);
	gt_summary_release(&s);
	/* Without warm-up, all seven. */
	summarize(&s, 0, NULL, 1, &p);
	r = find(&s, "k");
	assert_int_equal(r->st.n, 7);
	assert_true(r->st.min == 100 && r->st.median == 500);
	gt_summary_release(&s);
}

/* Records in the file in reverse start order: warm-up drops the earliest *starts* (9000 and 8000
 * ns, written last), not the first records (120 and 110). */
static void test_warmup_follows_start_time_not_file_order(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	static const uint64_t by_start[] = { 9000, 8000, 100, 110, 120 };
	for (int i = 4; i >= 0; i--) {
		uint64_t s = T0 + (uint64_t)i * 100000;
		assert_int_equal(synth_kernel(w, "k", s, s + by_start[i], 0), 0);
	}
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 2, NULL, 1, &p);
	const struct gt_summary_row *r = find(&s, "k");
	assert_int_equal(r->st.n, 3);
	assert_true(r->st.min == 100 && r->st.median == 110 && r->st.max == 120);
	gt_summary_release(&s);
}

/* Bad timestamps are excluded first and counted; they do not use up warm-up. The flagged record
 * here even has a plausible duration and the earliest start. */
static void test_bad_times_excluded_and_counted(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	assert_int_equal(synth_kernel(w, "k", T0 - 500000, T0 - 499000, GT_KERNEL_BAD_TIMES), 0);
	assert_int_equal(synth_kernel(w, "k", T0 + 900000, T0 + 800000, 0), 0); /* end < start */
	static const uint64_t d[] = { 7000, 1000, 1100, 1200 };
	launches(w, "k", T0, d, 4);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 1, NULL, 1, &p);
	assert_int_equal(s.kernels_bad, 2);
	const struct gt_summary_row *r = find(&s, "k");
	assert_int_equal(r->launches, 4);
	assert_int_equal(r->warmup_dropped, 1);
	assert_int_equal(r->st.n, 3);
	assert_true(r->st.max == 1200 && r->st.min == 1000); /* the 7000 was the warm-up */
	assert_int_equal(s.files[0].kernels, 6);
	gt_summary_release(&s);
}

/* Two files: kernels merged by name (their string ids differ), warm-up dropped in each file,
 * which files hold each kernel recorded. */
static void test_multiple_files(void **state)
{
	(void)state;
	const char *pa, *pb;
	struct gt_writer *w = new_trace(&pa);
	static const uint64_t a1[] = { 10, 20, 30 }, a2[] = { 5, 6 }, b1[] = { 40, 50, 60 };
	launches(w, "k1", T0, a1, 3);
	launches(w, "k2", T0 + 50000, a2, 2);
	assert_int_equal(gt_writer_close(w), 0);
	w = new_trace(&pb);
	assert_true(gt_writer_intern(w, "an unrelated string, so that k1's id differs") != 0);
	launches(w, "k1", T0, b1, 3);
	assert_int_equal(gt_writer_close(w), 0);
	const char *files[] = { pa, pb };
	struct gt_summary s;
	summarize(&s, 1, NULL, 2, files);
	assert_int_equal(s.nfiles, 2);
	assert_int_equal(s.nkernels, 2);
	const struct gt_summary_row *k1 = find(&s, "k1"), *k2 = find(&s, "k2");
	assert_int_equal(k1->st.n, 4); /* 20 30 50 60: 10 and 40 were each file's warm-up */
	assert_true(k1->st.min == 20 && k1->st.max == 60 && k1->st.median == 40);
	assert_int_equal(k1->warmup_dropped, 2);
	assert_string_equal(k1->files, "1,2");
	assert_int_equal(k2->st.n, 1);
	assert_string_equal(k2->files, "1");
	assert_int_equal(s.warmup_dropped, 3);
	assert_int_equal(s.files[0].kernels, 5);
	assert_int_equal(s.files[1].kernels, 3);
	assert_true(s.files[0].complete && s.files[0].synthetic);
	gt_summary_release(&s);
}

/* --kernel selects on the mangled or the demangled name; the share stays a share of all kernels. */
static void test_filter_and_share(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	static const uint64_t big[] = { 100, 100, 100 }, small[] = { 50, 50 };
	launches(w, "_Z9compositePK5SplatPfi", T0, big, 3);
	launches(w, "_Z6reducePKfPfi", T0 + 50000, small, 2);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_name_filter f = { 0 };
	char err[128];
	assert_int_equal(gt_name_filter_set(&f, "^reduce\\(", err, sizeof err), 0); /* demangled only */
	struct gt_summary s;
	summarize(&s, 0, &f, 1, &p);
	assert_int_equal(s.nkernels, 1);
	assert_int_equal(s.kernels_hidden, 1);
	assert_true(s.kernel_total_ns == 400);
	assert_string_equal(s.kernels[0].name, "_Z6reducePKfPfi");
	assert_true(s.kernels[0].share == 0.25);
	gt_summary_release(&s);
	assert_int_equal(gt_name_filter_set(&f, "9composite", err, sizeof err), 0); /* mangled only */
	summarize(&s, 0, &f, 1, &p);
	assert_int_equal(s.nkernels, 1);
	assert_string_equal(s.kernels[0].display, "composite(Splat const*, float*, int)");
	assert_true(s.kernels[0].share == 0.75);
	gt_summary_release(&s);
	gt_name_filter_release(&f);
}

/* Copies grouped by copy kind and both memory kinds, memsets by memory kind; bytes summed; a copy
 * with end < start excluded and counted; warm-up does not touch them. */
static void test_copies_and_memsets(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	assert_int_equal(synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PAGEABLE, GT_MEM_DEVICE, 100, T0, T0 + 10), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PAGEABLE, GT_MEM_DEVICE, 200, T0 + 100, T0 + 130), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_HTOD, GT_MEM_PINNED, GT_MEM_DEVICE, 400, T0 + 200, T0 + 205), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 800, T0 + 300, T0 + 340), 0);
	assert_int_equal(synth_memcpy(w, GT_COPY_DTOH, GT_MEM_DEVICE, GT_MEM_PINNED, 800, T0 + 500, T0 + 400), 0);
	assert_int_equal(synth_memset(w, GT_MEM_DEVICE, 10, T0, T0 + 3), 0);
	assert_int_equal(synth_memset(w, GT_MEM_DEVICE, 10, T0 + 10, T0 + 15), 0);
	assert_int_equal(synth_memset(w, GT_MEM_MANAGED, 10, T0 + 20, T0 + 22), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 5, NULL, 1, &p);
	gt_summary_sort(&s, GT_SORT_NAME);
	assert_int_equal(s.ncopies, 3);
	assert_int_equal(s.copies_bad, 1);
	assert_string_equal(s.copies[0].name, "DtoH device->pinned");
	assert_string_equal(s.copies[1].name, "HtoD pageable->device");
	assert_string_equal(s.copies[2].name, "HtoD pinned->device");
	assert_int_equal(s.copies[1].st.n, 2);
	assert_int_equal(s.copies[1].bytes, 300);
	assert_true(s.copies[1].st.median == 20 && s.copies[1].st.total == 40);
	assert_int_equal(s.copies[1].copy_kind, GT_COPY_HTOD);
	assert_int_equal(s.copies[1].src_kind, GT_MEM_PAGEABLE);
	assert_true(fabs(s.copies[0].share - 40.0 / 85.0) < 1e-15);
	assert_int_equal(s.nmemsets, 2);
	assert_string_equal(s.memsets[0].name, "device");
	assert_int_equal(s.memsets[0].st.n, 2);
	assert_string_equal(s.memsets[1].name, "managed");
	assert_int_equal(s.nkernels, 0);
	gt_summary_release(&s);
}

/* A kernel longer than 2^32 ns (4.3 s) moves its durations to 64 bits without losing any. */
static void test_long_durations(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	for (int i = 0; i < 100; i++)
		assert_int_equal(synth_kernel(w, "k", T0 + (uint64_t)i * 10000000000ull,
		                              T0 + (uint64_t)i * 10000000000ull + 1000 + (uint64_t)i, 0),
		                 0);
	assert_int_equal(synth_kernel(w, "k", T0 + 2000000000000ull, T0 + 2000000000000ull + 5000000000ull, 0), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 0, NULL, 1, &p);
	const struct gt_summary_row *r = find(&s, "k");
	assert_int_equal(r->st.n, 101);
	assert_true(r->st.max == 5e9 && r->st.min == 1000);
	assert_true(r->st.total == 5e9 + 100 * 1000 + 4950);
	assert_true(r->st.median == 1050);
	gt_summary_release(&s);
}

/* A kernel whose launches were all warm-up still has its row, with n = 0 and no statistics; a
 * kernel with no name (string id 0) is "(unnamed)". */
static void test_all_warmup_and_unnamed(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	static const uint64_t d[] = { 10, 20 };
	launches(w, "few", T0, d, 2);
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = T0;
	k.end = T0 + 77;
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 2, NULL, 1, &p);
	const struct gt_summary_row *r = find(&s, "few");
	assert_int_equal(r->st.n, 0);
	assert_true(isnan(r->st.median) && r->st.total == 0);
	r = find(&s, "");
	assert_string_equal(r->display, "(unnamed)");
	gt_summary_release(&s);
}

static void test_sort_orders(void **state)
{
	(void)state;
	const char *p;
	struct gt_writer *w = new_trace(&p);
	static const uint64_t a[] = { 10, 10, 10, 10 }, b[] = { 100 }, c[] = { 30, 30 };
	launches(w, "a", T0, a, 4);      /* total 40, median 10, count 4 */
	launches(w, "b", T0 + 1000, b, 1); /* total 100, median 100, count 1 */
	launches(w, "c", T0 + 2000, c, 2); /* total 60, median 30, count 2 */
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_summary s;
	summarize(&s, 0, NULL, 1, &p);
	const char *want[4][3] = { { "b", "c", "a" }, { "b", "c", "a" }, { "a", "c", "b" }, { "a", "b", "c" } };
	for (int key = GT_SORT_TOTAL; key <= GT_SORT_NAME; key++) {
		gt_summary_sort(&s, (enum gt_summary_sort)key);
		for (int i = 0; i < 3; i++)
			assert_string_equal(s.kernels[i].name, want[key][i]);
	}
	gt_summary_release(&s);
}

/* The command end to end: CSV with both names, in ns; text with the notes a reader needs. */
static void test_command_output(void **state)
{
	(void)state;
	char *fx = synth_temp_path("fx"), *out = synth_temp_path("out");
	assert_non_null(fx);
	assert_non_null(out);
	paths[npaths++] = fx;
	paths[npaths++] = out;
	assert_int_equal(synth_fixture_small(fx), 0);
	char *a1[] = { "summary", "--warmup", "3", "--format", "csv", "-o", out, fx, NULL };
	assert_int_equal(cmd_summary(8, a1), 0);
	char *csv = synth_read_file(out, NULL);
	assert_non_null(csv);
	assert_true(strncmp(csv, "kind,launches,warmup_dropped,total_ns,share,median_ns,mad_ns,", 61) == 0);
	assert_non_null(strstr(csv, "\nkernel,5,3,25200.0,"));
	assert_non_null(strstr(csv, ",_Z9compositePK5SplatPfi,\"composite(Splat const*, float*, int)\"\n"));
	assert_non_null(strstr(csv, "\nmemcpy,3,0,285000.0,"));
	free(csv);
	char *a2[] = { "summary", "--warmup", "3", "--top", "1", "-o", out, fx, NULL };
	assert_int_equal(cmd_summary(8, a2), 0);
	char *text = synth_read_file(out, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\nGPU kernel durations (end - start, CUPTI activity timestamps), per launch\n"));
	assert_non_null(strstr(text, "\nwarm-up: first 3 launches of each kernel dropped (11 in all);"));
	assert_non_null(strstr(text, "\nexcluded: 2 kernel launches with bad timestamps (GT_KERNEL_BAD_TIMES or end < start)\n"));
	assert_non_null(strstr(text, "is SYNTHETIC"));
	assert_non_null(strstr(text, "kernels: 1 of 4 shown (--top), sorted by total\n"));
	assert_non_null(strstr(text, "  composite(Splat const*, float*, int)\n"));
	assert_null(strstr(text, "reduce("));
	free(text);
}

/* A truncated trace is summarized with a warning; a damaged one is an input error (2). */
static void test_command_truncated_and_damaged(void **state)
{
	(void)state;
	char *fx = synth_temp_path("tr"), *out = synth_temp_path("out"), *bad = synth_temp_path("bad");
	paths[npaths++] = fx;
	paths[npaths++] = out;
	paths[npaths++] = bad;
	assert_int_equal(synth_fixture_truncated(fx), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *d = open_memstream(&buf, &len);
	gt_diag_set_stream(d);
	char *a1[] = { "summary", "-o", out, fx, NULL };
	assert_int_equal(cmd_summary(4, a1), 0);
	FILE *f = fopen(bad, "w");
	assert_non_null(f);
	fputs("Not a trace: just a text file, long enough for a file header.\n", f);
	fclose(f);
	char *a2[] = { "summary", "-o", out, fx, bad, NULL };
	assert_int_equal(cmd_summary(5, a2), GT_EXIT_USAGE);
	fclose(d);
	gt_diag_set_stream(NULL);
	char want[1024];
	snprintf(want, sizeof want,
	         "gpuanalyze: warning: %s ends early: 39 bytes of an incomplete chunk lost; the recording "
	         "process did not close the trace\n",
	         fx);
	assert_true(strncmp(buf, want, strlen(want)) == 0);
	snprintf(want, sizeof want, "gpuanalyze: cannot open trace '%s': not a gputrace file", bad);
	assert_non_null(strstr(buf, want));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_warmup_drops_first_launches_even_when_fastest, teardown),
		cmocka_unit_test_teardown(test_warmup_follows_start_time_not_file_order, teardown),
		cmocka_unit_test_teardown(test_bad_times_excluded_and_counted, teardown),
		cmocka_unit_test_teardown(test_multiple_files, teardown),
		cmocka_unit_test_teardown(test_filter_and_share, teardown),
		cmocka_unit_test_teardown(test_copies_and_memsets, teardown),
		cmocka_unit_test_teardown(test_long_durations, teardown),
		cmocka_unit_test_teardown(test_all_warmup_and_unnamed, teardown),
		cmocka_unit_test_teardown(test_sort_orders, teardown),
		cmocka_unit_test_teardown(test_command_output, teardown),
		cmocka_unit_test_teardown(test_command_truncated_and_damaged, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
