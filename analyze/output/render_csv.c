/* render_csv.c: the CSV renderer: the tables alone, a header line of the column keys and a line a
 * row as it ends (RFC 4180 quoting and formula neutralisation by escape.h's CSV rule, numbers as
 * the table wrote them). Notes, headings and facts are not CSV's: the columns say what they do. */
#include "analyze/output/render.h"

#include "analyze/output/table.h"

#include <stddef.h>
#include <stdio.h>

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
		const char *s = gt_cell_text(t, x);
		if (x->kind == CELL_STR)
			gt_out_csv_field(t->out, s);
		else if (x->kind == CELL_NUM)
			fputs(s, t->out);
	}
	fputc('\n', t->out);
}

static void table_start(struct gt_table *t) { csv_line(t, 1); }
static void table_row(struct gt_table *t) { csv_line(t, 0); }

const struct gt_renderer gt_render_csv = { GT_FMT_CSV, 0, NULL, NULL, NULL, NULL, NULL, NULL,
	                                   table_start, table_row, NULL };
