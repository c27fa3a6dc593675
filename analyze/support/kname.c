/* kname.c: base names and short names of kernels (kname.h), through one bounded appender.
 *
 * Both derivations once wrote into a buffer sized from the input and an assumption about how much
 * the output could grow; hostile names broke both assumptions ("_ZN1a1a...E!" grows by half again
 * as each "1a" becomes "::a", "k<><>..." more than doubles as each "<>" becomes "<...>"), and the
 * bytes written past the buffer came from the trace. Here every write goes through name_put, which
 * makes room first, so the size of the result is never guessed.
 */
#include "analyze/support/kname.h"

#include "analyze/support/demangle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A growing string: p holds len bytes and room for a NUL; nomem sticks once a growth failed. */
struct name_buf {
	char *p;
	size_t len, cap;
	int nomem;
};

static void name_put(struct name_buf *b, const char *s, size_t n)
{
	if (b->nomem)
		return;
	if (n > SIZE_MAX / 2 - 1 - b->len) {
		b->nomem = 1;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->nomem = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void name_putc(struct name_buf *b, char c) { name_put(b, &c, 1); }

/* Keeps the first n bytes (n <= len). */
static void name_cut(struct name_buf *b, size_t n)
{
	if (b->p && n <= b->len) {
		b->len = n;
		b->p[n] = '\0';
	}
}

/* The string, or NULL (and nothing leaked) when a growth failed. An empty buffer gives "". */
static char *name_finish(struct name_buf *b)
{
	if (b->nomem) {
		free(b->p);
		return NULL;
	}
	return b->p ? b->p : strdup("");
}

/* Source names of a mangled name whose demangling failed: _Z<len><id>... or _ZN(<len><id>)+E.
 * Lengths are checked against the bytes left (end), which also keeps the walk linear. */
static char *base_from_mangled(const char *m)
{
	if (strncmp(m, "_Z", 2) != 0)
		return strdup(m);
	const char *p = m + 2, *end = m + strlen(m);
	int nested = *p == 'N';
	if (nested) {
		p++;
		while (*p == 'K' || *p == 'V' || *p == 'r')
			p++;
	}
	struct name_buf b = { 0 };
	while (*p >= '0' && *p <= '9') {
		char *after;
		unsigned long len = strtoul(p, &after, 10);
		if (len == 0 || len > (size_t)(end - after))
			break;
		if (b.len)
			name_put(&b, "::", 2);
		name_put(&b, after, len);
		p = after + len;
		if (!nested)
			break;
	}
	if (b.len == 0 && !b.nomem) {
		free(b.p);
		return strdup(m);
	}
	return name_finish(&b);
}

char *gt_kernel_base_name(const char *mangled, const char *demangled)
{
	if (!demangled || (strcmp(demangled, mangled) == 0 && strncmp(mangled, "_Z", 2) == 0))
		return base_from_mangled(mangled);
	/* The parameter list is the first '(' outside template arguments; "(anonymous namespace)" is
	 * part of a name, not a parameter list. */
	static const char anon[] = "(anonymous namespace)";
	const char *d = demangled, *paren = NULL;
	int depth = 0;
	for (const char *p = d; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0) {
			if (strncmp(p, anon, sizeof anon - 1) == 0) {
				p += sizeof anon - 2;
				continue;
			}
			paren = p;
			break;
		}
	}
	size_t end = paren ? (size_t)(paren - d) : strlen(d);
	/* A return type (templates have one) ends at the last space outside template arguments. */
	size_t start = 0;
	depth = 0;
	for (size_t i = 0; i < end; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && depth == 0)
			start = i + 1;
	}
	return strndup(d + start, end - start);
}

/* The short form of the demangled d into b (see kname.h): one pass; a qualifier or a space at the
 * outer level starts the name over. */
static void short_of(struct name_buf *b, const char *d)
{
	int depth = 0;
	for (const char *c = d; *c; c++) {
		if (*c == '<') {
			if (depth++ == 0)
				name_put(b, "<...>", 5);
			continue;
		}
		if (*c == '>' && depth > 0) {
			depth--;
			continue;
		}
		if (depth)
			continue;
		if (*c == '(') {
			if (!strncmp(c, "(anonymous namespace)", 21)) {
				c += 20;
				continue;
			}
			break; /* the parameter list */
		}
		if (*c == ':' && c[1] == ':') {
			name_cut(b, 0); /* keep what follows the last qualifier */
			c++;
			continue;
		}
		if (*c == ' ') {
			name_cut(b, 0); /* a return type before the name */
			continue;
		}
		name_putc(b, *c);
	}
}

char *gt_kernel_short_name(const char *mangled)
{
	char *d = gt_demangle(mangled);
	if (!d)
		return NULL;
	struct name_buf b = { 0 };
	short_of(&b, d);
	if (!b.nomem && b.len == 0) {
		free(b.p);
		if (d[0])
			return d;
		free(d);
		return strdup("(unnamed)");
	}
	free(d);
	if (b.len > 100) {
		name_cut(&b, 97);
		name_put(&b, "...", 3);
	}
	return name_finish(&b);
}

/* Sorting label indices by their text (qsort's comparator has no context: the labels ride along). */
struct label_ref {
	const char *text;
	size_t i;
};

static int by_text(const void *a, const void *b)
{
	const struct label_ref *x = a, *y = b;
	int c = strcmp(x->text, y->text);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Replaces, in each run of equal labels that names more than one kernel, every label with
 * better(mangled); refs is scratch of n. 0, or -1 with no memory. */
static int widen_equal(const char *const *mangled, size_t n, char **out, struct label_ref *refs,
                       char *(*better)(const char *))
{
	for (size_t i = 0; i < n; i++)
		refs[i] = (struct label_ref){ out[i], i };
	qsort(refs, n, sizeof *refs, by_text);
	for (size_t a = 0, b; a < n; a = b) {
		int several = 0;
		for (b = a + 1; b < n && !strcmp(refs[b].text, refs[a].text); b++)
			several |= strcmp(mangled[refs[b].i], mangled[refs[a].i]) != 0;
		if (!several)
			continue;
		for (size_t k = a; k < b; k++) {
			char *w = better(mangled[refs[k].i]);
			if (!w)
				return -1;
			free(out[refs[k].i]);
			out[refs[k].i] = w;
		}
	}
	return 0;
}

static char *base_label(const char *mangled)
{
	char *d = gt_demangle(mangled);
	if (!d)
		return NULL;
	char *b = gt_kernel_base_name(mangled, d);
	free(d);
	return b;
}

int gt_kernel_labels(const char *const *mangled, size_t n, char **out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	struct label_ref *refs = n ? malloc(n * sizeof *refs) : NULL;
	int rc = n && !refs ? -1 : 0;
	for (size_t i = 0; !rc && i < n; i++)
		if (!(out[i] = gt_kernel_short_name(mangled[i])))
			rc = -1;
	if (!rc && n > 1)
		rc = widen_equal(mangled, n, out, refs, base_label);
	if (!rc && n > 1)
		rc = widen_equal(mangled, n, out, refs, gt_demangle);
	free(refs);
	if (rc)
		for (size_t i = 0; i < n; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	return rc;
}
