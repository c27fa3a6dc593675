/* capture.c: the CAPTURE record's byte layout: header, parameter table, raw parameter bytes. */
#include "traces/format.h"

#include <stdlib.h>
#include <string.h>

int gt_capture_encode(const struct gt_capture *c, const struct gt_capture_param *params,
                      const void *param_bytes, uint8_t **out, size_t *len)
{
	if (!c || !out || !len || (c->nparams && !params) || (c->param_bytes && !param_bytes) ||
	    c->nparams > GT_MAX_CAPTURE_PARAMS)
		return GT_ERR_ARG;
	size_t n = sizeof *c + (size_t)c->nparams * sizeof *params + c->param_bytes;
	uint8_t *b = malloc(n);
	if (!b)
		return GT_ERR_NOMEM;
	memcpy(b, c, sizeof *c);
	if (c->nparams)
		memcpy(b + sizeof *c, params, (size_t)c->nparams * sizeof *params);
	if (c->param_bytes)
		memcpy(b + sizeof *c + (size_t)c->nparams * sizeof *params, param_bytes, c->param_bytes);
	*out = b;
	*len = n;
	return 0;
}

void gt_capture_param_get(const uint8_t *params_raw, uint32_t i, struct gt_capture_param *out)
{
	memcpy(out, params_raw + (size_t)i * sizeof *out, sizeof *out);
}

int gt_capture_parse(const struct gt_event *ev, struct gt_capture *c, const uint8_t **params_raw,
                     const uint8_t **param_bytes)
{
	if (!ev || ev->type != GT_REC_CAPTURE || !c)
		return GT_ERR_ARG;
	if (ev->u.var.len < sizeof *c)
		return GT_ERR_CORRUPT;
	memcpy(c, ev->u.var.data, sizeof *c);
	if (c->nparams > GT_MAX_CAPTURE_PARAMS)
		return GT_ERR_CORRUPT;
	uint64_t need = sizeof *c + (uint64_t)c->nparams * sizeof(struct gt_capture_param) +
	                c->param_bytes;
	if (need != ev->u.var.len)
		return GT_ERR_CORRUPT;
	const uint8_t *p = ev->u.var.data + sizeof *c;
	/* Records follow 4-byte length prefixes in a chunk, so the table has no alignment to promise:
	 * entries are read with memcpy (gt_capture_param_get). */
	if (params_raw)
		*params_raw = p;
	for (uint32_t i = 0; i < c->nparams; i++) {
		struct gt_capture_param q;
		memcpy(&q, p + (size_t)i * sizeof q, sizeof q);
		if ((uint64_t)q.offset + q.size > c->param_bytes)
			return GT_ERR_CORRUPT;
	}
	if (param_bytes)
		*param_bytes = p + (size_t)c->nparams * sizeof(struct gt_capture_param);
	return 0;
}

struct alloc_span {
	uint64_t base, bytes;
};

static int span_cmp(const void *a, const void *b)
{
	const struct alloc_span *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* Sums the captured allocations once each: parameters pointing into one allocation share its
 * copies, as the recorder's byte budget counts them. Sorting keeps this O(n log n) for the 4096
 * parameters a capture may have. */
int gt_capture_bytes(const struct gt_capture *c, const uint8_t *params_raw, uint64_t *bytes)
{
	*bytes = 0;
	if (!c->nparams)
		return 0;
	struct alloc_span *s = malloc((size_t)c->nparams * sizeof *s);
	if (!s)
		return GT_ERR_NOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nparams; i++) {
		struct gt_capture_param q;
		gt_capture_param_get(params_raw, i, &q);
		if (q.kind == GT_PARAM_POINTER && q.status == GT_PARAM_OK)
			s[n++] = (struct alloc_span){ q.alloc_base, q.alloc_bytes };
	}
	qsort(s, n, sizeof *s, span_cmp);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i && s[i].base == s[i - 1].base)
			continue;
		/* Saturate: a hostile size must not wrap round to a small sum. */
		sum = s[i].bytes > UINT64_MAX / 2 - sum ? UINT64_MAX / 2 : sum + s[i].bytes;
	}
	free(s);
	*bytes = 2 * sum;
	return 0;
}
