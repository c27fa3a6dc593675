/* junit.c: JUnit XML documents (see junit.h for the schema; escape.h's XML rule escapes the text). */
#include "analyze/output/junit.h"

#include "common/grow.h"

#include "analyze/output/escape.h"
#include "traces/gputrace.h"

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
	struct jcase *grown = gt_grow(j->cases, &j->cap, j->n, sizeof *grown, 16);
	if (!grown)
		return GT_ERR_NOMEM;
	j->cases = grown;
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
	gt_esc_xml(f, j->suite);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\">\n",
	        j->n, count[GT_JUNIT_FAILURE], count[GT_JUNIT_ERROR], count[GT_JUNIT_SKIPPED], total);
	if (j->nprops) {
		fputs("    <properties>\n", f);
		for (size_t i = 0; i < j->nprops; i++) {
			fputs("      <property name=\"", f);
			gt_esc_xml(f, j->props[2 * i]);
			fputs("\" value=\"", f);
			gt_esc_xml(f, j->props[2 * i + 1]);
			fputs("\"/>\n", f);
		}
		fputs("    </properties>\n", f);
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct jcase *c = &j->cases[i];
		fputs("    <testcase classname=\"", f);
		gt_esc_xml(f, c->classname);
		fputs("\" name=\"", f);
		gt_esc_xml(f, c->name);
		fputc('"', f);
		if (c->time_s >= 0)
			fprintf(f, " time=\"%.6f\"", c->time_s);
		if (c->result == GT_JUNIT_PASS) {
			fputs("/>\n", f);
			continue;
		}
		fprintf(f, ">\n      <%s message=\"", tag(c->result));
		gt_esc_xml(f, c->message);
		if (c->result == GT_JUNIT_SKIPPED) {
			fputs("\"/>\n    </testcase>\n", f);
			continue;
		}
		fprintf(f, "\" type=\"%s\">", c->result == GT_JUNIT_FAILURE ? "mismatch" : "error");
		gt_esc_xml(f, c->text);
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
