/* cmd_output.h: one place that owns a subcommand's run and its output: the options with -o, the
 * output (the file -o names, or standard output), the document in the --format chosen, the
 * filler's failure message, closing and the write errors found only then.
 *
 * Why it exists: every subcommand used to repeat the same lines (an option table ending in -o,
 * the usage, the parse; then open the file named by -o, start a JSON writer on it, print each
 * format by hand, turn a printer's error into "COMMAND: cannot print: REASON", flush and close,
 * check for a write error, pick the exit status). A copy that forgot the close check would have
 * reported a truncated output as a success; here there is one copy to get right.
 * gt_command_run() (commands.h) parses, the command's run computes and hands a filler to
 * gt_cmd_render(), which states what was found in a document (output/doc.h) that a renderer
 * writes. export alone writes file formats of other tools (Chrome trace JSON, CSV, SQLite), which
 * are not documents: it hands a printer to gt_cmd_print(). The facts that every command's
 * document states (its head, the trace's state, the records left out, the percentile rule, the
 * notes on a trace) are written here too, by one function each.
 */
#ifndef GT_CMD_OUTPUT_H
#define GT_CMD_OUTPUT_H

#include "analyze/commands/commands.h"
#include "analyze/output/doc.h"
#include "analyze/output/output.h"

#include <stdint.h>
#include <stdio.h>

/* Prints one subcommand's result. out is the output file; json is a JSON writer started on it
 * (gt_json_init), for the printers that write JSON (the others ignore it). Returns 0; a negative
 * GT_ERR_* when printing failed (gt_cmd_print reports it, unless a failure held by an engine,
 * failure.h, says what failed: then those words are said); or a positive exit status that the
 * printer has already reported through diag.h (say, gt_error's GT_EXIT_USAGE). */
typedef int (*gt_cmd_printer)(FILE *out, struct gt_json *json, void *ctx);

/* Opens the output named by call->out_path (NULL or "-": standard output; a file is written under
 * a temporary name that gt_command_run renames over it when the command succeeds, outfile.h), runs
 * print on it, reports a printer's GT_ERR_* as "COMMAND: cannot print: REASON", closes the output
 * and reports a write error. Returns the exit status: GT_EXIT_OK, or GT_EXIT_USAGE when the output could not be opened,
 * printed or written (the first of these failures decides; all of them are reported); a printer's
 * own positive status is returned as it is. A verdict (GT_EXIT_CHECK) is the caller's to add when
 * this returns GT_EXIT_OK. */
int gt_cmd_print(const struct gt_cmd_call *call, gt_cmd_printer print, void *ctx);

/* Fills one subcommand's document (doc.h): what it found, in facts, notes and tables, without
 * asking how its format is written. Returns 0; a negative GT_ERR_* when filling failed (reported
 * by gt_cmd_render, or by the failure an engine holds); or a positive exit status already reported
 * through diag.h. */
typedef int (*gt_cmd_filler)(struct gt_doc *d, void *ctx);

/* gt_cmd_print for a document: opens the output, opens a document in fmt on it, runs fill,
 * closes the document (a malformed one is an internal error, reported), closes the output.
 * Returns the exit status as gt_cmd_print does. */
int gt_cmd_render(const struct gt_cmd_call *call, enum gt_format fmt, gt_cmd_filler fill, void *ctx);

/* ---- the facts every command's document states the same way ------------------------------
 * One copy each, so that a command cannot spell one of them differently from the others. */

/* The percentile rule of common/stats.h, as the JSON "statistics" objects name it. */
#define GT_PERCENTILE_RULE "numpy default 'linear' (Hyndman-Fan 7)"

/* The document's head: "command": COMMAND, "version" (JSON formats only, as the next three). */
void gt_cmd_doc_head(struct gt_doc *d, const char *command);
/* Opens the member "trace": an object holding "path" and the trace's state (gt_json_trace_state);
 * the caller adds what else it knows of the trace and closes the object. */
void gt_cmd_doc_trace(struct gt_doc *d, const char *path, int complete, uint64_t lost_bytes, int synthetic);
/* The member "excluded_bad_times": the records left out for a start after their end (or no time). */
void gt_cmd_doc_bad_times(struct gt_doc *d, uint64_t kernels, uint64_t memcpys, uint64_t memsets);
/* Opens the member "statistics" with the percentile rule and, when mad_scale, the MAD scale; the
 * caller adds its own rules and closes the object. */
void gt_cmd_doc_statistics(struct gt_doc *d, int mad_scale);
/* The notes every command's text and Markdown give on a trace (nothing in JSON or CSV, which
 * carry the same facts as fields): "NOTE: PATH is SYNTHETIC (...)", a trace written by a program,
 * nothing when synthetic is NULL; "NOTE: PATH ends early (...)", nothing when it is complete. */
void gt_cmd_doc_synthetic(struct gt_doc *d, const char *path, const char *synthetic);
void gt_cmd_doc_incomplete(struct gt_doc *d, const char *path, int complete, uint64_t lost_bytes);

#endif
