/* text_escape.c: the terminal text rule (text_escape.h): one UTF-8 validator, the set of
 * characters that steer a terminal, and their visible forms. */
#include "common/text_escape.h"

#include <stdarg.h>
#include <stdlib.h>

#define FFFD "\xef\xbf\xbd"

int gt_utf8_len(const unsigned char *s, uint32_t *cp)
{
	unsigned c = s[0];
	int n;
	uint32_t v, min;
	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, min = 0x80, v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, min = 0x800, v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, min = 0x10000, v = c & 0x07;
	} else {
		return 0; /* a continuation byte, an overlong lead (C0, C1) or beyond U+10FFFF (F5..FF) */
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* a NUL ends the sequence here too */
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	if (cp)
		*cp = v;
	return n;
}

/* C0, DEL, C1 (0x9b is a terminal's one-byte CSI), and the bidirectional marks, embeddings,
 * overrides and isolates that make text after them read in another order than it is stored. */
int gt_text_is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* \n \t \r for the three everyone reads. */
void gt_text_visible(FILE *f, uint32_t c)
{
	switch (c) {
	case '\n': fputs("\\n", f); return;
	case '\t': fputs("\\t", f); return;
	case '\r': fputs("\\r", f); return;
	}
	fprintf(f, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)c);
}

void gt_esc_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t c;
		int n = gt_utf8_len(p, &c);
		if (!n) {
			fputs(FFFD, f);
			p++;
			continue;
		}
		if (gt_text_is_control(c))
			gt_text_visible(f, c);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n;
	}
}

int gt_esc_text_plain(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			i++;
			continue;
		}
		uint32_t c;
		int k = gt_utf8_len(p + i, &c);
		if (!k || i + (size_t)k > n || gt_text_is_control(c))
			return 0;
		i += (size_t)k;
	}
	return 1;
}

int gt_esc_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -1;
	char *line = malloc((size_t)len + 1);
	if (!line)
		return -1;
	va_start(ap, fmt);
	int k = vsnprintf(line, (size_t)len + 1, fmt, ap);
	va_end(ap);
	if (k == len) {
		gt_esc_text(f, line);
		fputc('\n', f);
	}
	free(line);
	return k == len && !ferror(f) ? 0 : -1;
}
