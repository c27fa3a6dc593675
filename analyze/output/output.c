/* output.c: tables in text, Markdown, JSON and CSV, and the escaping each format needs.
 *
 * A table keeps the row being filled in one byte arena (cells are offsets into it), so filling a
 * cell costs no allocation: a dump streams millions of rows through here. CSV and JSON rows go out
 * when they end; text and Markdown rows are copied into a second arena until gt_table_finish()
 * knows every column's width.
 */
#include "analyze/output/output.h"

#include "analyze/output/escape.h"
#include "analyze/output/render.h"
#include "gputrace.h"

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
static void json_raw(struct gt_json *j, const char *text)
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
		json_raw(j, "null");
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
		json_raw(j, "null");
		return;
	}
	gt_out_format_real(buf, sizeof buf, v);
	json_raw(j, buf);
}

void gt_json_u64(struct gt_json *j, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	json_raw(j, buf);
}

void gt_json_i64(struct gt_json *j, int64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	json_raw(j, buf);
}

void gt_json_bool(struct gt_json *j, int v) { json_raw(j, v ? "true" : "false"); }
void gt_json_null(struct gt_json *j) { json_raw(j, "null"); }

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

/* ---- tables -------------------------------------------------------------------------------- */

enum cell_kind { CELL_EMPTY = 0, CELL_NA, CELL_STR, CELL_NUM };

struct cell {
	size_t off, len;
	int kind;
};

struct column {
	char *key, *title;
	unsigned flags;
	int visible;
};

struct arena {
	char *p;
	size_t len, cap;
};

struct gt_table {
	enum gt_format fmt;
	FILE *out;
	struct gt_json *json;
	struct column *cols;
	size_t ncols, capcols;
	struct cell *row;     /* ncols cells of the row being filled */
	struct arena rowtext; /* their bytes */
	size_t cur;           /* next column to fill */
	int filling;          /* a cell of the current row was set */
	int started;          /* CSV header / JSON array written */
	size_t rows;
	/* text and md: the rows held until finish */
	struct cell *held;    /* rows * ncols */
	size_t capheld;
	struct arena heldtext;
	char *empty_note;     /* text and md: said instead of a table without rows */
	int error;
};

static int human(const struct gt_table *t) { return t->fmt == GT_FMT_TEXT || t->fmt == GT_FMT_MD; }

static int arena_put(struct arena *a, const char *s, size_t n, size_t *off)
{
	if (a->len + n + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 256;
		while (a->len + n + 1 > cap)
			cap *= 2;
		char *p = realloc(a->p, cap);
		if (!p)
			return GT_ERR_NOMEM;
		a->p = p;
		a->cap = cap;
	}
	memcpy(a->p + a->len, s, n);
	a->p[a->len + n] = '\0';
	*off = a->len;
	a->len += n + 1;
	return 0;
}

struct gt_table *gt_table_new(enum gt_format fmt, FILE *out, struct gt_json *json)
{
	if (fmt == GT_FMT_JSON && !json)
		return NULL;
	struct gt_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->fmt = fmt;
	t->out = out;
	t->json = json;
	return t;
}

void gt_table_free(struct gt_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->cols[i].key);
		free(t->cols[i].title);
	}
	free(t->cols);
	free(t->row);
	free(t->rowtext.p);
	free(t->held);
	free(t->heldtext.p);
	free(t->empty_note);
	free(t);
}

int gt_table_column(struct gt_table *t, const char *key, const char *title, unsigned flags)
{
	if (t->error)
		return t->error;
	if (t->filling || t->rows || t->started)
		return t->error = GT_ERR_STATE;
	if (t->ncols == t->capcols) {
		size_t cap = t->capcols ? t->capcols * 2 : 16;
		struct column *c = realloc(t->cols, cap * sizeof *c);
		struct cell *r = realloc(t->row, cap * sizeof *r);
		if (c)
			t->cols = c;
		if (r)
			t->row = r;
		if (!c || !r)
			return t->error = GT_ERR_NOMEM;
		t->capcols = cap;
	}
	struct column *c = &t->cols[t->ncols];
	c->key = strdup(key);
	c->title = strdup(title ? title : key);
	if (!c->key || !c->title) {
		free(c->key);
		free(c->title);
		return t->error = GT_ERR_NOMEM;
	}
	c->flags = flags;
	c->visible = human(t) ? !(flags & GT_COL_MACHINE) : !(flags & GT_COL_HUMAN);
	t->row[t->ncols] = (struct cell){ 0, 0, CELL_EMPTY };
	t->ncols++;
	return 0;
}

int gt_table_columns(struct gt_table *t, const struct gt_column *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gt_table_column(t, cols[i].key, cols[i].title, cols[i].flags);
	return t->error;
}

struct gt_table *gt_table_open(enum gt_format fmt, FILE *out, struct gt_json *json,
                               const struct gt_column *cols, size_t n)
{
	struct gt_table *t = gt_table_new(fmt, out, json);
	if (t)
		gt_table_columns(t, cols, n);
	return t;
}

/* Stores the next cell of the row; ignored when its column is hidden in this format. */
static void put(struct gt_table *t, int kind, const char *s, size_t n)
{
	if (t->error)
		return;
	if (t->cur >= t->ncols) {
		t->error = GT_ERR_ARG;
		return;
	}
	size_t c = t->cur++;
	t->filling = 1;
	if (!t->cols[c].visible)
		return;
	size_t off = 0;
	if (arena_put(&t->rowtext, s ? s : "", s ? n : 0, &off)) {
		t->error = GT_ERR_NOMEM;
		return;
	}
	t->row[c] = (struct cell){ off, s ? n : 0, kind };
}

/* Text cells are escaped as they are stored, so that the widths are those of what is printed;
 * the other formats escape as they print. */
void gt_table_str(struct gt_table *t, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (!s || t->fmt != GT_FMT_TEXT || gt_esc_text_plain(s, n)) {
		put(t, s ? CELL_STR : CELL_EMPTY, s, n);
		return;
	}
	char *e = gt_esc_dup(gt_esc_text, s);
	if (!e) {
		t->error = GT_ERR_NOMEM;
		return;
	}
	put(t, CELL_STR, e, strlen(e));
	free(e);
}

void gt_table_u64(struct gt_table *t, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	put(t, CELL_NUM, buf, (size_t)n);
}

void gt_table_u64_as(struct gt_table *t, uint64_t machine, double hum, int decimals)
{
	if (human(t))
		gt_table_num_as(t, NAN, hum, decimals);
	else
		gt_table_u64(t, machine);
}

void gt_table_i64(struct gt_table *t, int64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
	put(t, CELL_NUM, buf, (size_t)n);
}

void gt_table_num_as(struct gt_table *t, double machine, double hum, int decimals)
{
	char buf[64];
	if (human(t)) {
		if (isnan(hum)) {
			put(t, CELL_NA, "n/a", 3);
			return;
		}
		int n = snprintf(buf, sizeof buf, "%.*f", decimals, hum);
		put(t, CELL_NUM, buf, (size_t)n);
		return;
	}
	if (!isfinite(machine)) {
		put(t, CELL_NA, NULL, 0);
		return;
	}
	/* ".0" on an integral value in CSV as in JSON: a real column reads as real in every file
	 * (DuckDB, pandas and sqlite3 type a column by its values). */
	gt_out_format_real(buf, sizeof buf, machine);
	put(t, CELL_NUM, buf, strlen(buf));
}

void gt_table_num(struct gt_table *t, double v, int decimals) { gt_table_num_as(t, v, v, decimals); }

void gt_table_null(struct gt_table *t)
{
	if (human(t))
		put(t, CELL_NA, "n/a", 3);
	else
		put(t, CELL_NA, NULL, 0);
}

size_t gt_table_rows(const struct gt_table *t) { return t->rows; }

void gt_table_when_empty(struct gt_table *t, const char *note)
{
	free(t->empty_note);
	t->empty_note = strdup(note);
	if (!t->empty_note && !t->error)
		t->error = GT_ERR_NOMEM;
}

/* One CSV line of the visible columns: their keys (the header), or the cells of the row. */
static void csv_line(struct gt_table *t, int header)
{
	int first = 1;
	for (size_t c = 0; c < t->ncols; c++) {
		if (!t->cols[c].visible)
			continue;
		if (!first)
			fputc(',', t->out);
		first = 0;
		if (header) {
			gt_out_csv_field(t->out, t->cols[c].key);
			continue;
		}
		const struct cell *x = &t->row[c];
		const char *s = t->rowtext.p ? t->rowtext.p + x->off : "";
		if (x->kind == CELL_STR)
			gt_out_csv_field(t->out, s);
		else if (x->kind == CELL_NUM)
			fputs(s, t->out);
	}
	fputc('\n', t->out);
}

static void start(struct gt_table *t)
{
	if (t->started)
		return;
	t->started = 1;
	if (t->fmt == GT_FMT_CSV)
		csv_line(t, 1);
	else if (t->fmt == GT_FMT_JSON)
		gt_json_array_begin(t->json);
}

static void emit_json(struct gt_table *t)
{
	struct gt_json *j = t->json;
	gt_json_object_begin(j);
	for (size_t c = 0; c < t->ncols; c++) {
		if (!t->cols[c].visible)
			continue;
		const struct cell *x = &t->row[c];
		const char *s = t->rowtext.p ? t->rowtext.p + x->off : "";
		gt_json_key(j, t->cols[c].key);
		if (x->kind == CELL_STR)
			gt_json_str(j, s);
		else if (x->kind == CELL_NUM)
			json_raw(j, s);
		else
			gt_json_null(j);
	}
	gt_json_object_end(j);
	if (j->error && !t->error)
		t->error = j->error;
}

static int hold_row(struct gt_table *t)
{
	size_t need = (t->rows + 1) * t->ncols;
	if (need > t->capheld) {
		size_t cap = t->capheld ? t->capheld * 2 : t->ncols * 16;
		while (cap < need)
			cap *= 2;
		struct cell *h = realloc(t->held, cap * sizeof *h);
		if (!h)
			return GT_ERR_NOMEM;
		t->held = h;
		t->capheld = cap;
	}
	struct cell *dst = t->held + t->rows * t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct cell *x = &t->row[c];
		const char *s = t->rowtext.p ? t->rowtext.p + x->off : "";
		dst[c] = *x;
		if (arena_put(&t->heldtext, s, x->len, &dst[c].off))
			return GT_ERR_NOMEM;
	}
	return 0;
}

int gt_table_end_row(struct gt_table *t)
{
	if (t->error)
		return t->error;
	start(t);
	if (t->fmt == GT_FMT_CSV)
		csv_line(t, 0);
	else if (t->fmt == GT_FMT_JSON)
		emit_json(t);
	else if (human(t) && hold_row(t)) /* a format without tables (JUnit) keeps nothing */
		t->error = GT_ERR_NOMEM;
	t->rows++;
	for (size_t c = 0; c < t->ncols; c++)
		t->row[c] = (struct cell){ 0, 0, CELL_EMPTY };
	t->rowtext.len = 0;
	t->cur = 0;
	t->filling = 0;
	return t->error;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

static void print_text(struct gt_table *t)
{
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
	if (!w) {
		t->error = GT_ERR_NOMEM;
		return;
	}
	size_t last = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		if (!t->cols[c].visible)
			continue;
		last = c;
		w[c] = width(t->cols[c].title, strlen(t->cols[c].title));
		for (size_t r = 0; r < t->rows; r++) {
			const struct cell *x = &t->held[r * t->ncols + c];
			size_t cw = width(t->heldtext.p + x->off, x->len);
			if (cw > w[c])
				w[c] = cw;
		}
	}
	/* Header, a rule, then the rows; the last column is not padded when it is left-aligned. */
	for (size_t r = 0; r < t->rows + 2; r++) {
		int first = 1;
		for (size_t c = 0; c < t->ncols; c++) {
			if (!t->cols[c].visible)
				continue;
			const char *s;
			size_t n;
			if (r == 0) {
				s = t->cols[c].title;
				n = strlen(s);
			} else if (r == 1) {
				s = NULL;
				n = w[c];
			} else {
				const struct cell *x = &t->held[(r - 2) * t->ncols + c];
				s = t->heldtext.p + x->off;
				n = x->len;
			}
			if (!first)
				fputs("  ", t->out);
			first = 0;
			size_t cw = s ? width(s, n) : n;
			int left = (t->cols[c].flags & GT_COL_LEFT) != 0;
			if (!left)
				pad(t->out, w[c] - cw);
			if (s)
				fwrite(s, 1, n, t->out);
			else
				for (size_t i = 0; i < n; i++)
					fputc('-', t->out);
			if (left && c != last)
				pad(t->out, w[c] - cw);
		}
		fputc('\n', t->out);
	}
	free(w);
}

static void print_md(struct gt_table *t)
{
	for (size_t r = 0; r < t->rows + 2; r++) {
		fputc('|', t->out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (!t->cols[c].visible)
				continue;
			int left = (t->cols[c].flags & GT_COL_LEFT) != 0;
			fputc(' ', t->out);
			if (r == 0) {
				gt_out_md_cell(t->out, t->cols[c].title, 0);
			} else if (r == 1) {
				fputs(left ? ":---" : "---:", t->out);
			} else {
				const struct cell *x = &t->held[(r - 2) * t->ncols + c];
				int code = x->kind == CELL_STR && (t->cols[c].flags & GT_COL_CODE);
				gt_out_md_cell(t->out, t->heldtext.p + x->off, code);
			}
			fputs(" |", t->out);
		}
		fputc('\n', t->out);
	}
}

int gt_table_finish(struct gt_table *t)
{
	if (t->error)
		return t->error;
	if (t->filling)
		gt_table_end_row(t);
	if (human(t) && !t->rows && t->empty_note) {
		gt_out_note(t->out, t->fmt, "%s", t->empty_note);
		return 0;
	}
	start(t);
	if (t->fmt == GT_FMT_JSON) {
		gt_json_array_end(t->json);
		if (t->json->error)
			t->error = t->json->error;
	} else if (t->fmt == GT_FMT_TEXT) {
		print_text(t);
	} else if (t->fmt == GT_FMT_MD) {
		print_md(t);
	}
	return t->error;
}

int gt_table_close(struct gt_table *t)
{
	int rc = gt_table_finish(t);
	gt_table_free(t);
	return rc;
}
