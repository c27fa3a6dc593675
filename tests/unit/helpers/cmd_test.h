/* cmd_test.h: what the analyzer's command tests share; header-only (include after cmocka.h), so
 * that it adds nothing to the other test binaries.
 *
 * temp(TAG): a scratch file "/tmp/gt_TAG_XXXXXX" that temp_teardown removes after the test (a test
 * asking for more than CMD_TEST_MAX_TEMPS fails rather than writing past the list).
 * run_capture(CMD, EXPECT, ARGV): runs a subcommand in-process as gpuanalyze would, with its
 * diagnostics (diag.h's stream) captured; fails the test unless it exits EXPECT; returns what it
 * wrote to stderr (malloc'd).
 */
#ifndef CMD_TEST_H
#define CMD_TEST_H

#include "analyze/support/diag.h"
#include "helpers/synth_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CMD_TEST_UNUSED __attribute__((unused))
#define CMD_TEST_MAX_TEMPS 32

static char *cmd_test_paths[CMD_TEST_MAX_TEMPS];
static int cmd_test_npaths;

static CMD_TEST_UNUSED char *temp(const char *tag)
{
	assert_true(cmd_test_npaths < CMD_TEST_MAX_TEMPS);
	char *p = synth_temp_path(tag);
	assert_non_null(p);
	cmd_test_paths[cmd_test_npaths++] = p;
	return p;
}

/* Removes the scratch files and gives diagnostics back to stderr; a cmocka teardown. */
static CMD_TEST_UNUSED int temp_teardown(void **state)
{
	(void)state;
	for (int i = 0; i < cmd_test_npaths; i++) {
		unlink(cmd_test_paths[i]);
		free(cmd_test_paths[i]);
	}
	cmd_test_npaths = 0;
	gt_diag_set_stream(NULL);
	return 0;
}

static CMD_TEST_UNUSED char *run_capture(int (*cmd)(int, char **), int expect, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char *buf = NULL;
	size_t len = 0;
	FILE *e = open_memstream(&buf, &len);
	assert_non_null(e);
	gt_diag_set_stream(e);
	int rc = cmd(argc, argv);
	fclose(e);
	gt_diag_set_stream(NULL);
	if (rc != expect)
		fail_msg("exit %d, expected %d; stderr: %s", rc, expect, buf);
	return buf;
}

#endif
