/* test_common_cli.c: the command-line library both tools share (common/cli.h): grouped flags and a
 * value at the end of a group, long-name aliases, options that stop at a program's operands (which
 * stay as given, NULL-ended for exec), callback options in command-line order and their errors,
 * -V/--version and -h/--help in every usage, the one wording of usage errors, the help's option
 * lines (a help of several lines indented under its first), and running a child (its exit status,
 * 127 with one line for a program that cannot be run, the timeout).
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
#include <sys/wait.h>
#include <unistd.h>

#include "common/cli.h"

/* What the tool said: its usage errors, one line each. */
static char said[4096];

static void say(const char *text)
{
	size_t n = strlen(said);
	snprintf(said + n, sizeof said - n, "test: %s\n", text);
}

static const struct gt_cli_tool tool = { .name = "test", .version = "test 1.2.3", .say = say };

static int quiet, force;
static const char *out;
static char calls[256];

static int record_call(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	if (strcmp(value, "bad") == 0) {
		snprintf(err, errlen, "wants something good, not '%s'", value);
		return 1;
	}
	size_t n = strlen(calls);
	snprintf(calls + n, sizeof calls - n, "%s=%s;", (const char *)o->data, value);
	return 0;
}

static const struct gt_option opts[] = {
	{ .kind = GT_OPT_FLAG, .short_name = 'q', .long_name = "quiet", .value = &quiet, .help = "say less" },
	{ .kind = GT_OPT_FLAG, .long_name = "force", .value = &force, .help = "replace" },
	{ .kind = GT_OPT_STRING, .short_name = 'o', .long_name = "output", .arg = "FILE", .value = &out,
	  .help = "where to write,\nline two of the help" },
	{ .kind = GT_OPT_CALL, .short_name = 'k', .long_name = "kernel", .alias = "kernels", .arg = "REGEX",
	  .call = record_call, .data = "K", .help = "filter by name" },
	GT_OPT_END_OF_LIST,
};

static const struct gt_usage run_usage = { .tool = &tool, .name = "run", .operands = "PROGRAM [ARGS...]",
	                                   .min_operands = 1, .max_operands = -1, .options = opts,
	                                   .stop_at_operand = 1, .epilogue = "Exit status: 0.\n" };
static const struct gt_usage list_usage = { .tool = &tool, .name = "list", .operands = "FILE...",
	                                    .min_operands = 0, .max_operands = -1, .options = opts };

static int setup(void **state)
{
	(void)state;
	said[0] = calls[0] = '\0';
	quiet = force = 0;
	out = NULL;
	return 0;
}

/* Parses the NULL-ended arguments (argv[0] is the usage's name) with stdout sent to /dev/null. */
static int parse(const struct gt_usage *u, char **argv, char ***ops, int *nops, int *status)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	fflush(stdout);
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && devnull >= 0);
	dup2(devnull, 1);
	int go = gt_cli_parse(u, argc, argv, ops, nops, status, NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(devnull);
	return go;
}

static void test_grouped_and_alias(void **state)
{
	(void)state;
	char *argv[] = { "list", "-qkA", "a", "--kernels", "B", "-qo", "x.out", "--kernel=C", "b", NULL };
	char **ops;
	int n, status;
	assert_int_equal(parse(&list_usage, argv, &ops, &n, &status), 1);
	assert_int_equal(quiet, 1);
	assert_string_equal(out, "x.out");
	assert_string_equal(calls, "K=A;K=B;K=C;"); /* in command-line order, alias included */
	assert_int_equal(n, 2);
	assert_string_equal(ops[0], "a");
	assert_string_equal(ops[1], "b");
	assert_string_equal(said, "");
}

/* The options end at the program: its own options stay as given, and the operands end in NULL. */
static void test_stop_at_operand(void **state)
{
	(void)state;
	char *argv[] = { "run", "-q", "prog", "-q", "--force", "--", "x", NULL };
	char **ops;
	int n, status;
	assert_int_equal(parse(&run_usage, argv, &ops, &n, &status), 1);
	assert_int_equal(quiet, 1);
	assert_int_equal(force, 0);
	assert_int_equal(n, 5);
	assert_string_equal(ops[0], "prog");
	assert_string_equal(ops[1], "-q");
	assert_string_equal(ops[2], "--force");
	assert_string_equal(ops[3], "--");
	assert_null(ops[5]);
	char *dd[] = { "run", "--force", "--", "-q", NULL };
	setup(NULL);
	assert_int_equal(parse(&run_usage, dd, &ops, &n, &status), 1);
	assert_int_equal(force, 1);
	assert_int_equal(quiet, 0);
	assert_int_equal(n, 1);
	assert_string_equal(ops[0], "-q");
}

static void test_help_and_version_stop(void **state)
{
	(void)state;
	const char *stops[] = { "-h", "--help", "-V", "--version", "-qV" };
	for (size_t i = 0; i < sizeof stops / sizeof *stops; i++) {
		char *argv[] = { "run", (char *)stops[i], "prog", NULL };
		char **ops;
		int n, status = -1;
		assert_int_equal(parse(&run_usage, argv, &ops, &n, &status), 0);
		assert_int_equal(status, 0);
	}
	assert_string_equal(said, "");
	/* After the program, they are the program's. */
	char *argv[] = { "run", "prog", "--version", NULL };
	char **ops;
	int n, status;
	assert_int_equal(parse(&run_usage, argv, &ops, &n, &status), 1);
	assert_string_equal(ops[1], "--version");
}

static void expect_error(const struct gt_usage *u, const char *line, char **argv)
{
	setup(NULL);
	char **ops;
	int n, status = -1;
	assert_int_equal(parse(u, argv, &ops, &n, &status), 0);
	assert_int_equal(status, GT_CLI_USAGE);
	assert_string_equal(said, line);
}

static void test_usage_errors(void **state)
{
	(void)state;
	expect_error(&run_usage, "test: run: unknown option '-x' (see 'test run --help')\n",
	             (char *[]){ "run", "-qx", "prog", NULL });
	expect_error(&run_usage, "test: run: unknown option '--nope' (see 'test run --help')\n",
	             (char *[]){ "run", "--nope=1", "prog", NULL });
	expect_error(&run_usage, "test: run: option '--force' takes no value (see 'test run --help')\n",
	             (char *[]){ "run", "--force=yes", "prog", NULL });
	expect_error(&run_usage, "test: run: option '--output' needs a value (FILE) (see 'test run --help')\n",
	             (char *[]){ "run", "-o", NULL });
	expect_error(&run_usage, "test: run: missing operand PROGRAM [ARGS...] (see 'test run --help')\n",
	             (char *[]){ "run", "-q", "--", NULL });
	expect_error(&run_usage, "test: run: option '--kernel' wants something good, not 'bad' (see 'test run "
	             "--help')\n",
	             (char *[]){ "run", "-kbad", "prog", NULL });
	said[0] = '\0';
	assert_int_equal(gt_cli_usage_error(&tool, NULL, "unknown command '%s'", "zap"), GT_CLI_USAGE);
	assert_string_equal(said, "test: unknown command 'zap' (see 'test --help')\n");
}

static void test_help_text(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	gt_cli_help(&run_usage, f);
	fclose(f);
	assert_true(strncmp(buf, "usage: test run [--quiet] [--force] [--output FILE] [--kernel REGEX] "
	                         "PROGRAM [ARGS...]\n\n", 77) == 0);
	assert_non_null(strstr(buf, "\n  -o, --output FILE            where to write,\n"
	                            "                               line two of the help\n"));
	assert_non_null(strstr(buf, "\n  --force                      replace\n"));
	assert_non_null(strstr(buf, "\n  -h, --help                   show this help and exit\n"
	                            "  -V, --version                show the version and exit\n"
	                            "\nExit status: 0.\n"));
	assert_null(strstr(buf, "--kernels")); /* an alias is accepted, never shown */
	free(buf);
}

static void test_run_child(void **state)
{
	(void)state;
	char *ok[] = { "sh", "-c", "exit 3", NULL };
	int st = gt_cli_run(&tool, ok, 0, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	char *slow[] = { "sh", "-c", "sleep 5", NULL };
	assert_int_equal(gt_cli_run(&tool, slow, 1, 1), -2);
	/* A program that cannot be run: 127, and the child says why (said[] is the child's copy, so
	 * only the status is seen here). */
	char *none[] = { "/nonexistent/program", NULL };
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && devnull >= 0);
	dup2(devnull, 2);
	st = gt_cli_run(&tool, none, 0, 0);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 127);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grouped_and_alias, setup, NULL),
		cmocka_unit_test_setup_teardown(test_stop_at_operand, setup, NULL),
		cmocka_unit_test_setup_teardown(test_help_and_version_stop, setup, NULL),
		cmocka_unit_test_setup_teardown(test_usage_errors, setup, NULL),
		cmocka_unit_test_setup_teardown(test_help_text, setup, NULL),
		cmocka_unit_test(test_run_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
