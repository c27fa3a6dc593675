/* test_analyze_api_calls.c: synchronising API calls are told by name (analyze/support/api_calls.c).
 *
 * The promise under test: every variant of a host wait (runtime and driver, _v2/_ptsz suffixes) is
 * classified by what it waits for, and calls that only look alike (cudaStreamWaitEvent, a wait on
 * the GPU; cudaEventQuery, which does not block; names a program chose) are not syncs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/support/api_calls.h"

static void test_host_waits_by_kind(void **state)
{
	(void)state;
	assert_int_equal(gt_api_sync_kind("cudaDeviceSynchronize_v3020"), GT_API_SYNC_CONTEXT);
	assert_int_equal(gt_api_sync_kind("cudaThreadSynchronize_v3020"), GT_API_SYNC_CONTEXT);
	assert_int_equal(gt_api_sync_kind("cuCtxSynchronize"), GT_API_SYNC_CONTEXT);
	assert_int_equal(gt_api_sync_kind("cudaStreamSynchronize_ptsz_v7000"), GT_API_SYNC_STREAM);
	assert_int_equal(gt_api_sync_kind("cuStreamSynchronize_ptsz"), GT_API_SYNC_STREAM);
	assert_int_equal(gt_api_sync_kind("cudaEventSynchronize_v3020"), GT_API_SYNC_EVENT);
	assert_int_equal(gt_api_sync_kind("cuEventSynchronize"), GT_API_SYNC_EVENT);
}

static void test_lookalikes_are_not_syncs(void **state)
{
	(void)state;
	static const char *const others[] = { "cudaStreamWaitEvent_v3020", "cudaEventQuery_v3020",
		"cudaLaunchKernel_v7000", "cuStreamQuery", "Synchronize", "xcudaDeviceSynchronize", "", NULL };
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		if (gt_api_sync_kind(others[i]) != GT_API_SYNC_NONE)
			fail_msg("%s taken for a host sync", others[i] ? others[i] : "NULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_waits_by_kind),
		cmocka_unit_test(test_lookalikes_are_not_syncs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
