/* strtab.c: string interning for trace definitions (see strtab.h). */
#include "traces/strtab.h"

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
	gt_slots_release(&t->index);
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

/* The hash index over by_id: id - 1 is the array index, the key a (bytes, length) pair. */
struct key {
	const char *s;
	size_t len;
};

static int key_is(const void *ctx, size_t index, const void *key)
{
	const struct gt_strtab *t = ctx;
	const struct key *k = key;
	return t->lens[index] == k->len && memcmp(t->by_id[index], k->s, k->len) == 0;
}

static uint64_t hash_of(const void *ctx, size_t index)
{
	const struct gt_strtab *t = ctx;
	return gt_fnv1a64(t->by_id[index], t->lens[index]);
}

static uint32_t find(const struct gt_strtab *t, uint64_t h, const char *s, size_t len)
{
	struct key k = { s, len };
	size_t i = gt_slots_find(&t->index, h, key_is, t, &k);
	return i == GT_SLOTS_NONE ? 0 : (uint32_t)i + 1;
}

uint32_t gt_strtab_find(const struct gt_strtab *t, const char *s, size_t len)
{
	return find(t, gt_fnv1a64(s, len), s, len);
}

uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s, size_t len, int *added)
{
	*added = 0;
	uint64_t h = gt_fnv1a64(s, len);
	uint32_t id = find(t, h, s, len);
	if (id)
		return id;
	if (!(id = gt_strtab_append(t, s, len)))
		return 0;
	if (gt_slots_add(&t->index, h, id - 1, hash_of, t)) {
		/* Not findable, so not interned: forget it (its bytes stay in the slab until release). */
		t->count--;
		t->bytes -= len;
		return 0;
	}
	*added = 1;
	return id;
}

const char *gt_strtab_get(const struct gt_strtab *t, uint32_t id)
{
	if (id == 0 || id > t->count)
		return NULL;
	return t->by_id[id - 1];
}
