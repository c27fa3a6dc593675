/* fake_cuda.c: a stand-in CUDA driver and CUPTI, so the recorder's life can be tested without a GPU.
 *
 * Built as libcuda.so.1 (soname too). Tests put its folder on LD_LIBRARY_PATH, where the recorder's
 * dlopen("libcuda.so.1") finds it, and name the same file in GPUTRACE_CUPTI_PATH, so that it also
 * answers the recorder's CUPTI calls. It models only what the recorder relies on:
 *
 * - cuInit loads CUDA_INJECTION64_PATH and calls its InitializeInjection once, as the real driver
 *   does, then reports one context created (CUPTI resource callback) on device 0;
 * - CUPTI: one subscriber (a second is refused with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED),
 *   activity kinds switched on and off, the two buffer callbacks, records laid out one after
 *   another in the buffers the tool hands out, a buffer delivered when it is full or at a flush,
 *   dropped-record counts, a timestamp;
 * - the test program makes "GPU work" through fake_gpu_kernels() and fake_gpu_memcpy(), which write
 *   the activity records CUPTI would write for it (only for kinds that are enabled).
 *
 * Knobs, read from the environment: FAKE_CUPTI_VERSION (what cuptiGetVersion says), FAKE_CUPTI_TAKEN
 * (a name: another client already holds CUPTI), FAKE_CUPTI_REFUSE_KIND (a CUpti_ActivityKind number
 * that cuptiActivityEnable refuses), FAKE_CUPTI_DROP (records CUPTI says it dropped, reported with
 * the first buffer delivered), FAKE_CUDA_NO_CONTEXT (cuInit reports no context: a process that
 * initialises CUDA and never uses a GPU).
 */
#include <cuda.h>
#include <cupti.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* Records are written back to back; CUPTI's structs are 8-byte aligned multiples of 8. */
_Static_assert(sizeof(CUpti_ActivityKernel10) % 8 == 0, "kernel record size");
_Static_assert(sizeof(CUpti_ActivityMemcpy6) % 8 == 0, "memcpy record size");

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc on_request;
static CUpti_BuffersCallbackCompleteFunc on_complete;
static CUpti_CallbackFunc subscriber_cb;
static void *subscriber_data;
static int subscribed;
static int kind_on[CUPTI_ACTIVITY_KIND_COUNT];
static uint8_t *cur;            /* the buffer being filled */
static size_t cur_size, cur_used;
static size_t drop_next;        /* dropped records reported with the next delivered buffer */
static uint32_t correlation;
static long delivered;          /* records handed to the tool so far */

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec);

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void reinit_after_fork(void)
{
	pthread_mutex_init(&mu, NULL);
}

__attribute__((constructor)) static void fake_init(void)
{
	pthread_atfork(NULL, NULL, reinit_after_fork);
	const char *d = getenv("FAKE_CUPTI_DROP");
	if (d && *d)
		drop_next = (size_t)strtoull(d, NULL, 10);
}

/* Hands a buffer to the tool, outside our lock (the tool's callback calls us), and counts its records
 * as delivered. */
static void hand_over(uint8_t *b, size_t size, size_t used)
{
	pthread_mutex_lock(&mu);
	CUpti_BuffersCallbackCompleteFunc done = on_complete;
	pthread_mutex_unlock(&mu);
	if (!b || !done)
		return;
	long n = 0;
	for (CUpti_Activity *r = NULL; cuptiActivityGetNextRecord(b, used, &r) == CUPTI_SUCCESS;)
		n++;
	done(NULL, 0, b, size, used);
	pthread_mutex_lock(&mu);
	delivered += n;
	pthread_mutex_unlock(&mu);
}

/* Takes the buffer being filled away from the writers and hands it to the tool (a flush). */
static void deliver_current(void)
{
	pthread_mutex_lock(&mu);
	uint8_t *b = cur;
	size_t size = cur_size, used = cur_used;
	cur = NULL;
	cur_size = cur_used = 0;
	pthread_mutex_unlock(&mu);
	hand_over(b, size, used);
}

/* Appends one record the way CUPTI does: into the current buffer, asking for a new one when full.
 * The check that the record fits and the copy happen under one hold of the lock: a flush from the
 * tool's thread (deliver_current) may take the buffer away at any moment in between, and copying
 * into a buffer already handed over (or into none) is what crashed the full-disk test about one
 * run in ten on a loaded machine (the tool's writer thread flushed while the program emitted). */
static int emit(const void *rec, size_t size, CUpti_ActivityKind kind)
{
	for (;;) {
		pthread_mutex_lock(&mu);
		CUpti_BuffersCallbackRequestFunc request = on_request;
		if (!kind_on[kind] || !request) {
			pthread_mutex_unlock(&mu);
			return 0;
		}
		if (cur && cur_used + size <= cur_size) {
			memcpy(cur + cur_used, rec, size);
			cur_used += size;
			pthread_mutex_unlock(&mu);
			return 1;
		}
		/* Full (or none): detach it, so that no other thread writes into it once delivered. */
		uint8_t *full = cur;
		size_t full_size = cur_size, full_used = cur_used;
		cur = NULL;
		cur_size = cur_used = 0;
		pthread_mutex_unlock(&mu);
		hand_over(full, full_size, full_used);
		uint8_t *b = NULL;
		size_t sz = 0, maxrec = 0;
		request(&b, &sz, &maxrec);
		if (!b || sz < size) {
			hand_over(b, sz, 0); /* an unusable buffer goes back empty */
			return 0;            /* CUPTI would drop the record */
		}
		pthread_mutex_lock(&mu);
		if (!cur) {
			cur = b;
			cur_size = sz;
			cur_used = 0;
			b = NULL;
		}
		pthread_mutex_unlock(&mu);
		hand_over(b, sz, 0); /* another thread installed one first: this one goes back empty */
		/* and round again: the record goes into whichever buffer is current now */
	}
}

/* ---- the test program's "GPU work" ---------------------------------------------------------- */

EXPORT int fake_gpu_kernels(int n, const char *name);
EXPORT int fake_gpu_memcpy(int n, unsigned long long bytes);
EXPORT long fake_gpu_delivered(void);

/* Records handed to the tool so far, -1 while no tool has registered its buffer callbacks: a
 * test program waits on it to know that a periodic flush has taken its records. */
long fake_gpu_delivered(void)
{
	pthread_mutex_lock(&mu);
	long n = on_request ? delivered : -1;
	pthread_mutex_unlock(&mu);
	return n;
}

int fake_gpu_kernels(int n, const char *name)
{
	int done = 0;
	for (int i = 0; i < n; i++) {
		CUpti_ActivityKernel10 k;
		memset(&k, 0, sizeof k);
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.name = name;
		k.start = now_ns();
		k.end = k.start + 1000;
		k.queued = k.start - 500;
		k.submitted = k.start - 100;
		k.deviceId = 0;
		k.contextId = 1;
		k.streamId = 7;
		k.correlationId = ++correlation;
		k.gridX = k.gridY = k.gridZ = 1;
		k.blockX = 128;
		k.blockY = k.blockZ = 1;
		done += emit(&k, sizeof k, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	}
	return done;
}

int fake_gpu_memcpy(int n, unsigned long long bytes)
{
	int done = 0;
	for (int i = 0; i < n; i++) {
		CUpti_ActivityMemcpy6 m;
		memset(&m, 0, sizeof m);
		m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
		m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
		m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		m.bytes = bytes;
		m.start = now_ns();
		m.end = m.start + 2000;
		m.contextId = 1;
		m.streamId = 7;
		m.correlationId = ++correlation;
		done += emit(&m, sizeof m, CUPTI_ACTIVITY_KIND_MEMCPY);
	}
	return done;
}

/* ---- driver --------------------------------------------------------------------------------- */

EXPORT CUresult cuInit(unsigned int flags);
EXPORT CUresult cuDriverGetVersion(int *v);
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal);
EXPORT CUresult cuDeviceGetCount(int *n);
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d);
EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d);

CUresult cuInit(unsigned int flags)
{
	(void)flags;
	static int done;
	if (done)
		return CUDA_SUCCESS;
	done = 1;
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	if (inj && *inj) {
		void *h = dlopen(inj, RTLD_NOW);
		int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
		if (init)
			init();
	}
	const char *noctx = getenv("FAKE_CUDA_NO_CONTEXT");
	if (subscribed && subscriber_cb && !(noctx && *noctx == '1')) {
		CUpti_ResourceData rd;
		memset(&rd, 0, sizeof rd);
		rd.context = (CUcontext)(uintptr_t)1;
		subscriber_cb(subscriber_data, CUPTI_CB_DOMAIN_RESOURCE,
		              CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
	}
	return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	(void)d;
	snprintf(name, (size_t)len, "Fake GPU (gputrace tests)");
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

/* ---- CUPTI ---------------------------------------------------------------------------------- */

EXPORT CUptiResult cuptiGetVersion(uint32_t *version);
EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s);
EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud);
EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud,
                                     CUpti_SubscriberParams *p);
EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s);
EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle s,
                                     CUpti_CallbackDomain d);
EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle s,
                                       CUpti_CallbackDomain d, CUpti_CallbackId cbid);
EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name);
EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind);
EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind);
EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                                  CUpti_BuffersCallbackCompleteFunc done);
EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag);
EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec);
EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n);
EXPORT CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t enable);
EXPORT CUptiResult cuptiGetTimestamp(uint64_t *t);
EXPORT CUptiResult cuptiGetDeviceId(CUcontext ctx, uint32_t *dev);
EXPORT CUptiResult cuptiGetContextId(CUcontext ctx, uint32_t *id);

CUptiResult cuptiGetVersion(uint32_t *version)
{
	const char *v = getenv("FAKE_CUPTI_VERSION");
	*version = v && *v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
	         ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_FAKE";
	return CUPTI_SUCCESS;
}

static CUptiResult subscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud,
                             CUpti_SubscriberParams *p)
{
	const char *taken = getenv("FAKE_CUPTI_TAKEN");
	pthread_mutex_lock(&mu);
	if (subscribed || (taken && *taken)) {
		pthread_mutex_unlock(&mu);
		if (p && p->oldSubscriberName && p->oldSubscriberSize)
			snprintf(p->oldSubscriberName, p->oldSubscriberSize, "%s",
			         taken && *taken ? taken : "gputrace");
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	subscribed = 1;
	subscriber_cb = cb;
	subscriber_data = ud;
	pthread_mutex_unlock(&mu);
	*s = (CUpti_SubscriberHandle)&subscribed;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
	return subscribe(s, cb, ud, NULL);
}

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud,
                              CUpti_SubscriberParams *p)
{
	return subscribe(s, cb, ud, p);
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
	(void)s;
	pthread_mutex_lock(&mu);
	subscribed = 0;
	subscriber_cb = NULL;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle s, CUpti_CallbackDomain d)
{
	(void)enable;
	(void)s;
	(void)d;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId cbid)
{
	(void)enable;
	(void)s;
	(void)d;
	(void)cbid;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	(void)d;
	(void)cbid;
	*name = "fakeApiCall_v1000";
	return CUPTI_SUCCESS;
}

static CUptiResult set_kind(CUpti_ActivityKind kind, int on)
{
	if ((int)kind <= 0 || kind >= CUPTI_ACTIVITY_KIND_COUNT)
		return CUPTI_ERROR_INVALID_KIND;
	const char *refuse = getenv("FAKE_CUPTI_REFUSE_KIND");
	if (on && refuse && *refuse && atoi(refuse) == (int)kind)
		return CUPTI_ERROR_NOT_COMPATIBLE;
	pthread_mutex_lock(&mu);
	kind_on[kind] = on;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) { return set_kind(kind, 1); }
CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) { return set_kind(kind, 0); }

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                           CUpti_BuffersCallbackCompleteFunc done)
{
	pthread_mutex_lock(&mu);
	on_request = req;
	on_complete = done;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

/* Every flush delivers the buffer being filled: all its records are complete (the fake's "GPU"
 * finishes work the moment it is launched). */
CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	deliver_current();
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **rec)
{
	size_t off = 0;
	if (*rec) {
		size_t size;
		switch ((*rec)->kind) {
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: size = sizeof(CUpti_ActivityKernel10); break;
		case CUPTI_ACTIVITY_KIND_MEMCPY: size = sizeof(CUpti_ActivityMemcpy6); break;
		default: return CUPTI_ERROR_INVALID_KIND;
		}
		off = (size_t)((uint8_t *)*rec - buffer) + size;
	}
	if (off + sizeof(CUpti_Activity) > valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)(buffer + off);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n)
{
	(void)ctx;
	(void)stream;
	pthread_mutex_lock(&mu);
	*n = drop_next;
	drop_next = 0;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
	(void)enable;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *t)
{
	*t = now_ns();
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetDeviceId(CUcontext ctx, uint32_t *dev)
{
	(void)ctx;
	*dev = 0;
	return CUPTI_SUCCESS;
}

CUptiResult cuptiGetContextId(CUcontext ctx, uint32_t *id)
{
	(void)ctx;
	*id = 1;
	return CUPTI_SUCCESS;
}
