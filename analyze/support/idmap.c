/* idmap.c: keys to indexes by open addressing (see idmap.h). The hash is a multiply and a shift
 * (Fibonacci hashing), enough for ids that are small integers or packed fields. */
#include "analyze/support/idmap.h"

#include "gputrace.h"

#include <stdlib.h>

void gt_idmap_release(struct gt_idmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}

static size_t slot_of(const uint64_t *keys, const size_t *vals, size_t cap, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h ^ (h >> 32)) & (cap - 1);
	while (vals[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

size_t gt_idmap_get(const struct gt_idmap *m, uint64_t key)
{
	if (!m->cap)
		return SIZE_MAX;
	size_t i = slot_of(m->keys, m->vals, m->cap, key);
	return m->vals[i] ? m->vals[i] - 1 : SIZE_MAX;
}

static int grow(struct gt_idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = malloc(cap * sizeof *keys);
	size_t *vals = calloc(cap, sizeof *vals);
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		size_t j = slot_of(keys, vals, cap, m->keys[i]);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int gt_idmap_put(struct gt_idmap *m, uint64_t key, size_t index)
{
	if (2 * (m->n + 1) > m->cap && grow(m))
		return GT_ERR_NOMEM;
	size_t i = slot_of(m->keys, m->vals, m->cap, key);
	if (!m->vals[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = index + 1;
	return 0;
}
