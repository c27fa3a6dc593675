/* log.c: "gputrace:" lines on stderr (see log.h). */
#include "preload/log.h"

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

/* Appends s to out[*pos..n-1) with every control character (newline included) shown as a visible
 * escape (\n, \r, \t, \xHH), so that whatever a message quotes (a path, a variable's value) it
 * stays one line. A backslash stays itself, as the analyzer's messages keep it (a regular
 * expression's \( reads as written). Stops at a whole escape that would not fit.
 * Async-signal-safe (memcpy only). */
static void put_escaped(char *out, size_t *pos, size_t n, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char e[4];
		size_t k = 0;
		switch (*p) {
		case '\n': e[k++] = '\\'; e[k++] = 'n'; break;
		case '\r': e[k++] = '\\'; e[k++] = 'r'; break;
		case '\t': e[k++] = '\\'; e[k++] = 't'; break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				e[k++] = '\\';
				e[k++] = 'x';
				e[k++] = hex[*p >> 4];
				e[k++] = hex[*p & 15];
			} else {
				e[k++] = (char)*p;
			}
			break;
		}
		if (*pos + k >= n)
			return;
		memcpy(out + *pos, e, k);
		*pos += k;
	}
}

const char *gtp_escape(const char *s, char *buf, size_t n)
{
	size_t pos = 0;
	if (!n)
		return "";
	put_escaped(buf, &pos, n, s ? s : "");
	buf[pos] = '\0';
	return buf;
}

/* One line: the prefix, the message escaped, a newline, in one write(). */
static void write_line(const char *msg)
{
	char buf[1024];
	size_t pos = 0;
	const char *prefix = "gputrace: ";
	memcpy(buf, prefix, strlen(prefix));
	pos = strlen(prefix);
	put_escaped(buf, &pos, sizeof buf - 1, msg);
	buf[pos++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, pos);
	(void)w; /* nothing sensible to do if stderr is gone */
}

static void emit(const char *fmt, va_list ap)
{
	char msg[1024];
	int saved = errno;
	if (vsnprintf(msg, sizeof msg, fmt, ap) < 0)
		msg[0] = '\0';
	write_line(msg);
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

int gtp_debugging(void) { return log_debug; }

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
	size_t pos = 0;
	const char *prefix = "gputrace: ";
	while (*prefix)
		buf[pos++] = *prefix++;
	put_escaped(buf, &pos, sizeof buf - 1, msg);
	buf[pos++] = '\n';
	ssize_t w = write(STDERR_FILENO, buf, pos);
	(void)w;
	errno = saved;
}
