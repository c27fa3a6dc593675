/* schema.h: the trace format's records as data: every field of every record struct in gputrace.h.
 *
 * The one table of the format's layout. Built from offsetof and sizeof, so it cannot disagree with
 * the header about where a field is. The codec (format.c) takes from it which fields are stored as
 * deltas; `gpuanalyze dump` and the exports print the shown fields by name (string ids resolved,
 * enumerations named); tests/unit/test_trace_spec.c checks that it tiles each struct exactly and
 * that gputrace-format(5) documents the same rows; the test tools lay records out from it.
 * Internal to the trace library (not installed).
 */
#ifndef GT_SCHEMA_H
#define GT_SCHEMA_H

#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How a field is shown. */
enum gt_field_kind {
	GT_FIELD_UINT,     /* unsigned integer of `size` bytes */
	GT_FIELD_INT,      /* signed integer of `size` bytes */
	GT_FIELD_HEX,      /* unsigned, shown as "0x..." (addresses, colours) */
	GT_FIELD_STRING,   /* u32 string id, shown as the string */
	GT_FIELD_ENUM,     /* unsigned, shown through enum_name (the number when the name is unknown) */
	GT_FIELD_RESERVED, /* reserved bytes: never shown */
	GT_FIELD_F64,      /* IEEE-754 double (stored as its bits), shown with the shortest text that
	                    * reads back to the same value, and as a number by every output */
};

/* How the codec stores a fixed record's field before transposing the block (format.c). */
enum gt_field_codec {
	GT_CODEC_PLAIN,   /* as is */
	GT_CODEC_BASE,    /* field 0: zigzag delta to the previous record's base */
	GT_CODEC_REL,     /* u64 timestamp relative to its record's base (0 stays 0) */
	GT_CODEC_DELTA32, /* u32 as the wrapping difference to the previous record's */
};

struct gt_field {
	const char *member;  /* as in the struct (an array's name without its bound); NULL ends a table */
	const char *name;    /* as shown: "name" for name_id; NULL for reserved fields */
	uint16_t offset;
	uint16_t size;
	uint8_t kind;        /* enum gt_field_kind */
	uint8_t codec;       /* enum gt_field_codec */
	const char *type;    /* u8 u16 u32 u64 i32 f64, u8[n] or u32[n], as gputrace-format(5) writes it */
	const char *(*enum_name)(int value);
};

/* A row: one struct of the format. The fixed records' rows (the events: kernels, copies, API
 * calls, ...) are also what generic code knows of each kind, so that a new kind is its row here and
 * the analyses that read it, not a case in every switch: its name (dump --type, the exports' type
 * column), its time, whether it spans an interval, the device it happened on. An event's start, or
 * its timestamp, is always its field 0, the codec's base. Offsets are in bytes; -1: the kind has
 * no such field. tests/unit/test_trace_kinds.c checks these against the fields and the code. */
struct gt_record_schema {
	int type;                      /* enum gt_rec_type (a sub-structure: its record's type) */
	const char *name;              /* gt_rec_type_name(), or the sub-structure's name */
	uint16_t size;                 /* sizeof the struct */
	const struct gt_field *fields; /* in struct order, ending with a NULL member */
	int16_t end;                   /* the u64 end of an interval; -1: an instant (a timestamp) */
	int16_t device;                /* the u32 id of the device it happened on */
	int16_t flags;                 /* the flags in which `bad_times` marks times not measured */
	uint8_t flags_size;            /* ... their size (1, 2 or 4 bytes) */
	uint32_t bad_times;            /* ... the bits; 0: the kind's times are always as recorded */
	uint8_t measure;               /* 1: a measurement of its device over its interval (hardware
	                                * counters), not work the device did: outside the GPU's span */
};

/* Every struct of the format: variable records' leading structs, the capture's parameter entry,
 * then the fixed records in type order. */
extern const struct gt_record_schema gt_schema[];
extern const size_t gt_schema_count;

/* The schema of record type `type` (a fixed type, or a variable type's leading struct); NULL if
 * the format has none. */
const struct gt_record_schema *gt_schema_of(int type);

/* The row of event kind `type` (a fixed record type the format defines); NULL for any other
 * type. Constant time: generic code asks it once per record. */
const struct gt_record_schema *gt_kind(int type);

/* An event's start, or its timestamp (field 0 of every kind). */
static inline uint64_t gt_kind_start(const void *rec)
{
	uint64_t v;
	memcpy(&v, rec, sizeof v);
	return v;
}

/* The end of an interval kind's event; 0 for an instant's. */
static inline uint64_t gt_kind_end(const struct gt_record_schema *k, const void *rec)
{
	uint64_t v = 0;
	if (k->end >= 0)
		memcpy(&v, (const unsigned char *)rec + k->end, sizeof v);
	return v;
}

/* 1 when the event's flags say its times were not measured (a kernel's GT_KERNEL_BAD_TIMES). */
static inline int gt_kind_bad_times(const struct gt_record_schema *k, const void *rec)
{
	if (!k->bad_times)
		return 0;
	const unsigned char *p = (const unsigned char *)rec + k->flags;
	uint8_t u8;
	uint16_t u16;
	uint32_t v;
	switch (k->flags_size) {
	case 1: memcpy(&u8, p, 1), v = u8; break;
	case 2: memcpy(&u16, p, 2), v = u16; break;
	default: memcpy(&v, p, 4); break;
	}
	return (v & k->bad_times) != 0;
}

/* 1 and *device when the event's kind says on which device it happened; else 0. */
static inline int gt_kind_device(const struct gt_record_schema *k, const void *rec, uint32_t *device)
{
	if (k->device < 0)
		return 0;
	memcpy(device, (const unsigned char *)rec + k->device, sizeof *device);
	return 1;
}

/* The shown fields of a fixed record type in struct order (reserved fields, which end every fixed
 * struct, left out); NULL (and *n = 0) for other types. */
const struct gt_field *gt_fields_of(int type, size_t *n);
/* The field's integer value in rec (a struct of its type); an f64 field's bits. */
uint64_t gt_field_u64(const struct gt_field *f, const void *rec);
int64_t gt_field_i64(const struct gt_field *f, const void *rec);
/* An f64 field's value. */
double gt_field_f64(const struct gt_field *f, const void *rec);
/* The shortest "%.Ng" text of v that reads back as v (15 to 17 digits): an f64 field's text. */
void gt_f64_text(char *buf, size_t len, double v);
/* The field as text (string ids resolved through r, enums named); the result points into buf or
 * into the reader's string table. */
const char *gt_field_text(const struct gt_field *f, const void *rec, const struct gt_reader *r,
                          char *buf, size_t len);

#endif
