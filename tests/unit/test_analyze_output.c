/* test_analyze_output.c: analyze/output/output.c prints every format as gpuanalyze(1) promises.
 *
 * CSV quoting (RFC 4180), JSON escaping (quotes, backslashes, control characters, bytes that are
 * not UTF-8) and structure (commas, nesting, null for NaN), Markdown escaping of pipes, the
 * aligned text table, and the human/machine split of columns and values.
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

#include "analyze/output/output.h"
#include "analyze/output/output_direct.h"
#include "traces/gputrace.h"

/* An in-memory stream and what was written to it. */
struct sink {
	FILE *f;
	char *buf;
	size_t len;
};

static void sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
}

/* Closes the stream and returns its text (the caller frees it). */
static char *sink_text(struct sink *s)
{
	assert_int_equal(fclose(s->f), 0);
	return s->buf;
}

static void test_csv_quoting(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	const char *fields[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "", "x y" };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		if (i)
			fputc(',', s.f);
		gt_out_csv_field(s.f, fields[i]);
	}
	char *out = sink_text(&s);
	assert_string_equal(out, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",,x y");
	free(out);
}

static void test_json_string_escaping(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	gt_out_json_string(s.f, "q\"b\\s/\x01\x1f\n\t\r\b\f\x7f");
	fputc(' ', s.f);
	gt_out_json_string(s.f, "\xc2\xb5s"); /* "µs": valid UTF-8 passes through */
	fputc(' ', s.f);
	gt_out_json_string(s.f, "bad\xff\xc3(\xed\xa0\x80"); /* stray byte, truncated sequence, surrogate */
	fputc(' ', s.f);
	gt_out_json_string(s.f, NULL);
	char *out = sink_text(&s);
	assert_string_equal(out, "\"q\\\"b\\\\s/\\u0001\\u001f\\n\\t\\r\\b\\f\x7f\" \"\xc2\xb5s\" "
	                         "\"bad\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\" \"\"");
	free(out);
}

static void test_json_numbers(void **state)
{
	(void)state;
	char buf[40];
	gt_out_format_double(buf, sizeof buf, 0.1);
	assert_string_equal(buf, "0.1");
	gt_out_format_double(buf, sizeof buf, 1.0 / 3.0);
	assert_string_equal(buf, "0.3333333333333333");
	gt_out_format_double(buf, sizeof buf, 4000);
	assert_string_equal(buf, "4000");
	gt_out_format_double(buf, sizeof buf, 6.619999999999998); /* needs 16 digits */
	assert_float_equal(strtod(buf, NULL), 6.619999999999998, 0);
	assert_true(strtod(buf, NULL) == 6.619999999999998);
	gt_out_format_double(buf, sizeof buf, 1e300);
	assert_string_equal(buf, "1e+300");
	/* The shortest text that reads back: not %.17g's 0.10000000000000001, 2133.4614 as itself;
	 * the double next to it needs its 17 digits (it is another number). */
	gt_out_format_double(buf, sizeof buf, 2133.4614);
	assert_string_equal(buf, "2133.4614");
	gt_out_format_double(buf, sizeof buf, nextafter(2133.4614, 0));
	assert_string_equal(buf, "2133.4613999999997");
	/* JSON's reals keep their type when integral; exponents and fractions need nothing. */
	gt_out_format_real(buf, sizeof buf, 1);
	assert_string_equal(buf, "1.0");
	gt_out_format_real(buf, sizeof buf, -4000);
	assert_string_equal(buf, "-4000.0");
	gt_out_format_real(buf, sizeof buf, 1e300);
	assert_string_equal(buf, "1e+300");
	gt_out_format_real(buf, sizeof buf, 0.5);
	assert_string_equal(buf, "0.5");

	struct sink s;
	sink_open(&s);
	struct gt_json j;
	gt_json_init(&j, s.f);
	gt_json_array_begin(&j);
	gt_json_num(&j, NAN);
	gt_json_num(&j, INFINITY);
	gt_json_num(&j, -INFINITY);
	gt_json_u64(&j, UINT64_MAX);
	gt_json_i64(&j, INT64_MIN);
	gt_json_num(&j, 148.26);
	gt_json_num(&j, 1);
	gt_json_array_end(&j);
	assert_int_equal(gt_json_finish(&j), 0);
	char *out = sink_text(&s);
	assert_string_equal(out, "[\n  null,\n  null,\n  null,\n  18446744073709551615,\n"
	                         "  -9223372036854775808,\n  148.26,\n  1.0\n]\n");
	free(out);
}

/* Nesting: commas only between siblings, containers from inline_depth on one line. */
static void test_json_structure(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	struct gt_json j;
	gt_json_init(&j, s.f);
	gt_json_object_begin(&j);
	gt_json_key(&j, "a");
	gt_json_u64(&j, 1);
	gt_json_key(&j, "empty");
	gt_json_array_begin(&j);
	gt_json_array_end(&j);
	gt_json_key(&j, "rows");
	gt_json_array_begin(&j);
	for (int i = 0; i < 2; i++) {
		gt_json_object_begin(&j);
		gt_json_key(&j, "i");
		gt_json_i64(&j, i);
		gt_json_key(&j, "ok");
		gt_json_bool(&j, i);
		gt_json_key(&j, "none");
		gt_json_null(&j);
		gt_json_object_end(&j);
	}
	gt_json_array_end(&j);
	gt_json_key(&j, "s");
	gt_json_str(&j, "x");
	gt_json_object_end(&j);
	assert_int_equal(gt_json_finish(&j), 0);
	char *out = sink_text(&s);
	assert_string_equal(out, "{\n"
	                         "  \"a\": 1,\n"
	                         "  \"empty\": [],\n"
	                         "  \"rows\": [\n"
	                         "    {\"i\": 0, \"ok\": false, \"none\": null},\n"
	                         "    {\"i\": 1, \"ok\": true, \"none\": null}\n"
	                         "  ],\n"
	                         "  \"s\": \"x\"\n"
	                         "}\n");
	free(out);
}

/* Misuse is reported, not written as broken JSON silently. */
static void test_json_misuse(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	struct gt_json j;
	gt_json_init(&j, s.f);
	gt_json_array_begin(&j);
	gt_json_key(&j, "not in an object");
	assert_int_equal(j.error, GT_ERR_ARG);
	free(sink_text(&s));

	sink_open(&s);
	gt_json_init(&j, s.f);
	gt_json_object_begin(&j);
	gt_json_u64(&j, 1); /* a value without its key */
	assert_int_equal(j.error, GT_ERR_ARG);
	free(sink_text(&s));

	sink_open(&s);
	gt_json_init(&j, s.f);
	gt_json_array_begin(&j);
	gt_json_object_end(&j); /* the wrong closer */
	assert_int_equal(j.error, GT_ERR_ARG);
	free(sink_text(&s));

	sink_open(&s);
	gt_json_init(&j, s.f);
	gt_json_object_begin(&j);
	assert_int_equal(gt_json_finish(&j), GT_ERR_ARG); /* never closed */
	free(sink_text(&s));
}

static void test_markdown_escaping(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	gt_out_md_cell(s.f, "a|b *c* d_e", 0);
	fputc(' ', s.f);
	gt_out_md_cell(s.f, "operator|(A, B)", 1);
	fputc(' ', s.f);
	gt_out_md_cell(s.f, "x`y", 1);
	fputc(' ', s.f);
	gt_out_md_cell(s.f, "two\nlines", 0);
	char *out = sink_text(&s);
	assert_string_equal(out, "a\\|b \\*c\\* d\\_e `operator\\|(A, B)` `` x`y `` two lines");
	free(out);
}

/* The same table in every format: columns visible per format, human and machine values. */
static char *render(enum gt_format fmt)
{
	struct sink s;
	sink_open(&s);
	struct gt_json j;
	gt_json_init(&j, s.f);
	j.inline_depth = 2; /* the array is the document here: its rows one per line */
	struct gt_table *t = gt_table_new(fmt, s.f, &j);
	assert_non_null(t);
	assert_int_equal(gt_table_column(t, "n", "n", 0), 0);
	assert_int_equal(gt_table_column(t, "median_ns", "median us", 0), 0);
	assert_int_equal(gt_table_column(t, "name", "name", GT_COL_MACHINE), 0);
	assert_int_equal(gt_table_column(t, "demangled", "kernel", GT_COL_LEFT | GT_COL_CODE), 0);
	const struct {
		uint64_t n;
		double med;
		const char *name, *dem;
	} rows[] = {
		{ 12, 4100.5, "_Z1fv", "f()" },
		{ 3, NAN, "_Z2opv", "a|b, \"c\"" },
	};
	for (int i = 0; i < 2; i++) {
		gt_table_u64(t, rows[i].n);
		gt_table_num_as(t, rows[i].med, rows[i].med / 1e3, 3);
		gt_table_str(t, rows[i].name);
		gt_table_str(t, rows[i].dem);
		assert_int_equal(gt_table_end_row(t), 0);
	}
	assert_int_equal(gt_table_rows(t), 2);
	assert_int_equal(gt_table_finish(t), 0);
	gt_table_free(t);
	return sink_text(&s);
}

static void test_table_formats(void **state)
{
	(void)state;
	char *text = render(GT_FMT_TEXT);
	assert_string_equal(text, " n  median us  kernel\n"
	                          "--  ---------  --------\n"
	                          "12      4.101  f()\n"
	                          " 3        n/a  a|b, \"c\"\n");
	free(text);
	char *md = render(GT_FMT_MD);
	assert_string_equal(md, "| n | median us | kernel |\n"
	                        "| ---: | ---: | :--- |\n"
	                        "| 12 | 4.101 | `f()` |\n"
	                        "| 3 | n/a | `a\\|b, \"c\"` |\n");
	free(md);
	char *csv = render(GT_FMT_CSV);
	assert_string_equal(csv, "n,median_ns,name,demangled\n"
	                         "12,4100.5,_Z1fv,f()\n"
	                         "3,,_Z2opv,\"a|b, \"\"c\"\"\"\n");
	free(csv);
	char *json = render(GT_FMT_JSON);
	assert_string_equal(json, "[\n"
	                          "  {\"n\": 12, \"median_ns\": 4100.5, \"name\": \"_Z1fv\", \"demangled\": \"f()\"},\n"
	                          "  {\"n\": 3, \"median_ns\": null, \"name\": \"_Z2opv\", \"demangled\": \"a|b, \\\"c\\\"\"}\n"
	                          "]");
	free(json);
}

/* A table with no rows still prints its header (text, csv) or an empty array (json). */
static void test_table_empty(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	struct gt_table *t = gt_table_new(GT_FMT_CSV, s.f, NULL);
	assert_non_null(t);
	gt_table_column(t, "a", "A", 0);
	gt_table_column(t, "b", "B", GT_COL_HUMAN);
	assert_int_equal(gt_table_finish(t), 0);
	gt_table_free(t);
	char *out = sink_text(&s);
	assert_string_equal(out, "a\n");
	free(out);
	/* JSON needs its document. */
	assert_null(gt_table_new(GT_FMT_JSON, stdout, NULL));
}

/* More cells than columns is an error the caller sees at finish. */
static void test_table_too_many_cells(void **state)
{
	(void)state;
	struct sink s;
	sink_open(&s);
	struct gt_table *t = gt_table_new(GT_FMT_TEXT, s.f, NULL);
	gt_table_column(t, "a", "a", 0);
	gt_table_u64(t, 1);
	gt_table_u64(t, 2);
	assert_int_equal(gt_table_end_row(t), GT_ERR_ARG);
	assert_int_equal(gt_table_finish(t), GT_ERR_ARG);
	gt_table_free(t);
	free(sink_text(&s));
}

static void test_format_names(void **state)
{
	(void)state;
	enum gt_format f = GT_FMT_TEXT;
	assert_int_equal(gt_format_parse("csv", GT_FMT_ALL, &f), 0);
	assert_int_equal(f, GT_FMT_CSV);
	assert_int_equal(gt_format_parse("md", GT_FMT_TEXT | GT_FMT_JSON, &f), GT_ERR_ARG);
	assert_int_equal(f, GT_FMT_CSV);
	assert_int_equal(gt_format_parse("JSON", GT_FMT_ALL, &f), GT_ERR_ARG);
	char buf[64];
	assert_string_equal(gt_format_list(GT_FMT_ALL, buf, sizeof buf), "text|md|json|csv");
	assert_string_equal(gt_format_list(GT_FMT_CSV | GT_FMT_JSON, buf, sizeof buf), "json|csv");
	assert_string_equal(gt_format_name(GT_FMT_MD), "md");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_json_string_escaping),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_structure),
		cmocka_unit_test(test_json_misuse),
		cmocka_unit_test(test_markdown_escaping),
		cmocka_unit_test(test_table_formats),
		cmocka_unit_test(test_table_empty),
		cmocka_unit_test(test_table_too_many_cells),
		cmocka_unit_test(test_format_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
