/* cupti_floor.c: the least a CUPTI activity tracer can do, preloaded, as the overhead baseline.
 *
 * Enables the concurrent-kernel and memcpy activity kinds (latency timestamps off unless
 * CUPTI_FLOOR_LATENCY=1), hands CUPTI buffers from a pool allocated up front, and discards every
 * completed buffer without reading it. The difference between this and a bare run is the price of
 * CUPTI itself; gputrace's own added cost is measured against it (tests/gpu/overhead.sh).
 * CUPTI_FLOOR_SUBSCRIBE=1 also subscribes a callback that does nothing and enables the resource
 * domain, as gputrace does (for contexts and modules): the price of a subscriber on its own.
 */
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NBUF 64
#define BUFSZ (4u << 20)

static uint8_t *pool[NBUF];
static int npool;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __typeof__(cuptiActivityFlushAll) *flush_all;

static void CUPTIAPI request(uint8_t **b, size_t *size, size_t *maxrec)
{
	pthread_mutex_lock(&mu);
	*b = npool ? pool[--npool] : NULL;
	pthread_mutex_unlock(&mu);
	*size = *b ? BUFSZ : 0;
	*maxrec = 0;
}

static void CUPTIAPI on_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
	(void)u; (void)d; (void)id; (void)data;
}

static void CUPTIAPI complete(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
	(void)c; (void)s; (void)size; (void)valid;
	pthread_mutex_lock(&mu);
	if (npool < NBUF)
		pool[npool++] = b;
	pthread_mutex_unlock(&mu);
}

__attribute__((destructor)) static void fini(void)
{
	if (flush_all)
		flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

__attribute__((constructor)) static void init(void)
{
	void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "cupti_floor: %s\n", dlerror());
		return;
	}
	__typeof__(cuptiActivityRegisterCallbacks) *reg = (__typeof__(cuptiActivityRegisterCallbacks) *)
		dlsym(h, "cuptiActivityRegisterCallbacks");
	__typeof__(cuptiActivityEnable) *en = (__typeof__(cuptiActivityEnable) *)dlsym(h, "cuptiActivityEnable");
	__typeof__(cuptiActivityEnableLatencyTimestamps) *lat =
		(__typeof__(cuptiActivityEnableLatencyTimestamps) *)dlsym(h, "cuptiActivityEnableLatencyTimestamps");
	flush_all = (__typeof__(cuptiActivityFlushAll) *)dlsym(h, "cuptiActivityFlushAll");
	if (!reg || !en || !flush_all)
		return;
	for (npool = 0; npool < NBUF; npool++)
		if (posix_memalign((void **)&pool[npool], 64, BUFSZ) != 0)
			break;
	const char *sub = getenv("CUPTI_FLOOR_SUBSCRIBE");
	if (sub && *sub == '1') {
		__typeof__(cuptiSubscribe) *subscribe = (__typeof__(cuptiSubscribe) *)dlsym(h, "cuptiSubscribe");
		__typeof__(cuptiEnableDomain) *domain = (__typeof__(cuptiEnableDomain) *)dlsym(h, "cuptiEnableDomain");
		CUpti_SubscriberHandle s;
		if (!subscribe || !domain || subscribe(&s, on_callback, NULL) != CUPTI_SUCCESS ||
		    domain(1, s, CUPTI_CB_DOMAIN_RESOURCE) != CUPTI_SUCCESS)
			fprintf(stderr, "cupti_floor: could not subscribe\n");
	}
	const char *l = getenv("CUPTI_FLOOR_LATENCY");
	if (lat && l && *l == '1')
		lat(1);
	if (reg(request, complete) != CUPTI_SUCCESS ||
	    en(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
	    en(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS)
		fprintf(stderr, "cupti_floor: could not enable CUPTI activity\n");
}
