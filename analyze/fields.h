/* fields.h: the fields of each event record, by name, for output that shows "all fields".
 *
 * gputrace.h defines the records as C structs; this is the same layout as data, so that `dump` (and
 * later `export`) print every field without one printf per struct member, and a field added to a
 * record in a later minor version needs one line here. String ids are resolved to their text (the
 * field is named for what it holds: "name", not "name_id"); enumerations print their names
 * ("HtoD", "pinned"); reserved fields are left out.
 */
#ifndef GT_FIELDS_H
#define GT_FIELDS_H

#include "gputrace.h"

#include <stddef.h>
#include <stdint.h>

enum gt_field_kind {
	GT_FIELD_UINT,   /* unsigned integer of `size` bytes */
	GT_FIELD_INT,    /* signed integer of `size` bytes */
	GT_FIELD_HEX,    /* unsigned, shown as "0x..." (addresses, colours) */
	GT_FIELD_STRING, /* u32 string id, shown as the string */
	GT_FIELD_ENUM,   /* unsigned, shown through enum_name (the number when the name is unknown) */
};

struct gt_field {
	const char *name;
	uint16_t offset;
	uint8_t size;
	uint8_t kind;             /* enum gt_field_kind */
	const char *(*enum_name)(int value);
};

/* The fields of a fixed record type in struct order; NULL (and *n = 0) for other types. */
const struct gt_field *gt_fields_of(int type, size_t *n);
/* The field's integer value in rec (a struct of its type). */
uint64_t gt_field_u64(const struct gt_field *f, const void *rec);
int64_t gt_field_i64(const struct gt_field *f, const void *rec);
/* The field as text (string ids resolved through r, enums named); the result points into buf or
 * into the reader's string table. */
const char *gt_field_text(const struct gt_field *f, const void *rec, const struct gt_reader *r,
                          char *buf, size_t len);
/* The fixed record types in number order, for listing and parsing --type. */
extern const int gt_event_types[];
extern const size_t gt_event_type_count;

#endif
