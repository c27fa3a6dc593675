/* render.h: one renderer per output format, the only code that knows how a format is spelled.
 *
 * doc.c hands each part of a document (doc.h) to the renderer of the document's format. A
 * renderer writes what its format carries and leaves the rest out: the human parts (titles,
 * headings, notes, lines) are text's and Markdown's, the facts are JSON's and JSON Lines', the
 * cases JUnit's, and tables everybody's but JUnit's (table.c stores their cells, the renderer
 * prints them). Escaping is the renderer's: its escapers say how a name and a piece of running text
 * are made safe (escape.h).
 */
#ifndef GT_RENDER_H
#define GT_RENDER_H

#include "analyze/output/escape.h"
#include "analyze/output/output.h"

#include <stdio.h>

#define GT_RENDER_HUMAN 0x1u /* titles, headings, notes, words: text and Markdown */
#define GT_RENDER_FACTS 0x2u /* JSON members: JSON and JSON Lines */
#define GT_RENDER_CASES 0x4u /* test cases and properties: JUnit */

struct gt_renderer {
	enum gt_format fmt;
	unsigned carries;
	gt_escaper *prose; /* untrusted running text */
	gt_escaper *name;  /* a name from the trace, standing alone */
	/* Human parts: NULL where the format does not carry them. title and heading are our words. */
	void (*title)(FILE *f, const char *title);
	void (*heading)(FILE *f, int level, const char *title);
	void (*note)(FILE *f, const char *line);                   /* one note, formatted */
	void (*item)(FILE *f, const char *label, const char *text); /* a labelled fact */
	/* Tables (table.h): the header before the first row (or at the end of an empty table), each
	 * row as it ends (not called for text and Markdown, whose rows table.c holds), and the end:
	 * JSON's closing bracket, text's and Markdown's whole table. NULL: nothing at that point. */
	void (*table_start)(struct gt_table *t);
	void (*table_row)(struct gt_table *t);
	void (*table_end)(struct gt_table *t);
};

extern const struct gt_renderer gt_render_text, gt_render_md, gt_render_json, gt_render_jsonl,
	gt_render_csv, gt_render_junit;

/* The renderer of fmt; NULL for a value that names no format. */
const struct gt_renderer *gt_renderer_of(enum gt_format fmt);

#endif
