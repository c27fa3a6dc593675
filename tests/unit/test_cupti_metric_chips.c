/* test_cupti_metric_chips.c: the metric names gputrace asks for, against the names CUPTI's host API
 * gives each chip, with no GPU (the host API needs none).
 *
 * Three tables must agree with the chips and with each other: the PM sampler's sets
 * (cupti/metric_sets.c), the replay's sets (preload/replay/replay_metric_sets.c) and the analyses'
 * roles (analyze/blocks/metric_roles.c). A name one side writes and the other does not read is a
 * figure lost silently, and a name no chip offers is one never measured. So, for GH100 (H100,
 * H200): both sampling sets fit one pass with every member kept, and what they keep covers the
 * sampled roles (DRAM read and write, L2, SM activity, the FMA, FP64 and tensor pipes); the replay's
 * sets keep every member, and cover the tensor FLOP, pipe and byte roles the ceiling analysis
 * computes from (FP32/FP64 FLOPs are SASS-patched counts, which no profiler here gives);
 * and every name in the role table is offered by some chip for some profiler. Other chips'
 * sampling plans are printed, and must keep the memory set whole where the chip has DRAM
 * counters. Skipped where no libcupti with the host API loads, and in a sanitized build (the host
 * API loads libnvperf_host.so with RTLD_DEEPBIND, which the sanitizer runtime refuses).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blocks/metric_roles.h"
#include "cupti/metric_sets.h"
#include "cupti/pmsampling.h"
#include "preload/replay/replay_profiler.h"

#include <stdio.h>
#include <string.h>

static int have_host_api(void)
{
#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "skipped: libcupti's host API dlopens libnvperf_host.so with RTLD_DEEPBIND, which ASan refuses\n");
	return 0;
#endif
	struct metric_list l = { 0 };
	char why[512], kept[256], dropped[256];
	assert_int_equal(metric_sets_parse("dram__bytes_read.sum", &l, why, sizeof why), 0);
	if (pm_plan("GH100", &l, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why)) {
		fprintf(stderr, "skipped: %s\n", why);
		return 0;
	}
	return 1;
}

/* 1 when some comma-separated name of list has role `role`. */
static int covers(const char *list, int role)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int k = gt_metric_role_find(w);
		if (k >= 0 && (int)gt_metric_role_rows[k].role == role)
			return 1;
	}
	return 0;
}

/* Fails naming the first of roles that no name of list has. */
static void assert_covers(const char *list, const int *roles, size_t n, const char *who)
{
	for (size_t i = 0; i < n; i++)
		if (!covers(list, roles[i]))
			fail_msg("%s have no %s for the analyses", who, gt_metric_role_name(roles[i]));
}

static size_t count_names(const char *list)
{
	size_t n = *list != '\0';
	for (; *list; list++)
		n += *list == ',';
	return n;
}

static void test_sampling_sets_on_gh100(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	struct metric_list l = { 0 };
	char why[512], kept[4096], dropped[1024];
	assert_int_equal(metric_sets_parse("memory,compute", &l, why, sizeof why), 0);
	size_t members = 0;
	for (size_t i = 0; i < l.n; i++)
		members += !l.alt[i];
	if (pm_plan("GH100", &l, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why))
		fail_msg("GH100: %s", why);
	fprintf(stderr, "GH100 samples: %s\n", kept);
	if (dropped[0])
		fail_msg("GH100 leaves out %s", dropped);
	assert_int_equal(count_names(kept), members);
	static const int roles[] = { GT_ROLE_DRAM_READ_BYTES, GT_ROLE_DRAM_WRITE_BYTES, GT_ROLE_L2_BYTES,
		                     GT_ROLE_SM_ACTIVE_PCT,   GT_ROLE_FP32_PIPE_PCT,    GT_ROLE_FP64_PIPE_PCT,
		                     GT_ROLE_TENSOR_PIPE_PCT };
	assert_covers(kept, roles, sizeof roles / sizeof roles[0], "GH100's sampled metrics");
}

static void test_sampling_sets_elsewhere(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	static const char *const chips[] = { "GA100", "GA102", "AD102", "GB100" };
	struct metric_list l = { 0 };
	char why[512], kept[4096], dropped[1024];
	assert_int_equal(metric_sets_parse("memory,compute", &l, why, sizeof why), 0);
	for (size_t c = 0; c < sizeof chips / sizeof chips[0]; c++) {
		if (pm_plan(chips[c], &l, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why))
			fail_msg("%s: %s", chips[c], why);
		fprintf(stderr, "%s samples: %s; leaves out: %s\n", chips[c], kept, dropped[0] ? dropped : "nothing");
		for (int role = GT_ROLE_DRAM_READ_BYTES; role <= GT_ROLE_L2_BYTES; role++)
			if (!covers(kept, role))
				fail_msg("%s samples no %s", chips[c], gt_metric_role_name(role));
	}
}

static void test_replay_sets_on_gh100(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	struct replay_metric_list l;
	memset(&l, 0, sizeof l);
	char why[512], kept[8192], dropped[1024];
	size_t passes;
	assert_int_equal(replay_metric_sets_parse("memory,compute", &l, why, sizeof why), 0);
	int rc = replay_profiler_plan("GH100", &l, &passes, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why);
	if (rc)
		fail_msg("GH100: %s", why);
	if (dropped[0])
		fail_msg("GH100 lacks %s", dropped);
	/* No FP32/FP64 FLOP counts: they are SASS-patched counts, which the Range Profiler does not
	 * give (replay_metric_sets.c); the FMA and FP64 pipes' activity stands for them. */
	static const int roles[] = { GT_ROLE_DRAM_READ_BYTES, GT_ROLE_DRAM_WRITE_BYTES, GT_ROLE_L2_BYTES,
		                     GT_ROLE_TENSOR_FLOPS,    GT_ROLE_SM_PCT,           GT_ROLE_FP32_PIPE_PCT,
		                     GT_ROLE_FP64_PIPE_PCT,   GT_ROLE_TENSOR_PIPE_PCT };
	assert_covers(kept, roles, sizeof roles / sizeof roles[0], "the replay's metrics");
}

/* Every role row names a metric some chip offers to one of the two profilers: a misspelt or
 * invented name would be a row that never matches. */
static void test_role_names_exist(void **state)
{
	(void)state;
	if (!have_host_api())
		skip();
	static const char *const chips[] = { "GH100", "GA100", "AD102", "GB100" };
	for (size_t k = 0; k < gt_metric_role_nrows; k++) {
		const char *name = gt_metric_role_rows[k].metric;
		/* SASS-patched counts (Nsight Compute's FLOP sources) are no hardware counter of either
		 * profiler: the rows stay for values measured that way, and are not looked up here. */
		if (strstr(name, "__sass_"))
			continue;
		int found = 0;
		for (size_t c = 0; c < sizeof chips / sizeof chips[0] && !found; c++) {
			char why[512], kept[512], dropped[512];
			struct metric_list pl = { 0 };
			assert_int_equal(metric_sets_parse(name, &pl, why, sizeof why), 0);
			found = pm_plan(chips[c], &pl, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why) == 0;
			if (found)
				break;
			struct replay_metric_list rl;
			memset(&rl, 0, sizeof rl);
			assert_int_equal(replay_metric_sets_parse(name, &rl, why, sizeof why), 0);
			size_t passes;
			found = replay_profiler_plan(chips[c], &rl, &passes, kept, sizeof kept, dropped, sizeof dropped, why,
			                             sizeof why) == 0;
		}
		if (!found)
			fail_msg("no chip offers the role table's %s", name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampling_sets_on_gh100),
		cmocka_unit_test(test_sampling_sets_elsewhere),
		cmocka_unit_test(test_replay_sets_on_gh100),
		cmocka_unit_test(test_role_names_exist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
