/* capture_copy.h: host buffers, pointer classification and the before/after snapshots.
 *
 * Copy path. Every allocation a pointer parameter points into is copied whole, on the launch's own
 * stream: the capture waits until the stream is idle (the program's earlier work on it completes),
 * copies each allocation with cuMemcpyDtoHAsync on that stream, and waits for the copies. Before
 * the launch (ENTER callback) that gives the inputs; after it (EXIT callback: the kernel is only
 * enqueued then) the same gives the outputs. Other streams are never waited for (a launch on the
 * legacy default stream waits for the blocking streams, as CUDA's own semantics say). Waiting is
 * polling cuStreamQuery with a time limit (below), not cuStreamSynchronize.
 *
 * Buffers. Copies land in pinned host memory (cuMemHostAlloc, portable) taken from a pool and KEPT
 * PINNED until the writer thread has written them; then they go back to the pool for later captures
 * (never freed while recording, as freeing pinned memory may synchronise the device). So a capture
 * costs one DMA per allocation and no extra host copy. The pool grows up to a limit; beyond it, and
 * for allocations under 256 KiB, and when pinning fails, copies go to malloc'ed memory (the driver
 * then stages them: slower, counted as "pageable" copies).
 */
#ifndef GT_CUPTI_CAPTURE_COPY_H
#define GT_CUPTI_CAPTURE_COPY_H

#include "cupti/capture_item.h"

#include <cuda.h>
#include <stdint.h>

#define CAPTURE_PINNED_MIN (256u << 10) /* smaller copies use malloc'ed memory */

/* Sets the pool's limit on pinned bytes (and resets its counters; buffers are kept). */
void capture_pool_setup(uint64_t pinned_limit);
/* A buffer of at least len bytes: 0, or -1 when no memory could be had. */
int capture_hostbuf_get(struct capture_hostbuf *b, size_t len);
/* Gives the buffer back (pinned: to the pool; else freed) and clears *b. */
void capture_hostbuf_put(struct capture_hostbuf *b);
struct capture_pool_stats {
	uint64_t pinned_bytes;       /* pinned memory held by the pool */
	uint64_t pinned_allocs;      /* cuMemHostAlloc calls that succeeded */
	uint64_t pinned_failures;    /* cuMemHostAlloc calls that failed */
	uint64_t pageable_buffers;   /* buffers that were not pinned (small, pool full, failure) */
	uint64_t pin_ns;             /* time spent in cuMemHostAlloc */
};
void capture_pool_stats(struct capture_pool_stats *s);
/* In a forked child: the pool's memory belongs to the parent's CUDA context; forget it. */
void capture_pool_after_fork_child(void);

enum capture_ptr {
	CAPTURE_PTR_NONE = 0,    /* not an address CUDA knows: a scalar */
	CAPTURE_PTR_DEVICE,      /* device (or mapped pinned host) memory: copy it */
	CAPTURE_PTR_MANAGED,     /* managed memory: not copied (GT_PARAM_MANAGED) */
};
/* Classifies an 8-byte parameter value with cuMemGetAddressRange (falling back to the pointer
 * attributes RANGE_START_ADDR/RANGE_SIZE for memory of another context), and reports its
 * allocation's base and size, and where the CPU reads it (CAPTURE_AT_HOST with *host set, for
 * pinned host memory). */
int capture_classify(uint64_t value, uint64_t *base, uint64_t *bytes, int *where, const uint8_t **host);

/* How long a snapshot waits for the stream's earlier work (before) or the kernel (after). A
 * kernel that waits for something its launching thread does only after the launch returns (a
 * flag set by the host, NCCL kernels of several GPUs launched by one thread) would otherwise hang
 * the program: past the limit the copies are given up (GT_PARAM_COPY_FAILED) and the program goes
 * on. */
#define CAPTURE_WAIT_LIMIT_NS (30ull * 1000000000ull)
void capture_set_wait_limit_ns(uint64_t ns); /* tests */

struct capture_snap_times {
	uint64_t wait_ns;        /* the first wait: the stream's earlier work, or the kernel */
	uint64_t copy_ns;        /* the copies and the wait for them */
	int timed_out;           /* the first wait passed CAPTURE_WAIT_LIMIT_NS */
};
/* Copies every allocation of the item into its before (after = 0) or after (after = 1) buffer, as
 * described above. Returns 1 when the first wait succeeded, 0 when it failed or timed out (nothing
 * was copied). Each allocation's *_ok says whether its copy succeeded; bytes copied are added to
 * it->copied. */
int capture_snapshot(struct capture_item *it, CUstream stream, int after, struct capture_snap_times *t);

/* Nanoseconds on CUPTI's clock (0 if it cannot be read). */
uint64_t capture_now(void);

#endif
