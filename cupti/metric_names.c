/* metric_names.c: the parser of metric lists (metric_names.h). */
#include "cupti/metric_names.h"

#include <stdio.h>
#include <string.h>

/* A CUPTI metric name: unit "__" counter, then rollups and submetrics after dots, in [A-Za-z0-9_.]
 * (a unit holds no '_'; capitals appear in group-qualified names such as
 * "TPC.TriageCompute.sm__cycles_active"); METRIC_NAME_MAX - 1 bytes at most. */
static int is_metric_name(const char *w, size_t len)
{
	if (len == 0 || len >= METRIC_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= '0' && w[i] <= '9') ||
		      w[i] == '_' || w[i] == '.'))
			return 0;
	const char *u = memchr(w, '_', len);
	return u && u > w && (size_t)(u - w) + 2 < len && u[1] == '_' && w[len - 1] != '.';
}

/* The option a message begins with, "--metrics: ", or nothing. */
#define OPT(g) (g)->option ? (g)->option : "", (g)->option ? ": " : ""

static int add(const struct metric_grammar *g, size_t *n, char (*names)[METRIC_NAME_MAX], uint8_t *raw,
               uint8_t *alt, const char *name, size_t len, int is_raw, int is_alt, char *why, size_t nwhy)
{
	if (len >= METRIC_NAME_MAX) {
		snprintf(why, nwhy, "%s%sa metric name longer than %d bytes", OPT(g), METRIC_NAME_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len)) {
			if (raw)
				raw[i] |= (uint8_t)is_raw;
			return 0;
		}
	if (*n == g->max) {
		snprintf(why, nwhy, "%s%smore than %zu metrics", OPT(g), g->max);
		return -1;
	}
	memcpy(names[*n], name, len);
	names[*n][len] = '\0';
	if (raw)
		raw[*n] = (uint8_t)is_raw;
	if (alt)
		alt[*n] = (uint8_t)is_alt;
	(*n)++;
	return 0;
}

/* A set's member, "A" or "A|B|C": each name added, the later ones as alternatives. */
static int add_member(const struct metric_grammar *g, size_t *n, char (*names)[METRIC_NAME_MAX], uint8_t *raw,
                      uint8_t *alt, const char *member, char *why, size_t nwhy)
{
	for (int first = 1; *member; first = 0) {
		size_t len = strcspn(member, "|");
		if (len && add(g, n, names, raw, alt, member, len, 0, !first, why, nwhy))
			return -1;
		member += len + (member[len] == '|');
	}
	return 0;
}

int metric_names_parse(const struct metric_grammar *g, const char *spec, size_t *n,
                       char (*names)[METRIC_NAME_MAX], uint8_t *raw, uint8_t *alt, char *why, size_t nwhy)
{
	const char *p = spec;
	if (!*p && g->strict) {
		snprintf(why, nwhy, "%s takes sets (%s) or CUPTI metric names, comma-separated", g->option,
		         g->set_names);
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == 0 && !g->strict) { /* "memory,,compute": an empty word names nothing */
			p += *p == ',';
			continue;
		}
		size_t s = 0;
		while (s < g->nsets && !(strlen(g->sets[s].name) == len && !memcmp(g->sets[s].name, p, len)))
			s++;
		if (s < g->nsets) {
			for (const char *const *m = g->sets[s].metrics; *m; m++)
				if (add_member(g, n, names, raw, alt, *m, why, nwhy))
					return -1;
		} else if (is_metric_name(p, len)) {
			if (add(g, n, names, raw, alt, p, len, 1, 0, why, nwhy))
				return -1;
		} else {
			snprintf(why, nwhy, "%s%s'%.*s' is neither a metric set (%s) nor a CUPTI metric name", OPT(g),
			         (int)(len > 64 ? 64 : len), p, g->set_names);
			return -1;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p && g->strict) {
				snprintf(why, nwhy, "%s: the list ends with a comma", g->option);
				return -1;
			}
		}
	}
	return 0;
}
