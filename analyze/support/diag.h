/* diag.h: the analyzer's one voice for errors and warnings, and its exit statuses (its output
 * files are outfile.h's).
 *
 * Every message starts with "gpuanalyze: " and fits on one line, so a script or a person reading a
 * CI log sees at once which tool spoke. Input and usage errors exit 2 and nothing else does: 1 is
 * reserved for a check that ran and failed (a later subcommand's verdict), so CI can tell "slower"
 * from "could not read the trace".
 *
 * Only the command layer speaks here. Engines hold what they have to say (failure.h) and return an
 * error code; gt_diag_flush() says what they hold, and every message of this file says it first, so
 * that stderr keeps the order in which things happened.
 */
#ifndef GT_DIAG_H
#define GT_DIAG_H

#include "analyze/support/failure.h" /* gt_failed(): whether held words explain a code in hand */

#include <stdarg.h>
#include <stdio.h>

#define GT_EXIT_OK 0
#define GT_EXIT_CHECK 1 /* a check ran and failed (diff's verdict, ...) */
#define GT_EXIT_USAGE 2 /* bad usage or unreadable input */

/* "gpuanalyze: <message>" on the diagnostic stream, after what engines hold (gt_diag_flush);
 * returns GT_EXIT_USAGE, so that `return gt_error("...: %s", path, why);` reads as what it does. */
int gt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpuanalyze: warning: <message>", after what engines hold. */
void gt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says every message engines hold (failure.h), oldest first, as gt_error and gt_warn would have,
 * and forgets them: gt_failed() is 0 after it. */
void gt_diag_flush(void);
/* Where messages go: stderr unless a test redirects them. */
void gt_diag_set_stream(FILE *f);
FILE *gt_diag_stream(void);

#endif
