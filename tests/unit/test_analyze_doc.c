/* test_analyze_doc.c: a document (analyze/output/doc.h) filled once prints each format as its
 * renderer says: every format carries only its own parts, names are escaped by each format's rule,
 * JSON Lines ends each top-level value on its line, JUnit gets the cases, and a misuse of the
 * facts is returned by gt_doc_close rather than printed as broken JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/doc.h"
#include "traces/gputrace.h"

/* A hostile name: markup, a control character and a line break. */
#define NAME "k<*_|`\x1b[31m\nx"

/* One fill for every format: what a command would write. */
static void fill(struct gt_doc *d)
{
	gt_doc_object(d, NULL);
	gt_doc_str(d, "command", "demo");
	gt_doc_title(d, "gpuanalyze demo");
	gt_doc_note(d, "trace: %s", NAME);
	gt_doc_u64(d, "count", 3);
	gt_doc_heading(d, 2, "kernels");
	const struct gt_column cols[] = { { "name", "name", GT_COL_LEFT | GT_COL_CODE }, { "n", "n", 0 } };
	struct gt_table *t = gt_doc_table(d, "rows", GT_COLUMNS(cols));
	assert_non_null(t);
	gt_table_str(t, "a");
	gt_table_u64(t, 1);
	gt_table_end_row(t);
	assert_int_equal(gt_table_close(t), 0);
	gt_doc_words_by_format(d, "\n**md**\n", "\ntext\n");
	gt_doc_words(d, "of ");
	gt_doc_name(d, NAME);
	gt_doc_words(d, "\n");
	gt_doc_item(d, "what", "a*b");
	gt_doc_end(d);
	gt_doc_suite(d, "gpuanalyze demo");
	gt_doc_property(d, "trace", NAME);
	gt_doc_case(d, "gpuanalyze.demo", "k", -1, GT_JUNIT_FAILURE, "slower", NULL);
}

/* The whole output of fill in fmt; the caller frees it. */
static char *render(enum gt_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct gt_doc *d = gt_doc_open(fmt, f);
	assert_non_null(d);
	fill(d);
	assert_int_equal(gt_doc_close(d), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_text_carries_human_parts_only(void **state)
{
	(void)state;
	char *out = render(GT_FMT_TEXT);
	assert_string_equal(out, "trace: k<*_|`\\x1b[31m\\nx\n"
	                         "\nkernels\n"
	                         "name  n\n"
	                         "----  -\n"
	                         "a     1\n"
	                         "\ntext\n"
	                         "of k<*_|`\\x1b[31m\\nx\n"
	                         "what: a*b\n");
	free(out);
}

static void test_markdown_escapes_and_fences_names(void **state)
{
	(void)state;
	char *out = render(GT_FMT_MD);
	/* The title, the note's name escaped as prose, the name standing alone in a code span. */
	assert_non_null(strstr(out, "# gpuanalyze demo\n\n"));
	assert_non_null(strstr(out, "- trace: k\\<\\*\\_\\|\\`"));
	assert_non_null(strstr(out, "\n**md**\n"));
	assert_non_null(strstr(out, "of ``"));
	assert_non_null(strstr(out, "- what: a\\*b\n"));
	assert_null(strstr(out, "\x1b"));
	assert_null(strstr(out, "\"command\""));
	free(out);
}

static void test_json_carries_facts_and_tables_only(void **state)
{
	(void)state;
	char *out = render(GT_FMT_JSON);
	assert_string_equal(out, "{\n  \"command\": \"demo\",\n  \"count\": 3,\n  \"rows\": [\n"
	                         "    {\"name\": \"a\", \"n\": 1}\n  ]\n}\n");
	free(out);
}

static void test_csv_carries_the_table_only(void **state)
{
	(void)state;
	char *out = render(GT_FMT_CSV);
	assert_string_equal(out, "name,n\na,1\n");
	free(out);
}

static void test_junit_carries_the_cases_only(void **state)
{
	(void)state;
	char *out = render(GT_FMT_JUNIT);
	assert_non_null(strstr(out, "<testsuite name=\"gpuanalyze demo\""));
	assert_non_null(strstr(out, "failures=\"1\""));
	assert_non_null(strstr(out, "<failure message=\"slower\""));
	assert_null(strstr(out, "\x1b"));
	assert_null(strstr(out, "trace: "));
	free(out);
}

static void test_json_lines_end_each_value(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct gt_doc *d = gt_doc_open(GT_FMT_JSONL, f);
	assert_non_null(d);
	for (int i = 0; i < 2; i++) {
		gt_doc_object(d, NULL);
		gt_doc_u64(d, "i", (uint64_t)i);
		gt_doc_object(d, "inner");
		gt_doc_bool(d, "b", 1);
		gt_doc_end(d);
		gt_doc_end(d);
	}
	gt_doc_note(d, "not in JSON Lines");
	assert_int_equal(gt_doc_close(d), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "{\"i\": 0, \"inner\": {\"b\": true}}\n{\"i\": 1, \"inner\": {\"b\": true}}\n");
	free(buf);
}

static void test_misused_facts_are_returned(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/null", "w");
	assert_non_null(f);
	struct gt_doc *d = gt_doc_open(GT_FMT_JSON, f);
	assert_non_null(d);
	gt_doc_object(d, NULL);
	gt_doc_u64(d, NULL, 1); /* a value in an object without its key */
	assert_int_equal(gt_doc_close(d), GT_ERR_ARG);
	d = gt_doc_open(GT_FMT_JSON, f);
	assert_non_null(d);
	gt_doc_object(d, NULL); /* never closed */
	assert_int_equal(gt_doc_close(d), GT_ERR_ARG);
	assert_int_equal(fclose(f), 0);
}

static void test_empty_table_note_in_human_formats(void **state)
{
	(void)state;
	const enum gt_format fmts[] = { GT_FMT_TEXT, GT_FMT_MD, GT_FMT_CSV };
	const char *want[] = { "none\n", "- none\n", "n\n" };
	for (size_t i = 0; i < 3; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		struct gt_doc *d = gt_doc_open(fmts[i], f);
		const struct gt_column cols[] = { { "n", "n", 0 } };
		struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
		assert_non_null(t);
		gt_table_when_empty(t, "none");
		assert_int_equal(gt_table_close(t), 0);
		assert_int_equal(gt_doc_close(d), 0);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf, want[i]);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_carries_human_parts_only),
		cmocka_unit_test(test_markdown_escapes_and_fences_names),
		cmocka_unit_test(test_json_carries_facts_and_tables_only),
		cmocka_unit_test(test_csv_carries_the_table_only),
		cmocka_unit_test(test_junit_carries_the_cases_only),
		cmocka_unit_test(test_json_lines_end_each_value),
		cmocka_unit_test(test_misused_facts_are_returned),
		cmocka_unit_test(test_empty_table_note_in_human_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
