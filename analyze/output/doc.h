/* doc.h: the document a command fills, written once for every format.
 *
 * A command says what it found: facts for machines (JSON members), notes, headings and lines for
 * people (text and Markdown), and tables for both. It never holds the output FILE, never escapes,
 * never writes a byte itself and never asks how a format is spelled: the document's renderer for
 * the format chosen with --format does all of that (render.h: one renderer per format), so a new
 * command cannot forget to escape a name, and a new format is one renderer, not a change to every
 * command. What a format does not carry, its renderer drops: facts in text, notes in JSON, all
 * but the table in CSV. The runner (cmd_output.h) opens the document on the output named by -o,
 * hands it to the command's printer, closes it and checks the write.
 *
 * The document is written as it is filled, not held: a dump of ten million records is a table of
 * ten million rows, and JSON and CSV rows leave as they end (text and Markdown tables are held
 * until they close, to align their columns). So a command fills it in one order for all formats:
 * the facts and notes of one format interleave freely with those of the other.
 *
 * A command may ask gt_doc_format() to choose WHAT to say (a CSV-only table, a JSON Lines
 * stream); how it is written stays the renderer's.
 */
#ifndef GT_DOC_H
#define GT_DOC_H

#include "analyze/output/junit.h"
#include "analyze/output/output.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

struct gt_doc;

/* ---- the runner's: opening and closing ------------------------------------------------------- */
/* A document in fmt on out (which stays the caller's to close). NULL when out of memory. */
struct gt_doc *gt_doc_open(enum gt_format fmt, FILE *out);
/* Ends the document (JSON: the final newline, after checking that every container was closed) and
 * frees it. Returns 0, or the first error the document met (a misuse of the facts: GT_ERR_ARG). */
int gt_doc_close(struct gt_doc *d);

enum gt_format gt_doc_format(const struct gt_doc *d);
/* Whether the document is for people (text, Markdown): for what a command leaves out of them (the
 * rows past --units, a table that JSON states as members) and what it writes only for them. */
int gt_doc_for_people(const struct gt_doc *d);

/* A document written into memory instead of an output, for a part that another document carries
 * whole as a string (a JUnit case's body, written in the text layout by the calls that write the
 * text output). NULL when out of memory. */
struct gt_doc *gt_doc_open_string(enum gt_format fmt);
/* Closes a document of gt_doc_open_string as gt_doc_close does and returns what it wrote
 * (malloc'd and NUL-terminated; the caller frees it), or NULL with *rc the error (GT_ERR_NOMEM
 * when memory ran out while writing). gt_doc_close on such a document drops what it wrote. */
char *gt_doc_close_string(struct gt_doc *d, int *rc);

/* Stops the document where it is, for a stream cut short by an error already reported (an
 * unreadable trace): the close adds nothing (JSON: no closing of what is open, no final newline)
 * and reports no misuse. Nothing may be filled after it. */
void gt_doc_cut(struct gt_doc *d);

/* ---- for people: text and Markdown; nothing in JSON, JSON Lines or CSV ------------------------ */
/* The document's title: Markdown "# TITLE" and a blank line; nothing in text, whose output starts
 * with its first note. TITLE is our words (printf; %s arguments are ours too). */
void gt_doc_title(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* A section: Markdown "\n## TITLE\n\n" (level #s), text "\nTITLE\n" (output.h's gt_out_heading). */
void gt_doc_heading(struct gt_doc *d, int level, const char *title);
/* One note: a list item in Markdown, a line in text; the whole line escaped, names included
 * (output.h's gt_out_note). */
void gt_doc_note(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
void gt_doc_vnote(struct gt_doc *d, const char *format, va_list ap);

/* A line built in pieces, for the layouts notes cannot give (an indented block, a heading that
 * holds a name). Each piece is appended to the current line; "\n" in our words ends it. */
/* Our words, as they are, in both human formats (printf; %s arguments must be ours). */
void gt_doc_words(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Our words where the two human formats differ: md's in Markdown, text's in text (NULL: none). */
void gt_doc_words_by_format(struct gt_doc *d, const char *md, const char *text);
/* Our format with untrusted %s arguments: each escaped by the format's rule for running text
 * (escape.h: gt_esc_text; in Markdown gt_esc_md). */
void gt_doc_printf(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The same, the %s arguments escaped by the text rule in both formats (a line that is a code
 * block or a heading in Markdown, where the prose rule would show its backslashes). */
void gt_doc_printf_plain(struct gt_doc *d, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* A name from the trace: a code span in Markdown, the text rule in text. */
void gt_doc_name(struct gt_doc *d, const char *name);
/* Untrusted running text, escaped for the format (text rule; Markdown prose rule). */
void gt_doc_prose(struct gt_doc *d, const char *s);
/* A note's text made of a label of ours and untrusted text, in the way findings list their
 * facts: Markdown "- LABEL: TEXT", text "LABEL: TEXT" (no label: the text alone). */
void gt_doc_item(struct gt_doc *d, const char *label, const char *text);

/* ---- for machines: JSON (facts); nothing in text, Markdown or CSV ---------------------------- */
/* Containers and members. key names the member in an object; it is NULL for an element of an
 * array and for the document's top-level value. Misuse (a key in an array, a container closed
 * that is not open, too deep) is remembered and returned by gt_doc_close. */
void gt_doc_object(struct gt_doc *d, const char *key);
void gt_doc_array(struct gt_doc *d, const char *key);
void gt_doc_end(struct gt_doc *d); /* closes the innermost open object or array */
void gt_doc_str(struct gt_doc *d, const char *key, const char *s); /* NULL: null */
void gt_doc_u64(struct gt_doc *d, const char *key, uint64_t v);
void gt_doc_i64(struct gt_doc *d, const char *key, int64_t v);
void gt_doc_num(struct gt_doc *d, const char *key, double v); /* NaN, inf: null */
void gt_doc_bool(struct gt_doc *d, const char *key, int v);
void gt_doc_null(struct gt_doc *d, const char *key);
/* A value that may be unknown: v when known, else null. */
void gt_doc_u64_if(struct gt_doc *d, const char *key, int known, uint64_t v);
void gt_doc_i64_if(struct gt_doc *d, const char *key, int known, int64_t v);
/* Containers opened at this nesting depth or deeper are written on one line (output.h's
 * inline_depth; the top-level value is depth 1, the default 3). JSON Lines ignores it: each of
 * its top-level values is always one line. */
void gt_doc_set_inline_depth(struct gt_doc *d, int depth);
/* The JSON writer under the facts, for the shared writers that take one (output.h's
 * gt_json_trace_state); NULL in every other format, where such a writer must not run. */
struct gt_json *gt_doc_json(struct gt_doc *d);

/* ---- for CI's test reporters: JUnit; nothing in any other format ----------------------------- */
/* The <testsuite name>; its <property>s; its cases (junit.h). Held until the document closes,
 * because the suite's counts come first. */
void gt_doc_suite(struct gt_doc *d, const char *name);
void gt_doc_property(struct gt_doc *d, const char *name, const char *value);
void gt_doc_case(struct gt_doc *d, const char *classname, const char *name, double time_s,
                 enum gt_junit_result result, const char *message, const char *text);

/* ---- for both: tables ------------------------------------------------------------------------ */
/* A table with these columns (output.h): held and aligned in text and Markdown; in JSON the
 * member key (NULL inside an array or at the top) holding an array of row objects; in CSV a header
 * and rows. Filled and closed with output.h's gt_table_* calls. NULL when out of memory. */
struct gt_table *gt_doc_table(struct gt_doc *d, const char *key, const struct gt_column *cols, size_t n);

#endif
