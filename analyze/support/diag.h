/* diag.h: the analyzer's one voice for errors and warnings, its exit statuses, and its output file.
 *
 * Every message starts with "gpuanalyze: " and fits on one line, so a script or a person reading a
 * CI log sees at once which tool spoke. Input and usage errors exit 2 and nothing else does: 1 is
 * reserved for a check that ran and failed (a later subcommand's verdict), so CI can tell "slower"
 * from "could not read the trace".
 */
#ifndef GT_DIAG_H
#define GT_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#define GT_EXIT_OK 0
#define GT_EXIT_CHECK 1 /* a check ran and failed (diff's verdict, ...) */
#define GT_EXIT_USAGE 2 /* bad usage or unreadable input */

/* "gpuanalyze: <message>" on the diagnostic stream; returns GT_EXIT_USAGE, so that
 * `return gt_error("cannot open trace '%s': %s", path, why);` reads as what it does. */
int gt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpuanalyze: warning: <message>". */
void gt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where messages go: stderr unless a test redirects them. */
void gt_diag_set_stream(FILE *f);
FILE *gt_diag_stream(void);

/* Output of a subcommand: stdout when path is NULL or "-", else the file (created or truncated).
 * NULL after reporting "cannot write 'path': ..." (the caller returns GT_EXIT_USAGE). */
FILE *gt_output_open(const char *path);
/* Flushes and closes (stdout is flushed, not closed); a write error is reported and gives
 * GT_EXIT_USAGE, otherwise 0. */
int gt_output_close(FILE *f, const char *path);

#endif
