/* output.c: the formats' names, the older FILE-and-format writers of notes and headings (which
 * hand over to the renderers, render.h), shortest round-trip doubles, and the streaming JSON
 * writer that the JSON renderer, export and the reference tolerances write through.
 *
 * Tables are table.c's: it keeps the row being filled in one byte arena (cells are offsets into
 * it), so filling a cell costs no allocation, and a dump streams millions of rows through it.
 */
#include "analyze/output/output.h"
#include "analyze/output/output_direct.h"

#include "analyze/output/escape.h"
#include "analyze/output/render.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- formats ------------------------------------------------------------------------------- */

static const struct {
	enum gt_format fmt;
	const char *name;
} formats[] = { { GT_FMT_TEXT, "text" }, { GT_FMT_MD, "md" }, { GT_FMT_JSON, "json" },
	            { GT_FMT_CSV, "csv" }, { GT_FMT_JSONL, "jsonl" }, { GT_FMT_JUNIT, "junit" } };

const char *gt_format_name(enum gt_format f)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i].fmt == f)
			return formats[i].name;
	return "?";
}

int gt_format_parse(const char *s, unsigned allowed, enum gt_format *out)
{
	for (size_t i = 0; s && i < sizeof formats / sizeof formats[0]; i++) {
		if ((allowed & (unsigned)formats[i].fmt) && strcmp(s, formats[i].name) == 0) {
			*out = formats[i].fmt;
			return 0;
		}
	}
	return GT_ERR_ARG;
}

const char *gt_format_list(unsigned allowed, char *buf, size_t len)
{
	size_t pos = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		if (!(allowed & (unsigned)formats[i].fmt))
			continue;
		int k = snprintf(buf + pos, len > pos ? len - pos : 0, "%s%s", pos ? "|" : "",
		                 formats[i].name);
		if (k > 0)
			pos += (size_t)k;
	}
	return buf;
}

/* ---- escaping: escape.h's rules under output.h's names -------------------------------------- */

void gt_out_csv_field(FILE *f, const char *s) { gt_esc_csv(f, s); }
void gt_out_json_string(FILE *f, const char *s) { gt_esc_json(f, s); }

void gt_out_md_cell(FILE *f, const char *s, int code)
{
	if (code)
		gt_esc_md_code_cell(f, s);
	else
		gt_esc_md_cell(f, s);
}

/* Notes and headings are the renderers' (render.h), here under output.h's older names for the
 * writers that hold a FILE and a format rather than a document. */
void gt_out_vnote(FILE *f, enum gt_format fmt, const char *format, va_list ap)
{
	const struct gt_renderer *r = gt_renderer_of(fmt);
	if (!r || !r->note)
		return;
	char buf[4096];
	vsnprintf(buf, sizeof buf, format, ap);
	r->note(f, buf);
}

void gt_out_note(FILE *f, enum gt_format fmt, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	gt_out_vnote(f, fmt, format, ap);
	va_end(ap);
}

void gt_out_heading(FILE *f, enum gt_format fmt, int level, const char *title)
{
	const struct gt_renderer *r = gt_renderer_of(fmt);
	if (r && r->heading)
		r->heading(f, level, title);
}

void gt_out_format_double(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* A JSON reader types 1 as an integer and 1.0 as a real; a field that holds a double keeps one
 * type in every record only if an integral value still shows that it is real. */
void gt_out_format_real(char *buf, size_t len, double v)
{
	gt_out_format_double(buf, len, v);
	if (isfinite(v) && strpbrk(buf, ".e") == NULL) {
		size_t n = strlen(buf);
		if (n + 2 < len)
			memcpy(buf + n, ".0", 3);
	}
}

/* ---- JSON ---------------------------------------------------------------------------------- */

void gt_json_init(struct gt_json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->inline_depth = 3;
}

static int json_inline(const struct gt_json *j)
{
	return j->inline_from && j->depth >= j->inline_from;
}

static void json_indent(struct gt_json *j, int depth)
{
	fputc('\n', j->f);
	for (int i = 0; i < depth; i++)
		fputs("  ", j->f);
}

static void json_sep(struct gt_json *j);

/* Writes what must come before a value at the current depth (see json_sep); after a key, nothing. */
static void json_before(struct gt_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth == 0)
		return;
	if (j->object[j->depth]) {
		j->error = GT_ERR_ARG; /* a value in an object needs its key first */
		return;
	}
	json_sep(j);
}

/* The separator before an element: a comma after a sibling, then a line break and indentation
 * (or one space inside an inline container). */
static void json_sep(struct gt_json *j)
{
	int had = j->count[j->depth];
	if (had)
		fputc(',', j->f);
	j->count[j->depth] = 1;
	if (json_inline(j)) {
		if (had)
			fputc(' ', j->f);
	} else {
		json_indent(j, j->depth);
	}
}

static void json_open(struct gt_json *j, int c)
{
	if (j->error)
		return;
	if (j->depth + 1 >= GT_JSON_MAX_DEPTH) {
		j->error = GT_ERR_ARG;
		return;
	}
	json_before(j);
	if (j->error)
		return;
	fputc(c, j->f);
	j->depth++;
	j->count[j->depth] = 0;
	j->object[j->depth] = c == '{';
	if (!j->inline_from && j->depth >= j->inline_depth)
		j->inline_from = j->depth;
}

static void json_close(struct gt_json *j, int c)
{
	if (j->error)
		return;
	if (j->depth == 0 || j->after_key || j->object[j->depth] != (c == '}')) {
		j->error = GT_ERR_ARG;
		return;
	}
	if (j->count[j->depth] && !json_inline(j))
		json_indent(j, j->depth - 1);
	fputc(c, j->f);
	if (j->inline_from == j->depth)
		j->inline_from = 0;
	j->depth--;
}

void gt_json_object_begin(struct gt_json *j) { json_open(j, '{'); }
void gt_json_object_end(struct gt_json *j) { json_close(j, '}'); }
void gt_json_array_begin(struct gt_json *j) { json_open(j, '['); }
void gt_json_array_end(struct gt_json *j) { json_close(j, ']'); }

void gt_json_key(struct gt_json *j, const char *key)
{
	if (j->error)
		return;
	if (j->depth == 0 || j->after_key || !j->object[j->depth]) {
		j->error = GT_ERR_ARG;
		return;
	}
	json_sep(j);
	gt_out_json_string(j->f, key);
	fputs(": ", j->f);
	j->after_key = 1;
}

/* A value already formatted as JSON text (a number, true, false, null). */
void gt_json_raw(struct gt_json *j, const char *text)
{
	if (j->error)
		return;
	json_before(j);
	if (!j->error)
		fputs(text, j->f);
}

void gt_json_str(struct gt_json *j, const char *s)
{
	if (!s) {
		gt_json_raw(j, "null");
		return;
	}
	if (j->error)
		return;
	json_before(j);
	if (!j->error)
		gt_out_json_string(j->f, s);
}

void gt_json_num(struct gt_json *j, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		gt_json_raw(j, "null");
		return;
	}
	gt_out_format_real(buf, sizeof buf, v);
	gt_json_raw(j, buf);
}

void gt_json_u64(struct gt_json *j, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	gt_json_raw(j, buf);
}

void gt_json_i64(struct gt_json *j, int64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	gt_json_raw(j, buf);
}

void gt_json_bool(struct gt_json *j, int v) { gt_json_raw(j, v ? "true" : "false"); }
void gt_json_null(struct gt_json *j) { gt_json_raw(j, "null"); }

void gt_json_trace_state(struct gt_json *j, int complete, uint64_t lost_bytes, int synthetic)
{
	gt_json_key(j, "complete");
	gt_json_bool(j, complete);
	gt_json_key(j, "lost_bytes");
	gt_json_u64(j, lost_bytes);
	gt_json_key(j, "synthetic");
	gt_json_bool(j, synthetic);
}

int gt_json_finish(struct gt_json *j)
{
	if (!j->error && (j->depth != 0 || j->after_key))
		j->error = GT_ERR_ARG;
	fputc('\n', j->f);
	return j->error;
}
