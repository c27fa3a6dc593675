/* json_member.h: one member of a JSON object in one call, its key and then its value.
 *
 * Why it exists: every command's JSON writer is mostly members, and a member written as two calls
 * (gt_json_key, then the value) doubled the length of each writer and made them all look alike.
 * Each function here is exactly gt_json_key followed by the value call of output.h, so the bytes
 * written, and the misuse errors recorded in the writer, are the same as those two calls'.
 */
#ifndef GT_JSON_MEMBER_H
#define GT_JSON_MEMBER_H

#include "analyze/output/output.h"

#include <stdint.h>

void gt_json_key_str(struct gt_json *j, const char *key, const char *s); /* NULL writes null */
void gt_json_key_num(struct gt_json *j, const char *key, double v);      /* NaN, inf: null */
void gt_json_key_u64(struct gt_json *j, const char *key, uint64_t v);
void gt_json_key_i64(struct gt_json *j, const char *key, int64_t v);
void gt_json_key_bool(struct gt_json *j, const char *key, int v);
void gt_json_key_null(struct gt_json *j, const char *key);
/* A value that may be unknown: v when known, else null (v is then ignored, but evaluated: it must
 * be safe to compute either way). */
void gt_json_key_u64_if(struct gt_json *j, const char *key, int known, uint64_t v);
void gt_json_key_i64_if(struct gt_json *j, const char *key, int known, int64_t v);
/* A member whose value is an object or an array: the key, then the container opened. */
void gt_json_key_object(struct gt_json *j, const char *key);
void gt_json_key_array(struct gt_json *j, const char *key);

#endif
