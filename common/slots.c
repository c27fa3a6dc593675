/* slots.c: growing and filling the hash index of slots.h. */
#include "common/slots.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FIRST_CAP 64

static void put(const struct gt_slots *t, uint64_t h, size_t index)
{
	size_t i = gt_slots_start(t, h);
	while (t->slot[i])
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = (uint32_t)index + 1u;
}

/* A table's key: from the kernel's random source; where that fails (a sandbox without getrandom),
 * from the clock and the table's address, which a trace written in advance cannot know either. */
static uint64_t new_key(const struct gt_slots *t)
{
	uint64_t k;
	if (getentropy(&k, sizeof k) == 0)
		return k;
	struct timespec ts = { 0, 0 };
	(void)clock_gettime(CLOCK_MONOTONIC, &ts); /* zero on failure: the address still varies */
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ (uint64_t)(uintptr_t)t;
}

static int grow(struct gt_slots *t, gt_slots_hash_fn hash, const void *ctx)
{
	size_t cap = t->cap ? t->cap * 2 : FIRST_CAP;
	if (cap > SIZE_MAX / sizeof *t->slot)
		return -1;
	struct gt_slots g = { calloc(cap, sizeof *g.slot), cap, t->n, t->cap ? t->key : new_key(t) };
	if (!g.slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i])
			put(&g, hash(ctx, t->slot[i] - 1u), t->slot[i] - 1u);
	}
	free(t->slot);
	*t = g;
	return 0;
}

int gt_slots_add(struct gt_slots *t, uint64_t h, size_t index, gt_slots_hash_fn hash, const void *ctx)
{
	if (index > GT_SLOTS_MAX)
		return -1;
	/* At most half full: with linear probing, a miss then costs about 2.5 probes. */
	if ((t->n + 1) * 2 > t->cap && grow(t, hash, ctx))
		return -1;
	put(t, h, index);
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
