/* replay_profiler.c: a launch measured under CUPTI's Range Profiler (replay_profiler.h).
 *
 * User range, user replay: one range per pass holds only the launch (the caller restores buffers
 * outside it, so the copies are not counted), and the worker replays the launch once per pass. The
 * host-API steps (config image, passes, evaluation) are the recorder's PM sampler's too:
 * cupti/profiler_host.h, with the Range Profiler's object type.
 */
#include "preload/replay/replay_profiler.h"

#if __has_include(<cupti_range_profiler.h>)

#include "cupti/profiler_host.h"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RP_FN(name) __typeof__(name) *name
static struct {
	int loaded;
	RP_FN(cuptiGetResultString);
	RP_FN(cuptiProfilerInitialize);
	RP_FN(cuptiDeviceGetChipName);
	RP_FN(cuptiProfilerGetCounterAvailability);
	RP_FN(cuptiRangeProfilerEnable);
	RP_FN(cuptiRangeProfilerDisable);
	RP_FN(cuptiRangeProfilerSetConfig);
	RP_FN(cuptiRangeProfilerStart);
	RP_FN(cuptiRangeProfilerStop);
	RP_FN(cuptiRangeProfilerPushRange);
	RP_FN(cuptiRangeProfilerPopRange);
	RP_FN(cuptiRangeProfilerDecodeData);
	RP_FN(cuptiRangeProfilerGetCounterDataSize);
	RP_FN(cuptiRangeProfilerCounterDataImageInitialize);
	RP_FN(cuptiRangeProfilerGetCounterDataInfo);
} rp;

/* A launch needs a handful of passes; past this the config is not what we built. */
#define RP_MAX_PASSES 64

struct replay_profiler {
	CUcontext ctx;
	struct profiler_host host;
	CUpti_RangeProfiler_Object *obj;  /* between begin and finish */
	uint8_t *avail, *data;
	size_t avail_size, data_size;
	unsigned passes_run;
	char chip[64];
	size_t n;
	const char *names[REPLAY_METRICS_MAX];
	char kept[REPLAY_METRICS_MAX][REPLAY_METRIC_NAME];
};

static const char *err_name(CUptiResult r)
{
	const char *s = NULL;
	if (rp.cuptiGetResultString && rp.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI error";
}

/* Why counters cannot be had, in the user's words, from CUPTI's result. */
static void reason(char *why, size_t n, const char *call, CUptiResult r)
{
	profiler_reason(why, n, "the Range Profiler", call, r, err_name(r));
}

/* The libcupti already in this process (the recorder's), else one found by soname. */
static int find_loaded(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "libcupti.so")) {
		snprintf(out, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static int load_symbols(char *why, size_t n)
{
	char path[4096] = "";
	dl_iterate_phdr(find_loaded, path);
	void *h = path[0] ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (!h)
		h = dlopen("libcupti.so.13", RTLD_NOW);
	if (!h)
		h = dlopen("libcupti.so", RTLD_NOW);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, n, "no libcupti (%s)", e ? e : "not found");
		return -1;
	}
#define GET(f)                                                                                  \
	if (!(*(void **)&rp.f = dlsym(h, #f))) {                                                \
		snprintf(why, n, "this libcupti has no %s (the Range Profiler needs CUPTI 12.6 or later)", #f); \
		return -1;                                                                      \
	}
	GET(cuptiGetResultString) GET(cuptiProfilerInitialize) GET(cuptiDeviceGetChipName)
	GET(cuptiProfilerGetCounterAvailability)
	const char *missing = profiler_host_load(h);
	if (missing) {
		snprintf(why, n, "this libcupti has no %s (the Range Profiler needs CUPTI 12.6 or later)", missing);
		return -1;
	}
	GET(cuptiRangeProfilerEnable) GET(cuptiRangeProfilerDisable)
	GET(cuptiRangeProfilerSetConfig) GET(cuptiRangeProfilerStart) GET(cuptiRangeProfilerStop)
	GET(cuptiRangeProfilerPushRange) GET(cuptiRangeProfilerPopRange) GET(cuptiRangeProfilerDecodeData)
	GET(cuptiRangeProfilerGetCounterDataSize) GET(cuptiRangeProfilerCounterDataImageInitialize)
	GET(cuptiRangeProfilerGetCounterDataInfo)
#undef GET
	return 0;
}

/* The functions, once per process; the first failure's reason is kept for later calls. */
static int load(char *why, size_t n)
{
	static char first_why[256];
	if (!rp.loaded)
		rp.loaded = load_symbols(first_why, sizeof first_why) ? -1 : 1;
	if (rp.loaded < 0)
		snprintf(why, n, "%s", first_why);
	return rp.loaded > 0 ? 0 : -1;
}

/* The target side, once per process (the host API needs none of it). */
static int init_target(char *why, size_t n)
{
	static int done;
	if (done)
		return 0;
	CUpti_Profiler_Initialize_Params ip = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUptiResult r = rp.cuptiProfilerInitialize(&ip);
	if (r != CUPTI_SUCCESS) {
		reason(why, n, "cuptiProfilerInitialize", r);
		return -1;
	}
	done = 1;
	return 0;
}

static CUptiResult host_new(struct replay_profiler *p)
{
	return profiler_host_new(&p->host, CUPTI_PROFILER_TYPE_RANGE_PROFILER, p->chip, p->avail);
}

static void append(char *buf, size_t n, const char *word)
{
	size_t k = strlen(buf);
	if (k + 1 < n)
		snprintf(buf + k, n - k, "%s%s", k ? "," : "", word);
}

/* Keeps the metrics the chip knows, each tried alone first: a set member it lacks is dropped, a raw
 * name it lacks is the caller's error. */
static int choose(struct replay_profiler *p, const struct replay_metric_list *want, char *why, size_t nwhy,
                  char *dropped, size_t ndropped)
{
	CUptiResult r;
	for (size_t i = 0; i < want->n; i++) {
		if ((r = host_new(p)) != CUPTI_SUCCESS) {
			reason(why, nwhy, "cuptiProfilerHostInitialize", r);
			return RP_UNAVAILABLE;
		}
		const char *name = want->names[i];
		r = profiler_host_add(&p->host, &name, 1);
		profiler_host_free(&p->host);
		if (r == CUPTI_SUCCESS) {
			memcpy(p->kept[p->n], name, REPLAY_METRIC_NAME);
			p->names[p->n] = p->kept[p->n];
			p->n++;
		} else if (want->raw[i]) {
			snprintf(why, nwhy, "--metrics: this GPU (%s) has no metric '%s' (%s)", p->chip, name, err_name(r));
			return RP_UNKNOWN;
		} else {
			append(dropped, ndropped, name);
		}
	}
	if (!p->n) {
		snprintf(why, nwhy, "this GPU (%s) offers none of the metrics asked for", p->chip);
		return RP_UNAVAILABLE;
	}
	if ((r = host_new(p)) != CUPTI_SUCCESS ||
	    (r = profiler_host_add(&p->host, p->names, p->n)) != CUPTI_SUCCESS ||
	    (r = profiler_host_config(&p->host)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "building the profiler's config image", r);
		return RP_UNAVAILABLE;
	}
	if (p->host.passes == 0 || p->host.passes > RP_MAX_PASSES) {
		snprintf(why, nwhy, "the metrics would take %zu passes (at most %d)", p->host.passes, RP_MAX_PASSES);
		return RP_UNAVAILABLE;
	}
	return 0;
}

static CUptiResult enable(struct replay_profiler *p)
{
	CUpti_RangeProfiler_Enable_Params e = { .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
		.ctx = p->ctx };
	CUptiResult r = rp.cuptiRangeProfilerEnable(&e);
	p->obj = r == CUPTI_SUCCESS ? e.pRangeProfilerObject : NULL;
	return r;
}

static void disable(struct replay_profiler *p)
{
	if (!p->obj)
		return;
	CUpti_RangeProfiler_Disable_Params d = { .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj };
	rp.cuptiRangeProfilerDisable(&d);
	p->obj = NULL;
}

int replay_profiler_open(struct replay_profiler **out, CUcontext ctx, int ordinal,
                         const struct replay_metric_list *want, char *why, size_t nwhy, char *dropped,
                         size_t ndropped)
{
	*out = NULL;
	if (ndropped)
		dropped[0] = '\0';
	if (load(why, nwhy) || init_target(why, nwhy))
		return RP_UNAVAILABLE;
	struct replay_profiler *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(why, nwhy, "out of memory");
		return RP_UNAVAILABLE;
	}
	p->ctx = ctx;
	int rc = RP_UNAVAILABLE;
	CUptiResult r;
	CUpti_Device_GetChipName_Params cp = { .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
		.deviceIndex = (size_t)ordinal };
	if ((r = rp.cuptiDeviceGetChipName(&cp)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiDeviceGetChipName", r);
		goto fail;
	}
	snprintf(p->chip, sizeof p->chip, "%s", cp.pChipName ? cp.pChipName : "");
	/* The availability image is where a driver that restricts counters to admin users says so. */
	CUpti_Profiler_GetCounterAvailability_Params ap = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, .ctx = ctx };
	if ((r = rp.cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiProfilerGetCounterAvailability", r);
		goto fail;
	}
	p->avail_size = ap.counterAvailabilityImageSize;
	if (!(p->avail = malloc(p->avail_size ? p->avail_size : 1))) {
		snprintf(why, nwhy, "out of memory");
		goto fail;
	}
	ap.pCounterAvailabilityImage = p->avail;
	if ((r = rp.cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiProfilerGetCounterAvailability", r);
		goto fail;
	}
	if ((rc = choose(p, want, why, nwhy, dropped, ndropped)) != 0)
		goto fail;
	/* Tried once here, so that another profiler holding the counters is said before any replay. */
	if ((r = enable(p)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiRangeProfilerEnable", r);
		rc = RP_UNAVAILABLE;
		goto fail;
	}
	disable(p);
	*out = p;
	return 0;
fail:
	replay_profiler_close(p);
	return rc;
}

int replay_profiler_plan(const char *chip, const struct replay_metric_list *want, size_t *passes, char *kept,
                         size_t nkept, char *dropped, size_t ndropped, char *why, size_t nwhy)
{
	*passes = 0;
	if (nkept)
		kept[0] = '\0';
	if (ndropped)
		dropped[0] = '\0';
	if (load(why, nwhy))
		return RP_UNAVAILABLE;
	struct replay_profiler *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(why, nwhy, "out of memory");
		return RP_UNAVAILABLE;
	}
	snprintf(p->chip, sizeof p->chip, "%s", chip);
	int rc = choose(p, want, why, nwhy, dropped, ndropped);
	if (!rc) {
		*passes = p->host.passes;
		for (size_t i = 0; i < p->n; i++)
			append(kept, nkept, p->names[i]);
	}
	replay_profiler_close(p);
	return rc;
}

size_t replay_profiler_count(const struct replay_profiler *p) { return p->n; }
const char *replay_profiler_metric(const struct replay_profiler *p, size_t i) { return p->names[i]; }
size_t replay_profiler_passes(const struct replay_profiler *p) { return p->host.passes; }

static int failed(struct replay_profiler *p, const char *call, CUptiResult r, char *why, size_t n)
{
	reason(why, n, call, r);
	disable(p);
	return -1;
}

int replay_profiler_begin(struct replay_profiler *p, char *why, size_t n)
{
	CUptiResult r;
	p->passes_run = 0;
	disable(p); /* a session an earlier launch left open (its replay failed mid-pass) */
	if ((r = enable(p)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerEnable", r, why, n);
	CUpti_RangeProfiler_GetCounterDataSize_Params z = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE, .pRangeProfilerObject = p->obj,
		.pMetricNames = p->names, .numMetrics = p->n, .maxNumOfRanges = 1, .maxNumRangeTreeNodes = 1 };
	if ((r = rp.cuptiRangeProfilerGetCounterDataSize(&z)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerGetCounterDataSize", r, why, n);
	if (z.counterDataSize > p->data_size) {
		free(p->data);
		if (!(p->data = malloc(z.counterDataSize))) {
			p->data_size = 0;
			return failed(p, "allocating the counter data", CUPTI_ERROR_OUT_OF_MEMORY, why, n);
		}
	}
	p->data_size = z.counterDataSize;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj, .counterDataSize = p->data_size, .pCounterData = p->data };
	if ((r = rp.cuptiRangeProfilerCounterDataImageInitialize(&ci)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerCounterDataImageInitialize", r, why, n);
	CUpti_RangeProfiler_SetConfig_Params sc = {
		.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, .pRangeProfilerObject = p->obj,
		.configSize = p->host.config_size, .pConfig = p->host.config, .counterDataImageSize = p->data_size,
		.pCounterDataImage = p->data, .range = CUPTI_UserRange, .replayMode = CUPTI_UserReplay,
		.maxRangesPerPass = 1, .numNestingLevels = 1, .minNestingLevel = 1, .passIndex = 0,
		.targetNestingLevel = 1 };
	if ((r = rp.cuptiRangeProfilerSetConfig(&sc)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerSetConfig", r, why, n);
	return 0;
}

int replay_profiler_pass_start(struct replay_profiler *p, char *why, size_t n)
{
	CUptiResult r;
	CUpti_RangeProfiler_Start_Params s = { .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj };
	if ((r = rp.cuptiRangeProfilerStart(&s)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerStart", r, why, n);
	CUpti_RangeProfiler_PushRange_Params u = { .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj, .pRangeName = "launch" };
	if ((r = rp.cuptiRangeProfilerPushRange(&u)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerPushRange", r, why, n);
	return 0;
}

int replay_profiler_pass_end(struct replay_profiler *p, int *done, char *why, size_t n)
{
	CUptiResult r;
	*done = 0;
	CUpti_RangeProfiler_PopRange_Params o = { .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj };
	if ((r = rp.cuptiRangeProfilerPopRange(&o)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerPopRange", r, why, n);
	CUpti_RangeProfiler_Stop_Params s = { .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj };
	if ((r = rp.cuptiRangeProfilerStop(&s)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerStop", r, why, n);
	p->passes_run++;
	*done = s.isAllPassSubmitted != 0;
	if (!*done && p->passes_run >= RP_MAX_PASSES) {
		snprintf(why, n, "the profiler asked for more than %d passes", RP_MAX_PASSES);
		disable(p);
		return -1;
	}
	return 0;
}

int replay_profiler_finish(struct replay_profiler *p, double *values, unsigned *passes, char *why, size_t n)
{
	CUptiResult r;
	*passes = p->passes_run;
	CUpti_RangeProfiler_DecodeData_Params d = { .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
		.pRangeProfilerObject = p->obj };
	if ((r = rp.cuptiRangeProfilerDecodeData(&d)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerDecodeData", r, why, n);
	if (d.numOfRangeDropped) {
		snprintf(why, n, "the profiler dropped the launch's range");
		disable(p);
		return -1;
	}
	CUpti_RangeProfiler_GetCounterDataInfo_Params ci = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, .pCounterDataImage = p->data,
		.counterDataImageSize = p->data_size };
	if ((r = rp.cuptiRangeProfilerGetCounterDataInfo(&ci)) != CUPTI_SUCCESS)
		return failed(p, "cuptiRangeProfilerGetCounterDataInfo", r, why, n);
	if (ci.numTotalRanges < 1) {
		snprintf(why, n, "the counter data holds no range");
		disable(p);
		return -1;
	}
	r = profiler_host_evaluate(&p->host, p->data, p->data_size, 0, p->names, p->n, values);
	if (r != CUPTI_SUCCESS)
		return failed(p, "cuptiProfilerHostEvaluateToGpuValues", r, why, n);
	disable(p);
	return 0;
}

void replay_profiler_close(struct replay_profiler *p)
{
	if (!p)
		return;
	disable(p);
	profiler_host_free(&p->host);
	free(p->avail);
	free(p->data);
	free(p);
}

#else /* no CUPTI profiler headers where this was built */

#include <stdio.h>

int replay_profiler_open(struct replay_profiler **out, CUcontext ctx, int ordinal,
                         const struct replay_metric_list *want, char *why, size_t nwhy, char *dropped,
                         size_t ndropped)
{
	(void)ctx, (void)ordinal, (void)want;
	*out = NULL;
	if (ndropped)
		dropped[0] = '\0';
	snprintf(why, nwhy, "gputrace-replay was built without CUPTI's Range Profiler headers");
	return RP_UNAVAILABLE;
}
int replay_profiler_plan(const char *chip, const struct replay_metric_list *want, size_t *passes, char *kept,
                         size_t nkept, char *dropped, size_t ndropped, char *why, size_t nwhy)
{
	(void)chip, (void)want;
	*passes = 0;
	if (nkept)
		kept[0] = '\0';
	if (ndropped)
		dropped[0] = '\0';
	snprintf(why, nwhy, "gputrace-replay was built without CUPTI's Range Profiler headers");
	return RP_UNAVAILABLE;
}
size_t replay_profiler_count(const struct replay_profiler *p) { (void)p; return 0; }
const char *replay_profiler_metric(const struct replay_profiler *p, size_t i) { (void)p, (void)i; return ""; }
size_t replay_profiler_passes(const struct replay_profiler *p) { (void)p; return 0; }
int replay_profiler_begin(struct replay_profiler *p, char *why, size_t n) { (void)p; snprintf(why, n, "no profiler"); return -1; }
int replay_profiler_pass_start(struct replay_profiler *p, char *why, size_t n) { (void)p; snprintf(why, n, "no profiler"); return -1; }
int replay_profiler_pass_end(struct replay_profiler *p, int *done, char *why, size_t n)
{
	(void)p;
	*done = 1;
	snprintf(why, n, "no profiler");
	return -1;
}
int replay_profiler_finish(struct replay_profiler *p, double *values, unsigned *passes, char *why, size_t n)
{
	(void)p, (void)values;
	*passes = 0;
	snprintf(why, n, "no profiler");
	return -1;
}
void replay_profiler_close(struct replay_profiler *p) { (void)p; }

#endif
