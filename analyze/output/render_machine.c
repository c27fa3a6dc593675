/* render_machine.c: the renderers of the formats that carry no human parts. JSON and JSON Lines
 * carry the facts (doc.c writes them through output.h's JSON writer, which owns JSON's escaping
 * and commas; JSON Lines ends each top-level value with its line), CSV the tables alone (output.h
 * quotes their cells), JUnit the cases (junit.h, with escape.h's XML rule). None of them prints a
 * title, a heading or a note, which the human formats carry and the fields already say. */
#include "analyze/output/render.h"

#include <stddef.h>

const struct gt_renderer gt_render_json = { GT_FMT_JSON, GT_RENDER_FACTS, NULL, NULL, NULL, NULL, NULL, NULL };
const struct gt_renderer gt_render_jsonl = { GT_FMT_JSONL, GT_RENDER_FACTS, NULL, NULL, NULL, NULL, NULL, NULL };
const struct gt_renderer gt_render_csv = { GT_FMT_CSV, 0, NULL, NULL, NULL, NULL, NULL, NULL };
const struct gt_renderer gt_render_junit = { GT_FMT_JUNIT, GT_RENDER_CASES, NULL, NULL, NULL, NULL, NULL, NULL };

const struct gt_renderer *gt_renderer_of(enum gt_format fmt)
{
	static const struct gt_renderer *const all[] = { &gt_render_text, &gt_render_md, &gt_render_json,
		                                         &gt_render_jsonl, &gt_render_csv, &gt_render_junit };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->fmt == fmt)
			return all[i];
	return NULL;
}
