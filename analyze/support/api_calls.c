/* api_calls.c: synchronising API calls told by name (api_calls.h). */
#include "analyze/support/api_calls.h"

#include <string.h>

enum gt_api_sync gt_api_sync_kind(const char *name)
{
	static const struct {
		const char *prefix;
		enum gt_api_sync kind;
	} calls[] = {
		{ "cudaDeviceSynchronize", GT_API_SYNC_CONTEXT }, { "cudaThreadSynchronize", GT_API_SYNC_CONTEXT },
		{ "cuCtxSynchronize", GT_API_SYNC_CONTEXT },      { "cudaStreamSynchronize", GT_API_SYNC_STREAM },
		{ "cuStreamSynchronize", GT_API_SYNC_STREAM },    { "cudaEventSynchronize", GT_API_SYNC_EVENT },
		{ "cuEventSynchronize", GT_API_SYNC_EVENT },
	};
	if (!name)
		return GT_API_SYNC_NONE;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (strncmp(name, calls[i].prefix, strlen(calls[i].prefix)) == 0)
			return calls[i].kind;
	return GT_API_SYNC_NONE;
}
