/* json_member.c: a JSON object member as one call (see json_member.h for why).
 *
 * Every function is the same two calls, gt_json_key and then the value's, so they are written once,
 * by a macro, instead of eight times by hand.
 */
#include "analyze/output/json_member.h"

/* A member with a value of type T, written by VALUE (a gt_json_* of output.h). */
#define GT_JSON_MEMBER(NAME, T, VALUE)                                                             \
	void gt_json_key_##NAME(struct gt_json *j, const char *key, T v)                           \
	{                                                                                          \
		gt_json_key(j, key);                                                               \
		VALUE(j, v);                                                                       \
	}

/* A member whose value takes no argument: null, or a container that it opens. */
#define GT_JSON_MEMBER_OPEN(NAME, VALUE)                                                           \
	void gt_json_key_##NAME(struct gt_json *j, const char *key)                                \
	{                                                                                          \
		gt_json_key(j, key);                                                               \
		VALUE(j);                                                                          \
	}

GT_JSON_MEMBER(str, const char *, gt_json_str)
GT_JSON_MEMBER(num, double, gt_json_num)
GT_JSON_MEMBER(u64, uint64_t, gt_json_u64)
GT_JSON_MEMBER(i64, int64_t, gt_json_i64)
GT_JSON_MEMBER(bool, int, gt_json_bool)
GT_JSON_MEMBER_OPEN(null, gt_json_null)
GT_JSON_MEMBER_OPEN(object, gt_json_object_begin)
GT_JSON_MEMBER_OPEN(array, gt_json_array_begin)

/* Known or null: the branch that every writer of an optional integer repeated. */
#define GT_JSON_MEMBER_IF(NAME, T, VALUE)                                                          \
	void gt_json_key_##NAME##_if(struct gt_json *j, const char *key, int known, T v)           \
	{                                                                                          \
		gt_json_key(j, key);                                                               \
		if (known)                                                                         \
			VALUE(j, v);                                                               \
		else                                                                               \
			gt_json_null(j);                                                           \
	}

GT_JSON_MEMBER_IF(u64, uint64_t, gt_json_u64)
GT_JSON_MEMBER_IF(i64, int64_t, gt_json_i64)
