/* test_cupti_api_select.c: which runtime and driver API calls get an activity record by default
 * (cupti/api_select.c).
 *
 * The promise under test: every variant of the calls the analyses read (launches, copies, memsets,
 * synchronisation, events, allocation, graph launches; _v2, _ptsz, _ptds and Async forms) is
 * selected, and the calls frameworks make around every launch that no analysis reads
 * (cudaGetDevice, cudaGetLastError, stream-capture queries, attribute queries) are not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cupti/api_select.h"

static void test_work_calls_selected(void **state)
{
	(void)state;
	static const char *const work[] = {
		"cudaLaunchKernel_v7000", "cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernelExC_v11060",
		"cudaLaunchCooperativeKernel_v9000", "cudaGraphLaunch_v10000", "cudaGraphLaunch_ptsz_v10000",
		"cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemcpy2DAsync_ptsz_v7000",
		"cudaMemcpyPeerAsync_v4000", "cudaMemset_v3020", "cudaMemsetAsync_ptsz_v7000",
		"cudaMalloc_v3020", "cudaMallocAsync_v11020", "cudaMallocHost_v3020",
		"cudaMallocManaged_v6000", "cudaFree_v3020", "cudaFreeAsync_v11020", "cudaFreeHost_v3020",
		"cudaHostAlloc_v3020", "cudaDeviceSynchronize_v3020", "cudaStreamSynchronize_v3020",
		"cudaStreamSynchronize_ptsz_v7000", "cudaEventSynchronize_v3020",
		"cudaStreamWaitEvent_v3020", "cudaEventRecord_v3020", "cudaEventRecordWithFlags_v11010",
		"cudaMemPrefetchAsync_v8000",
		"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
		"cuGraphLaunch", "cuMemcpyHtoD_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyAsync_ptsz",
		"cuMemsetD32_v2", "cuMemsetD8Async", "cuMemAlloc_v2", "cuMemAllocAsync",
		"cuMemAllocManaged", "cuMemFree_v2", "cuMemFreeAsync", "cuMemHostAlloc",
		"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
		"cuEventRecord", "cuEventRecordWithFlags",
	};
	for (size_t i = 0; i < sizeof work / sizeof work[0]; i++)
		if (!api_select_is_work(work[i]))
			fail_msg("%s is read by the analyses but not selected", work[i]);
}

static void test_chatter_not_selected(void **state)
{
	(void)state;
	static const char *const chatter[] = {
		"cudaGetDevice_v3020", "cudaSetDevice_v3020", "cudaGetLastError_v3020",
		"cudaPeekAtLastError_v3020", "cudaStreamIsCapturing_v10000",
		"cudaStreamGetCaptureInfo_v2_v11030", "cudaGetDeviceProperties_v2_v12000",
		"cudaDeviceGetAttribute_v5000", "cudaFuncGetAttributes_v3020", "cudaEventCreate_v3020",
		"cudaEventQuery_v3020", "cudaStreamQuery_v3020", "cudaPointerGetAttributes_v4000",
		"cudaGetDeviceCount_v3020", "cudaStreamCreateWithPriority_v5050",
		"cuCtxGetCurrent", "cuCtxSetCurrent", "cuDevicePrimaryCtxRetain", "cuModuleGetFunction",
		"cuFuncGetAttribute", "cuPointerGetAttribute", "cuDeviceGetAttribute", "cuGetProcAddress_v2",
		"cuStreamQuery", "cuEventQuery", "cuLibraryGetKernel", "cuKernelGetFunction", "", NULL,
	};
	for (size_t i = 0; i < sizeof chatter / sizeof chatter[0]; i++)
		if (api_select_is_work(chatter[i]))
			fail_msg("%s is selected though no analysis reads it", chatter[i] ? chatter[i] : "NULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_calls_selected),
		cmocka_unit_test(test_chatter_not_selected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
