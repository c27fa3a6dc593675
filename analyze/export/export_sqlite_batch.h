/* export_sqlite_batch.h: rows of one table inserted many to a statement (not a public header).
 *
 * SQLite's cost per statement (a cursor opened and closed, a statement journal, the program's start
 * and end) is paid once per BATCH rows rather than per row: rows are kept here, BATCH at a time,
 * and bound to one INSERT of BATCH rows; the rows left at the end go one by one. A table's first
 * column is its row id, which the INSERT leaves to SQLite: it gives 1, 2, ... in the order rows
 * come, appending on its fast path with no look-up of an id given. The other values are integers,
 * NULLs, or static texts (the schema's names: a text at an address bound before is taken to be
 * the same text). The put functions are inline: they run once per value of most of a trace's
 * records.
 */
#ifndef GT_EXPORT_SQLITE_BATCH_H
#define GT_EXPORT_SQLITE_BATCH_H

#include "analyze/export/export_sqlite_internal.h"

#include <stdint.h>

#define BATCH 64
#define MAX_COLS 16

struct sq_batch {
	sqlite3_stmt *many, *one;
	const char *table;
	int ncols, n;            /* ncols: the columns after the row id */
	union sq_value {
		int64_t i;
		const char *text;
	} v[BATCH][MAX_COLS];
	uint16_t null[BATCH];    /* bit c: column c is NULL */
	uint16_t text[BATCH];    /* bit c: column c is a text */
	/* What the statement of BATCH rows holds bound (SQLite keeps bindings from one execution to
	 * the next), once primed: a value bound again unchanged is skipped. */
	int primed;
	union sq_value bound[BATCH][MAX_COLS];
	uint16_t bound_null[BATCH], bound_text[BATCH];
};

/* A batch for table, whose column definitions ("id INTEGER PRIMARY KEY, start_ns INTEGER, ...", the
 * first the row id) are columns: its statements prepared; 0, or a negative GT_ERR_* (held). */
int gt_sq_batch_open(struct sq *s, const char *table, const char *columns, struct sq_batch **out);
/* Writes the rows kept: 0, or SQ_FAILED (held). */
int gt_sq_batch_flush(struct sq *s, struct sq_batch *b);
/* Writes the full batch: 1, or SQ_FAILED (held). */
int gt_sq_batch_write(struct sq *s, struct sq_batch *b);
void gt_sq_batch_free(struct sq_batch *b);
/* "INSERT INTO table (columns after the first) VALUES (?, ...), ..." of rows rows, prepared into
 * *st, its columns' count in *ncols: 0, or a negative GT_ERR_* (held). */
int gt_sq_prepare_insert(struct sq *s, const char *table, const char *columns, int rows, int *ncols,
                         sqlite3_stmt **st);

/* Starts the next row: every column a number until put otherwise. */
static inline void gt_sq_row_begin(struct sq_batch *b)
{
	b->null[b->n] = 0;
	b->text[b->n] = 0;
}

static inline void gt_sq_put(struct sq_batch *b, int c, int64_t v) { b->v[b->n][c].i = v; }
static inline void gt_sq_put_null(struct sq_batch *b, int c) { b->null[b->n] |= (uint16_t)(1u << c); }

/* text, static (see above); NULL stores NULL. */
static inline void gt_sq_put_text(struct sq_batch *b, int c, const char *text)
{
	if (!text) {
		gt_sq_put_null(b, c);
		return;
	}
	b->v[b->n][c].text = text;
	b->text[b->n] |= (uint16_t)(1u << c);
}

/* v, or NULL past INT64_MAX (counted as out of range). */
static inline void gt_sq_put_u(struct sq *s, struct sq_batch *b, int c, uint64_t v)
{
	if (v > (uint64_t)INT64_MAX) {
		s->out_of_range++;
		gt_sq_put_null(b, c);
	} else {
		gt_sq_put(b, c, (int64_t)v);
	}
}

/* The row just put is complete: 1, or SQ_FAILED when the batch it completes failed. */
static inline int gt_sq_row_done(struct sq *s, struct sq_batch *b)
{
	return ++b->n < BATCH ? 1 : gt_sq_batch_write(s, b);
}

#endif
