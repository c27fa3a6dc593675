/* table.h: a table's cells, as the renderers read them (output.h's gt_table_* fill them).
 *
 * Internal to analyze/output/: table.c stores the cells of the row being filled (and, for the
 * human formats, every row until the end, to align the columns); each renderer (render.h) prints
 * them in its format: render_text.c aligned, render_md.c as a GFM table, render_csv.c a line a
 * row, render_json.c an object a row.
 */
#ifndef GT_TABLE_H
#define GT_TABLE_H

#include "analyze/output/output.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cell_kind { CELL_EMPTY = 0, CELL_NA, CELL_STR, CELL_NUM };

/* 16 bytes: a text table holds one per cell of every row until its end, and a hostile trace may
 * give a million rows. */
struct cell {
	size_t off;
	uint32_t len;
	int32_t kind;
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

struct gt_renderer;

struct gt_table {
	enum gt_format fmt;
	const struct gt_renderer *r; /* who prints it (render.h) */
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
	/* text and md: the rows held until finish, 8 bytes a cell (a hostile trace may give a
	 * million rows): the cell's offset in heldtext << 2 | its kind; its text ends where the next
	 * cell's begins, less the NUL (gt_held_cell) */
	uint64_t *held;       /* rows * ncols */
	size_t capheld;
	struct arena heldtext;
	char *empty_note;     /* text and md: said instead of a table without rows */
	int error;
};

/* The text of a cell of the row being filled, or of a held row (text and Markdown). */
static inline const char *gt_cell_text(const struct gt_table *t, const struct cell *x)
{
	return t->rowtext.p ? t->rowtext.p + x->off : "";
}

static inline const char *gt_held_text(const struct gt_table *t, const struct cell *x)
{
	return t->heldtext.p + x->off;
}

/* Cell c of held row r. */
static inline struct cell gt_held_cell(const struct gt_table *t, size_t r, size_t c)
{
	size_t i = r * t->ncols + c;
	size_t off = (size_t)(t->held[i] >> 2);
	size_t end = i + 1 < t->rows * t->ncols ? (size_t)(t->held[i + 1] >> 2) : t->heldtext.len;
	return (struct cell){ off, (uint32_t)(end - off - 1), (int32_t)(t->held[i] & 3) };
}

#endif
