/* escape.c: the escaping rules of escape.h, one function per format.
 *
 * Each escaper walks its string character by character with the one UTF-8 validator below, so that
 * every format replaces the same bytes with U+FFFD; what a format does with a valid character is
 * its own rule. gt_esc_printf lets a command keep writing lines with a printf format: the format
 * is the command's own words, and only the %s arguments, which is where names go, are escaped.
 */
#include "analyze/output/escape.h"

#include "common/text_escape.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define FFFD "\xef\xbf\xbd"

/* The length of the character at *p, with *c set; or, when *p does not start a valid UTF-8
 * sequence, U+FFFD written in its place, the byte skipped and 0 returned (the caller goes on). */
static int next_char(FILE *f, const unsigned char **p, uint32_t *c)
{
	int n = gt_utf8_len(*p, c);
	if (!n) {
		fputs(FFFD, f);
		(*p)++;
	}
	return n;
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* Where a leading "1." or "12)" followed by a space (an ordered list marker) has its '.' or ')',
 * else 0. */
static size_t ordered_marker(const unsigned char *p)
{
	size_t i = 0;
	while (i < 10 && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == 0 || i > 9 || (p[i] != '.' && p[i] != ')'))
		return 0;
	return p[i + 1] == ' ' || p[i + 1] == '\t' || p[i + 1] == '\0' ? i : 0;
}

/* Text outside a code span: specials backslash-escaped (a backslash escape of ASCII punctuation
 * shows the character itself), line breaks as spaces, other controls as visible escapes whose
 * backslash is itself escaped. block: the text may begin a line's content (a list item, a
 * paragraph), so a leading list or rule marker is escaped too. */
static void md_text(FILE *f, const char *s, const char *specials, int block)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const unsigned char *first = p, *mark = NULL;
	while (*first == ' ')
		first++;
	if (block) {
		size_t k = ordered_marker(first);
		if (k)
			mark = first + k;
		else if (*first == '-' || *first == '+' || *first == '=')
			mark = first;
	}
	while (*p) {
		uint32_t c;
		int n = next_char(f, &p, &c);
		if (!n)
			continue;
		if (c == '\n' || c == '\r') {
			fputc(' ', f);
		} else if (gt_text_is_control(c)) {
			fputc('\\', f);
			gt_text_visible(f, c);
		} else {
			if (p == mark || (c < 0x80 && strchr(specials, (int)c)))
				fputc('\\', f);
			fwrite(p, 1, (size_t)n, f);
		}
		p += n;
	}
}

void gt_esc_md(FILE *f, const char *s) { md_text(f, s, "\\`*_<>[]|#&~", 1); }

/* '#' opens a heading only at the start of a line; a table cell holds inline content only. */
void gt_esc_md_cell(FILE *f, const char *s) { md_text(f, s, "\\`*_<>[]|&~", 0); }

/* A code span shows its content as it is, so only what would end it or the line matters: it is
 * fenced by one backtick more than the longest run inside, padded with a space when the content
 * holds a backtick (so that one at an end does not join the fence), and in a table a '|' is
 * escaped (GFM splits cells before it parses code spans). */
static void md_code(FILE *f, const char *s, int in_table)
{
	if (!s || !*s)
		return;
	int run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
	if (longest)
		fputc(' ', f);
	const unsigned char *p = (const unsigned char *)s;
	int backslashes = 0; /* the run of them just written */
	while (*p) {
		uint32_t c;
		int n = next_char(f, &p, &c);
		if (!n) {
			backslashes = 0;
			continue;
		}
		if (c == '\n' || c == '\r') {
			fputc(' ', f);
		} else if (gt_text_is_control(c)) {
			gt_text_visible(f, c);
		} else if (c == '|' && in_table) {
			/* GFM reads backslashes in pairs before it splits a row, so the one that escapes
			 * this pipe must not pair with a name's own backslash before it. */
			if (backslashes % 2)
				fputc('\\', f);
			fputs("\\|", f);
		} else {
			fwrite(p, 1, (size_t)n, f);
		}
		backslashes = c == '\\' ? backslashes + 1 : 0;
		p += n;
	}
	if (longest)
		fputc(' ', f);
	for (int i = 0; i <= longest; i++)
		fputc('`', f);
}

void gt_esc_md_code(FILE *f, const char *s) { md_code(f, s, 0); }
void gt_esc_md_code_cell(FILE *f, const char *s) { md_code(f, s, 1); }

/* ---- CSV ------------------------------------------------------------------------------------- */

/* Printable ASCII with nothing to quote: most fields of a dump of millions of rows, written as
 * they are. */
static int csv_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == ',')
			return 0;
	return 1;
}

void gt_esc_csv(FILE *f, const char *s)
{
	if (!s)
		return;
	/* A spreadsheet runs a cell that begins with one of these as a formula (TAB and CR and LF
	 * because some strip them first); the quote makes it text, and is what OWASP recommends. */
	int formula = s[0] && strchr("=+-@\t\r\n", s[0]) != NULL;
	if (!formula && csv_plain(s)) {
		fputs(s, f);
		return;
	}
	int quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	/* Runs of bytes that need nothing are written at once; a quote is doubled by starting the
	 * next run at it. */
	const unsigned char *p = (const unsigned char *)s, *run = p;
	while (*p) {
		int n = *p < 0x80 ? 1 : gt_utf8_len(p, NULL);
		if (n && *p != '"') {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), f);
		if (n) {
			fputc('"', f);
			run = p++;
		} else {
			fputs(FFFD, f);
			run = ++p;
		}
	}
	fwrite(run, 1, (size_t)(p - run), f);
	if (quote)
		fputc('"', f);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

void gt_esc_json(FILE *f, const char *s)
{
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc((int)c, f);
			p++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\r': fputs("\\r", f); break;
			case '\t': fputs("\\t", f); break;
			case '\b': fputs("\\b", f); break;
			case '\f': fputs("\\f", f); break;
			default: fprintf(f, "\\u%04x", c); break;
			}
			p++;
		} else if (c < 0x80) {
			fputc((int)c, f);
			p++;
		} else {
			int n = gt_utf8_len(p, NULL);
			if (n == 0) {
				fputs("\\ufffd", f);
				p++;
			} else {
				fwrite(p, 1, (size_t)n, f);
				p += n;
			}
		}
	}
	fputc('"', f);
}

/* ---- XML ------------------------------------------------------------------------------------- */

void gt_esc_xml(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t c;
		int n = gt_utf8_len(p, &c);
		switch (n ? c : 0xfffd) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': case '\n': case '\r':
			/* Kept in text; in an attribute a parser would normalise them to spaces anyway. */
			fprintf(f, "&#%u;", (unsigned)c);
			break;
		default:
			/* XML 1.0 has no way to write the other C0 controls, U+FFFE or U+FFFF. */
			if (!n || c < 0x20 || c == 0x7f || c == 0xfffe || c == 0xffff)
				fputs(FFFD, f);
			else
				fwrite(p, 1, (size_t)n, f);
		}
		p += n ? n : 1;
	}
}

/* ---- link targets ---------------------------------------------------------------------------- */

void gt_esc_link(FILE *f, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

/* ---- UTF-8 only ------------------------------------------------------------------------------ */

void gt_esc_utf8(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		int n = gt_utf8_len(p, NULL);
		if (n)
			fwrite(p, 1, (size_t)n, f);
		else
			fputs(FFFD, f);
		p += n ? n : 1;
	}
}

/* ---- helpers --------------------------------------------------------------------------------- */

char *gt_esc_dup(gt_escaper *esc, const char *s)
{
	char *p = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&p, &n);
	if (!m)
		return NULL;
	esc(m, s);
	if (fclose(m) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* Columns a string takes on a terminal: UTF-8 continuation bytes take none. */
static size_t columns(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* A %s argument: cut to its precision (bytes, as printf counts), escaped, padded to its width. */
static void put_string(FILE *f, gt_escaper *esc, const char *s, int left, int width, int prec)
{
	if (!s)
		s = "(null)";
	char *cut = NULL;
	if (prec >= 0 && strnlen(s, (size_t)prec) == (size_t)prec && s[prec]) {
		if (!(cut = strndup(s, (size_t)prec)))
			return;
		s = cut;
	}
	if (width <= 0) {
		esc(f, s);
	} else {
		char *e = gt_esc_dup(esc, s);
		if (e) {
			size_t w = columns(e);
			for (size_t i = w; !left && i < (size_t)width; i++)
				fputc(' ', f);
			fputs(e, f);
			for (size_t i = w; left && i < (size_t)width; i++)
				fputc(' ', f);
			free(e);
		}
	}
	free(cut);
}

/* A non-negative decimal at *p (advanced past it). */
static int digits(const char **p)
{
	int v = 0;
	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

/* printf's own conversion for one argument of the type that the length and conversion name. */
static void put_other(FILE *f, const char *spec, const char *len, char conv, va_list *ap)
{
	int is_signed = conv == 'd' || conv == 'i';
	if (strchr("eEfFgGaA", conv)) {
		if (*len == 'L')
			fprintf(f, spec, va_arg(*ap, long double));
		else
			fprintf(f, spec, va_arg(*ap, double));
	} else if (conv == 'c') {
		fprintf(f, spec, va_arg(*ap, int));
	} else if (conv == 'p') {
		fprintf(f, spec, va_arg(*ap, void *));
	} else if (!strchr("diouxX", conv)) {
		return; /* %n and unknown conversions: not ours to run */
	} else if (strcmp(len, "ll") == 0) {
		if (is_signed)
			fprintf(f, spec, va_arg(*ap, long long));
		else
			fprintf(f, spec, va_arg(*ap, unsigned long long));
	} else if (*len == 'l') {
		if (is_signed)
			fprintf(f, spec, va_arg(*ap, long));
		else
			fprintf(f, spec, va_arg(*ap, unsigned long));
	} else if (*len == 'z') {
		if (is_signed)
			fprintf(f, spec, va_arg(*ap, ssize_t));
		else
			fprintf(f, spec, va_arg(*ap, size_t));
	} else if (*len == 'j') {
		if (is_signed)
			fprintf(f, spec, va_arg(*ap, intmax_t));
		else
			fprintf(f, spec, va_arg(*ap, uintmax_t));
	} else if (*len == 't') {
		fprintf(f, spec, va_arg(*ap, ptrdiff_t));
	} else if (is_signed) {
		fprintf(f, spec, va_arg(*ap, int)); /* hh and h arrive promoted to int */
	} else {
		fprintf(f, spec, va_arg(*ap, unsigned));
	}
}

/* One conversion, at the '%' that p points to; returns what follows it. err: errno when the
 * printing began, for %m. */
static const char *conversion(FILE *f, gt_escaper *esc, const char *p, va_list *ap, int err)
{
	char flags[8] = "", len[3] = "", spec[64];
	size_t nf = 0;
	p++;
	while (*p && strchr("-+ #0'", *p)) {
		if (nf < sizeof flags - 2)
			flags[nf++] = *p;
		p++;
	}
	int width = -1, prec = -1;
	if (*p == '*') {
		width = va_arg(*ap, int);
		p++;
		if (width < 0) {
			width = -width;
			flags[nf++] = '-';
		}
	} else if (*p >= '0' && *p <= '9') {
		width = digits(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			prec = va_arg(*ap, int);
			p++;
		} else {
			prec = digits(&p);
		}
	}
	for (size_t k = 0; k < 2 && *p && strchr("hlLzjt", *p); k++)
		len[k] = *p++;
	char conv = *p ? *p++ : '\0';
	if (conv == '%') {
		fputc('%', f);
	} else if (conv == 'm') {
		put_string(f, esc, strerror(err), strchr(flags, '-') != NULL, width, prec);
	} else if (conv == 's') {
		put_string(f, esc, va_arg(*ap, const char *), strchr(flags, '-') != NULL, width, prec);
	} else if (conv) {
		int k = snprintf(spec, sizeof spec, "%%%s", flags);
		if (width >= 0)
			k += snprintf(spec + k, sizeof spec - (size_t)k, "%d", width);
		if (prec >= 0)
			k += snprintf(spec + k, sizeof spec - (size_t)k, ".%d", prec);
		snprintf(spec + k, sizeof spec - (size_t)k, "%s%c", len, conv);
		put_other(f, spec, len, conv, ap);
	}
	return p;
}

void gt_esc_vprintf(FILE *f, gt_escaper *esc, const char *format, va_list ap)
{
	int err = errno;
	va_list aq;
	va_copy(aq, ap);
	const char *p = format;
	while (*p) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(pct - p), f);
		p = conversion(f, esc, pct, &aq, err);
	}
	va_end(aq);
}

void gt_esc_printf(FILE *f, gt_escaper *esc, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	gt_esc_vprintf(f, esc, format, ap);
	va_end(ap);
}
