/* test_analyze_cli_fixture.c: writes the traces the gpuanalyze CLI tests read, and checks them.
 *
 *   test_analyze_cli_fixture write DIR   writes small, truncated, corrupt, cut-header and
 *                                        not-a-trace .gtrace files into DIR, for tests/cli
 *   test_analyze_cli_fixture             (as make check runs it) checks that the fixtures are what
 *                                        the scripts' expected outputs assume
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

#include "traces/gputrace.h"
#include "helpers/synth_trace.h"

static void read_all(const char *path, struct gt_tail *t, uint64_t *kernels)
{
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	int rc;
	*kernels = 0;
	while ((rc = gt_reader_next(r, &ev)) > 0)
		*kernels += ev.type == GT_REC_KERNEL;
	assert_int_equal(rc, 0);
	gt_reader_tail(r, t);
	assert_string_equal(gt_reader_meta(r, "trace.synthetic"), "1");
	gt_reader_close(r);
}

/* The small fixture is complete, holds 20 kernel records in 3 chunks (+ the END's), and is the
 * same bytes every time it is written. */
static void test_small_fixture_is_complete_and_reproducible(void **state)
{
	(void)state;
	char *a = synth_temp_path("fixa"), *b = synth_temp_path("fixb");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(synth_fixture_small(a), 0);
	assert_int_equal(synth_fixture_small(b), 0);
	struct gt_tail t;
	uint64_t kernels;
	read_all(a, &t, &kernels);
	assert_int_equal(t.complete, 1);
	assert_int_equal(t.chunks, 4);
	assert_int_equal(t.lost_bytes, 0);
	assert_int_equal(kernels, 20);
	size_t la, lb;
	char *da = synth_read_file(a, &la), *db = synth_read_file(b, &lb);
	assert_non_null(da);
	assert_non_null(db);
	assert_int_equal(la, lb);
	/* Bytes 24..31 of the file header are the writer's open time; everything else must match. */
	assert_memory_equal(da, db, 24);
	assert_memory_equal(da + 32, db + 32, la - 32);
	free(da);
	free(db);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* The truncated fixture ends inside its third chunk: two chunks read, bytes lost, no END. */
static void test_truncated_fixture_ends_inside_a_chunk(void **state)
{
	(void)state;
	char *p = synth_temp_path("fixt");
	assert_non_null(p);
	assert_int_equal(synth_fixture_truncated(p), 0);
	struct gt_tail t;
	uint64_t kernels;
	read_all(p, &t, &kernels);
	assert_int_equal(t.complete, 0);
	assert_int_equal(t.chunks, 2);
	assert_true(t.lost_bytes > 32);
	assert_int_equal(kernels, 20);
	unlink(p);
	free(p);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "write") == 0) {
		int rc = synth_fixture_all(argv[2]);
		if (rc) {
			fprintf(stderr, "test_analyze_cli_fixture: cannot write fixtures in '%s': %s\n", argv[2],
			        gt_strerror(rc));
			return 1;
		}
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_fixture_is_complete_and_reproducible),
		cmocka_unit_test(test_truncated_fixture_ends_inside_a_chunk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
