/* profiler_host.c: the host side of CUPTI's profiler for C callers (profiler_host.h).
 *
 * Each call fills the API's parameter struct and returns CUPTI's result; the caller words it
 * (profiler_reason) and decides what a failure means for its profiler.
 */
#include "cupti/profiler_host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define PH_FN(name) __typeof__(name) *name
static struct {
	PH_FN(cuptiProfilerHostInitialize);
	PH_FN(cuptiProfilerHostDeinitialize);
	PH_FN(cuptiProfilerHostConfigAddMetrics);
	PH_FN(cuptiProfilerHostGetConfigImageSize);
	PH_FN(cuptiProfilerHostGetConfigImage);
	PH_FN(cuptiProfilerHostGetNumOfPasses);
	PH_FN(cuptiProfilerHostEvaluateToGpuValues);
} ph;

const char *profiler_host_load(void *dl)
{
#define GET(f)                                    \
	if (!(*(void **)&ph.f = dlsym(dl, #f))) \
		return #f;
	GET(cuptiProfilerHostInitialize) GET(cuptiProfilerHostDeinitialize)
	GET(cuptiProfilerHostConfigAddMetrics) GET(cuptiProfilerHostGetConfigImageSize)
	GET(cuptiProfilerHostGetConfigImage) GET(cuptiProfilerHostGetNumOfPasses)
	GET(cuptiProfilerHostEvaluateToGpuValues)
#undef GET
	return NULL;
}

CUptiResult profiler_host_new(struct profiler_host *h, CUpti_ProfilerType type, const char *chip,
                              const uint8_t *avail)
{
	CUpti_Profiler_Host_Initialize_Params p = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
		.profilerType = type, .pChipName = chip, .pCounterAvailabilityImage = avail };
	CUptiResult r = ph.cuptiProfilerHostInitialize(&p);
	h->obj = r == CUPTI_SUCCESS ? p.pHostObject : NULL;
	return r;
}

CUptiResult profiler_host_add(struct profiler_host *h, const char **names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params p = {
		.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, .pHostObject = h->obj,
		.ppMetricNames = names, .numMetrics = n };
	return ph.cuptiProfilerHostConfigAddMetrics(&p);
}

CUptiResult profiler_host_config(struct profiler_host *h)
{
	CUpti_Profiler_Host_GetConfigImageSize_Params zp = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, .pHostObject = h->obj };
	CUptiResult r = ph.cuptiProfilerHostGetConfigImageSize(&zp);
	if (r != CUPTI_SUCCESS)
		return r;
	free(h->config);
	if (!(h->config = malloc(zp.configImageSize ? zp.configImageSize : 1)))
		return CUPTI_ERROR_OUT_OF_MEMORY;
	h->config_size = zp.configImageSize;
	CUpti_Profiler_Host_GetConfigImage_Params ip = {
		.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, .pHostObject = h->obj,
		.configImageSize = h->config_size, .pConfigImage = h->config };
	if ((r = ph.cuptiProfilerHostGetConfigImage(&ip)) != CUPTI_SUCCESS)
		return r;
	CUpti_Profiler_Host_GetNumOfPasses_Params pp = {
		.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
		.configImageSize = h->config_size, .pConfigImage = h->config };
	if ((r = ph.cuptiProfilerHostGetNumOfPasses(&pp)) != CUPTI_SUCCESS)
		return r;
	h->passes = pp.numOfPasses;
	return CUPTI_SUCCESS;
}

CUptiResult profiler_host_evaluate(const struct profiler_host *h, const uint8_t *data, size_t data_size,
                                   size_t range, const char **names, size_t n, double *values)
{
	CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
		.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, .pHostObject = h->obj,
		.pCounterDataImage = data, .counterDataImageSize = data_size, .rangeIndex = range,
		.ppMetricNames = names, .numMetrics = n, .pMetricValues = values };
	return ph.cuptiProfilerHostEvaluateToGpuValues(&p);
}

void profiler_host_free(struct profiler_host *h)
{
	if (h->obj) {
		CUpti_Profiler_Host_Deinitialize_Params p = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, .pHostObject = h->obj };
		ph.cuptiProfilerHostDeinitialize(&p);
	}
	free(h->config);
	*h = (struct profiler_host){ 0 };
}

void profiler_reason(char *why, size_t n, const char *profiler, const char *call, CUptiResult r,
                     const char *err)
{
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		snprintf(why, n, "GPU performance counters are restricted to admin users "
		                 "(NVreg_RestrictProfilingToAdminUsers=1; %s: %s)", call, err);
		break;
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_NOT_COMPATIBLE:
		snprintf(why, n, "%s is not supported on this GPU or configuration (MIG, vGPU, a GPU older than "
		                 "Turing; %s: %s)", profiler, call, err);
		break;
	case CUPTI_ERROR_INVALID_OPERATION:
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		snprintf(why, n, "another profiler holds the GPU's counters (%s: %s)", call, err);
		break;
	default: snprintf(why, n, "%s: %s", call, err); break;
	}
}
