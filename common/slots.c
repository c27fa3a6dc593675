/* slots.c: growing and filling the hash index of slots.h. */
#include "slots.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 64

static void put(uint32_t *slot, size_t cap, uint64_t h, size_t index)
{
	size_t i = (size_t)h & (cap - 1);
	while (slot[i])
		i = (i + 1) & (cap - 1);
	slot[i] = (uint32_t)index + 1u;
}

static int grow(struct gt_slots *t, gt_slots_hash_fn hash, const void *ctx)
{
	size_t cap = t->cap ? t->cap * 2 : FIRST_CAP;
	if (cap > SIZE_MAX / sizeof *t->slot)
		return -1;
	uint32_t *slot = calloc(cap, sizeof *slot);
	if (!slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i])
			put(slot, cap, hash(ctx, t->slot[i] - 1u), t->slot[i] - 1u);
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

int gt_slots_add(struct gt_slots *t, uint64_t h, size_t index, gt_slots_hash_fn hash, const void *ctx)
{
	if (index > GT_SLOTS_MAX)
		return -1;
	/* At most half full: with linear probing, a miss then costs about 2.5 probes. */
	if ((t->n + 1) * 2 > t->cap && grow(t, hash, ctx))
		return -1;
	put(t->slot, t->cap, h, index);
	t->n++;
	return 0;
}

void gt_slots_release(struct gt_slots *t)
{
	if (t) {
		free(t->slot);
		memset(t, 0, sizeof *t);
	}
}
