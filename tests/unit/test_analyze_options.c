/* test_analyze_options.c: the shared command-line pieces: option parsing and its errors, the
 * synopsis it generates, --kernel's two-name match, demangling, the one voice of diagnostics (what
 * engines hold included), and
 * the exit statuses of usage errors (2, never 1). Percentages carry their unit: "5%" is 0.05, and a
 * bare number is refused with a line that says how to write it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/commands/commands.h"
#include "analyze/support/demangle.h"
#include "analyze/support/diag.h"
#include "analyze/support/filter.h"
#include "analyze/support/options.h"

static uint64_t warmup, top;
static double threshold;
static int sort_idx, flag;
static enum gt_format fmt;
static const char *out_path;
static struct gt_name_filter filter;
static const char *const sorts[] = { "total", "median", "name", NULL };

static const struct gt_option opts[] = {
	GT_OPT_WARMUP(&warmup),
	GT_OPT_KERNEL(&filter),
	{ .kind = GT_OPT_CHOICE, .long_name = "sort", .choices = sorts, .value = &sort_idx, .help = "order" },
	GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_JSON),
	{ .kind = GT_OPT_UINT, .long_name = "top", .arg = "N", .value = &top, .help = "first N" },
	{ .kind = GT_OPT_FLAG, .long_name = "quiet", .value = &flag, .help = "say less" },
	{ .kind = GT_OPT_PERCENT, .long_name = "threshold", .arg = "PCT%", .value = &threshold, .help = "limit" },
	GT_OPT_OUTPUT(&out_path),
	GT_OPT_END_OF_LIST,
};
static const struct gt_usage usage = { .name = "test", .operands = "FILE...", .min_operands = 1,
                                       .max_operands = 3, .description = "A test command.", .options = opts };

/* Diagnostics captured for the duration of one test. */
static char *diag_buf;
static size_t diag_len;
static FILE *diag_f;

static int setup(void **state)
{
	(void)state;
	warmup = top = 0;
	threshold = -1;
	sort_idx = flag = 0;
	fmt = GT_FMT_TEXT;
	out_path = NULL;
	memset(&filter, 0, sizeof filter);
	diag_f = open_memstream(&diag_buf, &diag_len);
	gt_diag_set_stream(diag_f);
	return diag_f ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	gt_diag_set_stream(NULL);
	fclose(diag_f);
	free(diag_buf);
	diag_buf = NULL;
	gt_name_filter_release(&filter);
	return 0;
}

static const char *diag_text(void)
{
	fflush(diag_f);
	return diag_buf ? diag_buf : "";
}

/* Parses a NULL-terminated list of arguments (copied: the parser moves operands in place). */
static int parse(char **ops_out, int *nops, int *status, ...)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = "test";
	va_list ap;
	va_start(ap, status);
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	char **ops;
	int go = gt_options_parse(&usage, argc, argv, &ops, nops, status);
	if (go)
		for (int i = 0; i < *nops; i++)
			ops_out[i] = ops[i];
	return go;
}

static void test_every_spelling(void **state)
{
	(void)state;
	char *ops[8];
	int n, status;
	assert_true(parse(ops, &n, &status, "a.gtrace", "--warmup", "3", "--top=7", "-oout.txt",
	                  "--sort", "name", "b.gtrace", "--format=json", "--kernel", "comp|red",
	                  "--quiet", "--", "--c.gtrace", NULL));
	assert_int_equal(n, 3);
	assert_string_equal(ops[0], "a.gtrace");
	assert_string_equal(ops[1], "b.gtrace");
	assert_string_equal(ops[2], "--c.gtrace"); /* after "--", an operand */
	assert_int_equal(warmup, 3);
	assert_int_equal(top, 7);
	assert_string_equal(out_path, "out.txt");
	assert_int_equal(sort_idx, 2);
	assert_int_equal(fmt, GT_FMT_JSON);
	assert_int_equal(flag, 1);
	assert_true(filter.active);
	assert_string_equal(diag_text(), "");
	/* -o FILE as two words, and the long forms of the short ones. */
	assert_true(parse(ops, &n, &status, "-o", "x", "f", NULL));
	assert_string_equal(out_path, "x");
	assert_true(parse(ops, &n, &status, "--output=y", "-f", "text", "f", NULL));
	assert_string_equal(out_path, "y");
	assert_int_equal(fmt, GT_FMT_TEXT);
	assert_true(parse(ops, &n, &status, "--output", "z", "-fjson", "f", NULL));
	assert_string_equal(out_path, "z");
	assert_int_equal(fmt, GT_FMT_JSON);
	/* Percentages: the fraction of what is written with its unit. */
	assert_true(parse(ops, &n, &status, "--threshold", "5%", "f", NULL));
	assert_true(threshold == 0.05);
	assert_true(parse(ops, &n, &status, "--threshold=2.5%", "f", NULL));
	assert_true(threshold == 0.025);
	assert_true(parse(ops, &n, &status, "--threshold", "0%", "f", NULL));
	assert_true(threshold == 0);
	assert_true(parse(ops, &n, &status, "--threshold", "1000%", "f", NULL));
	assert_true(threshold == 10);
	assert_string_equal(diag_text(), "");
}

/* Every usage error: status 2, one line in the analyzer's voice naming the command and the help. */
static void expect_usage_error(const char *line, ...)
{
	char *argv[16];
	int argc = 0;
	argv[argc++] = "test";
	va_list ap;
	va_start(ap, line);
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	char **ops;
	int n, status = -1;
	/* A fresh capture for each case. */
	fclose(diag_f);
	free(diag_buf);
	diag_buf = NULL;
	diag_f = open_memstream(&diag_buf, &diag_len);
	assert_non_null(diag_f);
	gt_diag_set_stream(diag_f);
	assert_int_equal(gt_options_parse(&usage, argc, argv, &ops, &n, &status), 0);
	assert_int_equal(status, GT_EXIT_USAGE);
	assert_string_equal(diag_text(), line);
}

static void test_usage_errors(void **state)
{
	(void)state;
	expect_usage_error("gpuanalyze: test: unknown option '--frobnicate' (see 'gpuanalyze test --help')\n",
	                   "--frobnicate", "a", NULL);
	expect_usage_error("gpuanalyze: test: unknown option '-x' (see 'gpuanalyze test --help')\n", "-x", NULL);
	expect_usage_error("gpuanalyze: test: option '--warmup' needs a value (N) (see 'gpuanalyze test --help')\n",
	                   "a", "--warmup", NULL);
	expect_usage_error("gpuanalyze: test: option '--warmup' wants a non-negative integer, not '-1' (see "
	                   "'gpuanalyze test --help')\n",
	                   "--warmup", "-1", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--top' wants a non-negative integer, not '3x' (see "
	                   "'gpuanalyze test --help')\n",
	                   "--top=3x", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--top' wants a non-negative integer, not "
	                   "'99999999999999999999' (see 'gpuanalyze test --help')\n",
	                   "--top", "99999999999999999999", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--format' wants one of text|json, not 'csv' (see "
	                   "'gpuanalyze test --help')\n",
	                   "--format", "csv", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--sort' wants one of total|median|name, not 'size' (see "
	                   "'gpuanalyze test --help')\n",
	                   "--sort=size", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--quiet' takes no value (see 'gpuanalyze test --help')\n",
	                   "--quiet=yes", "a", NULL);
	/* A bare number could be a fraction or percent: refused, with the way to write each. */
	expect_usage_error("gpuanalyze: test: option '--threshold' wants its unit: '5%' if '0.05' is a fraction, "
	                   "'0.05%' if it is in percent (see 'gpuanalyze test --help')\n",
	                   "--threshold", "0.05", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--threshold' wants its unit: '5%' for 5 percent (see "
	                   "'gpuanalyze test --help')\n",
	                   "--threshold=5", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--threshold' wants a percentage such as 5% (0 to 1000), "
	                   "not '5 %' (see 'gpuanalyze test --help')\n",
	                   "--threshold", "5 %", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--threshold' wants a percentage such as 5% (0 to 1000), "
	                   "not '1001%' (see 'gpuanalyze test --help')\n",
	                   "--threshold", "1001%", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--threshold' wants a percentage such as 5% (0 to 1000), "
	                   "not '-1%' (see 'gpuanalyze test --help')\n",
	                   "--threshold", "-1%", "a", NULL);
	expect_usage_error("gpuanalyze: test: option '--threshold' wants a percentage such as 5% (0 to 1000), "
	                   "not 'nan%' (see 'gpuanalyze test --help')\n",
	                   "--threshold", "nan%", "a", NULL);
	expect_usage_error("gpuanalyze: test: missing operand FILE... (see 'gpuanalyze test --help')\n",
	                   "--warmup", "2", NULL);
	expect_usage_error("gpuanalyze: test: too many operands (wants FILE...) (see 'gpuanalyze test --help')\n",
	                   "a", "b", "c", "d", NULL);
}

/* A regular expression that does not compile: regerror's reason is in the one line. */
static void test_bad_regex(void **state)
{
	(void)state;
	char *argv[] = { "test", "--kernel", "(unclosed", "a", NULL };
	char **ops;
	int n, status;
	assert_int_equal(gt_options_parse(&usage, 4, argv, &ops, &n, &status), 0);
	assert_int_equal(status, GT_EXIT_USAGE);
	const char *d = diag_text();
	assert_non_null(strstr(d, "gpuanalyze: test: option '--kernel': bad regular expression '(unclosed': "));
	assert_int_equal(strchr(d, '\n') - d + 1, (long)strlen(d)); /* one line */
}

/* --help: status 0, the synopsis first, on standard output. */
static void test_help(void **state)
{
	(void)state;
	char syn[512];
	assert_string_equal(gt_options_synopsis(&usage, syn, sizeof syn),
	                    "gpuanalyze test [--warmup N] [--kernel REGEX] [--sort total|median|name] "
	                    "[--format text|json] [--top N] [--quiet] [--threshold PCT%] [--output FILE] FILE...");
	char *argv[] = { "test", "a", "--help", NULL };
	char **ops;
	int n, status = -1;
	fflush(stdout);
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && devnull >= 0);
	dup2(devnull, 1);
	int go = gt_options_parse(&usage, 3, argv, &ops, &n, &status);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(devnull);
	assert_int_equal(go, 0);
	assert_int_equal(status, 0);
	assert_string_equal(diag_text(), "");
	/* The help text itself. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gt_options_help(&usage, f);
	fclose(f);
	assert_true(strncmp(buf, "usage: gpuanalyze test [--warmup N]", 35) == 0);
	assert_non_null(strstr(buf, "\n  -f, --format text|json       output format\n"));
	assert_non_null(strstr(buf, "\n  -o, --output FILE            write to FILE"));
	assert_non_null(strstr(buf, "\n  -h, --help"));
	free(buf);
}

/* --kernel matches the mangled or the demangled name, unanchored, extended syntax. */
static void test_filter(void **state)
{
	(void)state;
	struct gt_name_filter f = { 0 };
	assert_int_equal(gt_name_filter_match(&f, "anything", NULL), 1); /* inactive: everything */
	char err[128];
	assert_int_equal(gt_name_filter_set(&f, "^composite\\(|reduce", err, sizeof err), 0);
	assert_int_equal(gt_name_filter_match(&f, "_Z9compositePK5SplatPfi", "composite(Splat const*, float*, int)"), 1);
	assert_int_equal(gt_name_filter_match(&f, "_Z9compositePK5SplatPfi", NULL), 0);
	assert_int_equal(gt_name_filter_match(&f, "_Z6reducePKfPfi", "reduce(float const*, float*, int)"), 1);
	assert_int_equal(gt_name_filter_match(&f, "histogram_kernel", "histogram_kernel"), 0);
	assert_int_equal(gt_name_filter_set(&f, "_Z9", err, sizeof err), 0); /* replaces */
	assert_int_equal(gt_name_filter_match(&f, "_Z9compositePK5SplatPfi", "x"), 1);
	assert_int_equal(gt_name_filter_set(&f, "a{", err, sizeof err) < 0, 1);
	assert_true(f.active); /* a bad pattern leaves the previous one */
	gt_name_filter_release(&f);
	assert_false(f.active);
}

static void test_demangle(void **state)
{
	(void)state;
	char *d = gt_demangle("histogram_kernel");
	assert_string_equal(d, "histogram_kernel");
	free(d);
	d = gt_demangle("_Znotvalid(((");
	assert_string_equal(d, "_Znotvalid(((");
	free(d);
	if (!gt_demangle_available()) {
		skip();
		return;
	}
	d = gt_demangle("_Z9compositePK5SplatPfi");
	assert_string_equal(d, "composite(Splat const*, float*, int)");
	free(d);
	d = gt_demangle("_Z5applyIN6thrust4plusIiEEEvT_");
	assert_string_equal(d, "void apply<thrust::plus<int> >(thrust::plus<int>)");
	free(d);
}

/* The error helper's voice, and that it returns the usage/input status. */
static void test_diag_voice(void **state)
{
	(void)state;
	assert_int_equal(gt_error("cannot open trace '%s': %s", "x.gtrace", "not a gputrace file"), 2);
	gt_warn("%s ends early", "y.gtrace");
	assert_string_equal(diag_text(), "gpuanalyze: cannot open trace 'x.gtrace': not a gputrace file\n"
	                                 "gpuanalyze: warning: y.gtrace ends early\n");
}

/* What an engine holds (failure.h) is said by the command layer in the same voice, escaped when it
 * was held, before the command's own next message and in the order it was held; a pass's messages
 * can be forgotten back to a mark. */
static void test_held_failure(void **state)
{
	(void)state;
	assert_false(gt_failed());
	gt_fail_warn("%s ends early", "a.gtrace");
	assert_false(gt_failed());
	size_t mark = gt_fail_mark();
	gt_fail_warn("forgotten");
	assert_int_equal(gt_fail(GT_ERR_ARG, "forgotten too"), GT_ERR_ARG);
	assert_true(gt_failed());
	gt_fail_forget(mark);
	assert_false(gt_failed());
	char evil[] = "b\033[31m\n.gtrace";
	assert_int_equal(gt_fail(GT_ERR_IO, "cannot open trace '%s': %s", evil, "gone"), GT_ERR_IO);
	assert_true(gt_failed());
	gt_fail_warn("after the failure");
	assert_string_equal(diag_text(), ""); /* held, not said */
	gt_warn("the command's own");
	assert_false(gt_failed());
	const char *d = diag_text();
	assert_string_equal(d, "gpuanalyze: warning: a.gtrace ends early\n"
	                       "gpuanalyze: cannot open trace 'b\\x1b[31m\\n.gtrace': gone\n"
	                       "gpuanalyze: warning: after the failure\n"
	                       "gpuanalyze: warning: the command's own\n");
	gt_diag_flush(); /* nothing held: nothing said */
	assert_string_equal(diag_text(), d);
}

/* A command whose run ends in an error code: the runner makes every code an exit status of 2,
 * with the engine's held words when there were any, though they were said on the way (a warning
 * of the command's own flushed them), and with the code's words when there were none. */
static int run_code; /* what fake_run returns */
static int fake_hold;  /* whether it holds a failure first */
static int fake_run(const struct gt_cmd_call *call)
{
	(void)call;
	if (fake_hold) {
		gt_fail(GT_ERR_ARG, "cannot read trace 'x.gtrace': bad");
		gt_warn("the command's own warning"); /* says the held failure now */
	}
	return run_code;
}
static const struct gt_command fake = { "fake", "a test command", "", 0, 0, "A test command.", NULL,
                                        NULL, fake_run };

static void test_runner_error_codes(void **state)
{
	(void)state;
	char *argv[] = { "fake", NULL };
	fake_hold = 1, run_code = GT_ERR_ARG;
	assert_int_equal(gt_command_run(&fake, 1, argv), GT_EXIT_USAGE);
	assert_string_equal(diag_text(), "gpuanalyze: cannot read trace 'x.gtrace': bad\n"
	                                 "gpuanalyze: warning: the command's own warning\n");
	fake_hold = 1, run_code = GT_EXIT_OK; /* a held failure is a failure, whatever run says */
	assert_int_equal(gt_command_run(&fake, 1, argv), GT_EXIT_USAGE);
	fake_hold = 0, run_code = GT_ERR_IO;
	size_t before = strlen(diag_text());
	assert_int_equal(gt_command_run(&fake, 1, argv), GT_EXIT_USAGE);
	assert_string_equal(diag_text() + before, "gpuanalyze: fake: input/output error\n");
	fake_hold = 0, run_code = GT_EXIT_OK;
	before = strlen(diag_text());
	assert_int_equal(gt_command_run(&fake, 1, argv), GT_EXIT_OK);
	assert_string_equal(diag_text() + before, "");
}

/* Subcommands report usage errors with status 2 and print nothing on standard output. */
static void test_commands_usage_status(void **state)
{
	(void)state;
	char *a1[] = { "summary", "--warmup", "x", "f.gtrace", NULL };
	assert_int_equal(cmd_summary(4, a1), GT_EXIT_USAGE);
	char *a2[] = { "info", NULL };
	assert_int_equal(cmd_info(1, a2), GT_EXIT_USAGE);
	char *a3[] = { "dump", "--format", "md", "f.gtrace", NULL };
	assert_int_equal(cmd_dump(4, a3), GT_EXIT_USAGE);
	char *a4[] = { "summary", "/nonexistent/x.gtrace", NULL };
	assert_int_equal(cmd_summary(2, a4), GT_EXIT_USAGE);
	const char *d = diag_text();
	assert_non_null(strstr(d, "gpuanalyze: summary: option '--warmup' wants a non-negative integer, not 'x'"));
	assert_non_null(strstr(d, "gpuanalyze: info: missing operand FILE..."));
	assert_non_null(strstr(d, "gpuanalyze: dump: option '--format' wants one of json|csv|jsonl, not 'md'"));
	assert_non_null(strstr(d, "gpuanalyze: cannot open trace '/nonexistent/x.gtrace': "));
}

/* Times with their unit, exactly in ns; no unit, a sign, a fraction finer than 1 ns, overflow: refused. */
static void test_parse_time(void **state)
{
	(void)state;
	uint64_t ns = 0;
	assert_int_equal(gt_parse_time_ns("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000ull);
	assert_int_equal(gt_parse_time_ns("200ms", &ns), 0);
	assert_int_equal(ns, 200000000ull);
	assert_int_equal(gt_parse_time_ns("350us", &ns), 0);
	assert_int_equal(ns, 350000ull);
	assert_int_equal(gt_parse_time_ns("0.001us", &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(gt_parse_time_ns("20ns", &ns), 0);
	assert_int_equal(ns, 20);
	assert_int_equal(gt_parse_time_ns(".25s", &ns), 0);
	assert_int_equal(ns, 250000000ull);
	assert_int_equal(gt_parse_time_ns("0s", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(gt_parse_time_ns("18446744073.709551615s", &ns), 0);
	assert_true(ns == UINT64_MAX);
	const char *bad[] = { "2", "", "s", ".s", "-1ms", "+1ms", "1.5", "1 s", "1sec", "0.5ns", "1.0001us",
		              "18446744073.709551616s", "99999999999999999999ns", "1e3ms", "1.5ms ", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(gt_parse_time_ns(bad[i], &ns), -1);
}

/* A number at the start of a string: what follows is left to the caller; no number, a NULL, or
 * one out of double's range is refused. */
static void test_parse_number(void **state)
{
	(void)state;
	double v = 0;
	const char *rest = NULL;
	assert_int_equal(gt_parse_number("1.5", &v, &rest), 0);
	assert_true(v == 1.5 && *rest == '\0');
	assert_int_equal(gt_parse_number("2.5%", &v, &rest), 0);
	assert_true(v == 2.5 && strcmp(rest, "%") == 0);
	assert_int_equal(gt_parse_number("-3e2x", &v, &rest), 0);
	assert_true(v == -300 && strcmp(rest, "x") == 0);
	const char *bad[] = { "", "%", "abc", " ", "1e999", "-1e999", NULL };
	for (int i = 0; bad[i]; i++)
		assert_int_equal(gt_parse_number(bad[i], &v, &rest), -1);
	assert_int_equal(gt_parse_number(NULL, &v, &rest), -1);
}

/* Operand groups (diff's BASE... -- NEW...): where the first "--" fell among the operands. */
static void test_dashdash_groups(void **state)
{
	(void)state;
	char *a1[] = { "test", "-o", "x", "a", "b", "--", "c", NULL };
	char **ops;
	int n, status, at;
	assert_int_equal(gt_options_parse_groups(&usage, 7, a1, &ops, &n, &status, &at), 1);
	assert_int_equal(n, 3);
	assert_int_equal(at, 2);
	assert_string_equal(ops[2], "c");
	char *a2[] = { "test", "a", "b", NULL };
	assert_int_equal(gt_options_parse_groups(&usage, 3, a2, &ops, &n, &status, &at), 1);
	assert_int_equal(at, -1);
	char *a3[] = { "test", "--", "a", "--", NULL }; /* a leading "--"; a second is an operand */
	assert_int_equal(gt_options_parse_groups(&usage, 4, a3, &ops, &n, &status, &at), 1);
	assert_int_equal(at, 0);
	assert_int_equal(n, 2);
	assert_string_equal(ops[1], "--");
	assert_string_equal(diag_text(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_spelling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_regex, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_demangle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diag_voice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runner_error_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_usage_status, setup, teardown),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_parse_number),
		cmocka_unit_test_setup_teardown(test_dashdash_groups, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
