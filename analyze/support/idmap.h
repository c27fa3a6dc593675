/* idmap.h: a map from 64-bit keys to array indexes, for what an engine looks up once per record.
 *
 * The engines keep per-device, per-group or per-thread entries in arrays in order of first sight
 * (the order their output follows); a trace may name any number of devices or groups, so finding
 * an entry by scanning the array would cost its length per record. Open addressing with linear
 * probing, at most half full: O(1) expected per lookup, 16 bytes per slot.
 */
#ifndef GT_IDMAP_H
#define GT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct gt_idmap {
	uint64_t *keys;
	size_t *vals;            /* index + 1; 0: the slot is free */
	size_t cap, n;           /* cap: 0 or a power of two */
};

/* A zeroed struct is an empty map. */
void gt_idmap_release(struct gt_idmap *m);
/* The index stored for key, or SIZE_MAX. */
size_t gt_idmap_get(const struct gt_idmap *m, uint64_t key);
/* Stores index for key (replacing any). 0 or GT_ERR_NOMEM (the map unchanged). */
int gt_idmap_put(struct gt_idmap *m, uint64_t key, size_t index);

#endif
