/* log.h: the recorder's voice on stderr: "gputrace: ..." lines, one write(2) each.
 *
 * A preloaded library shares stderr with the program; each message is formatted into one buffer and
 * written with a single write() so it never interleaves with the program's output mid-line. The _raw
 * variant formats nothing and is safe inside a signal handler.
 */
#ifndef GT_PRELOAD_LOG_H
#define GT_PRELOAD_LOG_H

void gtp_log_setup(int quiet, int debug);
/* A line the user should see (suppressed by GPUTRACE_QUIET). */
void gtp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error: printed even when quiet. */
void gtp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with GPUTRACE_DEBUG=1. */
void gtp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Async-signal-safe: writes "gputrace: " msg "\n". */
void gtp_log_raw(const char *msg);

#endif
