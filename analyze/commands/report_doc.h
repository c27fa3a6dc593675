/* report_doc.h: `gpuanalyze report`'s outputs: the Markdown report (a document, doc.h) and the two
 * SVG figures written beside it, from what the report engine computed (engines/report.h).
 *
 * Three files, one job each: report_figures.c writes the figures (REPORT-kernels.svg, the
 * per-kernel durations; REPORT-split.svg, each unit's wall time as kernel time, other GPU work
 * and GPU idle); report_doc.c fills the report's first sections (title, hardware, toolkit, clock
 * state, sizes, method, correctness) and runs the whole; report_result.c the rest (result,
 * compared with the baseline, limitations). Everything from the trace (names, metadata, the NVTX
 * range's name) goes into the document through gt_doc_prose or gt_doc_name, escaped there; our
 * own words are written as they are.
 */
#ifndef GT_REPORT_DOC_H
#define GT_REPORT_DOC_H

#include "analyze/engines/report.h"
#include "analyze/output/doc.h"

#include <stddef.h>

/* Where the figures go. */
struct gt_report_figure_options {
	const char *prefix;       /* path prefix ("out/REPORT" -> out/REPORT-kernels.svg), NULL: no
	                           * figures */
	const char *link_prefix;  /* how the report names them ("REPORT" -> REPORT-kernels.svg; NULL:
	                           * the prefix) */
	const char *no_figures;   /* with prefix NULL: why there are none, for the report's note
	                           * (NULL: the report went to standard output) */
};

/* What the report came to, for a caller that wants more than the document. */
struct gt_report_result {
	int correctness;          /* 1 passed, 0 failed, -1 not checked */
	int compared;             /* a baseline comparison was made */
	size_t slower;            /* kernels and unit quantities SLOWER than the baseline */
	int figures;              /* figures written */
};

/* Computes the report of the trace at path (gt_report_run), writes its figures and fills d (a
 * Markdown document) with the report. 0; a negative GT_ERR_* with the words held (failure.h)
 * for an input error of the engines (an unreadable trace, baseline or reference library);
 * GT_EXIT_USAGE after reporting a figure that cannot be written; GT_ERR_NOMEM, unreported.
 * Nothing is filled when it fails. */
int gt_report_doc(struct gt_doc *d, const char *path, const struct gt_report_options *o,
                  const struct gt_report_figure_options *fo, struct gt_report_result *res);

/* ---- between the report's files --------------------------------------------------------------- */

/* The figures written: their link targets ("" when not written), or a note saying why none were. */
struct gt_report_figures {
	char kernels[1024], split[1024], roofline[1024];
	char roofline_note[128];  /* why there is no roofline where the trace has counters */
	char note[256];
};

/* report_figures.c: writes the figures of x as fo says into f. 0; GT_EXIT_USAGE after reporting
 * a figure that cannot be written; GT_ERR_NOMEM. */
int gt_report_figures_write(const struct gt_report *x, const struct gt_report_figure_options *fo,
                            struct gt_report_figures *f);

/* report_result.c: the sections Result, Compared with the baseline and Limitations. */
void gt_report_doc_result(struct gt_doc *d, const struct gt_report *x, const struct gt_report_figures *f);
void gt_report_doc_compared(struct gt_doc *d, const struct gt_report *x);
void gt_report_doc_limitations(struct gt_doc *d, const struct gt_report *x);

/* report_doc.c: what a unit of work is, in our words (the NVTX range's name cut at 100 bytes and
 * unescaped: for a figure's axis, which escapes it); the same into d, the range's name escaped. */
void gt_report_unit_words(const struct gt_split *s, char *buf, size_t len);
void gt_report_doc_units(struct gt_doc *d, const struct gt_split *s);
/* A name from the trace as a code span; "(none)" for a missing or empty one. */
void gt_report_doc_code(struct gt_doc *d, const char *s);
/* "1.234 ms", "532.704 us", "832 ns", "n/a": a duration given in ns, with three decimals. */
const char *gt_report_dur(double ns, char *buf, size_t len);

#endif
