/* log.h: the recorder's voice on stderr: "gputrace: ..." lines, one write(2) each.
 *
 * A preloaded library shares stderr with the program; each message is formatted into one buffer and
 * written with a single write() so it never interleaves with the program's output mid-line. Control
 * characters (a newline in a path) are written as visible escapes (\n, \t, \x1b), so a message is
 * always exactly one line that starts with "gputrace: ". The _raw variant formats nothing and is
 * safe inside a signal handler.
 */
#ifndef GT_PRELOAD_LOG_H
#define GT_PRELOAD_LOG_H

#include <stddef.h>

void gtp_log_setup(int quiet, int debug);
/* A line the user should see (suppressed by GPUTRACE_QUIET). */
void gtp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error: printed even when quiet. */
void gtp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with GPUTRACE_DEBUG=1. */
int gtp_debugging(void);
void gtp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Async-signal-safe: writes "gputrace: " msg "\n". */
void gtp_log_raw(const char *msg);
/* s with its control characters escaped as the log lines show them, in buf (cut at
 * a whole escape to fit n); returns buf. For text that goes on one line elsewhere (the launcher's
 * own messages, the tally file). */
const char *gtp_escape(const char *s, char *buf, size_t n);

#endif
