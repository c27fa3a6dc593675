/* test_cupti_pmsampling.c: the PM sampler (cupti/pmsampling.c) against a CUPTI of our own.
 *
 * No GPU runs the unit tests, so the CUPTI functions the sampler looks up by name are defined
 * here (this binary is linked -rdynamic and stands in as the loaded libcupti) and behave as the
 * headers document: a chip that lacks some metrics and fits only a few in one pass, a counter-data
 * image of a few samples that fills and must be initialised again, a hardware buffer that
 * overflows, values CUPTI cannot evaluate, and enabling refused for lack of privileges. The
 * promises under test: the metrics kept are those offered in one pass, the rest named; of a
 * member's alternatives the first offered within the pass is kept, and one member is one name; every
 * decoded sample becomes one record per metric with CUPTI's times and values, across refills of
 * the image; a value that is not finite is no record; the sample after an overflow is flagged
 * partial; a refusal is a reason in the user's words and no sampler; stopping stops, disables and
 * frees what was enabled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti/libs.h"
#include "cupti/pmsampling.h"
#include "traces/gputrace.h"

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

/* ---- the fake CUPTI ---------------------------------------------------------------------------- */

#define CAP 5 /* samples one counter-data image holds */

static struct {
	CUptiResult enable_result;
	CUptiResult config_result; /* what SetConfig answers (the trigger refused: NOT_SUPPORTED) */
	size_t max_per_pass;      /* metrics that fit in one pass */
	size_t pending;           /* samples in the hardware buffer, not yet decoded */
	size_t in_image;          /* samples decoded into the current image */
	size_t generation;        /* images initialised so far */
	size_t decoded;           /* samples decoded before the current image */
	int overflow_once;        /* the next decode reports an overflow */
	int nan_metric;           /* this metric's value is NaN; -1: none */
	int enabled, started, hosts, stops;
	int offline;              /* planning without a device: no availability image */
	uint32_t sample_interval;
} fake;

struct CUpti_Profiler_Host_Object {
	size_t n;
};
struct CUpti_PmSampling_Object {
	int unused;
};
static struct CUpti_PmSampling_Object the_object;

/* Exported (the build hides symbols by default), so that dlsym finds them. */
#pragma GCC visibility push(default)
CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	(void)p;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	p->pChipName = "GH100";
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingGetCounterAvailability(CUpti_PmSampling_GetCounterAvailability_Params *p)
{
	if (p->pCounterAvailabilityImage)
		memset(p->pCounterAvailabilityImage, 0xa5, p->counterAvailabilityImageSize);
	else
		p->counterAvailabilityImageSize = 64;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	assert_int_equal(p->profilerType, CUPTI_PROFILER_TYPE_PM_SAMPLING);
	assert_string_equal(p->pChipName, "GH100");
	assert_true(fake.offline || p->pCounterAvailabilityImage);
	p->pHostObject = calloc(1, sizeof *p->pHostObject);
	fake.hosts++;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	free(p->pHostObject);
	fake.hosts--;
	return CUPTI_SUCCESS;
}

/* A metric is offered unless its name says "nope". */
CUptiResult CUPTIAPI cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	for (size_t i = 0; i < p->numMetrics; i++)
		if (strstr(p->ppMetricNames[i], "nope"))
			return CUPTI_ERROR_INVALID_METRIC_NAME;
	p->pHostObject->n += p->numMetrics;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	p->configImageSize = 16;
	return CUPTI_SUCCESS;
}

/* The image holds its metric count, which GetNumOfPasses reads back. */
CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	memset(p->pConfigImage, 0, p->configImageSize);
	memcpy(p->pConfigImage, &p->pHostObject->n, sizeof p->pHostObject->n);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	size_t n;
	memcpy(&n, p->pConfigImage, sizeof n);
	p->numOfPasses = n <= fake.max_per_pass ? 1 : 2;
	return CUPTI_SUCCESS;
}

static size_t global_index(size_t i) { return fake.decoded + i; }

CUptiResult CUPTIAPI cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	assert_true(p->rangeIndex < fake.in_image);
	for (size_t m = 0; m < p->numMetrics; m++)
		p->pMetricValues[m] = (int)m == fake.nan_metric ? NAN : (double)global_index(p->rangeIndex) * 10.0 + (double)m + 0.25;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params *p)
{
	if (fake.enable_result != CUPTI_SUCCESS)
		return fake.enable_result;
	p->pPmSamplingObject = &the_object;
	fake.enabled++;
	return CUPTI_SUCCESS;
}

/* Disabling aborted or hung programs on the H100 (preload/metrics.c): the sampler must never. */
CUptiResult CUPTIAPI cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params *p)
{
	(void)p;
	fail_msg("cuptiPmSamplingDisable called");
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params *p)
{
	size_t n;
	memcpy(&n, p->pConfig, sizeof n);
	assert_true(n >= 1 && n <= fake.max_per_pass);
	assert_int_equal(p->triggerMode, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL);
	fake.sample_interval = (uint32_t)p->samplingInterval;
	return fake.config_result;
}

CUptiResult CUPTIAPI cuptiPmSamplingStart(CUpti_PmSampling_Start_Params *p)
{
	(void)p;
	fake.started++;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params *p)
{
	(void)p;
	fake.started--;
	fake.stops++;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params *p)
{
	size_t room = CAP - fake.in_image, take = fake.pending < room ? fake.pending : room;
	fake.in_image += take;
	fake.pending -= take;
	p->decodeStopReason = fake.in_image == CAP && fake.pending ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
	                                                           : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
	p->overflow = (uint8_t)fake.overflow_once;
	fake.overflow_once = 0;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params *p)
{
	assert_true(p->numMetrics >= 1);
	p->counterDataSize = 4096;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
	assert_int_equal(p->counterDataSize, 4096);
	fake.decoded += fake.in_image;
	fake.in_image = 0;
	fake.generation++;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
	p->numTotalSamples = CAP;
	p->numPopulatedSamples = p->numCompletedSamples = fake.in_image;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
	assert_true(p->sampleIndex < fake.in_image);
	p->startTimestamp = 1000000 + global_index(p->sampleIndex) * 1000;
	p->endTimestamp = p->startTimestamp + 1000;
	return CUPTI_SUCCESS;
}

#pragma GCC visibility pop

/* ---- helpers ------------------------------------------------------------------------------------ */

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof fake);
	fake.max_per_pass = 3;
	fake.nan_metric = -1;
	fake.enable_result = CUPTI_SUCCESS;
	fake.generation = 0;
	cupti_fn.handle = dlopen(NULL, RTLD_NOW);
	assert_non_null(cupti_fn.handle);
	snprintf(dir, sizeof dir, "/tmp/gt_pm_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.gtrace", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static struct metric_list list_of(const char *const *names, size_t n)
{
	struct metric_list l = { 0 };
	for (size_t i = 0; i < n; i++)
		snprintf(l.names[l.n++], sizeof l.names[0], "%s", names[i]);
	return l;
}

/* The METRIC_SAMPLE records of the trace at `path`, in file order, into out (at most max). */
static size_t read_samples(struct gt_metric_sample *out, const char **names, size_t max)
{
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	size_t n = 0;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) == 1)
		if (ev.type == GT_REC_METRIC_SAMPLE) {
			assert_true(n < max);
			out[n] = ev.u.metric_sample;
			names[n] = strdup(gt_reader_string(r, ev.u.metric_sample.metric_id));
			n++;
		}
	assert_int_equal(rc, 0);
	gt_reader_close(r);
	return n;
}

/* ---- tests -------------------------------------------------------------------------------------- */

/* Offered metrics are kept in order while they fit one pass; the others are named, in order. */
static void test_start_keeps_what_fits_one_pass(void **state)
{
	(void)state;
	static const char *const want[] = { "a__x.sum", "b__nope.sum", "c__y.sum", "d__z.sum", "e__w.sum" };
	struct metric_list l = list_of(want, 5);
	struct pm_sampler *s;
	char why[256] = "", dropped[256] = "";
	assert_int_equal(pm_start(&s, 0, &l, 1000000, why, sizeof why, dropped, sizeof dropped), 0);
	assert_string_equal(pm_metrics(s), "a__x.sum,c__y.sum,d__z.sum");
	assert_string_equal(dropped, "b__nope.sum,e__w.sum");
	assert_int_equal(fake.sample_interval, 1000000);
	assert_int_equal(fake.enabled, 1);
	assert_int_equal(fake.started, 1);
	pm_stop(s);
	assert_int_equal(fake.started, 0);
	pm_free(s);
	assert_int_equal(fake.started, 0);
	assert_int_equal(fake.enabled, 1); /* never disabled */
	assert_int_equal(fake.hosts, 0); /* every host object freed */
}

/* A member with alternatives keeps the first name offered within the pass and only that one; a
 * member none of whose names is offered is left out under its first name; an alternative that
 * would overflow the pass gives way to the next. */
static void test_alternatives_keep_one_name(void **state)
{
	(void)state;
	static const char *const want[] = { "a__x.sum", "b__nope.sum", "b__yes.sum", "b__also.sum", "c__nope.sum",
		                            "c__nope2.sum", "d__z.sum", "e__w.sum" };
	static const uint8_t alt[] = { 0, 0, 1, 1, 0, 1, 0, 1 };
	struct metric_list l = list_of(want, 8);
	memcpy(l.alt, alt, sizeof alt);
	struct pm_sampler *s;
	char why[256] = "", dropped[256] = "";
	assert_int_equal(pm_start(&s, 0, &l, 1000000, why, sizeof why, dropped, sizeof dropped), 0);
	assert_string_equal(pm_metrics(s), "a__x.sum,b__yes.sum,d__z.sum");
	assert_string_equal(dropped, "c__nope.sum");
	pm_free(s); /* stops too */
	assert_int_equal(fake.started, 0);
	/* The same plan without a device, as a test of the chip's names does it. */
	char kept[256];
	fake.offline = 1;
	assert_int_equal(pm_plan("GH100", &l, kept, sizeof kept, dropped, sizeof dropped, why, sizeof why), 0);
	assert_string_equal(kept, "a__x.sum,b__yes.sum,d__z.sum");
	assert_string_equal(dropped, "c__nope.sum");
	assert_int_equal(fake.hosts, 0);
}

/* Every sample, across three refills of the image, is one record per metric with CUPTI's times
 * and values; a NaN is no record; the sample after an overflow is flagged partial. */
static void test_decode_writes_every_sample(void **state)
{
	(void)state;
	static const char *const want[] = { "a__x.sum", "b__y.sum", "c__z.sum" };
	struct metric_list l = list_of(want, 3);
	struct pm_sampler *s;
	char why[256] = "", dropped[256] = "";
	assert_int_equal(pm_start(&s, 2, &l, 1000, why, sizeof why, dropped, sizeof dropped), 0);
	assert_string_equal(dropped, "");
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, path, GT_WRITE_NO_CLOBBER, NULL), 0);
	fake.pending = 12; /* two full images and two samples */
	fake.nan_metric = 1;
	assert_int_equal(pm_decode(s, w, why, sizeof why), 0);
	assert_int_equal(pm_samples(s), 12);
	fake.pending = 3;
	fake.overflow_once = 1;
	assert_int_equal(pm_decode(s, w, why, sizeof why), 0);
	assert_true(pm_overflowed(s));
	fake.pending = 1; /* arrives before the stop: decoded after it */
	pm_stop(s);
	assert_int_equal(pm_decode(s, w, why, sizeof why), 0);
	assert_int_equal(pm_samples(s), 16); /* the count outlives the stop */
	pm_stop(s); /* once only */
	assert_int_equal(fake.stops, 1);
	pm_free(s);
	assert_int_equal(fake.stops, 1);
	assert_int_equal(fake.enabled, 1); /* never disabled */
	assert_int_equal(gt_writer_close(w), 0);

	struct gt_metric_sample rec[64];
	const char *names[64];
	size_t n = read_samples(rec, names, 64);
	assert_int_equal(n, 16 * 2); /* 16 samples, metric b never (NaN) */
	for (size_t i = 0; i < n; i++) {
		size_t g = i / 2, m = i % 2 ? 2 : 0;
		assert_int_equal(rec[i].start, 1000000 + g * 1000);
		assert_int_equal(rec[i].end, rec[i].start + 1000);
		assert_true(rec[i].value == (double)g * 10.0 + (double)m + 0.25);
		assert_int_equal(rec[i].device_id, 2);
		assert_string_equal(names[i], want[m]);
		/* Sample 12 is the first decoded after the overflow. */
		assert_int_equal(rec[i].flags, g == 12 ? GT_METRIC_PARTIAL : 0);
		free((void *)names[i]);
	}
}

/* Refused: the reason in the user's words, no sampler, nothing left enabled. */
static void test_refusals_say_why(void **state)
{
	(void)state;
	static const char *const want[] = { "a__x.sum" };
	struct metric_list l = list_of(want, 1);
	static const struct {
		CUptiResult r;
		const char *words;
	} cases[] = {
		{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "restricted to admin users" },
		{ CUPTI_ERROR_NOT_SUPPORTED, "not supported on this GPU or configuration (MIG" },
		{ CUPTI_ERROR_INVALID_OPERATION, "another profiler holds the GPU's counters" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fake.enable_result = cases[i].r;
		struct pm_sampler *s = (struct pm_sampler *)1;
		char why[256] = "", dropped[256] = "";
		assert_int_equal(pm_start(&s, 0, &l, 1000, why, sizeof why, dropped, sizeof dropped), -1);
		assert_null(s);
		assert_non_null(strstr(why, cases[i].words));
		assert_non_null(strstr(why, "cuptiPmSamplingEnable"));
		assert_int_equal(fake.enabled, 0);
		assert_int_equal(fake.hosts, 0);
	}
	/* Nothing offered: no sampler either. */
	fake.enable_result = CUPTI_SUCCESS;
	static const char *const none[] = { "a__nope.sum", "b__nope.sum" };
	struct metric_list ln = list_of(none, 2);
	struct pm_sampler *s;
	char why[256] = "", dropped[256] = "";
	assert_int_equal(pm_start(&s, 0, &ln, 1000, why, sizeof why, dropped, sizeof dropped), -1);
	assert_non_null(strstr(why, "offers none of the metrics"));
	assert_string_equal(dropped, "a__nope.sum,b__nope.sum");
	pm_stop(NULL);
	pm_free(NULL);
	/* A GPU without the GPU-time trigger (Turing, GA100) is told apart from one without PM sampling;
	 * what was enabled stays so (never disabled) and the host objects are freed. */
	fake.config_result = CUPTI_ERROR_NOT_SUPPORTED;
	assert_int_equal(pm_start(&s, 0, &l, 1000, why, sizeof why, dropped, sizeof dropped), -1);
	assert_null(s);
	assert_non_null(strstr(why, "PM sampling on GPU time is not supported on this GPU (Turing and GA100"));
	assert_int_equal(fake.enabled, 1);
	assert_int_equal(fake.hosts, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_keeps_what_fits_one_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alternatives_keep_one_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_writes_every_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_say_why, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
