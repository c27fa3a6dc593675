/* translate.h: CUPTI activity records -> trace records.
 *
 * Runs on the recorder's writer thread, never on the program's threads. It needs no live CUPTI: names
 * of API callbacks come through a resolver the caller supplies, so unit tests can feed hand-built
 * CUPTI structs. NVTX ranges arrive from CUPTI as separate start and end markers; they are paired here
 * and written as one record when the range closes.
 */
#ifndef GT_CUPTI_TRANSLATE_H
#define GT_CUPTI_TRANSLATE_H

#include "traces/gputrace.h"

#include <cupti.h>
#include <stdint.h>

struct translate_stats {
	uint64_t kernels, memcpys, memsets, api_calls, syncs, nvtx, memory_ops, overheads, graphs;
	uint64_t bytes_htod, bytes_dtoh, bytes_dtod, bytes_other;
	uint64_t tool_copies;    /* copies made by the recorder (shadow capture): not in the counts above */
	uint64_t filtered;       /* kernels left out by the name filter */
	uint64_t bad_times;      /* kernels whose timestamps were impossible (kept, flagged) */
	uint64_t unknown_kinds;  /* records of activity kinds we do not translate */
	uint64_t unpaired_nvtx;  /* end markers without a start */
};

struct translate_open_range;

struct translator {
	struct gt_writer *w;
	/* "cudaLaunchKernel" for (CUPTI_CB_DOMAIN_RUNTIME_API, cbid); NULL if unknown. */
	const char *(*api_name)(void *ctx, CUpti_CallbackDomain domain, uint32_t cbid);
	void *api_name_ctx;
	/* Whether a copy (by correlation id) was made by the recorder itself; NULL: none are. */
	int (*tool_copy)(uint32_t correlation_id);
	/* Kernel name filter: nonzero to keep. NULL keeps everything. */
	int (*keep_kernel)(void *ctx, const char *mangled_name);
	void *keep_ctx;

	struct translate_stats stats;

	/* private */
	uint32_t *api_ids[2];        /* cbid -> string id, per domain (runtime, driver) */
	size_t api_cap[2];
	int8_t *keep_by_id;          /* string id -> -1 drop, 1 keep, 0 not decided yet */
	size_t keep_cap;
	struct translate_open_range *open; /* open NVTX ranges by id (open addressing) */
	uint32_t open_cap, open_count;
	struct { uint32_t tid, depth; } *depth; /* push/pop depth per thread */
	uint32_t depth_cap, depth_count;
};

int translate_init(struct translator *x, struct gt_writer *w);
void translate_release(struct translator *x);
/* Translates one record and hands it to the writer. 0 or a negative GT_ERR_* from the writer. */
int translate_record(struct translator *x, const CUpti_Activity *rec);
/* Writes ranges still open (end = 0) and the counts of what could not be translated. */
int translate_finish(struct translator *x, uint64_t now);
/* Strips CUPTI's "_v7000"-style version suffix: "cudaMemcpy_v3020" -> "cudaMemcpy" (len). */
size_t translate_api_name_len(const char *name);

#endif
