/* kernel_ids.h: the collection rules that summary (statistics only) and samples (every duration
 * kept, for diff and report) share, so that both count the same launches the same way and the
 * rules are written once: which launch counts, kernels by name across files, the warm-up drop.
 * The rules themselves are stated in analyze/engines/summary.h and gpuanalyze(1).
 */
#ifndef GT_KERNEL_IDS_H
#define GT_KERNEL_IDS_H

#include "traces/gputrace.h"
#include "common/slots.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

/* Is this kernel launch counted? Not when flagged GT_KERNEL_BAD_TIMES or when it ends before it
 * starts (the first rule above: such a launch is excluded and counted as bad, before warm-up). */
static inline int gt_summary_kernel_good(const struct gt_kernel *k)
{
	return !(k->flags & GT_KERNEL_BAD_TIMES) && k->end >= k->start;
}

/* Kernels by name across files, found by the string ids of the file being read. The per-record
 * path is an array look-up, id -> kernel index + 1 (ids are dense, 1..n per file); a name is
 * looked up by hash only the first time the file uses its id, so that launches of one name in
 * several files make one kernel. The caller keeps the kernels (and their names) in its own array
 * in order of first sight; this keeps the index over them. A zeroed struct is empty. */
struct gt_kernel_ids {
	uint32_t *of_id;         /* this file's string id -> kernel index + 1, 0: not used yet */
	size_t nids;
	const char **name;       /* kernel index -> its name: the caller's copy, which it keeps */
	size_t n, cap;
	struct gt_slots by_name; /* name -> kernel index */
};

/* Makes kernel number ki->n (the next index of the caller's array) for a name no file used
 * before; returns the caller's own copy of name, which must stay put until the release, or NULL
 * when out of memory. */
typedef const char *(*gt_kernel_make_fn)(void *ctx, const char *name);

/* The kernel index + 1 of string id `id` of r, made by make when new; 0 when out of memory. The
 * slow path: a caller first reads of_id[id] itself (when id < nids), which is 0 until this ran. An id the trace never defined (a corrupt record) names no
 * kernel: it joins id 0's, without making the array as large as the id. */
uint32_t gt_kernel_ids_resolve(struct gt_kernel_ids *ki, const struct gt_reader *r, uint32_t id,
                               gt_kernel_make_fn make, void *ctx);

/* Between files: string ids are per file, so the next maps its own ids to the kernels by name. */
void gt_kernel_ids_next_file(struct gt_kernel_ids *ki);
void gt_kernel_ids_release(struct gt_kernel_ids *ki);

/* Drops a kernel's warm-up from the file just read: the positions w found among the *n durations
 * at vals (uint64_t when wide, else uint32_t), each replaced by the last value (their order does
 * not matter: they are sorted at the end; positions are taken highest first, so the value moved
 * in is never one still to drop). Then forgets them, ready for the next file. Returns how many
 * went; w->error, when set, is the caller's to check first. */
size_t gt_summary_drop_warmup(struct gt_warmup *w, void *vals, int wide, size_t *n);

#endif
