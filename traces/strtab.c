/* strtab.c: string interning for trace definitions (see strtab.h). */
#include "strtab.h"

#include "common/fnv.h"

#include <stdlib.h>
#include <string.h>

#define SLAB_BYTES (64u << 10)

struct gt_slab {
	struct gt_slab *next;
	size_t used, cap;
	char data[];
};

int gt_strtab_init(struct gt_strtab *t)
{
	memset(t, 0, sizeof *t);
	return 0;
}

void gt_strtab_release(struct gt_strtab *t)
{
	struct gt_slab *s = t->slabs;
	while (s) {
		struct gt_slab *n = s->next;
		free(s);
		s = n;
	}
	free(t->by_id);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

static char *store(struct gt_strtab *t, const char *s, size_t len)
{
	struct gt_slab *sl = t->slabs;
	if (!sl || sl->cap - sl->used < len + 1) {
		size_t cap = len + 1 > SLAB_BYTES ? len + 1 : SLAB_BYTES;
		sl = malloc(sizeof *sl + cap);
		if (!sl)
			return NULL;
		sl->used = 0;
		sl->cap = cap;
		/* A large string gets a slab of its own behind the current one, which stays in use. */
		if (t->slabs && cap > SLAB_BYTES) {
			sl->next = t->slabs->next;
			t->slabs->next = sl;
		} else {
			sl->next = t->slabs;
			t->slabs = sl;
		}
	}
	char *p = sl->data + sl->used;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	sl->used += len + 1;
	t->bytes += len;
	return p;
}

uint32_t gt_strtab_append(struct gt_strtab *t, const char *s, size_t len)
{
	if (len > UINT32_MAX || t->count == UINT32_MAX - 1)
		return 0;
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		char **b = realloc(t->by_id, cap * sizeof *b);
		if (!b)
			return 0;
		t->by_id = b;
		uint32_t *l = realloc(t->lens, cap * sizeof *l);
		if (!l)
			return 0;
		t->lens = l;
		t->cap = cap;
	}
	char *p = store(t, s, len);
	if (!p)
		return 0;
	t->by_id[t->count] = p;
	t->lens[t->count] = (uint32_t)len;
	return ++t->count;
}

static int rehash(struct gt_strtab *t, size_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t id = 1; id <= t->count; id++) {
		size_t i = gt_fnv1a64(t->by_id[id - 1], t->lens[id - 1]) & (nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = id;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

uint32_t gt_strtab_find(const struct gt_strtab *t, const char *s, size_t len)
{
	if (!t->nslots)
		return 0;
	for (size_t i = gt_fnv1a64(s, len) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		uint32_t id = t->slots[i];
		if (t->lens[id - 1] == len && memcmp(t->by_id[id - 1], s, len) == 0)
			return id;
	}
	return 0;
}

uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s, size_t len, int *added)
{
	*added = 0;
	/* Keep the table at most half full so that probes stay short. */
	if ((size_t)(t->count + 1) * 2 > t->nslots && rehash(t, t->nslots ? t->nslots * 2 : 1024))
		return 0;
	size_t i = gt_fnv1a64(s, len) & (t->nslots - 1);
	while (t->slots[i]) {
		uint32_t id = t->slots[i];
		if (t->lens[id - 1] == len && memcmp(t->by_id[id - 1], s, len) == 0)
			return id;
		i = (i + 1) & (t->nslots - 1);
	}
	uint32_t id = gt_strtab_append(t, s, len);
	if (!id)
		return 0;
	t->slots[i] = id;
	*added = 1;
	return id;
}

const char *gt_strtab_get(const struct gt_strtab *t, uint32_t id)
{
	if (id == 0 || id > t->count)
		return NULL;
	return t->by_id[id - 1];
}
