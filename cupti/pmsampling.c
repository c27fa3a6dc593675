/* pmsampling.c: hardware counters sampled with CUPTI's PM sampling API (pmsampling.h).
 *
 * The host side (cupti_profiler_host.h, called through profiler_host.h) turns metric names into a
 * config image for the device's chip, and later evaluates the raw counters of a decoded sample into
 * metric values; the target side (cupti_pmsampling.h) enables sampling on a device, starts it, and
 * decodes the hardware buffer into a counter-data image of a fixed number of samples, which is
 * re-initialised whenever it fills. The functions are looked up in the libcupti the recorder
 * already opened (libs.h), so a CUPTI without PM sampling only means no counters.
 */
#include "cupti/pmsampling.h"

#include "cupti/libs.h"
#include "cupti/profiler_host.h"

#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Samples one counter-data image holds: decoded every writer-loop pass (at most 50 ms apart), so
 * at the shortest interval (10 us) about 5000 arrive between two decodes; more only fill it
 * sooner, which decoding handles by starting it again. */
#define PM_MAX_SAMPLES 8192
/* The hardware buffer the GPU writes samples to until they are decoded. */
#define PM_HW_BUFFER_BYTES (256u << 20)

#define PM_FN(name) __typeof__(name) *name
static struct {
	int loaded;
	PM_FN(cuptiProfilerInitialize);
	PM_FN(cuptiDeviceGetChipName);
	PM_FN(cuptiPmSamplingGetCounterAvailability);
	PM_FN(cuptiPmSamplingEnable);
	PM_FN(cuptiPmSamplingSetConfig);
	PM_FN(cuptiPmSamplingStart);
	PM_FN(cuptiPmSamplingStop);
	PM_FN(cuptiPmSamplingDecodeData);
	PM_FN(cuptiPmSamplingGetCounterDataSize);
	PM_FN(cuptiPmSamplingCounterDataImageInitialize);
	PM_FN(cuptiPmSamplingGetCounterDataInfo);
	PM_FN(cuptiPmSamplingCounterDataGetSampleInfo);
} pm;

struct pm_sampler {
	uint32_t ordinal;
	CUpti_PmSampling_Object *obj;
	struct profiler_host host;
	uint8_t *avail, *data;
	size_t data_size;
	size_t next;                  /* the first sample of the image not yet written */
	struct metric_list kept;
	const char *names[METRICS_MAX];
	double values[METRICS_MAX];
	uint64_t samples;
	int overflowed, partial_next, failed, started;
	char list[METRICS_MAX * 96];
};

static int load(char *why, size_t n)
{
	if (pm.loaded)
		return pm.loaded > 0 ? 0 : (snprintf(why, n, "this libcupti has no PM sampling API"), -1);
	void *h = cupti_fn.handle;
	pm.loaded = -1;
	if (!h) {
		snprintf(why, n, "libcupti is not loaded");
		return -1;
	}
#define GET(f)                                                                                     \
	if (!(*(void **)&pm.f = dlsym(h, #f))) {                                                   \
		snprintf(why, n, "this libcupti has no %s (CUPTI 12.6 or later has PM sampling)", #f); \
		return -1;                                                                         \
	}
	GET(cuptiProfilerInitialize) GET(cuptiDeviceGetChipName) GET(cuptiPmSamplingGetCounterAvailability)
	const char *missing = profiler_host_load(h);
	if (missing) {
		snprintf(why, n, "this libcupti has no %s (CUPTI 12.6 or later has PM sampling)", missing);
		return -1;
	}
	GET(cuptiPmSamplingEnable)
	GET(cuptiPmSamplingSetConfig) GET(cuptiPmSamplingStart) GET(cuptiPmSamplingStop)
	GET(cuptiPmSamplingDecodeData) GET(cuptiPmSamplingGetCounterDataSize)
	GET(cuptiPmSamplingCounterDataImageInitialize) GET(cuptiPmSamplingGetCounterDataInfo)
	GET(cuptiPmSamplingCounterDataGetSampleInfo)
#undef GET
	CUpti_Profiler_Initialize_Params ip = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUptiResult r = pm.cuptiProfilerInitialize(&ip);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, n, "cuptiProfilerInitialize: %s", libs_cupti_error(r));
		return -1;
	}
	pm.loaded = 1;
	return 0;
}

/* Why a device's counters cannot be had, in the user's words, from CUPTI's result. */
static void reason(char *why, size_t n, const char *call, CUptiResult r)
{
	profiler_reason(why, n, "PM sampling", call, r, libs_cupti_error(r));
}

static CUptiResult host_new(struct pm_sampler *s, const char *chip)
{
	return profiler_host_new(&s->host, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, s->avail);
}

static void append(char *buf, size_t n, const char *word)
{
	size_t k = strlen(buf);
	snprintf(buf + k, n > k ? n - k : 0, "%s%s", k ? "," : "", word);
}

/* Whether the kept metrics and `extra` (may be NULL) configure together in one pass on chip; the
 * host object is left holding that config when they do. -1: the host object could not be made.
 * The names go to CUPTI in one call: it schedules each call's metrics as a group of their own, so
 * metrics added one call at a time take a pass each. */
static int fits(struct pm_sampler *s, const char *chip, const char *extra, CUptiResult *r)
{
	profiler_host_free(&s->host);
	if ((*r = host_new(s, chip)) != CUPTI_SUCCESS)
		return -1;
	const char *names[METRICS_MAX + 1];
	size_t n = 0;
	for (size_t i = 0; i < s->kept.n; i++)
		names[n++] = s->kept.names[i];
	if (extra)
		names[n++] = extra;
	return profiler_host_add(&s->host, names, n) == CUPTI_SUCCESS &&
	       profiler_host_config(&s->host) == CUPTI_SUCCESS && s->host.passes == 1;
}

/* Keeps, member by member in order, the first of its names (a member and its alternatives) that the
 * chip offers together with those kept before it in one pass: PM sampling takes one config image
 * of one pass. A member none of whose names fits is named in dropped. */
static int choose(struct pm_sampler *s, const char *chip, const struct metric_list *want, char *why,
                  size_t nwhy, char *dropped, size_t ndropped)
{
	CUptiResult r = CUPTI_SUCCESS;
	int holds_kept = 0; /* the host object's config is exactly the kept metrics' */
	s->kept.n = 0;
	/* First every member's first name at once: when they fit one pass, that is what the search
	 * below keeps too (a subset of one pass is one pass), in one host config instead of one per
	 * name; the search took 650-800 ms on the H200, on the thread creating the context. */
	for (size_t i = 0; i < want->n; i++)
		if (!want->alt[i])
			memcpy(s->kept.names[s->kept.n++], want->names[i], sizeof want->names[i]);
	int all = s->kept.n ? fits(s, chip, NULL, &r) : 0;
	if (all < 0) {
		reason(why, nwhy, "cuptiProfilerHostInitialize", r);
		return -1;
	}
	if (all) {
		for (size_t i = 0; i < s->kept.n; i++) {
			s->names[i] = s->kept.names[i];
			append(s->list, sizeof s->list, s->kept.names[i]);
		}
		return 0;
	}
	s->kept.n = 0;
	for (size_t i = 0; i < want->n;) {
		size_t end = i + 1;
		while (end < want->n && want->alt[end])
			end++;
		int kept = 0;
		for (size_t j = i; j < end && !kept; j++) {
			int f = fits(s, chip, want->names[j], &r);
			if (f < 0) {
				reason(why, nwhy, "cuptiProfilerHostInitialize", r);
				return -1;
			}
			if (f) {
				memcpy(s->kept.names[s->kept.n++], want->names[j], sizeof want->names[j]);
				kept = 1;
			}
			holds_kept = f;
		}
		if (!kept)
			append(dropped, ndropped, want->names[i]);
		i = end;
	}
	if (!s->kept.n) {
		profiler_host_free(&s->host);
		snprintf(why, nwhy, "the GPU offers none of the metrics asked for in one sampling pass");
		return -1;
	}
	/* The host object must hold the config of exactly the kept metrics: configured again only when
	 * a candidate that did not fit came last. */
	int f = holds_kept ? 1 : fits(s, chip, NULL, &r);
	if (f <= 0) {
		reason(why, nwhy, f < 0 ? "cuptiProfilerHostInitialize" : "cuptiProfilerHostGetConfigImage", r);
		return -1;
	}
	for (size_t i = 0; i < s->kept.n; i++) {
		s->names[i] = s->kept.names[i];
		append(s->list, sizeof s->list, s->kept.names[i]);
	}
	return 0;
}

static CUptiResult image_init(struct pm_sampler *s)
{
	CUpti_PmSampling_CounterDataImage_Initialize_Params p = {
		.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.pPmSamplingObject = s->obj, .counterDataSize = s->data_size, .pCounterData = s->data };
	s->next = 0;
	return pm.cuptiPmSamplingCounterDataImageInitialize(&p);
}

/* Stops a sampler still running and frees it. Never cuptiPmSamplingDisable: on the H100 (CUPTI
 * 13.0) it aborted the program or hung it, and it is said to finalize all of CUPTI, which the
 * recorder goes on using; the device's sampling object is left to the process's end. */
static void sampler_free(struct pm_sampler *s)
{
	if (!s)
		return;
	if (s->obj && s->started) {
		CUpti_PmSampling_Stop_Params sp = { .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
			.pPmSamplingObject = s->obj };
		pm.cuptiPmSamplingStop(&sp);
	}
	profiler_host_free(&s->host);
	free(s->avail);
	free(s->data);
	free(s);
}

int pm_plan(const char *chip, const struct metric_list *metrics, char *kept, size_t nkept, char *dropped,
            size_t ndropped, char *why, size_t nwhy)
{
	if (nkept)
		kept[0] = '\0';
	if (ndropped)
		dropped[0] = '\0';
	static void *own; /* a libcupti opened for planning, kept for the process's life */
	void *h = cupti_fn.handle ? cupti_fn.handle : own;
	if (!h && !(h = own = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL)) &&
	    !(h = own = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();
		snprintf(why, nwhy, "no libcupti (%s)", e ? e : "not found");
		return -1;
	}
	const char *missing = profiler_host_load(h);
	if (missing) {
		snprintf(why, nwhy, "this libcupti has no %s (CUPTI 12.6 or later has PM sampling)", missing);
		return -1;
	}
	struct pm_sampler *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, nwhy, "out of memory");
		return -1;
	}
	int rc = choose(s, chip, metrics, why, nwhy, dropped, ndropped);
	if (!rc)
		snprintf(kept, nkept, "%s", s->list);
	sampler_free(s);
	return rc;
}

int pm_start(struct pm_sampler **out, uint32_t ordinal, const struct metric_list *metrics,
             uint64_t interval_ns, char *why, size_t nwhy, char *dropped, size_t ndropped)
{
	*out = NULL;
	if (ndropped)
		dropped[0] = '\0';
	if (load(why, nwhy))
		return -1;
	struct pm_sampler *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, nwhy, "out of memory");
		return -1;
	}
	s->ordinal = ordinal;
	CUptiResult r;
	CUpti_Device_GetChipName_Params cp = { .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
		.deviceIndex = ordinal };
	if ((r = pm.cuptiDeviceGetChipName(&cp)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiDeviceGetChipName", r);
		goto fail;
	}
	char chip[64];
	snprintf(chip, sizeof chip, "%s", cp.pChipName ? cp.pChipName : "");
	CUpti_PmSampling_GetCounterAvailability_Params ap = {
		.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE, .deviceIndex = ordinal };
	if ((r = pm.cuptiPmSamplingGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingGetCounterAvailability", r);
		goto fail;
	}
	if (!(s->avail = malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1))) {
		snprintf(why, nwhy, "out of memory");
		goto fail;
	}
	ap.pCounterAvailabilityImage = s->avail;
	if ((r = pm.cuptiPmSamplingGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingGetCounterAvailability", r);
		goto fail;
	}
	if (choose(s, chip, metrics, why, nwhy, dropped, ndropped))
		goto fail;
	CUpti_PmSampling_Enable_Params ep = { .structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE,
		.deviceIndex = ordinal };
	if ((r = pm.cuptiPmSamplingEnable(&ep)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingEnable", r);
		goto fail;
	}
	s->obj = ep.pPmSamplingObject;
	CUpti_PmSampling_SetConfig_Params sp = { .structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
		.pPmSamplingObject = s->obj, .configSize = s->host.config_size, .pConfig = s->host.config,
		.hardwareBufferSize = PM_HW_BUFFER_BYTES, .samplingInterval = interval_ns,
		.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
		.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST };
	if ((r = pm.cuptiPmSamplingSetConfig(&sp)) != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_NOT_SUPPORTED) /* the config is one pass: it is the trigger */
			snprintf(why, nwhy, "PM sampling on GPU time is not supported on this GPU (Turing and GA100 "
			                    "lack it; cuptiPmSamplingSetConfig: %s)", libs_cupti_error(r));
		else
			reason(why, nwhy, "cuptiPmSamplingSetConfig", r);
		goto fail;
	}
	CUpti_PmSampling_GetCounterDataSize_Params zp = {
		.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE, .pPmSamplingObject = s->obj,
		.pMetricNames = s->names, .numMetrics = s->kept.n, .maxSamples = PM_MAX_SAMPLES };
	if ((r = pm.cuptiPmSamplingGetCounterDataSize(&zp)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingGetCounterDataSize", r);
		goto fail;
	}
	s->data_size = zp.counterDataSize;
	if (!(s->data = malloc(s->data_size ? s->data_size : 1))) {
		snprintf(why, nwhy, "out of memory for %zu bytes of counter data", s->data_size);
		goto fail;
	}
	if ((r = image_init(s)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingCounterDataImageInitialize", r);
		goto fail;
	}
	CUpti_PmSampling_Start_Params tp = { .structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE,
		.pPmSamplingObject = s->obj };
	if ((r = pm.cuptiPmSamplingStart(&tp)) != CUPTI_SUCCESS) {
		reason(why, nwhy, "cuptiPmSamplingStart", r);
		goto fail;
	}
	s->started = 1;
	*out = s;
	return 0;
fail:
	sampler_free(s);
	return -1;
}

/* Writes samples s->next .. completed-1 of the image. */
static int write_samples(struct pm_sampler *s, struct gt_writer *w, size_t completed, char *why, size_t nwhy)
{
	for (; s->next < completed; s->next++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params ip = {
			.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE,
			.pPmSamplingObject = s->obj, .pCounterDataImage = s->data,
			.counterDataImageSize = s->data_size, .sampleIndex = s->next };
		CUptiResult r = pm.cuptiPmSamplingCounterDataGetSampleInfo(&ip);
		if (r == CUPTI_SUCCESS)
			r = profiler_host_evaluate(&s->host, s->data, s->data_size, s->next, s->names, s->kept.n,
			                           s->values);
		if (r != CUPTI_SUCCESS) {
			reason(why, nwhy, "decoding a PM sample", r);
			s->failed = 1;
			return 1;
		}
		uint32_t flags = ip.endTimestamp < ip.startTimestamp || !ip.startTimestamp ? GT_METRIC_BAD_TIMES : 0;
		if (s->partial_next)
			flags |= GT_METRIC_PARTIAL;
		s->partial_next = 0;
		for (size_t m = 0; m < s->kept.n; m++) {
			/* A value CUPTI could not evaluate is no value: no record, rather than a made-up one. */
			if (!isfinite(s->values[m]))
				continue;
			uint32_t id = gt_writer_intern(w, s->names[m]);
			if (!id)
				return GT_ERR_NOMEM;
			struct gt_metric_sample rec = { .start = ip.startTimestamp, .end = ip.endTimestamp,
				.value = s->values[m], .device_id = s->ordinal, .metric_id = id, .flags = flags };
			int rc = gt_writer_add(w, GT_REC_METRIC_SAMPLE, &rec);
			if (rc)
				return rc;
		}
		s->samples++;
	}
	return 0;
}

int pm_decode(struct pm_sampler *s, struct gt_writer *w, char *why, size_t nwhy)
{
	if (!s || s->failed)
		return 0;
	for (int round = 0; round < 64; round++) {
		CUpti_PmSampling_DecodeData_Params dp = { .structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE,
			.pPmSamplingObject = s->obj, .pCounterDataImage = s->data, .counterDataImageSize = s->data_size };
		CUptiResult r = pm.cuptiPmSamplingDecodeData(&dp);
		if (r == CUPTI_ERROR_OUT_OF_MEMORY || dp.overflow) {
			/* The hardware buffer overflowed: samples were lost before the next one kept. */
			s->overflowed = 1;
			s->partial_next = 1;
		} else if (r != CUPTI_SUCCESS) {
			reason(why, nwhy, "cuptiPmSamplingDecodeData", r);
			s->failed = 1;
			return 1;
		}
		CUpti_PmSampling_GetCounterDataInfo_Params ip = {
			.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE,
			.pCounterDataImage = s->data, .counterDataImageSize = s->data_size };
		if ((r = pm.cuptiPmSamplingGetCounterDataInfo(&ip)) != CUPTI_SUCCESS) {
			reason(why, nwhy, "cuptiPmSamplingGetCounterDataInfo", r);
			s->failed = 1;
			return 1;
		}
		int rc = write_samples(s, w, ip.numCompletedSamples, why, nwhy);
		if (rc)
			return rc;
		int full = dp.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ||
		           (ip.numTotalSamples && ip.numCompletedSamples >= ip.numTotalSamples);
		if (!full)
			return 0;
		if ((r = image_init(s)) != CUPTI_SUCCESS) {
			reason(why, nwhy, "cuptiPmSamplingCounterDataImageInitialize", r);
			s->failed = 1;
			return 1;
		}
	}
	return 0;
}

void pm_stop(struct pm_sampler *s)
{
	if (!s || !s->started)
		return;
	CUpti_PmSampling_Stop_Params sp = { .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
		.pPmSamplingObject = s->obj };
	pm.cuptiPmSamplingStop(&sp);
	s->started = 0;
}

void pm_free(struct pm_sampler *s) { sampler_free(s); }

int pm_running(const struct pm_sampler *s) { return s && s->started; }
const char *pm_metrics(const struct pm_sampler *s) { return s ? s->list : ""; }
uint64_t pm_samples(const struct pm_sampler *s) { return s ? s->samples : 0; }
int pm_overflowed(const struct pm_sampler *s) { return s ? s->overflowed : 0; }
