/* copy.c: a trace copied into a writer record by record (copy.h). */
#include "traces/copy.h"

#include "traces/schema.h"

#include <stdlib.h>
#include <string.h>

struct gt_copy {
	struct gt_writer *w;
	uint32_t *map; /* input string id -> the writer's */
	size_t nmap;
};

int gt_copy_new(struct gt_copy **out, struct gt_writer *w)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return GT_ERR_NOMEM;
	(*out)->w = w;
	return 0;
}

void gt_copy_free(struct gt_copy *c)
{
	if (!c)
		return;
	free(c->map);
	free(c);
}

uint32_t gt_copy_string_id(const struct gt_copy *c, uint32_t id) { return id && id < c->nmap ? c->map[id] : 0; }

static int on_string(struct gt_copy *c, const struct gt_event *ev)
{
	uint32_t id;
	const char *s;
	size_t len;
	int rc = gt_parse_string(ev, &id, &s, &len);
	if (rc)
		return rc;
	uint32_t nid = gt_writer_intern_n(c->w, s, len);
	if (!nid)
		return GT_ERR_NOMEM;
	if (id >= c->nmap) {
		size_t n = c->nmap ? c->nmap : 256;
		while (n <= id)
			n *= 2;
		uint32_t *m = realloc(c->map, n * sizeof *m);
		if (!m)
			return GT_ERR_NOMEM;
		memset(m + c->nmap, 0, (n - c->nmap) * sizeof *m);
		c->map = m;
		c->nmap = n;
	}
	c->map[id] = nid;
	return 0;
}

/* Key and value as C strings (a NUL inside either ends it, as gt_writer_meta takes them). */
static int on_meta(struct gt_copy *c, const struct gt_event *ev)
{
	const char *k, *v;
	size_t kl, vl;
	int rc = gt_parse_meta(ev, &k, &kl, &v, &vl);
	if (rc)
		return rc;
	char *key = strndup(k, kl), *val = strndup(v, vl);
	if (key && val)
		rc = gt_writer_meta(c->w, key, val);
	else
		rc = GT_ERR_NOMEM;
	free(key);
	free(val);
	return rc;
}

static int on_capture(struct gt_copy *c, const struct gt_event *ev)
{
	struct gt_capture cap;
	const uint8_t *params_raw, *param_bytes;
	int rc = gt_capture_parse(ev, &cap, &params_raw, &param_bytes);
	if (rc)
		return rc;
	struct gt_capture_param *params = calloc(cap.nparams ? cap.nparams : 1, sizeof *params);
	if (!params)
		return GT_ERR_NOMEM;
	for (uint32_t i = 0; i < cap.nparams; i++)
		gt_capture_param_get(params_raw, i, &params[i]);
	cap.name_id = gt_copy_string_id(c, cap.name_id);
	uint8_t *buf;
	size_t len;
	rc = gt_capture_encode(&cap, params, param_bytes, &buf, &len);
	free(params);
	if (rc)
		return rc;
	rc = gt_writer_add_var(c->w, GT_REC_CAPTURE, buf, len);
	free(buf);
	return rc;
}

int gt_copy_record(struct gt_copy *c, struct gt_reader *r, const struct gt_event *ev)
{
	switch (ev->type) {
	case GT_REC_STRING: return on_string(c, ev);
	case GT_REC_META: return on_meta(c, ev);
	case GT_REC_DEVICE: {
		struct gt_device d;
		if (ev->u.var.len < sizeof d)
			return GT_ERR_CORRUPT;
		memcpy(&d, ev->u.var.data, sizeof d);
		const char *name = NULL;
		if (!gt_reader_device(r, d.device_id, &name))
			name = "";
		return gt_writer_device(c->w, &d, name);
	}
	case GT_REC_BLOB: return gt_writer_add_var(c->w, GT_REC_BLOB, ev->u.var.data, ev->u.var.len);
	case GT_REC_CAPTURE: return on_capture(c, ev);
	case GT_REC_END: return 0;
	default: break;
	}
	const struct gt_record_schema *k = gt_kind(ev->type);
	if (!k)
		return 0;
	struct gt_event out = *ev;
	for (const struct gt_field *f = k->fields; f->member; f++)
		if (f->kind == GT_FIELD_STRING) {
			uint32_t id;
			memcpy(&id, (const unsigned char *)&ev->u + f->offset, sizeof id);
			id = gt_copy_string_id(c, id);
			memcpy((unsigned char *)&out.u + f->offset, &id, sizeof id);
		}
	return gt_writer_add(c->w, ev->type, &out.u);
}
