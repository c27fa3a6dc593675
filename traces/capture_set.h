/* capture_set.h: the captured launches a trace holds, each with its module image and its buffers
 * reassembled from their BLOB pieces, ready to be replayed on a GPU (`gputrace replay`) or written
 * out as a standalone reproducer (`gputrace replay --extract`).
 *
 * The analyzer's shadow walk (analyze/shadow/shadow.c) streams captures one at a time and frees buffers as
 * it goes, because a CPU reference may run over thousands of them; a replay picks a few and needs
 * all of their bytes at once (on the GPU), so this loader keeps what it picked and nothing else.
 *
 * A trace is untrusted input: a blob's stated size is never allocated up front. Its pieces must
 * arrive in order with one size and kind, and memory grows with the bytes the file really holds
 * (at most twice them), so a hostile header costs nothing; a blob whose pieces disagree, or that
 * stops short, counts as missing and the launch says which buffer it lacks.
 */
#ifndef GT_CAPTURE_SET_H
#define GT_CAPTURE_SET_H

#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

struct gt_captured_param {
	struct gt_capture_param p;
	const uint8_t *before;         /* the allocation before the launch, NULL when not in the file */
	const uint8_t *after;          /* after it completed, NULL when not in the file */
};

struct gt_captured_launch {
	struct gt_capture c;
	char *name;                    /* the mangled kernel name, as the trace spells it */
	struct gt_captured_param *params;   /* c.nparams entries */
	uint32_t declared;             /* the kernel's own parameters: the entries before the first
	                                * GT_PARAM_INNER_POINTER (pointers found inside structs) */
	uint8_t *param_bytes;          /* c.param_bytes: the parameter buffer exactly as launched */
	const uint8_t *image;          /* the module image (a cubin), NULL when not in the file */
	uint64_t image_bytes;
	uint32_t cc_major, cc_minor;   /* the device it ran on, from the trace's DEVICE record; 0 if unknown */
	char *device_name;             /* "" if unknown */
};

struct gt_capture_blob;            /* private: reassembled bytes */

struct gt_capture_set {
	size_t n;                      /* launches picked */
	struct gt_captured_launch *launch;
	uint64_t seen;                 /* CAPTURE records in the trace */
	uint64_t dropped;              /* launches the recorder skipped (DROPPED, reason capture) */
	int complete;                  /* the trace's END record was read */
	size_t nblobs;
	struct gt_capture_blob *blobs; /* sorted by id */
};

/* Says whether a capture is wanted: 1 keep it, 0 skip it, < 0 stop with that error. Sees every
 * capture in file order (so a caller may also list them). */
typedef int (*gt_capture_pick_fn)(void *ctx, const struct gt_capture *c, const char *mangled);

/* Reads the trace at path twice: captures first, then the blob pieces the picked ones use. Returns
 * 0, or < 0 with a one-line reason in err (a reader error, out of memory). On failure the set is
 * released. Time linear in the file; memory the picked launches plus at most twice their bytes. */
int gt_capture_set_load(struct gt_capture_set *s, const char *path, gt_capture_pick_fn pick,
                        void *ctx, char *err, size_t errlen);
void gt_capture_set_release(struct gt_capture_set *s);

/* Why entry i of l cannot be recreated on a GPU, in words that follow "parameter N (offset O,
 * S bytes) ", or NULL when it can: its memory was not captured (managed, over the cap, a failed
 * copy), it lies outside the parameter bytes, or it is a pointer that is not 8 bytes, whose copies
 * are missing, or that does not point into the allocation it names (a trace is untrusted). The one
 * check both `gputrace replay` and its --extract make. */
const char *gt_captured_param_problem(const struct gt_captured_launch *l, uint32_t i);

#endif
