/* output_direct.h: the output layer's own writers beneath the document: a table written straight to
 * a FILE, a note and a heading for people.
 *
 * The document (doc.h) and its renderers are built on these; a command never calls them, since it
 * fills a document, whose renderer holds the FILE and the format (output.h shows how). Only
 * analyze/output/ and the output layer's unit tests include this header
 * (tests/cli/test_layering.sh checks it).
 */
#ifndef GT_OUTPUT_DIRECT_H
#define GT_OUTPUT_DIRECT_H

#include "analyze/output/output.h"

#include <stdarg.h>
#include <stdio.h>

/* A line of notes in a human format: escaped by the text rule in text, a list item escaped by the
 * Markdown rule in Markdown (the leading spaces with which text indents sub-items dropped: a list
 * item starts at its text), nothing in JSON or CSV, which carry the same facts as fields. The
 * whole line is escaped, so a name in it cannot end it or start another. Lines longer than 4 KiB
 * are cut. */
void gt_out_note(FILE *f, enum gt_format fmt, const char *format, ...) __attribute__((format(printf, 3, 4)));
void gt_out_vnote(FILE *f, enum gt_format fmt, const char *format, va_list ap);
/* A section title: "\n## TITLE\n\n" in Markdown (level #s), "\nTITLE\n" in text, nothing else.
 * The title is our words, written by the text rule in both (one line, no controls). */
void gt_out_heading(FILE *f, enum gt_format fmt, int level, const char *title);

/* json is where a JSON table writes (an array of row objects, at the json's current position);
 * it is required for GT_FMT_JSON and ignored otherwise. NULL when out of memory. */
struct gt_table *gt_table_new(enum gt_format fmt, FILE *out, struct gt_json *json);

/* gt_table_new with the n columns added: NULL when out of memory at the start; a column that could
 * not be added is the table's first error, reported by gt_table_finish like any other. */
struct gt_table *gt_table_open(enum gt_format fmt, FILE *out, struct gt_json *json,
                               const struct gt_column *cols, size_t n);

#endif
