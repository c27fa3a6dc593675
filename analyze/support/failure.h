/* failure.h: how an engine says what failed without printing it: the words are held, as errno holds
 * a cause for strerror to name, and the command says them.
 *
 * Engines (analyze/engines/, analyze/shadow/) and the support code they use return an error code
 * only: 0, or a negative GT_ERR_* (gputrace.h), never an exit status, and they never print. When a
 * code alone cannot say what failed (which trace, which file, what SQLite said), the engine holds
 * the words with gt_fail() and returns its code; a warning (a trace that ends early) is held with
 * gt_fail_warn() and the engine goes on. The command layer says everything held, oldest first, in
 * the analyzer's voice (diag.h's gt_diag_flush): before each message of its own, when it opens and
 * closes its output, and when the command ends, where a held failure makes the exit status
 * GT_EXIT_USAGE. So stderr holds the words, in the order, that the engines used to print themselves;
 * only later than before where an engine runs inside a printer (export, report, info's traces): its
 * words come at the output's close, after the lines a terminal already shows.
 *
 * A code with nothing held (GT_ERR_NOMEM from an allocation, mostly: "unheld" in the headers) is
 * the caller's to put into words, or the command's ("NAME: out of memory"); gt_failed() tells which.
 *
 * A message's %s arguments (paths, names from a trace) go through escape.h's text rule as it is
 * held, so it stays one line that cannot steer a terminal. A message that cannot be held (out of
 * memory) is said as "out of memory" in its place, and a lost failure still counts as a failure.
 */
#ifndef GT_FAILURE_H
#define GT_FAILURE_H

#include <stddef.h>

/* Holds "MESSAGE" as the failure to say and returns code (a negative GT_ERR_*), so that
 * `return gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));` reads as what it
 * does. A second failure is held after the first: both are said, in order. */
int gt_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Holds "MESSAGE" as a warning, said as "gpuanalyze: warning: MESSAGE". */
void gt_fail_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 while a failure is held (not said yet): the code in hand has been explained, and a caller
 * adds no words of its own to it. */
int gt_failed(void);

/* Failures held so far, said or not (a forgotten one not counted): a runner that compares the
 * count before and after a command knows that the command's error code was explained even when
 * the words were said on the way (gt_failed() is 0 again once they are). */
size_t gt_fail_count(void);

/* For a pass run again whose messages are wanted only when it fails (ranks' second split pass):
 * the mark before it, and the messages held since the mark forgotten. */
size_t gt_fail_mark(void);
void gt_fail_forget(size_t mark);

/* For the one that says them (diag.c): hands every held message, oldest first, to say (warning 1
 * for a warning), and forgets it. text is already escaped for a terminal: it is written as it is. */
typedef void gt_fail_sayer(int warning, const char *text, void *ctx);
void gt_fail_take(gt_fail_sayer *say, void *ctx);

#endif
