/* test_trace_kinds.c: the schema's rows are the one word on what each event kind is.
 *
 * traces/schema.c's row for a fixed record type gives its name, its time (field 0), its end when
 * it spans an interval, its device and the flags that mark its times bad; the generic code reads
 * those instead of switching on the type. This test checks the rows against themselves (names
 * unique and well-formed, every offset on a field of the right size and role) and against the code
 * that reads them: gt_rec_type_name, the timeline's event time, export's interval, dump's --type
 * list in its --help and in gpuanalyze(1). A new kind whose row is wrong, or code that goes back to
 * a list of its own, fails here. gputrace-format(5) agreeing with the rows is test_trace_spec's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/commands/commands.h"
#include "analyze/export/export_window.h"
#include "analyze/blocks/timeline.h"
#include "analyze/support/options.h"
#include "traces/gputrace.h"
#include "traces/schema.h"

/* The kinds: the rows of fixed record types, in schema order. */
#define FOR_KINDS(k)                                                                               \
	for (const struct gt_record_schema *k = gt_schema; k < gt_schema + gt_schema_count; k++)     \
		if (k->type >= GT_REC_FIRST_FIXED)

/* The shown or reserved field of row s at offset off; NULL: none starts there. */
static const struct gt_field *field_at(const struct gt_record_schema *s, int off)
{
	for (const struct gt_field *f = s->fields; f->member; f++)
		if (f->offset == off)
			return f;
	return NULL;
}

static size_t nkinds(void)
{
	size_t n = 0;
	FOR_KINDS(k)
		n++;
	return n;
}

/* Every kind has one row, found by gt_kind in constant time, and a name of its own that
 * gt_rec_type_name gives; other types have no kind. */
static void test_every_kind_has_a_row_and_a_name(void **state)
{
	(void)state;
	assert_true(nkinds() >= 13);
	FOR_KINDS(k) {
		assert_ptr_equal(gt_kind(k->type), k);
		assert_ptr_equal(gt_schema_of(k->type), k);
		assert_non_null(k->name);
		assert_true(k->name[0] != '\0');
		assert_true(strspn(k->name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(k->name));
		assert_string_equal(gt_rec_type_name(k->type), k->name);
		assert_true(k->size > 0 && k->size <= sizeof(((struct gt_event *)0)->u));
		FOR_KINDS(o)
			if (o != k) {
				assert_int_not_equal(o->type, k->type);
				assert_string_not_equal(o->name, k->name);
			}
	}
	/* Records that are not events: no kind, named all the same. */
	for (int t = -1; t < GT_REC_FIRST_FIXED; t++)
		assert_null(gt_kind(t));
	assert_null(gt_kind(GT_REC_TYPE_MAX + 1));
	assert_null(gt_kind(GT_REC_TYPE_MAX));
	assert_string_equal(gt_rec_type_name(GT_REC_STRING), "string");
	assert_string_equal(gt_rec_type_name(GT_REC_META), "meta");
	assert_string_equal(gt_rec_type_name(GT_REC_DEVICE), "device");
	assert_string_equal(gt_rec_type_name(GT_REC_BLOB), "blob");
	assert_string_equal(gt_rec_type_name(GT_REC_CAPTURE), "capture");
	assert_string_equal(gt_rec_type_name(GT_REC_END), "end");
	assert_string_equal(gt_rec_type_name(GT_REC_TYPE_MAX), "unknown");
	assert_string_equal(gt_rec_type_name(-1), "unknown");
	assert_string_equal(gt_rec_type_name(0), "unknown");
}

/* Each role names a field of the right size and part: the time is field 0 (the codec's base),
 * the end a rel-coded u64 named "end", the device a u32 "*device_id", the bad-times bits a part
 * of the "flags" field; rows that are not kinds have none. */
static void test_time_device_and_flags_fields_exist_and_fit(void **state)
{
	(void)state;
	FOR_KINDS(k) {
		const struct gt_field *t = &k->fields[0];
		assert_int_equal(t->offset, 0);
		assert_int_equal(t->size, 8);
		assert_int_equal(t->codec, GT_CODEC_BASE);
		if (k->end >= 0) {
			const struct gt_field *e = field_at(k, k->end);
			assert_non_null(e);
			assert_string_equal(e->member, "end");
			assert_int_equal(e->size, 8);
			assert_int_equal(e->codec, GT_CODEC_REL);
			assert_true(k->end + 8 <= k->size);
		} else {
			assert_int_equal(k->end, -1);
		}
		if (k->device >= 0) {
			const struct gt_field *d = field_at(k, k->device);
			assert_non_null(d);
			assert_int_equal(d->size, 4);
			assert_int_equal(d->kind, GT_FIELD_UINT);
			assert_string_equal(d->member, "device_id");
		} else {
			assert_int_equal(k->device, -1);
		}
		if (k->bad_times) {
			const struct gt_field *f = field_at(k, k->flags);
			assert_non_null(f);
			assert_string_equal(f->member, "flags");
			assert_int_equal(f->size, k->flags_size);
			assert_true(k->flags_size == 1 || k->flags_size == 2 || k->flags_size == 4);
			/* The bits fit the field. */
			assert_true(k->flags_size == 4 || (k->bad_times >> (8 * k->flags_size)) == 0);
		} else {
			assert_int_equal(k->flags, -1);
			assert_int_equal(k->flags_size, 0);
		}
	}
	/* A kernel spans, on a device, with times that can be bad; an allocation is an instant. */
	assert_true(gt_kind(GT_REC_KERNEL)->end >= 0 && gt_kind(GT_REC_KERNEL)->device >= 0);
	assert_int_equal(gt_kind(GT_REC_KERNEL)->bad_times, GT_KERNEL_BAD_TIMES);
	assert_int_equal(gt_kind(GT_REC_MEMORY)->end, -1);
	/* The GPU operations (info's GPU span) are the kinds with an interval on a device that are
	 * not measurements of it; the measurements are the counter kinds, which span on a device. */
	FOR_KINDS(k) {
		assert_true(k->measure == 0 || k->measure == 1);
		assert_int_equal(k->end >= 0 && k->device >= 0 && !k->measure,
		                 k->type == GT_REC_KERNEL || k->type == GT_REC_MEMCPY || k->type == GT_REC_MEMSET);
		assert_int_equal(k->measure, k->type == GT_REC_METRIC_SAMPLE || k->type == GT_REC_LAUNCH_METRIC);
		if (k->measure)
			assert_true(k->end >= 0 && k->device >= 0);
	}
	for (size_t i = 0; i < gt_schema_count; i++)
		if (gt_schema[i].type < GT_REC_FIRST_FIXED) {
			assert_int_equal(gt_schema[i].end, -1);
			assert_int_equal(gt_schema[i].device, -1);
			assert_int_equal(gt_schema[i].flags, -1);
			assert_int_equal(gt_schema[i].bad_times, 0);
			assert_int_equal(gt_schema[i].measure, 0);
		}
}

/* A metric's value is an f64 field: its number read back exactly, shown with the shortest text
 * that reads back to the same double, never as its bits. */
static void test_f64_fields_show_the_shortest_exact_text(void **state)
{
	(void)state;
	size_t n;
	const struct gt_field *f = gt_fields_of(GT_REC_METRIC_SAMPLE, &n), *value = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].member, "value"))
			value = &f[i];
	assert_non_null(value);
	assert_int_equal(value->kind, GT_FIELD_F64);
	assert_int_equal(value->size, 8);
	assert_string_equal(value->type, "f64");
	struct gt_metric_sample m = { .start = 1, .end = 2, .value = 0.1 };
	char buf[64];
	assert_true(gt_field_f64(value, &m) == 0.1);
	assert_string_equal(gt_field_text(value, &m, NULL, buf, sizeof buf), "0.1");
	m.value = 1.0 / 3.0;
	assert_string_equal(gt_field_text(value, &m, NULL, buf, sizeof buf), "0.3333333333333333");
	assert_true(strtod(buf, NULL) == m.value);
	m.value = 123456789012.0;
	assert_string_equal(gt_field_text(value, &m, NULL, buf, sizeof buf), "123456789012");
	m.value = -2.5e-300;
	assert_string_equal(gt_field_text(value, &m, NULL, buf, sizeof buf), "-2.5e-300");
	/* Both counter kinds hold it at the same place, beside their device and metric name. */
	assert_int_equal(offsetof(struct gt_metric_sample, value), offsetof(struct gt_launch_metric, value));
	assert_int_equal(offsetof(struct gt_metric_sample, metric_id), offsetof(struct gt_launch_metric, metric_id));
}

/* An event of kind k: start 1000, end 3000 where it has one, device 7 where it has one. */
static struct gt_event event_of(const struct gt_record_schema *k)
{
	struct gt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = k->type;
	unsigned char *p = (unsigned char *)&ev.u;
	uint64_t start = 1000, end = 3000;
	uint32_t dev = 7;
	memcpy(p, &start, 8);
	if (k->end >= 0)
		memcpy(p + k->end, &end, 8);
	if (k->device >= 0)
		memcpy(p + k->device, &dev, 4);
	return ev;
}

/* The timeline's event time and export's interval are the rows' and nothing else: a kind gets
 * them by its row alone. */
static void test_generic_code_reads_the_rows(void **state)
{
	(void)state;
	FOR_KINDS(k) {
		struct gt_event ev = event_of(k);
		assert_int_equal(gt_tl_event_time(&ev), 1000);
		uint64_t s = 1, e = 1;
		int span = gt_xwin_raw_times(&ev, &s, &e);
		assert_int_equal(span, k->end >= 0);
		assert_int_equal(s, span ? 1000 : 0);
		assert_int_equal(e, span ? 3000 : 0);
		uint32_t dev = 0;
		assert_int_equal(gt_kind_device(k, &ev.u, &dev), k->device >= 0);
		if (k->device >= 0)
			assert_int_equal(dev, 7);
		assert_int_equal(gt_kind_end(k, &ev.u), k->end >= 0 ? 3000 : 0);
		assert_false(gt_kind_bad_times(k, &ev.u));
		if (k->bad_times) {
			/* The bits set, whatever the field's size: no time, still an interval. */
			uint32_t bits = k->bad_times;
			memcpy((unsigned char *)&ev.u + k->flags, &bits, k->flags_size);
			assert_true(gt_kind_bad_times(k, &ev.u));
			assert_int_equal(gt_tl_event_time(&ev), 0);
			assert_int_equal(gt_xwin_raw_times(&ev, &s, &e), k->end >= 0);
		}
	}
	/* An NVTX mark has an end field but is an instant. */
	struct gt_event mark = event_of(gt_kind(GT_REC_NVTX));
	mark.u.nvtx.kind = GT_NVTX_MARK;
	uint64_t s, e;
	assert_int_equal(gt_xwin_raw_times(&mark, &s, &e), 0);
	/* A type the schema does not know has neither time nor interval. */
	struct gt_event unknown = event_of(gt_kind(GT_REC_KERNEL));
	unknown.type = GT_REC_TYPE_MAX;
	assert_int_equal(gt_tl_event_time(&unknown), 0);
	assert_int_equal(gt_xwin_raw_times(&unknown, &s, &e), 0);
}

/* text's list "a, b, c" (ended by '.', '\0' or a newline-free run of the names) against the
 * kinds' names in schema order. */
static void assert_names_are_the_kinds(const char *text)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", text);
	buf[strcspn(buf, ".")] = '\0';
	size_t i = 0;
	char *save = NULL;
	const struct gt_record_schema *want = gt_schema;
	for (char *w = strtok_r(buf, ", \n", &save); w; w = strtok_r(NULL, ", \n", &save), i++) {
		while (want < gt_schema + gt_schema_count && want->type < GT_REC_FIRST_FIXED)
			want++;
		assert_true(want < gt_schema + gt_schema_count);
		assert_string_equal(w, want->name);
		want++;
	}
	assert_int_equal(i, nkinds());
}

/* dump --type's help lists the kinds, every one, in schema order. */
static void test_dump_type_list_is_the_kinds(void **state)
{
	(void)state;
	gt_cmd_dump.reset();
	const char *help = NULL;
	for (const struct gt_option *o = gt_cmd_dump.options; o->kind != GT_OPT_END; o++)
		if (o->long_name && !strcmp(o->long_name, "type"))
			help = o->help;
	assert_non_null(help);
	const char *lead = "only these event types: ";
	assert_true(strncmp(help, lead, strlen(lead)) == 0);
	assert_names_are_the_kinds(help + strlen(lead));
}

/* gpuanalyze(1) lists the same kinds under dump's --type. */
static void test_man_page_type_list_is_the_kinds(void **state)
{
	(void)state;
	const char *src = getenv("GT_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/man/gpuanalyze.1", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char page[1 << 20];
	size_t n = fread(page, 1, sizeof page - 1, f);
	assert_int_equal(fclose(f), 0);
	page[n] = '\0';
	const char *lead = "Only these event types: ";
	const char *p = strstr(page, lead);
	assert_non_null(p);
	assert_names_are_the_kinds(p + strlen(lead));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_has_a_row_and_a_name),
		cmocka_unit_test(test_time_device_and_flags_fields_exist_and_fit),
		cmocka_unit_test(test_generic_code_reads_the_rows),
		cmocka_unit_test(test_f64_fields_show_the_shortest_exact_text),
		cmocka_unit_test(test_dump_type_list_is_the_kinds),
		cmocka_unit_test(test_man_page_type_list_is_the_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
