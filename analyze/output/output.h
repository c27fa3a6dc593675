/* output.h: how gpuanalyze prints, so that every subcommand prints every format the same way.
 *
 * Four formats: an aligned text table for a terminal, a Markdown (GFM) table, JSON and CSV. A
 * command fills a document (doc.h) that the runner opens on its output; a table in it is described
 * once (columns with a machine key and a human title) and filled in column order without asking
 * which format is active:
 *
 *     static int fill(struct gt_doc *d, void *ctx)          // a gt_cmd_filler (cmd_output.h)
 *     {
 *             static const struct gt_column cols[] = {
 *                     { "name", "name", GT_COL_LEFT | GT_COL_CODE },
 *                     { "median_ns", "median us", 0 },
 *             };
 *             struct gt_table *t = gt_doc_table(d, "kernels", GT_COLUMNS(cols));
 *             if (!t)
 *                     return GT_ERR_NOMEM;
 *             for (...) {
 *                     gt_table_str(t, row->display);
 *                     gt_table_num_as(t, median_ns, median_ns / 1e3, 3); // machine, human value
 *                     gt_table_end_row(t);
 *             }
 *             return gt_table_close(t); // prints text/md; closes the JSON array; 0 or GT_ERR_*
 *     }
 *     ... return gt_cmd_render(call, fmt, fill, &ctx);
 *
 * Text and Markdown show the human value (rounded to the given decimals, "n/a" for NaN); JSON and
 * CSV show the machine value with enough digits to read back the same double (shortest of %.15g,
 * %.16g, %.17g that round-trips; an integral double gets ".0", so that a real field has one type
 * in every row and every file), integers exactly, and NaN/inf as JSON null or an empty CSV field.
 * A column flagged GT_COL_HUMAN appears only in text/md, GT_COL_MACHINE only in JSON/CSV; cells set
 * for a hidden column are ignored. CSV and JSON rows are written as they end (a dump of millions of
 * rows is never held); text and Markdown tables are held until they close to align them.
 *
 * Escaping is this layer's, by escape.h's rule for each format, so that no command can forget it:
 * every string cell, note and JSON string is escaped as it is written (text: controls shown as
 * visible escapes; Markdown: markup backslash-escaped, GT_COL_CODE cells in a code span; CSV: RFC
 * 4180 quoting and formula neutralisation of string cells, never of numbers; JSON: valid always),
 * and bytes that are not UTF-8 become U+FFFD in every format. Numbers are written by the table.
 * What writes straight to a FILE (a table, a note, a heading) is the layer's own, beneath the
 * document: output_direct.h, which only analyze/output/ and its tests include.
 */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Values are bits so that a command can say which formats it offers as a mask. */
/* GT_FMT_JSONL (JSON Lines: one object per line, no enclosing document) is for record streams
 * (dump) only, GT_FMT_JUNIT (JUnit XML) for the commands that give verdicts (diff, shadow): neither
 * is in GT_FMT_ALL, and tables do not print them. */
enum gt_format { GT_FMT_TEXT = 1, GT_FMT_MD = 2, GT_FMT_JSON = 4, GT_FMT_CSV = 8, GT_FMT_JSONL = 16,
	         GT_FMT_JUNIT = 32 };
#define GT_FMT_ALL (GT_FMT_TEXT | GT_FMT_MD | GT_FMT_JSON | GT_FMT_CSV)

const char *gt_format_name(enum gt_format f); /* "text", "md", "json", "csv", "jsonl" */
/* 0 and *out set when s names a format in allowed; GT_ERR_ARG otherwise. */
int gt_format_parse(const char *s, unsigned allowed, enum gt_format *out);
/* "text|md|json|csv" for a mask, into buf. */
const char *gt_format_list(unsigned allowed, char *buf, size_t len);

/* ---- escaping primitives (escape.h's rules) ------------------------------------------------ */
void gt_out_csv_field(FILE *f, const char *s);   /* a string field: gt_esc_csv */
void gt_out_json_string(FILE *f, const char *s); /* with the surrounding quotes: gt_esc_json */
void gt_out_md_cell(FILE *f, const char *s, int code); /* a table cell: gt_esc_md_cell, _code_cell */
/* Shortest decimal text that reads back as v (%.15g..%.17g); "nan"/"inf" are the caller's to avoid. */
void gt_out_format_double(char *buf, size_t len, double v);
/* The same, with ".0" added to an integral value, so that JSON readers type a real field as real
 * in every record (1.0, not 1). JSON's doubles are written by this. */
void gt_out_format_real(char *buf, size_t len, double v);

/* ---- streaming JSON -------------------------------------------------------------------------
 * Tracks nesting and commas so callers cannot produce a trailing comma or a missing one. Containers
 * opened at depth >= inline_depth (the top-level value is depth 1) are written on one line: a
 * summary prints one table row per line, a dump one event per line. */
#define GT_JSON_MAX_DEPTH 32
struct gt_json {
	FILE *f;
	int depth;
	int inline_depth;                     /* default 3 */
	int inline_from;                      /* depth of the outermost inline container, 0 if none */
	unsigned char count[GT_JSON_MAX_DEPTH]; /* 0: nothing written yet at that depth, else 1 */
	unsigned char object[GT_JSON_MAX_DEPTH]; /* the container at that depth is an object */
	int after_key;
	int error;                            /* GT_ERR_ARG after misuse: too deep, a key outside an
	                                       * object, a value in an object without its key, a
	                                       * container closed with the wrong call */
};
void gt_json_init(struct gt_json *j, FILE *f);
void gt_json_object_begin(struct gt_json *j);
void gt_json_object_end(struct gt_json *j);
void gt_json_array_begin(struct gt_json *j);
void gt_json_array_end(struct gt_json *j);
void gt_json_key(struct gt_json *j, const char *key);
void gt_json_str(struct gt_json *j, const char *s); /* NULL writes null */
void gt_json_num(struct gt_json *j, double v);       /* NaN and infinities write null */
void gt_json_u64(struct gt_json *j, uint64_t v);
void gt_json_i64(struct gt_json *j, int64_t v);
void gt_json_bool(struct gt_json *j, int v);
void gt_json_null(struct gt_json *j);
/* A value already written as JSON text by the caller (a number a table formatted). */
void gt_json_raw(struct gt_json *j, const char *text);
/* Whether a trace could be trusted whole, as every command's JSON says it, inside the object the
 * caller opened: "complete" (END record read), "lost_bytes" (of an incomplete last chunk),
 * "synthetic" (written by a program, not recorded). */
void gt_json_trace_state(struct gt_json *j, int complete, uint64_t lost_bytes, int synthetic);
/* Ends the document with a newline; returns j->error. */
int gt_json_finish(struct gt_json *j);

/* ---- tables -------------------------------------------------------------------------------- */
#define GT_COL_LEFT    0x1u /* text: left-aligned (numbers are right-aligned) */
#define GT_COL_HUMAN   0x2u /* text and md only */
#define GT_COL_MACHINE 0x4u /* json and csv only */
#define GT_COL_CODE    0x8u /* md: shown as a code span (names that hold <, *, _) */

struct gt_table;
/* key: JSON member and CSV header; title: text/md header. Columns are added before the first cell. */
int gt_table_column(struct gt_table *t, const char *key, const char *title, unsigned flags);
/* A column as data, so that a table's columns are declared as one array. */
struct gt_column {
	const char *key;
	const char *title;
	unsigned flags;
};
/* An array of columns as the (cols, n) arguments below: gt_table_columns(t, GT_COLUMNS(cols)). */
#define GT_COLUMNS(array) (array), sizeof(array) / sizeof((array)[0])
/* gt_table_column for each of the n columns in order; 0, or the table's first error. */
int gt_table_columns(struct gt_table *t, const struct gt_column *cols, size_t n);
void gt_table_str(struct gt_table *t, const char *s);  /* NULL: empty / null */
void gt_table_u64(struct gt_table *t, uint64_t v);
void gt_table_i64(struct gt_table *t, int64_t v);
/* An integer (a count of bytes, a time in ns) that text and md show scaled: machine formats keep
 * it an integer, so its JSON type is the same in every row. */
void gt_table_u64_as(struct gt_table *t, uint64_t machine, double human, int decimals);
void gt_table_num(struct gt_table *t, double v, int decimals);
void gt_table_num_as(struct gt_table *t, double machine, double human, int decimals);
void gt_table_null(struct gt_table *t);                /* "n/a", null, empty */
/* gt_table_num_as, with the human formats saying absent (a literal, "not measured") for a NaN. */
void gt_table_num_or(struct gt_table *t, double machine, double human, int decimals, const char *absent);
/* Text and Markdown: a table that ends without a row prints this note instead of
 * its header; JSON and CSV print the empty table as always. note is copied. */
void gt_table_when_empty(struct gt_table *t, const char *note);
int gt_table_end_row(struct gt_table *t);
size_t gt_table_rows(const struct gt_table *t);
/* Prints what is held (text, md) or closes the array (json); 0, or the first error seen. */
int gt_table_finish(struct gt_table *t);
void gt_table_free(struct gt_table *t);
/* gt_table_finish, then gt_table_free: the end of every table a command prints. Returns finish's. */
int gt_table_close(struct gt_table *t);

#endif
