/* captured_buffer.h: one allocation of the run, as a capture holds it, for the two consumers of a
 * captured launch's buffers: `gputrace replay` (replay_launch.c, which recreates it on the GPU) and
 * its --extract (launcher_extract.c, which writes it out). Both gather the pointer parameters'
 * allocations the same way, one entry per allocation, so the entry and how it is filled live here.
 *
 * Included by the launcher: no CUDA header here (tests/cli/test_layering.sh).
 */
#ifndef GT_CAPTURED_BUFFER_H
#define GT_CAPTURED_BUFFER_H

#include "traces/capture_set.h"

#include <stdint.h>
#include <string.h>

/* One allocation of the run: every pointer parameter into it shares it. */
struct captured_buffer {
	uint64_t base, bytes;
	const uint8_t *before, *after;
	int changed;                 /* the kernel changed it in the run: its bytes after differ from those before */
	uint32_t param;              /* the first parameter pointing into it, for messages */
};

/* The allocation that parameter i (p) points into, from its copies, with i as its first
 * parameter. p must have passed gt_captured_param_problem, so that both copies are there. */
static inline struct captured_buffer captured_buffer_of(const struct gt_captured_param *p, uint32_t i)
{
	struct captured_buffer b = {
		.base = p->p.alloc_base, .bytes = p->p.alloc_bytes, .before = p->before, .after = p->after,
		.param = i,
	};
	b.changed = memcmp(b.before, b.after, (size_t)b.bytes) != 0;
	return b;
}

#endif
