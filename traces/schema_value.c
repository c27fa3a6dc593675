/* schema_value.c: reading a field of the schema (schema.h) out of a record: as a number, or as the
 * text `dump` and the exports show. */
#include "traces/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct gt_field *gt_fields_of(int type, size_t *n)
{
	const struct gt_record_schema *s = type >= GT_REC_FIRST_FIXED ? gt_schema_of(type) : NULL;
	*n = 0;
	if (!s)
		return NULL;
	/* Reserved fields end every fixed struct (test_trace_spec checks it): the shown ones lead. */
	while (s->fields[*n].name)
		(*n)++;
	return s->fields;
}

uint64_t gt_field_u64(const struct gt_field *f, const void *rec)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset;
	switch (f->size) {
	case 1: return *p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

int64_t gt_field_i64(const struct gt_field *f, const void *rec)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset;
	switch (f->size) {
	case 1: return (int8_t)*p;
	case 2: { int16_t v; memcpy(&v, p, 2); return v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

double gt_field_f64(const struct gt_field *f, const void *rec)
{
	double v = 0;
	if (f->size == sizeof v)
		memcpy(&v, (const unsigned char *)rec + f->offset, sizeof v);
	return v;
}

void gt_f64_text(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

const char *gt_field_text(const struct gt_field *f, const void *rec, const struct gt_reader *r,
                          char *buf, size_t len)
{
	uint64_t v = gt_field_u64(f, rec);
	switch (f->kind) {
	case GT_FIELD_STRING:
		return gt_reader_string(r, (uint32_t)v);
	case GT_FIELD_ENUM: {
		const char *name = f->enum_name((int)v);
		if (strcmp(name, "unknown") != 0 || v == 0)
			return name;
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	case GT_FIELD_HEX:
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
		return buf;
	case GT_FIELD_INT:
		snprintf(buf, len, "%lld", (long long)gt_field_i64(f, rec));
		return buf;
	case GT_FIELD_F64:
		gt_f64_text(buf, len, gt_field_f64(f, rec));
		return buf;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
}
