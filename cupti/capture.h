/* capture.h: launch capture for shadow replay (GPUTRACE_SHADOW).
 *
 * The recorder calls capture_setup() once at start; when capture is on, it fills the session hooks
 * (module loads, driver-API launch callbacks) that copy a selected launch's parameters and device
 * buffers. What was captured is queued and written by the recorder's writer thread through
 * capture_drain(); capture_finish() writes what remains and the capture's own accounting.
 *
 * What is captured, per selected launch (selection, spread and byte budget: capture_select.h):
 *   - the launch configuration (grid, block, cluster, dynamic shared memory), stream, device and the
 *     API correlation id; the kernel's mangled name; the module's cubin (once per module);
 *   - the parameter layout (the cubin's .nv.info, cross-checked with cu{Kernel,Func}GetParamInfo;
 *     capture_layout.h) and the raw parameter bytes as launched;
 *   - for every 8-byte parameter that is a device address (cuMemGetAddressRange), the whole
 *     allocation before the launch and after it completed (capture_copy.h). Managed memory is not
 *     copied (GT_PARAM_MANAGED); by-value structs larger than 8 bytes are kept as bytes and pointers
 *     inside them are not followed (GT_PARAM_STRUCT); a failed copy is GT_PARAM_COPY_FAILED, and
 *     any of these makes the capture GT_CAPTURE_INCOMPLETE. An "after" copy identical to its
 *     "before" copy is written once: both blob ids name the same blob.
 *
 * Hooked: cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their _ptsz variants
 * (runtime launches, <<<>>> and cudaLaunchKernel, go through these). Not captured, because no
 * launch callback sees them: kernels launched by CUDA graphs (graph launches are counted in the
 * metadata), cuLaunchCooperativeKernelMultiDevice, and device-side (dynamic parallelism) launches.
 * Launches on a stream that is being captured into a graph are skipped and counted.
 *
 * Cost: with capture on, every launch of every kernel goes through a driver-API callback (about
 * 3 us on the H200); a captured launch waits for its stream before the kernel (the program's
 * earlier work) and after it (the kernel), and for its copies each time. Both callbacks' capture
 * work is written as OVERHEAD records (GT_OVERHEAD_CAPTURE, object = the launching thread's
 * pthread_self()). The capture's copies are the program's CUDA calls as far as CUPTI knows: they
 * appear in the trace as DtoH memcpy records issued inside those OVERHEAD windows, on that thread.
 *
 * Never fatal: every driver call is checked; a failure marks the parameter or capture, or skips
 * the launch with a counted reason, and the program goes on. The capture's own driver calls never
 * re-enter it (a thread-local guard).
 */
#ifndef GT_CUPTI_CAPTURE_H
#define GT_CUPTI_CAPTURE_H

#include "traces/gputrace.h"
#include "cupti/session.h"

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
/* Whether the copy with this correlation id was one of the capture's own (asked once per copy: the
 * answer is forgotten after a yes). Any thread. */
int capture_owns_copy(uint32_t correlation_id);
/* After fork in the child: drop queued captures (they belong to the parent). */
void capture_after_fork_child(void);

#endif
