/* export_names.c: the names export writes from the trace's string table, escaped for the output
 * (JSON or CSV), demangled for kernels, and cached per string id. Separate because both emitters
 * use it and it is the only part that demangles. */
#include "analyze/export/export_internal.h"

#include "analyze/support/demangle.h"
#include "common/grow.h"

/* The name of string id `id`, escaped, demangled or not; cached per id with its length (*len). */
const char *gt_ex_name_of(struct ex *x, const struct gt_reader *r, uint32_t id, int demangle, size_t *len)
{
	if (id > gt_reader_string_count(r))
		id = 0;
	/* Two entries per id (raw, demangled): one element of the table is the pair. */
	if (id >= x->nnames && gt_grow_zeroed(&x->names, &x->nnames, (size_t)id + 1, 2 * sizeof *x->names, 256))
		return NULL;
	struct cname *c = &x->names[2 * (size_t)id + (demangle ? 1 : 0)];
	if (!c->s) {
		const char *s = gt_reader_string(r, id);
		char *d = NULL;
		if (!s[0])
			s = demangle ? "(unnamed)" : "";
		else if (demangle && !(d = gt_demangle(s)))
			return NULL;
		c->s = escape(d ? d : s, x->opt->format == GT_EXPORT_CHROME);
		free(d);
		if (!c->s)
			return NULL;
		c->n = strlen(c->s);
	}
	if (len)
		*len = c->n;
	return c->s;
}
