/* render_text.c: the text renderer, for a terminal: notes as lines, headings as a line after a
 * blank one, no title (the first note says what the output is about); every untrusted byte by
 * escape.h's text rule, so a name can neither move the cursor nor start a line. */
#include "analyze/output/render.h"

#include "analyze/output/escape.h"

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

const struct gt_renderer gt_render_text = {
	GT_FMT_TEXT, GT_RENDER_HUMAN, gt_esc_text, gt_esc_text, NULL, heading, note, item,
};
