/* test_cupti_api_select.c: which runtime and driver API calls get an activity record by default
 * (cupti/api_select.c).
 *
 * The promise under test: every variant of the calls the analyses read (launches, copies, memsets,
 * synchronisation, events, allocation, graph launches; _v2, _ptsz, _ptds and Async forms) is
 * selected, and the calls frameworks make around every launch that no analysis reads
 * (cudaGetDevice, cudaGetLastError, stream-capture queries, attribute queries) are not; and both
 * ways of applying the selection switch exactly those calls: api_select_enable switches the work
 * calls on one by one, api_select_exclude_others (the whole kind on) switches every other call off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cupti/api_select.h"
#include "cupti/libs.h"

#include <string.h>

/* A stand-in CUPTI with four runtime calls: two that are work, two that are not. */
static const char *const fake_names[] = { NULL, "cudaLaunchKernel_v7000", "cudaGetDevice_v3020",
	                                  "cudaStreamSynchronize_v3020", "cudaGetLastError_v3020" };
#define NFAKE (sizeof fake_names / sizeof fake_names[0])
static int switched[NFAKE]; /* -1 untouched, else the last value set */

static CUptiResult fake_name(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	(void)d;
	if (cbid >= NFAKE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = fake_names[cbid];
	return CUPTI_SUCCESS;
}

static CUptiResult fake_set(CUpti_CallbackId cbid, uint8_t enable)
{
	if (cbid >= NFAKE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	switched[cbid] = enable;
	return CUPTI_SUCCESS;
}

static void use_fake(void)
{
	memset(&cupti_fn, 0, sizeof cupti_fn);
	cupti_fn.cuptiGetCallbackName = fake_name;
	cupti_fn.cuptiActivityEnableRuntimeApi = fake_set;
	for (size_t i = 0; i < NFAKE; i++)
		switched[i] = -1;
}

static void test_enable_switches_work_calls_on(void **state)
{
	(void)state;
	use_fake();
	assert_int_equal(api_select_enable(CUPTI_CB_DOMAIN_RUNTIME_API, 1), 2);
	assert_int_equal(switched[1], 1);
	assert_int_equal(switched[3], 1);
	assert_int_equal(switched[2], -1);
	assert_int_equal(switched[4], -1);
}

static void test_exclude_switches_other_calls_off(void **state)
{
	(void)state;
	use_fake();
	assert_int_equal(api_select_exclude_others(CUPTI_CB_DOMAIN_RUNTIME_API), 2);
	assert_int_equal(switched[2], 0);
	assert_int_equal(switched[4], 0);
	assert_int_equal(switched[1], -1);
	assert_int_equal(switched[3], -1);
}

static void test_no_per_call_switch_says_so(void **state)
{
	(void)state;
	use_fake();
	cupti_fn.cuptiActivityEnableRuntimeApi = NULL;
	assert_int_equal(api_select_enable(CUPTI_CB_DOMAIN_RUNTIME_API, 1), -1);
	assert_int_equal(api_select_exclude_others(CUPTI_CB_DOMAIN_RUNTIME_API), -1);
	assert_int_equal(api_select_exclude_others(CUPTI_CB_DOMAIN_DRIVER_API), -1);
}

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
		cmocka_unit_test(test_enable_switches_work_calls_on),
		cmocka_unit_test(test_exclude_switches_other_calls_off),
		cmocka_unit_test(test_no_per_call_switch_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
