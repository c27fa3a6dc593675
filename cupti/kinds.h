/* kinds.h: the activity kinds a user can ask for (GPUTRACE_ACTIVITIES), as bits.
 *
 * CUPTI-free on purpose: preload/config.c parses these names, and config.c is also linked into the
 * gputrace launcher, which is built without the CUDA and CUPTI headers (a launcher must build and
 * run on a machine without the toolkit). Include nothing here; session.c maps the bits to CUPTI's
 * activity kinds.
 */
#ifndef GT_CUPTI_KINDS_H
#define GT_CUPTI_KINDS_H

/* Activity kinds, as the user names them in GPUTRACE_ACTIVITIES. */
enum session_kind {
	SK_KERNEL = 1u << 0,   /* CONCURRENT_KERNEL */
	SK_MEMCPY = 1u << 1,   /* MEMCPY, MEMCPY2 (peer) */
	SK_MEMSET = 1u << 2,
	SK_RUNTIME = 1u << 3,  /* runtime API calls */
	SK_DRIVER = 1u << 4,   /* driver API calls */
	SK_SYNC = 1u << 5,     /* SYNCHRONIZATION */
	SK_NVTX = 1u << 6,     /* MARKER, MARKER_DATA */
	SK_MEMORY = 1u << 7,   /* MEMORY2: allocations and frees */
	SK_OVERHEAD = 1u << 8,
	SK_GRAPH = 1u << 9,    /* GRAPH_TRACE: one record per graph launch instead of per node */
	SK_API_ALL = 1u << 10, /* runtime/driver: every call, not only those the analyses use */
};
/* Not among the defaults, measured on the H200:
 * - CUPTI's sync records: switched on from the start they cost a PyTorch tiny op +35% (7.5 -> 10.1
 *   us, both rounds of tests/bench/probe_kind_alone.sh, no other kind did), and the analyses have
 *   the same waits from the synchronising API calls the defaults record (split, findings);
 * - CUPTI's overhead records: no analysis reads them (only the timeline exports show them), and the
 *   kind costs every launch about as much as the other small kinds (+4-5% in one process,
 *   tests/bench/price_kinds.py). */
#define SK_DEFAULT (SK_KERNEL | SK_MEMCPY | SK_MEMSET | SK_RUNTIME | SK_DRIVER | SK_NVTX | SK_MEMORY)
#define SK_ALL (SK_DEFAULT | SK_SYNC | SK_OVERHEAD | SK_GRAPH | SK_API_ALL)

#endif
