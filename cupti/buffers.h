/* buffers.h: CUPTI's activity buffers: a pool, the two CUPTI callbacks, and a queue to the writer.
 *
 * CUPTI asks for an empty buffer on whatever thread is producing records (often the program's own
 * launching thread) and hands full ones back on its worker thread. Both callbacks only move a buffer
 * between lists under a mutex: no allocation while the pool has buffers, no parsing, no I/O. The
 * writer thread takes completed buffers, translates them, and gives them back to the pool; it also
 * tops the pool up, so that allocation happens on its thread, not the program's.
 */
#ifndef GT_CUPTI_BUFFERS_H
#define GT_CUPTI_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

struct abuf {
	struct abuf *next;
	uint8_t *data;           /* what CUPTI fills: 8-byte aligned, abuf_size bytes */
	size_t valid;            /* bytes CUPTI filled */
	uint64_t dropped;        /* records CUPTI dropped before handing this buffer back */
	int foreign;             /* a buffer CUPTI gave us that we never handed out */
};

struct abuf_stats {
	uint64_t requested;      /* buffers handed to CUPTI */
	uint64_t completed;      /* buffers CUPTI gave back */
	uint64_t pool_misses;    /* requests met by an allocation on the requesting thread */
	uint64_t refused;        /* requests we could not meet at all (CUPTI then drops records) */
	uint64_t foreign;        /* completed buffers that were not ours: another CUPTI client */
	uint64_t allocated;      /* buffers allocated in all */
	uint64_t outstanding;    /* handed out and not yet back */
};

/* Sets the buffer size and allocates the initial pool. 0 or -1. */
int abuf_init(size_t buffer_bytes, unsigned initial, unsigned max_buffers);
/* Registers the two callbacks with CUPTI (cupti_fn must be loaded). CUptiResult. */
int abuf_register(void);
/* Blocks until a completed buffer is queued, abuf_wake() is called, or timeout_ms passes. */
void abuf_wait(unsigned timeout_ms);
void abuf_wake(void);
/* Takes the whole queue of completed buffers, oldest first (NULL if none). */
struct abuf *abuf_take_completed(void);
/* Returns a buffer to the pool (or frees a foreign one's wrapper). */
void abuf_release(struct abuf *b);
/* Allocates buffers until `spare` are free (or the maximum is reached); writer thread only. */
void abuf_top_up(unsigned spare);
void abuf_get_stats(struct abuf_stats *s);
/* After fork in the child: forget the parent's outstanding buffers and queues (their memory is
 * the parent's copy of the trace), reset the locks. */
void abuf_after_fork_child(void);
/* Lock and unlock around fork so that the child never inherits a held mutex. */
void abuf_fork_prepare(void);
void abuf_fork_parent(void);

#endif
