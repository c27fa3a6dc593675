/* api_select.h: which runtime and driver API calls get an activity record.
 *
 * CUPTI builds a record for every API call of an enabled kind, and frameworks make many calls that
 * no analysis reads: PyTorch calls cudaGetDevice, cudaGetLastError, stream-capture queries and the
 * like around every launch (15.5 runtime records per kernel measured on a Transformer step). By
 * default only the calls that the analyses use are recorded: those that launch work, copy, set
 * memory, synchronise, wait on or record events, allocate and free, and launch graphs (split's API
 * time, launch latency, the sync findings and peak memory need these), through CUPTI's per-call
 * switches (cuptiActivityEnableRuntimeApi / cuptiActivityEnableDriverApi, CUPTI 12+).
 */
#ifndef GT_CUPTI_API_SELECT_H
#define GT_CUPTI_API_SELECT_H

#include <cupti.h>

/* 1 when an API call of this name (as cuptiGetCallbackName gives it, e.g. "cudaMemcpyAsync_v3020",
 * "cuLaunchKernel_ptsz") is in the set the analyses use; 0 otherwise. */
int api_select_is_work(const char *name);

/* The set, as the trace's metadata and gputrace(1) say it. */
#define API_SELECT_SET_NAME "launch,copy,memset,sync,event,alloc,free,graph"

/* Enables activity records for the work calls of one domain (CUPTI_CB_DOMAIN_RUNTIME_API or
 * CUPTI_CB_DOMAIN_DRIVER_API). Returns how many calls were enabled (>= 0), or -1 when CUPTI cannot
 * select per call (the caller then records every call of the domain and says so). */
int api_select_enable(CUpti_CallbackDomain domain, int enable);

/* The other way round, for a domain whose whole activity kind is on: switches off every call that
 * is not work. Returns how many were switched off, or -1 as above. Called again after each time
 * the kind is switched on, since enabling the kind overrides the per-call switches. */
int api_select_exclude_others(CUpti_CallbackDomain domain);

#endif
