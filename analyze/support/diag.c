/* diag.c: error and warning messages in one voice.
 *
 * A message's %s arguments (paths, names and metadata from a trace) go through escape.h's text rule, so a message stays one line and cannot steer a terminal.
 * The messages engines hold (failure.h) were escaped when they were held, and are written as they are.
 */
#include "analyze/support/diag.h"

#include "analyze/output/escape.h"
#include "analyze/support/failure.h"
#include "analyze/support/progress.h"

#include <errno.h>

static FILE *diag_stream;

void gt_diag_set_stream(FILE *f) { diag_stream = f; }
FILE *gt_diag_stream(void) { return diag_stream ? diag_stream : stderr; }

static const char prefix_error[] = "gpuanalyze: ", prefix_warning[] = "gpuanalyze: warning: ";

/* A held message, already escaped, on a line of its own (the progress line cleared first). */
static void say_held(int warning, const char *text, void *ctx)
{
	(void)ctx;
	gt_progress_clear();
	FILE *f = gt_diag_stream();
	fputs(warning ? prefix_warning : prefix_error, f);
	fputs(text, f);
	fputc('\n', f);
	fflush(f);
}

void gt_diag_flush(void) { gt_fail_take(say_held, NULL); }

/* One message line after the prefix, after the held ones (errno kept for a %m in fmt). */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	int err = errno;
	gt_diag_flush();
	errno = err;
	gt_progress_clear();
	FILE *f = gt_diag_stream();
	fputs(prefix, f);
	gt_esc_vprintf(f, gt_esc_text, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

int gt_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(prefix_error, fmt, ap);
	va_end(ap);
	return GT_EXIT_USAGE;
}

void gt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(prefix_warning, fmt, ap);
	va_end(ap);
}
