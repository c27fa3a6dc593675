/* capture_item.h: one captured launch on its way from the launching thread to the trace.
 *
 * The launching thread fills an item in the launch's ENTER and EXIT callbacks; then it belongs to
 * the queue, and the writer thread writes it (capture_item_write) and frees it. Host copies of
 * device memory live in capture_hostbuf buffers: pinned memory from a reused pool when it can be
 * had, else malloc'ed memory (see capture_copy.h).
 */
#ifndef GT_CUPTI_CAPTURE_ITEM_H
#define GT_CUPTI_CAPTURE_ITEM_H

#include "cupti/capture_modules.h"
#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

struct capture_hostbuf {
	uint8_t *data;           /* NULL: no buffer */
	size_t len;              /* bytes in use */
	size_t cap;              /* bytes allocated */
	int pinned;              /* from the pinned pool (else malloc'ed) */
};

enum capture_where {
	CAPTURE_AT_DEVICE = 0,   /* copied with cuMemcpyDtoHAsync on the launch's stream */
	CAPTURE_AT_HOST = 1,     /* pinned host memory mapped for the device: read by the CPU */
};

/* One allocation that a pointer parameter points into; several parameters may share it. */
struct capture_alloc {
	uint64_t base;
	uint64_t bytes;
	int where;               /* enum capture_where */
	const uint8_t *host;     /* CAPTURE_AT_HOST: the CPU's address of base */
	struct capture_hostbuf before, after;
	int before_ok, after_ok; /* the copy succeeded */
};

struct capture_item {
	struct gt_capture hdr;   /* name_id and cubin_blob_id are filled by the writer */
	struct gt_capture_param *params; /* hdr.nparams; blob ids filled by the writer */
	int32_t *param_alloc;    /* per parameter: index into allocs, -1 for none */
	uint8_t *param_bytes;    /* hdr.param_bytes */
	struct capture_alloc *allocs;
	uint32_t nallocs;
	char *name;              /* mangled kernel name */
	struct capture_module *module; /* NULL when the cubin was not kept */
	uint64_t thread;         /* pthread_self() of the launching thread */
	uint64_t enter_start, enter_end; /* CUPTI clock: the ENTER callback's capture work */
	uint64_t exit_start, exit_end;   /* and the EXIT callback's */
	uint64_t reserved;       /* bytes reserved from the budget */
	uint64_t copied;         /* bytes of device memory copied */
	/* Between ENTER and EXIT only (capture.c): */
	void *owner;             /* the kernel whose spread claimed this launch */
	uint64_t launch_index;   /* its index in that spread (hdr.launch_index is cut to 32 bits) */
	void *stream;            /* the CUstream the copies run on */
	struct capture_item *next;
};

/* Frees the item and its buffers (pinned ones go back to the pool). Safe with NULL. */
void capture_item_free(struct capture_item *it);

/* Writer thread: writes the module's cubin (once per module), each buffer as a GT_BLOB_BUFFER blob
 * (an "after" copy equal to its "before" copy is written once, and both blob ids name it), the
 * kernel's name, the CAPTURE record, and two OVERHEAD records (GT_OVERHEAD_CAPTURE) for the time the
 * capture took in the launch's ENTER and EXIT callbacks. 0 or a GT_ERR_*. Does not free the item. */
int capture_item_write(struct gt_writer *w, struct capture_item *it);

/* The queue between launching threads and the writer. */
void capture_queue_push(struct capture_item *it);
/* Takes everything queued, oldest first (NULL when empty). */
struct capture_item *capture_queue_take(void);
/* Frees everything queued. */
void capture_queue_drop(void);
/* In a forked child: forget the parent's queue without touching its buffers' pinned memory. */
void capture_queue_after_fork_child(void);

#endif
