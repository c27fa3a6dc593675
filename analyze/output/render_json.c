/* render_json.c: the JSON and JSON Lines renderers: the facts (doc.c writes them through
 * output.h's JSON writer, which owns JSON's escaping and commas; JSON Lines ends each top-level
 * value with its line) and the tables, an array of one object a row, written as each row ends.
 * No title, heading or note: the members say the same. */
#include "analyze/output/render.h"

#include "analyze/output/table.h"

#include <stddef.h>

static void table_start(struct gt_table *t) { gt_json_array_begin(t->json); }

/* One row: an object of the visible columns' keys; numbers as the table formatted them. */
static void table_row(struct gt_table *t)
{
	struct gt_json *j = t->json;
	gt_json_object_begin(j);
	for (size_t c = 0; c < t->ncols; c++) {
		if (!t->cols[c].visible)
			continue;
		const struct cell *x = &t->row[c];
		const char *s = gt_cell_text(t, x);
		gt_json_key(j, t->cols[c].key);
		if (x->kind == CELL_STR)
			gt_json_str(j, s);
		else if (x->kind == CELL_NUM)
			gt_json_raw(j, s);
		else
			gt_json_null(j);
	}
	gt_json_object_end(j);
	if (j->error && !t->error)
		t->error = j->error;
}

static void table_end(struct gt_table *t)
{
	gt_json_array_end(t->json);
	if (t->json->error && !t->error)
		t->error = t->json->error;
}

const struct gt_renderer gt_render_json = { GT_FMT_JSON, GT_RENDER_FACTS, NULL, NULL, NULL, NULL, NULL, NULL,
	                                    table_start, table_row, table_end };
const struct gt_renderer gt_render_jsonl = { GT_FMT_JSONL, GT_RENDER_FACTS, NULL, NULL, NULL, NULL, NULL, NULL,
	                                     table_start, table_row, table_end };
