/* idmap.h: a map from 64-bit keys to array indexes, for what an engine looks up once per record.
 *
 * The engines keep per-device, per-group or per-thread entries in arrays in order of first sight
 * (the order their output follows); a trace may name any number of devices or groups, so finding
 * an entry by scanning the array would cost its length per record. The pairs (key, index) are kept
 * in order of insertion, found through common/slots.h's hash index: O(1) expected per lookup.
 */
#ifndef GT_IDMAP_H
#define GT_IDMAP_H

#include "common/slots.h"

#include <stddef.h>
#include <stdint.h>

struct gt_idmap_pair {
	uint64_t key;
	size_t index;
};

struct gt_idmap {
	struct gt_idmap_pair *pairs;
	size_t n, cap;
	struct gt_slots slots;   /* key -> position in pairs */
};

/* A zeroed struct is an empty map. */
void gt_idmap_release(struct gt_idmap *m);
/* The index stored for key, or SIZE_MAX. */
size_t gt_idmap_get(const struct gt_idmap *m, uint64_t key);
/* Stores index for key (replacing any). 0 or GT_ERR_NOMEM (the map unchanged). */
int gt_idmap_put(struct gt_idmap *m, uint64_t key, size_t index);

#endif
