/* log.c: "gputrace:" lines on stderr (see log.h). */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int log_quiet, log_debug;

void gtp_log_setup(int quiet, int debug)
{
	log_quiet = quiet;
	log_debug = debug;
}

static void emit(const char *fmt, va_list ap)
{
	char buf[1024];
	int saved = errno;
	int n = snprintf(buf, sizeof buf, "gputrace: ");
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof buf - 2)
		len = sizeof buf - 2;
	buf[len++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, len);
	(void)w; /* nothing sensible to do if stderr is gone */
	errno = saved;
}

void gtp_log(const char *fmt, ...)
{
	if (log_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void gtp_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void gtp_debug(const char *fmt, ...)
{
	if (!log_debug)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void gtp_log_raw(const char *msg)
{
	int saved = errno;
	char buf[512];
	size_t n = 0;
	const char *prefix = "gputrace: ";
	while (*prefix && n < sizeof buf - 1)
		buf[n++] = *prefix++;
	while (*msg && n < sizeof buf - 1)
		buf[n++] = *msg++;
	buf[n++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, n);
	(void)w;
	errno = saved;
}
