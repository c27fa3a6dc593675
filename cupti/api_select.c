/* api_select.c: the API calls recorded by default, chosen by name (see api_select.h).
 *
 * By name rather than by a list of callback ids: every variant of a call (_v2, _ptsz, _ptds, the
 * Async forms, ones a newer CUDA adds) is matched by its prefix, and the names come from CUPTI
 * itself (cuptiGetCallbackName), so the set follows the library that is loaded.
 */
#include "cupti/api_select.h"
#include "cupti/libs.h"

#include <string.h>

/* Prefixes of the calls the analyses read. Launches: launch latency and the launch column;
 * copies and memsets: their API time and the sync-copy findings; synchronisation and events: the
 * blocking-sync findings and the split's sync units; allocation: peak memory and the alloc findings. */
static const char *const work_prefixes[] = {
	/* runtime API */
	"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset", "cudaMemPrefetchAsync",
	"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaDeviceSynchronize", "cudaThreadSynchronize",
	"cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent", "cudaEventRecord",
	/* driver API */
	"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", "cuMemPrefetchAsync", "cuMemAlloc",
	"cuMemFree", "cuMemHostAlloc", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
	"cuStreamWaitEvent", "cuEventRecord",
};

int api_select_is_work(const char *name)
{
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof work_prefixes / sizeof work_prefixes[0]; i++)
		if (strncmp(name, work_prefixes[i], strlen(work_prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Switches the calls of one domain that are work (work = 1) or that are not (work = 0). */
static int switch_calls(CUpti_CallbackDomain domain, int work, int enable)
{
	int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	CUptiResult (*set)(CUpti_CallbackId, uint8_t) =
		runtime ? cupti_fn.cuptiActivityEnableRuntimeApi : cupti_fn.cuptiActivityEnableDriverApi;
	if (!set || !cupti_fn.cuptiGetCallbackName)
		return -1;
	uint32_t last = runtime ? CUPTI_RUNTIME_TRACE_CBID_SIZE : CUPTI_DRIVER_TRACE_CBID_SIZE;
	int enabled = 0;
	for (uint32_t cbid = 1; cbid < last; cbid++) {
		const char *name = NULL;
		if (cupti_fn.cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS ||
		    api_select_is_work(name) != work)
			continue;
		CUptiResult r = set(cbid, enable ? 1 : 0);
		if (r == CUPTI_ERROR_NOT_INITIALIZED || r == CUPTI_ERROR_NOT_SUPPORTED)
			return enabled ? enabled : -1;
		enabled += r == CUPTI_SUCCESS;
	}
	return enabled;
}

int api_select_enable(CUpti_CallbackDomain domain, int enable)
{
	return switch_calls(domain, 1, enable);
}

int api_select_exclude_others(CUpti_CallbackDomain domain)
{
	return switch_calls(domain, 0, 0);
}
