/* common/slots.h: the one open-addressing hash index of the tool, over an array its caller keeps.
 *
 * Every table that finds an entry by key (the trace writer's strings, the analyzer's kernels,
 * groups, tracks and ids, the shadow replay's blobs) keeps its entries in an array of its own, in
 * the order it made them (the order its output follows, or the id it hands out). What it needs
 * besides is a way from a key to an index. This is that: a power-of-two table of uint32_t slots
 * holding index + 1 (0: empty), probed linearly from the key's hash, grown by doubling before it is
 * more than half full so that probes stay short. 4 bytes per slot; the keys stay in the caller's
 * array, which the table never reads itself.
 *
 * The caller supplies the hash (the tool's is FNV-1a, common/fnv.h) and the equality test. The
 * table does not take the hash's low bits as they are: the keys are names a traced program chose,
 * and FNV-1a's low bits depend on nothing but the bytes' low bits, so a program could fill a trace
 * with names that all land in one probe run and make every look-up linear. Each table mixes the
 * whole 64-bit hash with a key of its own, drawn at random when it first grows (slot_of), so only
 * names whose full FNV-1a hashes collide can collide for sure. The slots' order is never output:
 * callers report in their own array's order, so the random key changes no result.
 *
 * The equality test The look-up is inline, with the test a function pointer the compiler sees
 * (a static function of the caller), so that on a hot path it inlines to the caller's own probe
 * loop. Growing calls back for each entry's hash, which callers either store or recompute.
 *
 * Use: a zeroed struct is an empty table; gt_slots_find, then gt_slots_add for a new entry (the
 * caller appends it to its array first or after, at the index it passes); gt_slots_release.
 */
#ifndef GT_COMMON_SLOTS_H
#define GT_COMMON_SLOTS_H

#include <stddef.h>
#include <stdint.h>

struct gt_slots {
	uint32_t *slot;          /* cap slots: index + 1, 0 when free */
	size_t cap;              /* 0 or a power of two */
	size_t n;                /* entries added */
	uint64_t key;            /* mixed into every hash; drawn when the table first grows */
};

#define GT_SLOTS_NONE SIZE_MAX   /* gt_slots_find: no entry has the key */
#define GT_SLOTS_MAX (UINT32_MAX - 2u) /* the largest index a table holds */

/* Is the entry at index (of the caller's array) the one the caller looks for (ctx and key as the
 * caller passed them)? Nonzero when it is. */
typedef int (*gt_slots_eq_fn)(const void *ctx, size_t index, const void *key);
/* The hash of the entry at index, as gt_slots_find and gt_slots_add were given it. */
typedef uint64_t (*gt_slots_hash_fn)(const void *ctx, size_t index);

/* The first slot to probe for hash h: h and the table's key through splitmix64's finalizer, a
 * bijection whose every output bit depends on every input bit. */
static inline size_t gt_slots_start(const struct gt_slots *t, uint64_t h)
{
	h ^= t->key;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (size_t)h & (t->cap - 1);
}

/* The index of the entry with hash h for which eq(ctx, index, key) holds, or GT_SLOTS_NONE. */
static inline size_t gt_slots_find(const struct gt_slots *t, uint64_t h, gt_slots_eq_fn eq,
                                   const void *ctx, const void *key)
{
	if (!t->cap)
		return GT_SLOTS_NONE;
	size_t mask = t->cap - 1;
	for (size_t i = gt_slots_start(t, h); t->slot[i]; i = (i + 1) & mask) {
		if (eq(ctx, t->slot[i] - 1u, key))
			return t->slot[i] - 1u;
	}
	return GT_SLOTS_NONE;
}

/* Enters index (at most GT_SLOTS_MAX) under hash h, which the caller found absent; grows the table
 * first when it would be more than half full (hash gives the entries' hashes, with ctx). 0, or -1
 * when out of memory or index is too large: the table is then unchanged. */
int gt_slots_add(struct gt_slots *t, uint64_t h, size_t index, gt_slots_hash_fn hash, const void *ctx);

void gt_slots_release(struct gt_slots *t);

#endif
