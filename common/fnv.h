/* common/fnv.h: FNV-1a, 64-bit, the one string and byte hash of the tool's hash tables.
 *
 * The string tables of the trace writer, the analyzer's per-kernel tables, the capture's module
 * cache and the key that diff derives a kernel's random stream from all hash with FNV-1a (offset
 * basis 0xcbf29ce484222325, prime 0x100000001b3): simple, no table, and good enough for names and
 * images a hash table spreads over its slots. The key diff seeds with is printed nowhere but its
 * bootstrap results depend on it, so the definition must never change.
 *
 * Inline: the analyzer hashes a kernel name for every record it reads.
 */
#ifndef GT_COMMON_FNV_H
#define GT_COMMON_FNV_H

#include <stddef.h>
#include <stdint.h>

#define GT_FNV1A64_BASIS 0xcbf29ce484222325ull
#define GT_FNV1A64_PRIME 0x100000001b3ull

/* FNV-1a of n bytes at p (p may be NULL when n is 0). */
static inline uint64_t gt_fnv1a64(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = GT_FNV1A64_BASIS;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * GT_FNV1A64_PRIME;
	return h;
}

/* FNV-1a of a string's bytes up to its NUL; NULL hashes as "". */
static inline uint64_t gt_fnv1a64_str(const char *s)
{
	uint64_t h = GT_FNV1A64_BASIS;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * GT_FNV1A64_PRIME;
	return h;
}

#endif
