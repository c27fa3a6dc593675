/* capture_select.c: the name pattern, the spread rule and the byte budget (capture_select.h). */
#include "cupti/capture_select.h"

#include "common/mangled.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int capture_pattern_compile(struct capture_pattern *p, const char *text, char *why, size_t n)
{
	memset(p, 0, sizeof *p);
	size_t len = text ? strlen(text) : 0;
	if (len == 0) {
		snprintf(why, n, "empty pattern");
		return -1;
	}
	if (len >= 2 && text[0] == '/' && text[len - 1] == '/') {
		if (len == 2) {
			snprintf(why, n, "empty regex '//'");
			return -1;
		}
		char *body = strndup(text + 1, len - 2);
		if (!body) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		int rc = regcomp(&p->re, body, REG_EXTENDED | REG_NOSUB);
		free(body);
		if (rc != 0) {
			char msg[160];
			regerror(rc, &p->re, msg, sizeof msg);
			snprintf(why, n, "bad regex %s: %s", text, msg);
			return -1;
		}
		p->is_regex = 1;
		p->compiled = 1;
		return 0;
	}
	if (len >= sizeof p->glob) {
		snprintf(why, n, "pattern longer than %zu bytes", sizeof p->glob - 1);
		return -1;
	}
	memcpy(p->glob, text, len + 1);
	return 0;
}

void capture_pattern_free(struct capture_pattern *p)
{
	if (p->compiled)
		regfree(&p->re);
	memset(p, 0, sizeof *p);
}

capture_demangle_fn capture_find_demangler(void)
{
	/* Only what the program loaded: capture runs inside it and must not load the C++ runtime. */
	return gt_demangler_find(GT_DEMANGLER_LOADED);
}

size_t capture_bare_name(const char *d, char *out, size_t n)
{
	size_t len = strlen(d);
	while (len && d[len - 1] == ' ')
		len--;
	size_t end = len;
	/* The parameter list: the '(' that matches the final ')'. */
	if (len && d[len - 1] == ')') {
		int depth = 0;
		for (size_t i = len; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				end = i;
				break;
			}
		}
	}
	/* The return type ends at the last space outside <...>, (...) and [...]. */
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i < end; i++) {
		char c = d[i];
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0)
			start = i + 1;
	}
	size_t bl = end > start ? end - start : 0;
	if (n) {
		size_t k = bl < n ? bl : n - 1;
		memcpy(out, d + start, k);
		out[k] = 0;
	}
	return bl;
}

static int match_one(const struct capture_pattern *p, const char *s)
{
	if (p->is_regex)
		return regexec(&p->re, s, 0, NULL, 0) == 0;
	return fnmatch(p->glob, s, 0) == 0;
}

int capture_pattern_match(const struct capture_pattern *p, const char *mangled, capture_demangle_fn dm)
{
	if (!mangled || !*mangled)
		return 0;
	if (match_one(p, mangled))
		return 1;
	/* A name whose demangling would cost more than the caps of common/mangled.h (the program's own
	 * name, but this runs inside the program) is matched as it is, mangled. */
	if (!dm || gt_mangled_check(mangled, NULL) != GT_MANGLED_OK)
		return 0;
	int st = -1;
	char *d = dm(mangled, NULL, NULL, &st);
	int hit = 0;
	if (d && st == 0) {
		hit = match_one(p, d);
		if (!hit) {
			char stack[512];
			size_t bl = capture_bare_name(d, stack, sizeof stack);
			if (bl < sizeof stack) {
				hit = bl && match_one(p, stack);
			} else {
				char *big = malloc(bl + 1);
				if (big) {
					capture_bare_name(d, big, bl + 1);
					hit = match_one(p, big);
					free(big);
				}
			}
		}
	}
	free(d);
	return hit;
}

/* ---- spread ---------------------------------------------------------------------------------- */

int capture_spread_claim(struct capture_spread *s, unsigned max, uint64_t *index)
{
	uint64_t i = s->launches++;
	if (i < s->next || (uint64_t)s->captured + s->inflight >= max)
		return 0;
	s->inflight++;
	/* The next capture: at least twice this launch's index (0 -> 1, 1 -> 2, 2 -> 4, ...). */
	s->next = i == 0 ? 1 : (i > UINT64_MAX / 2 ? UINT64_MAX : 2 * i);
	*index = i;
	return 1;
}

void capture_spread_done(struct capture_spread *s, uint64_t index, int taken)
{
	if (s->inflight)
		s->inflight--;
	if (taken)
		s->captured++;
	else if (index + 1 < s->next)
		s->next = index + 1; /* the turn passes to the next launch */
}

/* ---- budget ----------------------------------------------------------------------------------- */

int capture_budget_reserve(struct capture_budget *b, uint64_t bytes)
{
	if (b->used > b->limit || bytes > b->limit - b->used)
		return 0;
	b->used += bytes;
	return 1;
}

void capture_budget_release(struct capture_budget *b, uint64_t bytes)
{
	b->used = bytes > b->used ? 0 : b->used - bytes;
}
