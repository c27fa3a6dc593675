/* test_preload_replay_profiler.c: what `gputrace replay --metrics` asks of the GPU's counters, planned with
 * CUPTI's host API alone (replay_profiler_plan: no GPU, no driver), for the H100 and H200's chip
 * GH100: every member of the memory and compute sets is a metric that chip offers, memory takes 1
 * pass and compute 12 (the figures gputrace(1) states), a raw name the chip lacks is refused as a
 * usage error naming it. Skipped where no libcupti with the profiler host API can be loaded, and in
 * a sanitized build: the host API loads libnvperf_host.so with RTLD_DEEPBIND, which the sanitizer
 * runtime refuses (it aborts the process).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "preload/replay/replay_profiler.h"

#include <stdio.h>
#include <string.h>

static struct replay_metric_list parse(const char *spec)
{
	struct replay_metric_list l;
	memset(&l, 0, sizeof l);
	char why[160];
	assert_int_equal(replay_metric_sets_parse(spec, &l, why, sizeof why), 0);
	return l;
}

static int plan(const char *spec, size_t *passes, char *kept, size_t nk, char *dropped, size_t nd, char *why,
                size_t nw)
{
	struct replay_metric_list l = parse(spec);
	return replay_profiler_plan("GH100", &l, passes, kept, nk, dropped, nd, why, nw);
}

static int have_host_api(void)
{
#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "skipped: libcupti's host API dlopens libnvperf_host.so with RTLD_DEEPBIND, which ASan refuses\n");
	return 0;
#endif
	size_t passes;
	char kept[256], dropped[256], why[512];
	int rc = plan("dram__bytes_read.sum", &passes, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why);
	if (rc == RP_UNAVAILABLE)
		fprintf(stderr, "skipped: %s\n", why);
	return rc == 0;
}

static void test_sets_on_gh100(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	static const struct { const char *spec; size_t passes; } sets[] = {
		{ "memory", 1 }, { "compute", 11 }, { "memory,compute", 11 },
	};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		size_t passes;
		char kept[4096], dropped[1024], why[512];
		int rc = plan(sets[i].spec, &passes, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why);
		if (rc)
			fail_msg("%s: %s", sets[i].spec, why);
		if (dropped[0])
			fail_msg("%s: GH100 lacks %s", sets[i].spec, dropped);
		struct replay_metric_list l = parse(sets[i].spec);
		for (size_t m = 0; m < l.n; m++)
			assert_non_null(strstr(kept, l.names[m]));
		assert_int_equal(passes, sets[i].passes);
	}
}

static void test_raw_names(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	size_t passes;
	char kept[1024], dropped[256], why[512];
	assert_int_equal(plan("memory,sm__no_such_counter.sum", &passes, kept, sizeof kept, dropped, sizeof dropped, why,
	                      sizeof why), RP_UNKNOWN);
	assert_non_null(strstr(why, "--metrics: this GPU (GH100) has no metric 'sm__no_such_counter.sum'"));
	assert_int_equal(plan("sm__cycles_active.avg", &passes, kept, sizeof kept, dropped, sizeof dropped, why,
	                      sizeof why), 0);
	assert_string_equal(kept, "sm__cycles_active.avg");
	assert_int_equal(passes, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sets_on_gh100),
		cmocka_unit_test(test_raw_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
