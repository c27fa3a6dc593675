/* cmd_output.h: one place that owns a subcommand's output: -o (or standard output), the printer's
 * failure message, closing and the write errors found only then.
 *
 * Why it exists: every subcommand used to repeat the same lines (open the file named by -o,
 * start a JSON writer on it, print, turn a printer's error into "COMMAND: cannot print: REASON",
 * flush and close, check for a write error, pick the exit status). A copy that forgot the close
 * check would have reported a truncated output as a success; here there is one copy to get right.
 * A subcommand parses its options, runs its engine, then hands its printer to gt_cmd_print().
 */
#ifndef GT_CMD_OUTPUT_H
#define GT_CMD_OUTPUT_H

#include "output.h"

#include <stdio.h>

/* Prints one subcommand's result. out is the output file; json is a JSON writer started on it
 * (gt_json_init), for the printers that write JSON (the others ignore it). Returns 0; a negative
 * GT_ERR_* when printing failed (gt_cmd_print reports it); or a positive exit status that the
 * printer has already reported through diag.h (say, gt_error's GT_EXIT_USAGE). */
typedef int (*gt_cmd_printer)(FILE *out, struct gt_json *json, void *ctx);

/* Opens the output named by out_path (NULL or "-": standard output), runs print on it, reports a
 * printer's GT_ERR_* as "COMMAND: cannot print: REASON", closes the output and reports a write
 * error. Returns the exit status: GT_EXIT_OK, or GT_EXIT_USAGE when the output could not be opened,
 * printed or written (the first of these failures decides; all of them are reported); a printer's
 * own positive status is returned as it is. A verdict (GT_EXIT_CHECK) is the caller's to add when
 * this returns GT_EXIT_OK. */
int gt_cmd_print(const char *command, const char *out_path, gt_cmd_printer print, void *ctx);

#endif
