/* junit.c: JUnit XML documents (see junit.h for the schema and the escaping rules). */
#include "junit.h"

#include "gputrace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct jcase {
	char *classname, *name, *message, *text;
	double time_s;
	enum gt_junit_result result;
};

struct gt_junit {
	char *suite;
	char **props;       /* name, value, name, value, ... */
	size_t nprops;
	struct jcase *cases;
	size_t n, cap;
	int nomem;
};

static char *dup_or_empty(const char *s, int *nomem)
{
	char *d = strdup(s ? s : "");
	if (!d)
		*nomem = 1;
	return d;
}

struct gt_junit *gt_junit_new(const char *suite)
{
	struct gt_junit *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->suite = dup_or_empty(suite, &j->nomem);
	if (j->nomem) {
		gt_junit_free(j);
		return NULL;
	}
	return j;
}

int gt_junit_property(struct gt_junit *j, const char *name, const char *value)
{
	char **p = realloc(j->props, (j->nprops + 1) * 2 * sizeof *p);
	if (!p)
		return GT_ERR_NOMEM;
	j->props = p;
	int nomem = 0;
	p[2 * j->nprops] = dup_or_empty(name, &nomem);
	p[2 * j->nprops + 1] = dup_or_empty(value, &nomem);
	j->nprops++;
	return nomem ? GT_ERR_NOMEM : 0;
}

int gt_junit_case(struct gt_junit *j, const char *classname, const char *name, double time_s,
                  enum gt_junit_result result, const char *message, const char *text)
{
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		struct jcase *c = realloc(j->cases, cap * sizeof *c);
		if (!c)
			return GT_ERR_NOMEM;
		j->cases = c;
		j->cap = cap;
	}
	struct jcase *c = &j->cases[j->n++];
	int nomem = 0;
	c->classname = dup_or_empty(classname, &nomem);
	c->name = dup_or_empty(name, &nomem);
	c->message = dup_or_empty(message, &nomem);
	c->text = dup_or_empty(text, &nomem);
	c->time_s = time_s;
	c->result = result;
	return nomem ? GT_ERR_NOMEM : 0;
}

/* Length of the UTF-8 sequence at s (1..4) when it is well formed, else 0. Overlong forms,
 * surrogates and code points above U+10FFFF are not well formed. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	int n;
	uint32_t cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void gt_junit_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned c = *p;
		switch (c) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&apos;", f); p++; continue;
		case '\t': case '\n': case '\r':
			/* Kept in text; in an attribute a parser would normalise them to spaces anyway. */
			fprintf(f, "&#%u;", c);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD: XML 1.0 has no way to write these */
			p++;
			continue;
		}
		int n = utf8_len(p);
		if (!n) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)n, f);
		p += n;
	}
}

static const char *tag(enum gt_junit_result r)
{
	return r == GT_JUNIT_FAILURE ? "failure" : r == GT_JUNIT_ERROR ? "error" : "skipped";
}

int gt_junit_finish(struct gt_junit *j, FILE *f)
{
	size_t count[4] = { 0 };
	double total = 0;
	for (size_t i = 0; i < j->n; i++) {
		count[j->cases[i].result]++;
		if (j->cases[i].time_s > 0)
			total += j->cases[i].time_s;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", j->n,
	        count[GT_JUNIT_FAILURE], count[GT_JUNIT_ERROR], count[GT_JUNIT_SKIPPED]);
	fputs("  <testsuite name=\"", f);
	gt_junit_escape(f, j->suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\">\n",
	        j->n, count[GT_JUNIT_FAILURE], count[GT_JUNIT_ERROR], count[GT_JUNIT_SKIPPED], total);
	if (j->nprops) {
		fputs("    <properties>\n", f);
		for (size_t i = 0; i < j->nprops; i++) {
			fputs("      <property name=\"", f);
			gt_junit_escape(f, j->props[2 * i]);
			fputs("\" value=\"", f);
			gt_junit_escape(f, j->props[2 * i + 1]);
			fputs("\"/>\n", f);
		}
		fputs("    </properties>\n", f);
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct jcase *c = &j->cases[i];
		fputs("    <testcase classname=\"", f);
		gt_junit_escape(f, c->classname);
		fputs("\" name=\"", f);
		gt_junit_escape(f, c->name);
		fputc('"', f);
		if (c->time_s >= 0)
			fprintf(f, " time=\"%.6f\"", c->time_s);
		if (c->result == GT_JUNIT_PASS) {
			fputs("/>\n", f);
			continue;
		}
		fprintf(f, ">\n      <%s message=\"", tag(c->result));
		gt_junit_escape(f, c->message);
		if (c->result == GT_JUNIT_SKIPPED) {
			fputs("\"/>\n    </testcase>\n", f);
			continue;
		}
		fprintf(f, "\" type=\"%s\">", c->result == GT_JUNIT_FAILURE ? "mismatch" : "error");
		gt_junit_escape(f, c->text);
		fprintf(f, "</%s>\n    </testcase>\n", tag(c->result));
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? GT_ERR_IO : 0;
}

void gt_junit_free(struct gt_junit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nprops * 2; i++)
		free(j->props[i]);
	free(j->props);
	for (size_t i = 0; i < j->n; i++) {
		free(j->cases[i].classname);
		free(j->cases[i].name);
		free(j->cases[i].message);
		free(j->cases[i].text);
	}
	free(j->cases);
	free(j->suite);
	free(j);
}
