/* session.h: the CUPTI session: subscriber, activity kinds, flushes.
 *
 * One per process. Starting it subscribes to CUPTI (which fails if another CUPTI client such as
 * Nsight or PyTorch's profiler already holds the subscription), registers the activity buffer
 * callbacks, and enables the activity kinds asked for. The resource callbacks it enables cost nothing
 * per launch; the driver-API launch callbacks are enabled only when launch capture is on. The kind
 * bits themselves live in kinds.h, which needs no CUPTI header (the launcher parses them too).
 */
#ifndef GT_CUPTI_SESSION_H
#define GT_CUPTI_SESSION_H

#include "cupti/kinds.h" /* enum session_kind, SK_DEFAULT, SK_ALL */

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

struct session_hooks {
	void (*context_created)(uint32_t device_ordinal, uint32_t context_id, CUcontext context);
	/* Called on the thread destroying the context, before it goes: what needs the context (its
	 * records, a device's PM sampler) is finished before this returns. */
	void (*context_destroying)(uint32_t device_ordinal, uint32_t context_id);
	/* Launch capture (shadow replay): called only when set. */
	void (*module_loaded)(const CUpti_ResourceData *rd);
	void (*driver_api)(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
	const CUpti_CallbackId *launch_cbids; /* driver API callbacks to enable, 0-terminated */
};

struct session_result {
	unsigned enabled;          /* kinds actually enabled */
	unsigned failed;           /* kinds CUPTI refused */
	int latency;               /* latency timestamps on */
	unsigned api_selected;     /* SK_RUNTIME / SK_DRIVER bits recorded per call (api_select.h);
	                            * an enabled API kind without its bit records every call */
	int api_calls[2];          /* runtime, driver: how many calls were selected */
	int os_thread_ids;         /* records carry the OS thread id (gettid), not pthread_self's */
	uint32_t cupti_version;
	char other_client[80];     /* on a collision: the other subscriber's name, if CUPTI said */
};

/* Starts the session. 0, or a CUptiResult with a reason in why. */
int session_start(unsigned kinds, int latency, const struct session_hooks *hooks,
                  struct session_result *res, char *why, size_t n);
/* Delivers completed buffers (forced: also the ones with records still in flight). */
void session_flush(int forced);
/* Windowed recording: turns the enabled activity kinds off and on again at run time, leaving the
 * subscription and the callbacks as they are. 0, or the first CUptiResult that failed. */
int session_pause(void);
int session_resume(void);
/* Windowed recording, detached: CUPTI costs the program even with every kind off (1.16x on a
 * PyTorch step, measured on the H200), so between windows it is detached with cuptiFinalize and
 * attached again for the next window. session_detach asks the next program thread that leaves a
 * CUDA API call to flush every record, run drain (on that thread, while the caller waits, so drain
 * may use what the caller owns), and detach. 0: detached; 1: no API call came within wait_ms
 * (nothing was changed: ask again later); -1: this CUPTI cannot detach. While detached, no CUPTI
 * function may be called: any call attaches CUPTI again. */
int session_detach(void (*drain)(void), unsigned wait_ms);
int session_detached(void); /* detached, or a detach asked for and not yet over */
/* Attaches again, as session_start did (the hooks kept from it). 0 when not detached. */
int session_reattach(unsigned kinds, int latency, struct session_result *res, char *why, size_t n);
/* Disables the activity kinds and unsubscribes (used when tracing must stop early). */
void session_stop(void);
int session_active(void);

#endif
