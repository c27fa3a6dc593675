/* api_calls.h: what a CUDA API call does, from its name, for the engines that read API records.
 *
 * One place for the names, so split (which cuts the timeline at host syncs) and findings (which
 * reports device-wide waits) agree on what a synchronising call is. Names are matched by prefix, as
 * CUPTI spells them (cudaStreamSynchronize_v3020, cuCtxSynchronize, ..._ptsz), so every variant of
 * a call is the same call; a name the traced program chose that matches nothing is "other".
 */
#ifndef GT_ANALYZE_API_CALLS_H
#define GT_ANALYZE_API_CALLS_H

/* The host waits that CUPTI's sync records also describe, by what they wait for. */
enum gt_api_sync {
	GT_API_SYNC_NONE = 0,
	GT_API_SYNC_CONTEXT, /* the whole device: cudaDeviceSynchronize, cudaThreadSynchronize, cuCtxSynchronize */
	GT_API_SYNC_STREAM,  /* cudaStreamSynchronize, cuStreamSynchronize */
	GT_API_SYNC_EVENT,   /* cudaEventSynchronize, cuEventSynchronize */
};

enum gt_api_sync gt_api_sync_kind(const char *name);

#endif
