/* capture.h: launch capture for shadow replay (GPUTRACE_SHADOW).
 *
 * The recorder calls capture_setup() once at start; when capture is on, it fills the session hooks
 * (module loads, driver-API launch callbacks) that copy a selected launch's parameters and device
 * buffers. What was captured is queued and written by the recorder's writer thread through
 * capture_drain(); capture_finish() writes what remains and the capture's own accounting.
 */
#ifndef GT_CUPTI_CAPTURE_H
#define GT_CUPTI_CAPTURE_H

#include "gputrace.h"
#include "session.h"

#include <stddef.h>
#include <stdint.h>

struct capture_config {
	const char *pattern;          /* GPUTRACE_SHADOW: glob, or /regex/ */
	unsigned max_per_kernel;      /* GPUTRACE_SHADOW_MAX */
	unsigned long long max_bytes; /* GPUTRACE_SHADOW_BYTES */
	void (*wake_writer)(void);    /* nudges the writer thread when something is queued */
};

/* 0 when capture is set up (hooks filled), 1 when capture is off (no pattern), -1 on error (why). */
int capture_setup(const struct capture_config *cfg, struct session_hooks *hooks, char *why,
                  size_t n);
/* Writer thread: writes queued captures. 0 or a GT_ERR_*. */
int capture_drain(struct gt_writer *w);
/* Writer thread, at the end: drains and writes the totals (captured, skipped and why). */
int capture_finish(struct gt_writer *w);
/* After fork in the child: drop queued captures (they belong to the parent). */
void capture_after_fork_child(void);

#endif
