/* capture.c: the CAPTURE record's byte layout: header, parameter table, raw parameter bytes. */
#include "format.h"

#include <stdlib.h>
#include <string.h>

#define GT_MAX_CAPTURE_PARAMS 4096u

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
