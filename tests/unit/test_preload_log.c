/* test_preload_log.c: the recorder's voice on stderr (preload/log.c).
 *
 * A preloaded library shares stderr with the program it is in, so each message must be exactly one
 * line starting with "gputrace: ", written with one write() however long it is, and must leave the
 * program's errno alone. GPUTRACE_QUIET silences everything but errors; GPUTRACE_DEBUG adds the
 * debug lines.
 *
 * preload/log.c is compiled into this test (it is not in any test archive).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/log.c"

static char captured[8192];
static int saved_stderr = -1;
static char tmp_path[32];

/* Sends fd 2 to a temporary file until capture_end(), which reads it into `captured`. */
static void capture_begin(void)
{
	snprintf(tmp_path, sizeof tmp_path, "/tmp/gt_log_XXXXXX");
	int fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
}

static const char *capture_end(void)
{
	assert_int_equal(dup2(saved_stderr, STDERR_FILENO), STDERR_FILENO);
	close(saved_stderr);
	int fd = open(tmp_path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, captured, sizeof captured - 1);
	assert_true(n >= 0);
	captured[n] = '\0';
	close(fd);
	unlink(tmp_path);
	return captured;
}

static void test_levels(void **state)
{
	(void)state;
	gtp_log_setup(0, 0);
	capture_begin();
	gtp_log("hello %d", 1);
	gtp_error("bad %s", "thing");
	gtp_debug("hidden");
	gtp_log_raw("raw line");
	assert_string_equal(capture_end(),
	                    "gputrace: hello 1\ngputrace: bad thing\ngputrace: raw line\n");

	gtp_log_setup(1, 0); /* GPUTRACE_QUIET=1: errors only */
	capture_begin();
	gtp_log("not shown");
	gtp_error("shown");
	gtp_debug("not shown either");
	assert_string_equal(capture_end(), "gputrace: shown\n");

	gtp_log_setup(0, 1); /* GPUTRACE_DEBUG=1 */
	capture_begin();
	gtp_debug("why %s", "this");
	assert_string_equal(capture_end(), "gputrace: why this\n");
	gtp_log_setup(0, 0);
}

/* However long the message, one line: cut to fit, still ending in a newline. */
static void test_long_message_is_one_line(void **state)
{
	(void)state;
	char *big = malloc(5000);
	assert_non_null(big);
	memset(big, 'x', 4999);
	big[4999] = '\0';
	gtp_log_setup(0, 0);
	capture_begin();
	gtp_error("%s", big);
	gtp_log_raw(big);
	const char *out = capture_end();
	free(big);
	const char *nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_int_equal(strncmp(out, "gputrace: xxx", 13), 0);
	assert_true(nl - out <= 1023);
	const char *second = nl + 1;
	assert_int_equal(strncmp(second, "gputrace: xxx", 13), 0);
	const char *nl2 = strchr(second, '\n');
	assert_non_null(nl2);
	assert_true(nl2 - second <= 511);
	assert_string_equal(nl2 + 1, "");
}

/* The program's errno is what it was before we spoke. */
static void test_errno_kept(void **state)
{
	(void)state;
	gtp_log_setup(0, 1);
	capture_begin();
	errno = EAGAIN;
	gtp_log("a");
	assert_int_equal(errno, EAGAIN);
	gtp_error("b");
	assert_int_equal(errno, EAGAIN);
	gtp_debug("c");
	assert_int_equal(errno, EAGAIN);
	gtp_log_raw("d");
	assert_int_equal(errno, EAGAIN);
	capture_end();
	gtp_log_setup(0, 0);
	/* stderr closed: nothing to write to, and still no crash and no errno change. */
	int keep = dup(STDERR_FILENO);
	assert_true(keep >= 0);
	close(STDERR_FILENO);
	errno = ERANGE;
	gtp_error("nobody hears this");
	gtp_log_raw("nor this");
	assert_int_equal(errno, ERANGE);
	assert_int_equal(dup2(keep, STDERR_FILENO), STDERR_FILENO);
	close(keep);
}

/* Control characters in what a message quotes (a newline in a path) are shown as escapes: one
 * line, always; a backslash stays as it is. */
static void test_control_characters_escaped(void **state)
{
	(void)state;
	gtp_log_setup(0, 0);
	capture_begin();
	gtp_error("trace '%s'", "a\nb\tc\x1b[2J\\d");
	gtp_log_raw("raw\nline");
	assert_string_equal(capture_end(), "gputrace: trace 'a\\nb\\tc\\x1b[2J\\d'\ngputrace: raw\\nline\n");
	char buf[16];
	assert_string_equal(gtp_escape("x\ny", buf, sizeof buf), "x\\ny");
	assert_string_equal(gtp_escape("\x01\x01\x01\x01", buf, 10), "\\x01\\x01"); /* whole escapes only */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_long_message_is_one_line),
		cmocka_unit_test(test_errno_kept),
		cmocka_unit_test(test_control_characters_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
