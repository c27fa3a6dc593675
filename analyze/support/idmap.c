/* idmap.c: keys to indexes through common/slots.h (see idmap.h). The hash is a multiply and a
 * shift (Fibonacci hashing), enough for ids that are small integers or packed fields. */
#include "analyze/support/idmap.h"

#include "common/grow.h"
#include "traces/gputrace.h"

#include <stdlib.h>
#include <string.h>

void gt_idmap_release(struct gt_idmap *m)
{
	if (!m)
		return;
	free(m->pairs);
	gt_slots_release(&m->slots);
	memset(m, 0, sizeof *m);
}

static uint64_t hash_key(uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static int pair_is(const void *ctx, size_t i, const void *key)
{
	return ((const struct gt_idmap_pair *)ctx)[i].key == *(const uint64_t *)key;
}

static uint64_t pair_hash(const void *ctx, size_t i)
{
	return hash_key(((const struct gt_idmap_pair *)ctx)[i].key);
}

static size_t pair_of(const struct gt_idmap *m, uint64_t key)
{
	return gt_slots_find(&m->slots, hash_key(key), pair_is, m->pairs, &key);
}

size_t gt_idmap_get(const struct gt_idmap *m, uint64_t key)
{
	size_t i = pair_of(m, key);
	return i == GT_SLOTS_NONE ? SIZE_MAX : m->pairs[i].index;
}

int gt_idmap_put(struct gt_idmap *m, uint64_t key, size_t index)
{
	size_t i = pair_of(m, key);
	if (i != GT_SLOTS_NONE) {
		m->pairs[i].index = index;
		return 0;
	}
	struct gt_idmap_pair *p = gt_grow(m->pairs, &m->cap, m->n, sizeof *p, 16);
	if (!p)
		return GT_ERR_NOMEM;
	m->pairs = p;
	if (gt_slots_add(&m->slots, hash_key(key), m->n, pair_hash, m->pairs))
		return GT_ERR_NOMEM;
	m->pairs[m->n++] = (struct gt_idmap_pair){ key, index };
	return 0;
}
