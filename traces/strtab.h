/* strtab.h: an append-only table of strings with dense ids 1..n (internal to traces/).
 *
 * The writer interns names through it (a hash lookup gives each distinct string one id); the reader
 * rebuilds the same table from STRING records. Strings live in slabs, so a pointer handed out stays
 * valid until the table is released.
 */
#ifndef GT_STRTAB_H
#define GT_STRTAB_H

#include "common/slots.h"

#include <stddef.h>
#include <stdint.h>

struct gt_slab;

struct gt_strtab {
	char **by_id;        /* by_id[id - 1], NUL-terminated */
	uint32_t *lens;
	uint32_t count, cap;
	struct gt_slots index; /* string -> id - 1 (common/slots.h); only for interned tables */
	struct gt_slab *slabs;
	size_t bytes;        /* string bytes stored */
};

int gt_strtab_init(struct gt_strtab *t);
void gt_strtab_release(struct gt_strtab *t);
/* Returns the id of s (adding it when new: *added = 1), or 0 when out of memory. */
uint32_t gt_strtab_intern(struct gt_strtab *t, const char *s, size_t len, int *added);
/* The id of s, or 0 when the table does not hold it (a table built by append has no index). */
uint32_t gt_strtab_find(const struct gt_strtab *t, const char *s, size_t len);
/* Adds s as the next id without looking for an equal string; 0 when out of memory. */
uint32_t gt_strtab_append(struct gt_strtab *t, const char *s, size_t len);
const char *gt_strtab_get(const struct gt_strtab *t, uint32_t id); /* NULL if unknown */

#endif
