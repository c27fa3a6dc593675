/* session.c: subscribes to CUPTI, enables activity kinds, routes resource callbacks (see session.h). */
#include "cupti/session.h"
#include "cupti/buffers.h"
#include "cupti/api_select.h"
#include "cupti/libs.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static CUpti_SubscriberHandle subscriber;
static struct session_hooks hooks;
static unsigned enabled_kinds;
static int active;

/* Detaching between recording windows (session_detach): the request is taken by the first program
 * thread that leaves a CUDA API call, which is where CUPTI documents cuptiFinalize as safe. */
enum { DETACH_NONE, DETACH_REQUESTED, DETACH_RUNNING, DETACH_DONE };
static atomic_int detach_state;
static pthread_mutex_t detach_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t detach_cv = PTHREAD_COND_INITIALIZER;
static void (*detach_drain)(void);
static int detached;

/* The CUPTI activity kinds behind each of our kinds. */
static const struct {
	unsigned bit;
	CUpti_ActivityKind kinds[2];
} kind_table[] = {
	{ SK_KERNEL, { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_MEMCPY, { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2 } },
	{ SK_MEMSET, { CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_RUNTIME, { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_DRIVER, { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_SYNC, { CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_NVTX, { CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_MARKER_DATA } },
	{ SK_MEMORY, { CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_OVERHEAD, { CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_INVALID } },
	{ SK_GRAPH, { CUPTI_ACTIVITY_KIND_GRAPH_TRACE, CUPTI_ACTIVITY_KIND_INVALID } },
};
#define NKINDS (sizeof kind_table / sizeof kind_table[0])

/* On the program thread that takes a detach request, at the exit of its API call: every record
 * out of CUPTI and through the drain (the writer thread waits meanwhile, so the drain may use
 * what it owns), then CUPTI detached. */
static void detach_here(void)
{
	cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (detach_drain)
		detach_drain();
	cupti_fn.cuptiFinalize();
	pthread_mutex_lock(&detach_mu);
	atomic_store(&detach_state, DETACH_DONE);
	pthread_cond_broadcast(&detach_cv);
	pthread_mutex_unlock(&detach_mu);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
	(void)userdata;
	if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
	    atomic_load(&detach_state) == DETACH_REQUESTED &&
	    ((const CUpti_CallbackData *)data)->callbackSite == CUPTI_API_EXIT) {
		int want = DETACH_REQUESTED;
		if (atomic_compare_exchange_strong(&detach_state, &want, DETACH_RUNNING)) {
			detach_here();
			return;
		}
	}
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		uint32_t ctx_id = 0, dev = 0;
		switch (cbid) {
		case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
			if (cupti_fn.cuptiGetContextId)
				cupti_fn.cuptiGetContextId(rd->context, &ctx_id);
			if (cupti_fn.cuptiGetDeviceId)
				cupti_fn.cuptiGetDeviceId(rd->context, &dev);
			if (hooks.context_created)
				hooks.context_created(dev, ctx_id, rd->context);
			break;
		case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
			/* Deliver this context's records while it still exists: at exit, CUDA's own
			 * teardown may run before our final flush. */
			if (cupti_fn.cuptiGetContextId)
				cupti_fn.cuptiGetContextId(rd->context, &ctx_id);
			cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
			if (hooks.context_destroying &&
			    (!cupti_fn.cuptiGetDeviceId ||
			     cupti_fn.cuptiGetDeviceId(rd->context, &dev) == CUPTI_SUCCESS))
				hooks.context_destroying(dev, ctx_id);
			break;
		case CUPTI_CBID_RESOURCE_MODULE_LOADED:
			if (hooks.module_loaded)
				hooks.module_loaded(rd);
			break;
		default:
			break;
		}
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && hooks.driver_api) {
		hooks.driver_api(cbid, data);
	}
}

/* The API kinds recorded per call, and whether CUPTI has been attached before in this process. */
static unsigned selected_apis;
static int attached_before;

/* The runtime or driver API kind on or off, recording only the calls the analyses use
 * (api_select.h). Two ways, measured on the H200 (CUPTI 13.0, tests/bench/price_kinds.py):
 * - at the first start, the calls switched on one by one (cuptiActivityEnableRuntimeApi without
 *   the whole kind): but calls selected so record nothing once switched off and on again, nor after
 *   CUPTI was detached and attached again;
 * - later (windows: session_resume, or attaching again), the whole kind on, then every other call
 *   switched off, which survives any number of switches (50 of 50 in one process, one record per
 *   launch each time), so windows record what the defaults record.
 * Returns the number of calls selected (>= 0), or -1 when CUPTI cannot select calls. */
static int set_api_kind(unsigned bit, CUpti_ActivityKind ak, int on)
{
	CUpti_CallbackDomain dom = bit == SK_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
	if (!on) {
		if (!attached_before)
			api_select_enable(dom, 0);
		return cupti_fn.cuptiActivityDisable(ak) == CUPTI_SUCCESS ? 0 : -1;
	}
	if (!attached_before)
		return api_select_enable(dom, 1);
	if (cupti_fn.cuptiActivityEnable(ak) != CUPTI_SUCCESS)
		return -1;
	/* -1 leaves the whole kind on: every call recorded, and the caller told. */
	return api_select_exclude_others(dom);
}

/* Switches one of our kinds on or off: the API kinds per call unless every call was asked for
 * (or CUPTI cannot select calls: then every call, as the metadata says). */
static int set_kind(size_t i, int on, int api_all, struct session_result *res)
{
	unsigned bit = kind_table[i].bit;
	if ((bit == SK_RUNTIME || bit == SK_DRIVER) && !api_all && (res || (selected_apis & bit))) {
		int n = set_api_kind(bit, kind_table[i].kinds[0], on);
		if (n >= 0 || !res) {
			if (res && n >= 0) {
				res->api_selected |= bit;
				res->api_calls[bit == SK_DRIVER] = n;
			}
			return n >= 0 ? 0 : -1;
		}
	}
	int failed = 0;
	for (int k = 0; k < 2; k++) {
		CUpti_ActivityKind ak = kind_table[i].kinds[k];
		if (ak == CUPTI_ACTIVITY_KIND_INVALID)
			continue;
		CUptiResult r = on ? cupti_fn.cuptiActivityEnable(ak) : cupti_fn.cuptiActivityDisable(ak);
		failed |= r != CUPTI_SUCCESS;
	}
	return failed ? -1 : 0;
}

int session_start(unsigned kinds, int latency, const struct session_hooks *h,
                  struct session_result *res, char *why, size_t n)
{
	memset(res, 0, sizeof *res);
	if (h)
		hooks = *h;
	CUptiResult r = cupti_fn.cuptiGetVersion(&res->cupti_version);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, n, "cuptiGetVersion: %s", libs_cupti_error(r));
		return (int)r;
	}
	/* Records are read with the struct layouts of the headers we were built with. A CUPTI of
	 * another major version lays them out differently. */
	if (res->cupti_version / 10000 != CUPTI_API_VERSION / 10000) {
		snprintf(why, n, "libcupti API version %u does not match the %u this library was built for",
		         res->cupti_version, (unsigned)CUPTI_API_VERSION);
		return (int)CUPTI_ERROR_NOT_COMPATIBLE;
	}
	if (cupti_fn.cuptiSubscribe_v2) {
		char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 16] = "";
		CUpti_SubscriberParams p = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
			.subscriberName = "gputrace", .oldSubscriberName = old,
			.oldSubscriberSize = sizeof old };
		r = cupti_fn.cuptiSubscribe_v2(&subscriber, on_callback, NULL, &p);
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			snprintf(res->other_client, sizeof res->other_client, "%s", old);
	} else {
		r = cupti_fn.cuptiSubscribe(&subscriber, on_callback, NULL);
	}
	if (r != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			snprintf(why, n, "another CUPTI client is already active in this process%s%s%s",
			         res->other_client[0] ? " (" : "", res->other_client,
			         res->other_client[0] ? ")" : "");
		else
			snprintf(why, n, "cuptiSubscribe: %s", libs_cupti_error(r));
		return (int)r;
	}
	r = cupti_fn.cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, n, "cuptiEnableDomain(resource): %s", libs_cupti_error(r));
		cupti_fn.cuptiUnsubscribe(subscriber);
		return (int)r;
	}
	if (hooks.driver_api && hooks.launch_cbids) {
		for (const CUpti_CallbackId *c = hooks.launch_cbids; *c; c++)
			cupti_fn.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, *c);
	}
	r = (CUptiResult)buffers_register();
	if (r != CUPTI_SUCCESS) {
		snprintf(why, n, "cuptiActivityRegisterCallbacks: %s", libs_cupti_error(r));
		cupti_fn.cuptiUnsubscribe(subscriber);
		return (int)r;
	}
	/* OS thread ids (gettid), as nsys, torch.profiler and top show them, rather than pthread_self's
	 * address: set before any record is made, and again after a detach (CUPTI starts afresh). */
	res->os_thread_ids = cupti_fn.cuptiSetThreadIdType &&
	                     cupti_fn.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) == CUPTI_SUCCESS;
	/* Latency timestamps (queued, submitted) must be switched on before kernels are recorded. */
	if (latency && cupti_fn.cuptiActivityEnableLatencyTimestamps &&
	    cupti_fn.cuptiActivityEnableLatencyTimestamps(1) == CUPTI_SUCCESS)
		res->latency = 1;
	for (size_t i = 0; i < NKINDS; i++) {
		if (!(kinds & kind_table[i].bit))
			continue;
		if (set_kind(i, 1, kinds & SK_API_ALL, res) == 0)
			res->enabled |= kind_table[i].bit;
		else
			res->failed |= kind_table[i].bit;
	}
	if ((kinds & SK_API_ALL) && (res->enabled & (SK_RUNTIME | SK_DRIVER)))
		res->enabled |= SK_API_ALL;
	enabled_kinds = res->enabled;
	selected_apis = res->api_selected;
	attached_before = 1;
	active = 1;
	return 0;
}

void session_flush(int forced)
{
	if (active)
		cupti_fn.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

static int set_enabled(int on)
{
	int rc = 0;
	for (size_t i = 0; i < NKINDS; i++)
		if ((enabled_kinds & kind_table[i].bit) && set_kind(i, on, enabled_kinds & SK_API_ALL, NULL))
			rc = -1;
	return rc;
}

int session_pause(void) { return active ? set_enabled(0) : 0; }
int session_resume(void) { return active ? set_enabled(1) : 0; }

void session_stop(void)
{
	if (!active)
		return;
	set_enabled(0);
	cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cupti_fn.cuptiUnsubscribe(subscriber);
	active = 0;
}

int session_active(void) { return active; }

int session_detached(void) { return detached || atomic_load(&detach_state) != DETACH_NONE; }

/* The API domains' callbacks on or off, for the detach request; the launch callbacks of shadow
 * capture stay as they were. */
static void api_callbacks(int on)
{
	cupti_fn.cuptiEnableDomain(on, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	cupti_fn.cuptiEnableDomain(on, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	if (!on && hooks.driver_api && hooks.launch_cbids)
		for (const CUpti_CallbackId *c = hooks.launch_cbids; *c; c++)
			cupti_fn.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, *c);
}

int session_detach(void (*drain)(void), unsigned wait_ms)
{
	if (!active || !cupti_fn.cuptiFinalize)
		return -1;
	detach_drain = drain;
	atomic_store(&detach_state, DETACH_REQUESTED);
	api_callbacks(1);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	until.tv_sec += wait_ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&detach_mu);
	while (atomic_load(&detach_state) != DETACH_DONE) {
		if (atomic_load(&detach_state) == DETACH_REQUESTED &&
		    pthread_cond_timedwait(&detach_cv, &detach_mu, &until) == ETIMEDOUT) {
			int want = DETACH_REQUESTED;
			if (atomic_compare_exchange_strong(&detach_state, &want, DETACH_NONE)) {
				/* No API call came: the program is not launching; ask again later. */
				pthread_mutex_unlock(&detach_mu);
				api_callbacks(0);
				return 1;
			}
		} else if (atomic_load(&detach_state) == DETACH_RUNNING) {
			pthread_cond_wait(&detach_cv, &detach_mu); /* taken: it finishes soon */
		}
	}
	pthread_mutex_unlock(&detach_mu);
	active = 0;
	detached = 1;
	atomic_store(&detach_state, DETACH_NONE);
	return 0;
}

int session_reattach(unsigned kinds, int latency, struct session_result *res, char *why, size_t n)
{
	if (!detached)
		return 0;
	int rc = session_start(kinds, latency, NULL, res, why, n);
	if (rc == 0)
		detached = 0;
	return rc;
}
