/* render_text.c: the text renderer, for a terminal: notes as lines, headings as a line after a
 * blank one, no title (the first note says what the output is about), tables aligned in columns;
 * every untrusted byte by escape.h's text rule, so a name can neither move the cursor nor start a
 * line. */
#include "analyze/output/render.h"

#include "analyze/output/escape.h"
#include "analyze/output/table.h"
#include "traces/gputrace.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h>

static void heading(FILE *f, int level, const char *title)
{
	(void)level;
	gt_esc_printf(f, gt_esc_text, "\n%s\n", title);
}

static void note(FILE *f, const char *line)
{
	gt_esc_text(f, line);
	fputc('\n', f);
}

static void item(FILE *f, const char *label, const char *text)
{
	if (label)
		fprintf(f, "%s: ", label);
	gt_esc_text(f, text);
	fputc('\n', f);
}

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

/* The held rows, aligned: header, a rule of dashes, the rows (cells were escaped as stored). */
static void table_end(struct gt_table *t)
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
			const struct cell x = gt_held_cell(t, r, c);
			size_t cw = width(gt_held_text(t, &x), x.len);
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
				const struct cell x = gt_held_cell(t, r - 2, c);
				s = gt_held_text(t, &x);
				n = x.len;
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

const struct gt_renderer gt_render_text = {
	GT_FMT_TEXT, GT_RENDER_HUMAN, gt_esc_text, gt_esc_text, NULL, heading, note, item, NULL, NULL, table_end,
};
