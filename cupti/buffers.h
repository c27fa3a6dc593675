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

struct cupti_buffer {
	struct cupti_buffer *next;
	uint8_t *data;           /* what CUPTI fills: 8-byte aligned, buffers_size bytes */
	size_t valid;            /* bytes CUPTI filled */
	uint64_t dropped;        /* records CUPTI dropped before handing this buffer back */
	int foreign;             /* a buffer CUPTI gave us that we never handed out */
};

struct buffers_stats {
	uint64_t requested;      /* buffers handed to CUPTI */
	uint64_t completed;      /* buffers CUPTI gave back */
	uint64_t pool_misses;    /* requests met by an allocation on the requesting thread */
	uint64_t refused;        /* requests we could not meet at all (CUPTI then drops records) */
	uint64_t foreign;        /* completed buffers that were not ours: another CUPTI client */
	uint64_t allocated;      /* buffers allocated in all */
	uint64_t outstanding;    /* handed out and not yet back */
};

/* Sets the buffer size and allocates the initial pool. 0 or -1. */
int buffers_init(size_t buffer_bytes, unsigned initial, unsigned max_buffers);
/* Registers the two callbacks with CUPTI (cupti_fn must be loaded). CUptiResult. */
int buffers_register(void);
/* Blocks until a completed buffer is queued, buffers_wake() is called, or timeout_ms passes. */
void buffers_wait(unsigned timeout_ms);
void buffers_wake(void);
/* Takes the whole queue of completed buffers, oldest first (NULL if none). */
struct cupti_buffer *buffers_take_completed(void);
/* Returns a buffer to the pool (or frees a foreign one's wrapper). */
void buffers_release(struct cupti_buffer *b);
/* Allocates buffers until `spare` are free (or the maximum is reached); writer thread only. */
void buffers_top_up(unsigned spare);
void buffers_get_stats(struct buffers_stats *s);
/* After fork in the child: forget the parent's outstanding buffers and queues (their memory is
 * the parent's copy of the trace), reset the locks. */
void buffers_after_fork_child(void);
/* Lock and unlock around fork so that the child never inherits a held mutex. */
void buffers_fork_prepare(void);
void buffers_fork_parent(void);

#endif
