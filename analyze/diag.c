/* diag.c: error and warning messages in one voice, and the checked output file.
 *
 * A write error (disk full, a closed pipe) is found only when the stream is flushed, so
 * gt_output_close() flushes and checks, and the subcommand's exit status says the output is not
 * complete instead of pretending it is.
 */
#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static FILE *diag_stream;

void gt_diag_set_stream(FILE *f) { diag_stream = f; }
FILE *gt_diag_stream(void) { return diag_stream ? diag_stream : stderr; }

/* Writes prefix and the formatted message as one line: a control character in what the message
 * quotes (a newline in a path, an escape sequence in a trace's string) is shown as \n, \t, \r
 * or \xHH, so a message is always one line that starts with the prefix. */
static void say_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, again);
		else
			msg = small; /* cut, but still one line */
	} else if (n < 0) {
		small[0] = '\0';
	}
	va_end(again);
	fputs(prefix, f);
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\r')
			fputs("\\r", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('\n', f);
	if (msg != small)
		free(msg);
	fflush(f);
}

int gt_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_line(gt_diag_stream(), "gpuanalyze: ", fmt, ap);
	va_end(ap);
	return GT_EXIT_USAGE;
}

void gt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_line(gt_diag_stream(), "gpuanalyze: warning: ", fmt, ap);
	va_end(ap);
}

static int is_stdout(const char *path) { return !path || strcmp(path, "-") == 0; }

FILE *gt_output_open(const char *path)
{
	if (is_stdout(path))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f) {
		gt_error("cannot write '%s': %s", path, strerror(errno));
		return NULL;
	}
	return f;
}

int gt_output_close(FILE *f, const char *path)
{
	if (!f)
		return 0;
	int bad = ferror(f) != 0;
	int err = bad ? EIO : 0;
	if (fflush(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad)
		return gt_error("cannot write '%s': %s", is_stdout(path) ? "standard output" : path,
		                strerror(err));
	return 0;
}
