/* test_analyze_findings_rules.c: the findings rules table (analyze/engines/findings_table.c) is
 * the one word on which rules exist and what their thresholds default to.
 *
 * The rows against themselves (ids unique, well-formed and short enough for a finding; every row a
 * function; no two thresholds on one option), gt_findings_defaults against the rows, and the rows
 * against their documentation: findings.h's opening list and gpuanalyze(1)'s findings section
 * must name exactly the table's ids, and the man page must give each default in the words of its
 * row. A rule added to the table but not to both, or a default changed in one place only, fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/engines/findings.h"
#include "analyze/engines/findings_rules.h"

#define FOR_RULES(q)                                                                                \
	for (const struct findings_rule *q = gt_findings_rules; q < gt_findings_rules + gt_findings_nrules; q++)
#define FOR_THRESHOLDS(t, q)                                                                        \
	for (const struct findings_threshold *t = (q)->thr; t < (q)->thr + FINDINGS_MAX_THRESHOLDS && t->name; t++)

/* A file of the source tree, whole, NUL-terminated (static storage: one at a time). */
static const char *source_file(const char *rel)
{
	static char text[1 << 20];
	const char *src = getenv("GT_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", src && *src ? src : ".", rel);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof text - 1, f);
	assert_int_equal(fclose(f), 0);
	assert_true(n < sizeof text - 1);
	text[n] = '\0';
	return text;
}

static const struct findings_rule *rule_by_id(const char *id, size_t len)
{
	FOR_RULES(q)
	if (strlen(q->id) == len && !strncmp(q->id, id, len))
		return q;
	return NULL;
}

/* Ids a document names, each counted once per table row: seen[i] for gt_findings_rules[i]. An id
 * the table lacks fails at once. */
static void mark(const char *id, size_t len, int *seen, const char *where)
{
	const struct findings_rule *q = rule_by_id(id, len);
	if (!q)
		fail_msg("%s names '%.*s', which is not in the rules table", where, (int)len, id);
	seen[q - gt_findings_rules]++;
}

static void assert_all_seen_once(const int *seen, const char *where)
{
	for (size_t i = 0; i < gt_findings_nrules; i++)
		if (seen[i] != 1)
			fail_msg("%s names rule '%s' %d times (want once)", where, gt_findings_rules[i].id, seen[i]);
}

static void test_rows_are_well_formed(void **state)
{
	(void)state;
	assert_true(gt_findings_nrules > 0);
	FOR_RULES(q)
	{
		assert_non_null(q->run);
		assert_true(q->family && *q->family && q->doc && *q->doc);
		assert_true(strlen(q->id) > 0 && strlen(q->id) < sizeof((struct gt_finding *)0)->id);
		assert_int_equal(strspn(q->id, "abcdefghijklmnopqrstuvwxyz-"), strlen(q->id));
		assert_ptr_equal(rule_by_id(q->id, strlen(q->id)), q);
		FOR_THRESHOLDS(t, q)
		{
			assert_true(t->field < (ptrdiff_t)sizeof(struct gt_findings_options));
			assert_true(t->man && strstr(t->man, "%g"));
			FOR_RULES(q2)
			FOR_THRESHOLDS(t2, q2)
			if (t2 != t && t->field >= 0)
				assert_true(t2->field != t->field);
		}
	}
}

static double option_value(const struct gt_findings_options *o, const struct findings_threshold *t)
{
	const char *at = (const char *)o + t->field;
	if (t->type == FT_U64)
		return (double)*(const uint64_t *)(const void *)at;
	if (t->type == FT_UNSIGNED)
		return *(const unsigned *)(const void *)at;
	return *(const double *)(const void *)at;
}

/* The options the rules read start at the rows' defaults; the fixed ones are the code's constants. */
static void test_defaults_are_the_rows(void **state)
{
	(void)state;
	struct gt_findings_options o;
	memset(&o, 0xA5, sizeof o);
	gt_findings_defaults(&o);
	int options = 0;
	FOR_RULES(q)
	FOR_THRESHOLDS(t, q)
	{
		if (t->field < 0) {
			assert_true((!strcmp(t->name, "launches") && t->value == GT_FINDINGS_MIN_LAUNCHES) ||
			            (!strcmp(t->name, "ceil_pct") && t->value == GT_FINDINGS_CEIL_PCT));
			continue;
		}
		options++;
		if (option_value(&o, t) != t->value)
			fail_msg("%s: option %s defaults to %g, its row says %g", q->id, t->name, option_value(&o, t), t->value);
	}
	assert_true(option_value(&o, &gt_findings_warn_threshold) == gt_findings_warn_threshold.value);
	/* An option without a row: the options (fields of 4 or 8 bytes) outgrow what the rows' fields
	 * can fill. */
	assert_true((size_t)(options + 1) * 4 <= sizeof o && sizeof o <= (size_t)(options + 1) * 8);
}

/* findings.h's opening list: " *   ID  text", one rule a line (family headings have one space). */
static void test_findings_h_lists_every_rule(void **state)
{
	(void)state;
	const char *h = source_file("analyze/engines/findings.h");
	const char *end = strstr(h, "*/");
	assert_non_null(end);
	int *seen = calloc(gt_findings_nrules, sizeof *seen);
	assert_non_null(seen);
	for (const char *l = h; l && l < end; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, " *   ", 5) != 0)
			continue;
		const char *id = l + 5;
		size_t len = strspn(id, "abcdefghijklmnopqrstuvwxyz-");
		if (len && !strncmp(id + len, "  ", 2))
			mark(id, len, seen, "findings.h");
	}
	assert_all_seen_once(seen, "findings.h");
	free(seen);
}

/* gpuanalyze(1)'s findings section, with "\-" written "-", into section. */
static char section[1 << 16];

static void man_findings_section(void)
{
	const char *page = source_file("man/gpuanalyze.1");
	const char *s = strstr(page, "\n.SS findings\n");
	assert_non_null(s);
	const char *e = strstr(s + 1, "\n.SS ");
	assert_non_null(e);
	size_t n = 0;
	for (const char *p = s + 1; p <= e && n + 1 < sizeof section; p++)
		if (!(p[0] == '\\' && p[1] == '-'))
			section[n++] = *p;
	section[n] = '\0';
}

/* The line after l (NULL at the end). */
static const char *next_line(const char *l)
{
	const char *nl = strchr(l, '\n');
	return nl && nl[1] ? nl + 1 : NULL;
}

/* Calls fn(heading, ctx) for each entry of the section: the line after each ".TP". */
static void each_heading(void (*fn)(const char *heading, void *ctx), void *ctx)
{
	for (const char *l = section; l; l = next_line(l))
		if (!strncmp(l, ".TP\n", 4) && next_line(l))
			fn(next_line(l), ctx);
}

/* The ids of a heading line, ".B ID" or ".BR ID ", " ID ...", one by one into fn. */
static int heading_ids(const char *l, void (*fn)(const char *id, size_t len, void *ctx), void *ctx)
{
	int br = !strncmp(l, ".BR ", 4);
	if (!br && strncmp(l, ".B ", 3))
		return 0;
	for (const char *p = l + (br ? 4 : 3); *p && *p != '\n';) {
		size_t len = strcspn(p, " \n");
		if (*p == '"') {
			const char *q = strchr(p + 1, '"');
			assert_non_null(q);
			len = (size_t)(q + 1 - p);
		} else {
			fn(p, len, ctx);
		}
		p += len;
		p += strspn(p, " ");
	}
	return 1;
}

static void mark_man(const char *id, size_t len, void *seen)
{
	mark(id, len, seen, "gpuanalyze(1)'s findings section");
}

static void mark_heading(const char *heading, void *seen) { heading_ids(heading, mark_man, seen); }

static void test_man_page_lists_every_rule(void **state)
{
	(void)state;
	man_findings_section();
	int *seen = calloc(gt_findings_nrules, sizeof *seen);
	assert_non_null(seen);
	each_heading(mark_heading, seen);
	assert_all_seen_once(seen, "gpuanalyze(1)'s findings section");
	free(seen);
}

/* The entry of one rule: its heading, and once found, its lines up to the next .TP or .PP joined
 * by spaces. */
struct entry {
	const char *id;
	int found;
	char text[8192];
};

static void match_id(const char *id, size_t len, void *ctx)
{
	struct entry *e = ctx;
	e->found |= strlen(e->id) == len && !strncmp(e->id, id, len);
}

static int ends_entry(const char *l) { return !strncmp(l, ".TP\n", 4) || !strncmp(l, ".PP\n", 4); }

static void find_entry(const char *heading, void *ctx)
{
	struct entry *e = ctx;
	if (e->found)
		return;
	heading_ids(heading, match_id, e);
	if (!e->found)
		return;
	size_t n = 0;
	for (const char *l = heading; l && !ends_entry(l); l = next_line(l)) {
		size_t len = strcspn(l, "\n");
		n += (size_t)snprintf(e->text + n, sizeof e->text - n, "%.*s ", (int)len, l);
		assert_true(n < sizeof e->text);
	}
}

/* Each default in gpuanalyze(1), in the words of its row: "gaps of at least 1 ms", ... */
static void test_man_page_gives_the_defaults(void **state)
{
	(void)state;
	man_findings_section();
	char want[128];
	FOR_RULES(q)
	FOR_THRESHOLDS(t, q)
	{
		struct entry e = { q->id, 0, "" };
		each_heading(find_entry, &e);
		if (!e.found)
			fail_msg("gpuanalyze(1) has no entry for '%s'", q->id);
		snprintf(want, sizeof want, t->man, t->value * t->man_scale);
		if (!strstr(e.text, want))
			fail_msg("gpuanalyze(1)'s entry for %s does not say '%s' (%s's default): %s", q->id, want, t->name,
			         e.text);
	}
	/* The severity paragraph: its lines joined, as a reader sees them. */
	const struct findings_threshold *w = &gt_findings_warn_threshold;
	snprintf(want, sizeof want, w->man, w->value * w->man_scale);
	for (char *c = section; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	if (!strstr(section, want))
		fail_msg("gpuanalyze(1)'s findings section does not say '%s' (%s's default)", want, w->name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_are_well_formed),
		cmocka_unit_test(test_defaults_are_the_rows),
		cmocka_unit_test(test_findings_h_lists_every_rule),
		cmocka_unit_test(test_man_page_lists_every_rule),
		cmocka_unit_test(test_man_page_gives_the_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
