/* render_md.c: the Markdown (GFM) renderer: a "#" title, "##" sections, notes as list items,
 * names as code spans, tables in GFM; running text by escape.h's Markdown rule, so that nothing a name holds
 * can open a heading, a list, a table or a block. */
#include "analyze/output/render.h"

#include "analyze/output/escape.h"
#include "analyze/output/table.h"

#include <stdio.h>

static void title(FILE *f, const char *t) { gt_esc_printf(f, gt_esc_text, "# %s\n\n", t); }

/* A title is our words (and perhaps an option's value), not markup to escape; the text rule keeps
 * it on its one line. */
static void heading(FILE *f, int level, const char *t)
{
	gt_esc_printf(f, gt_esc_text, "\n%.*s %s\n\n", level < 1 ? 1 : level > 6 ? 6 : level, "######", t);
}

/* A list item starts at its text: the spaces with which text indents a sub-note are dropped. */
static void note(FILE *f, const char *line)
{
	while (*line == ' ')
		line++;
	fputs("- ", f);
	gt_esc_md(f, line);
	fputc('\n', f);
}

static void item(FILE *f, const char *label, const char *text)
{
	fprintf(f, "- %s%s", label ? label : "", label ? ": " : "");
	gt_esc_md(f, text);
	fputc('\n', f);
}

/* The held rows as a GFM table; cells escaped by the cell rule, GT_COL_CODE ones as code spans. */
static void table_end(struct gt_table *t)
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
				const struct cell x = gt_held_cell(t, r - 2, c);
				int code = x.kind == CELL_STR && (t->cols[c].flags & GT_COL_CODE);
				gt_out_md_cell(t->out, gt_held_text(t, &x), code);
			}
			fputs(" |", t->out);
		}
		fputc('\n', t->out);
	}
}

const struct gt_renderer gt_render_md = {
	GT_FMT_MD, GT_RENDER_HUMAN, gt_esc_md, gt_esc_md_code, title, heading, note, item, NULL, NULL, table_end,
};
