/* render_junit.c: the JUnit renderer, which carries the cases and properties alone (doc.c holds
 * them in a junit.h suite, escaped by escape.h's XML rule, and writes it at the document's close),
 * and the one list of renderers by format. */
#include "analyze/output/render.h"

#include <stddef.h>

const struct gt_renderer gt_render_junit = { GT_FMT_JUNIT, GT_RENDER_CASES, NULL, NULL, NULL, NULL, NULL, NULL,
	                                     NULL, NULL, NULL };

const struct gt_renderer *gt_renderer_of(enum gt_format fmt)
{
	static const struct gt_renderer *const all[] = { &gt_render_text, &gt_render_md, &gt_render_json,
		                                         &gt_render_jsonl, &gt_render_csv, &gt_render_junit };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->fmt == fmt)
			return all[i];
	return NULL;
}
