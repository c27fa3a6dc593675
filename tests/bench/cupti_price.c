/* cupti_price.c: CUPTI activity kinds switched on and off inside one running program, to price
 * each kind alone (tests/bench/price_kinds.py drives it).
 *
 * Why in one process: between processes the lent VM's spread is as large as the differences being
 * measured (a kind that costs 3% cannot be seen when two bare runs differ by 10%). Here the program
 * stays the same process, with the same memory layout, threads and warm caches, and only the
 * enabled kinds change between timed blocks, alternated in rounds.
 *
 * Preloaded (LD_PRELOAD) like gputrace: subscribes a callback that does nothing with the resource
 * domain on, asks for OS thread ids, and registers buffer callbacks that count completed records
 * per kind without keeping them, which is all of gputrace's cost but its writer. The program (a
 * Python script through ctypes) calls:
 *   int  cupti_price_set(const char *kinds)   kinds, comma-separated, from the names below; the
 *                                             rest are switched off. Returns the number that failed.
 *   void cupti_price_counts(unsigned long long out[PRICE_NCOUNTS])  flushes, then records so far
 *                                             per name index (the order of price_names()).
 *   const char *cupti_price_names(void)       the names, comma-separated, in index order.
 * "runtime-sel" and "driver-sel" are the per-call selections gputrace records by default
 * (cupti/api_select.c, linked in), "runtime" and "driver" every call; "runtime-excl" and
 * "driver-excl" select the same calls the other way round (the whole kind on, then every other
 * call off), to learn which of the two survives being switched off and on. CUPTI_PRICE_START=kinds
 * switches kinds on at load, before the program's first CUDA call (as gputrace does).
 */
#include "cupti/api_select.h"
#include "cupti/libs.h"

#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define NBUF 64
#define BUFSZ (4u << 20)

struct price_kind {
	const char *name;
	CUpti_ActivityKind kinds[2];
	int per_call;      /* 1, 2: runtime, driver selection (api_select_enable); 3, 4: the whole
	                    * kind on, then every call that is not work off (api_select_exclude_others) */
};

static const struct price_kind table[] = {
	{ "kernel", { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "memcpy", { CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2 }, 0 },
	{ "memset", { CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "runtime", { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "driver", { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "runtime-sel", { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_INVALID }, 1 },
	{ "driver-sel", { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_INVALID }, 2 },
	{ "runtime-excl", { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_INVALID }, 3 },
	{ "driver-excl", { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_INVALID }, 4 },
	{ "sync", { CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "nvtx", { CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_MARKER_DATA }, 0 },
	{ "memory", { CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "overhead", { CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
	{ "graph", { CUPTI_ACTIVITY_KIND_GRAPH_TRACE, CUPTI_ACTIVITY_KIND_INVALID }, 0 },
};
#define NKINDS (sizeof table / sizeof table[0])
#define PRICE_NCOUNTS 20 /* NKINDS counters (a record of a per-call kind counts under both) + other */

static uint8_t *pool[NBUF];
static int npool;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t set_mu = PTHREAD_MUTEX_INITIALIZER;
static int on[NKINDS];
static _Atomic unsigned long long counts[PRICE_NCOUNTS];
static int ready;

static void CUPTIAPI request(uint8_t **b, size_t *size, size_t *maxrec)
{
	pthread_mutex_lock(&pool_mu);
	*b = npool ? pool[--npool] : NULL;
	pthread_mutex_unlock(&pool_mu);
	*size = *b ? BUFSZ : 0;
	*maxrec = 0;
}

/* The counter a record goes to: the first table row of its kind (runtime-sel's records count as
 * "runtime", since CUPTI cannot tell them apart). */
static size_t count_slot(CUpti_ActivityKind k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (table[i].kinds[0] == k || table[i].kinds[1] == k)
			return i;
	return NKINDS;
}

static void CUPTIAPI complete(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
	(void)c; (void)s; (void)size;
	CUpti_Activity *r = NULL;
	while (cupti_fn.cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS)
		atomic_fetch_add(&counts[count_slot(r->kind)], 1);
	pthread_mutex_lock(&pool_mu);
	if (npool < NBUF)
		pool[npool++] = b;
	pthread_mutex_unlock(&pool_mu);
}

static void CUPTIAPI on_callback(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
	(void)u; (void)d; (void)id; (void)data;
}

static int switch_kind(size_t i, int enable)
{
	if (table[i].per_call >= 3 && enable) {
		CUpti_CallbackDomain d = table[i].per_call == 3 ? CUPTI_CB_DOMAIN_RUNTIME_API
		                                                 : CUPTI_CB_DOMAIN_DRIVER_API;
		if (cupti_fn.cuptiActivityEnable(table[i].kinds[0]) != CUPTI_SUCCESS)
			return -1;
		return api_select_exclude_others(d) > 0 ? 0 : -1;
	}
	if (table[i].per_call && table[i].per_call < 3)
		return api_select_enable(table[i].per_call == 1 ? CUPTI_CB_DOMAIN_RUNTIME_API
		                                                : CUPTI_CB_DOMAIN_DRIVER_API, enable) > 0 ? 0 : -1;
	int failed = 0;
	for (int k = 0; k < 2; k++) {
		if (table[i].kinds[k] == CUPTI_ACTIVITY_KIND_INVALID)
			continue;
		CUptiResult r = enable ? cupti_fn.cuptiActivityEnable(table[i].kinds[k])
		                       : cupti_fn.cuptiActivityDisable(table[i].kinds[k]);
		failed |= r != CUPTI_SUCCESS;
	}
	return failed ? -1 : 0;
}

static int listed(const char *csv, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = csv; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

EXPORT int cupti_price_set(const char *kinds)
{
	if (!ready)
		return -1;
	int failed = 0;
	pthread_mutex_lock(&set_mu);
	/* Off first, then on: a whole API kind and its per-call selection share one CUPTI kind. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < NKINDS; i++) {
			int want = listed(kinds ? kinds : "", table[i].name);
			if (want == on[i] || want != pass)
				continue;
			if (switch_kind(i, want) != 0)
				failed++;
			else
				on[i] = want;
		}
	pthread_mutex_unlock(&set_mu);
	return failed;
}

EXPORT void cupti_price_counts(unsigned long long out[PRICE_NCOUNTS])
{
	if (ready)
		cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	for (size_t i = 0; i < PRICE_NCOUNTS; i++)
		out[i] = atomic_load(&counts[i]);
}

EXPORT const char *cupti_price_names(void)
{
	static char names[256];
	if (!names[0])
		for (size_t i = 0; i < NKINDS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "",
			         table[i].name);
	return names;
}

__attribute__((destructor)) static void fini(void)
{
	if (ready)
		cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

__attribute__((constructor)) static void init(void)
{
	char why[256];
	if (libs_load_cupti(NULL, why, sizeof why) != 0) {
		fprintf(stderr, "cupti_price: %s\n", why);
		return;
	}
	for (npool = 0; npool < NBUF; npool++)
		if (posix_memalign((void **)&pool[npool], 64, BUFSZ) != 0)
			break;
	CUpti_SubscriberHandle sub;
	if (cupti_fn.cuptiSubscribe(&sub, on_callback, NULL) != CUPTI_SUCCESS ||
	    cupti_fn.cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE) != CUPTI_SUCCESS) {
		fprintf(stderr, "cupti_price: could not subscribe\n");
		return;
	}
	if (cupti_fn.cuptiSetThreadIdType &&
	    cupti_fn.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS)
		fprintf(stderr, "cupti_price: no OS thread ids\n");
	if (cupti_fn.cuptiActivityRegisterCallbacks(request, complete) != CUPTI_SUCCESS) {
		fprintf(stderr, "cupti_price: could not register buffers\n");
		return;
	}
	ready = 1;
	const char *start = getenv("CUPTI_PRICE_START");
	if (start && cupti_price_set(start) != 0)
		fprintf(stderr, "cupti_price: some of CUPTI_PRICE_START=%s failed\n", start);
}
