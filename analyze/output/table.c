/* table.c: a table's cells (output.h's gt_table_*), stored as they are set and handed to the
 * renderer of the table's format (render.h) as each row ends, or, for text and Markdown, held
 * until the end so that their renderers can align the columns (table.h). The values are chosen
 * here: human ones (rounded, "n/a") for the human formats, machine ones (exact, shortest
 * round-trip doubles, null) for the others. */
#include "analyze/output/table.h"

#include "analyze/output/escape.h"
#include "analyze/output/output_direct.h"
#include "analyze/output/render.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Text and Markdown: human values, rows held until the end to align them. */
static int human(const struct gt_table *t) { return t->r && (t->r->carries & GT_RENDER_HUMAN); }

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
	t->r = gt_renderer_of(fmt);
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
	if (n > UINT32_MAX) { /* no cell of a name (at most 1 MiB) or a number comes near */
		t->error = GT_ERR_TOO_LARGE;
		return;
	}
	if (arena_put(&t->rowtext, s ? s : "", s ? n : 0, &off)) {
		t->error = GT_ERR_NOMEM;
		return;
	}
	t->row[c] = (struct cell){ off, s ? (uint32_t)n : 0, kind };
}

/* Text cells are escaped as they are stored, so that the widths are those of what is printed;
 * the other formats escape as they print. */
void gt_table_str(struct gt_table *t, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (!s || t->fmt != GT_FMT_TEXT || gt_esc_text_plain(s, n)) { /* text: escaped now (see above) */
		put(t, s ? CELL_STR : CELL_EMPTY, s, n);
		return;
	}
	char *e = gt_esc_dup(t->r->prose, s);
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

void gt_table_num_or(struct gt_table *t, double machine, double hum, int decimals, const char *absent)
{
	if (human(t) && isnan(hum)) {
		put(t, CELL_NA, absent, strlen(absent));
		return;
	}
	gt_table_num_as(t, machine, hum, decimals);
}

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

static int hold_row(struct gt_table *t)
{
	size_t need = (t->rows + 1) * t->ncols;
	if (need > t->capheld) {
		size_t cap = t->capheld ? t->capheld * 2 : t->ncols * 16;
		while (cap < need)
			cap *= 2;
		uint64_t *h = realloc(t->held, cap * sizeof *h);
		if (!h)
			return GT_ERR_NOMEM;
		t->held = h;
		t->capheld = cap;
	}
	uint64_t *dst = t->held + t->rows * t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct cell *x = &t->row[c];
		const char *s = gt_cell_text(t, x);
		size_t off;
		if (arena_put(&t->heldtext, s, x->len, &off))
			return GT_ERR_NOMEM;
		dst[c] = (uint64_t)off << 2 | (uint64_t)(x->kind & 3);
	}
	return 0;
}

/* The header, once: before the first row, or at the end of a table without rows. */
static void start(struct gt_table *t)
{
	if (t->started)
		return;
	t->started = 1;
	if (t->r && t->r->table_start)
		t->r->table_start(t);
}

int gt_table_end_row(struct gt_table *t)
{
	if (t->error)
		return t->error;
	start(t);
	if (human(t)) {
		if (hold_row(t))
			t->error = GT_ERR_NOMEM;
	} else if (t->r && t->r->table_row) { /* a format without tables (JUnit) has none */
		t->r->table_row(t);
	}
	t->rows++;
	for (size_t c = 0; c < t->ncols; c++)
		t->row[c] = (struct cell){ 0, 0, CELL_EMPTY };
	t->rowtext.len = 0;
	t->cur = 0;
	t->filling = 0;
	return t->error;
}

/* Display width: UTF-8 continuation bytes take no column. */

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
	if (t->r && t->r->table_end)
		t->r->table_end(t);
	return t->error;
}

int gt_table_close(struct gt_table *t)
{
	int rc = gt_table_finish(t);
	gt_table_free(t);
	return rc;
}
