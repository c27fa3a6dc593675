/* export_sqlite_batch.c: rows of one table inserted many to a statement (export_sqlite_batch.h). */
#include "analyze/export/export_sqlite_batch.h"

#include "analyze/support/failure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gt_sq_prepare_insert(struct sq *s, const char *table, const char *columns, int rows, int *ncols,
                         sqlite3_stmt **st)
{
	size_t len = 512 + (size_t)rows * 2 * MAX_COLS + strlen(columns);
	char *sql = malloc(len);
	if (!sql)
		return GT_ERR_NOMEM;
	int n = snprintf(sql, len, "INSERT INTO %s (", table), cols = 0;
	for (const char *p = strchr(columns, ','); p && n > 0 && (size_t)n < len; p = strchr(p, ',')) {
		p += strspn(p, ", ");
		n += snprintf(sql + n, len - (size_t)n, "%s%.*s", cols ? "," : "", (int)strcspn(p, " "), p);
		cols++;
	}
	for (int r = 0; r < rows && n > 0 && (size_t)n < len; r++)
		for (int c = 0; c < cols && (size_t)n < len; c++)
			n += snprintf(sql + n, len - (size_t)n, "%s%s%s", c ? "," : r ? "),(" : ") VALUES (", "?",
			              r == rows - 1 && c == cols - 1 ? ")" : "");
	int rc = 0;
	if (n <= 0 || (size_t)n >= len || (rows > 1 && cols > MAX_COLS))
		rc = gt_fail(SQ_FAILED, "export: SQLite: table %s: too many columns", table);
	else if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		rc = gt_sq_fail(s, "prepare");
	free(sql);
	*ncols = cols;
	return rc;
}

int gt_sq_batch_open(struct sq *s, const char *table, const char *columns, struct sq_batch **out)
{
	struct sq_batch *b = *out = calloc(1, sizeof *b);
	if (!b)
		return GT_ERR_NOMEM;
	b->table = table;
	int rc = gt_sq_prepare_insert(s, table, columns, 1, &b->ncols, &b->one);
	return rc ? rc : gt_sq_prepare_insert(s, table, columns, BATCH, &b->ncols, &b->many);
}

/* Binds row r of b to st from parameter first + 1 on. */
static int bind_row(const struct sq_batch *b, sqlite3_stmt *st, int r, int first)
{
	int rc = SQLITE_OK;
	unsigned special = (unsigned)b->null[r] | b->text[r];
	for (int c = 0; c < b->ncols; c++) {
		int p = first + c + 1;
		if (!(special >> c & 1))
			rc |= sqlite3_bind_int64(st, p, b->v[r][c].i);
		else if (b->null[r] >> c & 1)
			rc |= sqlite3_bind_null(st, p);
		else
			rc |= sqlite3_bind_text(st, p, b->v[r][c].text, -1, SQLITE_STATIC);
	}
	return rc;
}

/* Binds row r of b to the statement of BATCH rows, skipping each value it holds bound already:
 * most columns of a trace's records (process, device, stream, kinds, flags, NULLs) repeat, and a
 * bind is a call into SQLite that releases the old value and stores the new. */
static int bind_changed(struct sq_batch *b, int r)
{
	int rc = SQLITE_OK, first = r * b->ncols;
	unsigned nul = b->null[r], txt = b->text[r];
	unsigned bnul = b->primed ? b->bound_null[r] : 0, btxt = b->primed ? b->bound_text[r] : 0;
	for (int c = 0; c < b->ncols; c++) {
		unsigned bit = 1u << c;
		int p = first + c + 1;
		if (nul & bit) {
			if (!(bnul & bit))
				rc |= sqlite3_bind_null(b->many, p);
		} else if (txt & bit) {
			if (!(btxt & bit) || b->bound[r][c].text != b->v[r][c].text)
				rc |= sqlite3_bind_text(b->many, p, b->v[r][c].text, -1, SQLITE_STATIC);
		} else if (!b->primed || (bnul | btxt) & bit || b->bound[r][c].i != b->v[r][c].i) {
			rc |= sqlite3_bind_int64(b->many, p, b->v[r][c].i);
		}
		b->bound[r][c] = b->v[r][c];
	}
	b->bound_null[r] = (uint16_t)nul;
	b->bound_text[r] = (uint16_t)txt;
	return rc;
}

int gt_sq_batch_write(struct sq *s, struct sq_batch *b)
{
	int rc = SQLITE_OK;
	for (int r = 0; r < BATCH; r++)
		rc |= bind_changed(b, r);
	b->primed = rc == SQLITE_OK;
	b->n = 0;
	return gt_sq_step(s, b->many, rc, b->table);
}

int gt_sq_batch_flush(struct sq *s, struct sq_batch *b)
{
	for (int r = 0; r < b->n; r++)
		if (gt_sq_step(s, b->one, bind_row(b, b->one, r, 0), b->table) < 0)
			return SQ_FAILED;
	b->n = 0;
	return 0;
}

void gt_sq_batch_free(struct sq_batch *b)
{
	if (!b)
		return;
	sqlite3_finalize(b->one);
	sqlite3_finalize(b->many);
	free(b);
}
