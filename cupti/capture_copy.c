/* capture_copy.c: the pinned buffer pool, pointer classification and snapshots (capture_copy.h).
 *
 * Runs on the program's launching threads, inside CUPTI callbacks: every driver call is checked
 * and a failure only marks the copy as failed. The writer thread only gives buffers back to the
 * pool (no driver call there).
 */
#include "cupti/capture_copy.h"
#include "cupti/libs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pool_node {
	uint8_t *p;
	size_t cap;
	struct pool_node *next;
};

static struct {
	pthread_mutex_t mu;
	uint64_t limit;
	uint64_t pinned_bytes;
	struct pool_node *free;
	uint64_t pinned_allocs, pinned_failures, pageable, pin_ns;
} P = { .mu = PTHREAD_MUTEX_INITIALIZER };

uint64_t capture_now(void)
{
	uint64_t t = 0;
	if (!cupti_fn.cuptiGetTimestamp || cupti_fn.cuptiGetTimestamp(&t) != CUPTI_SUCCESS)
		return 0;
	return t;
}

void capture_pool_setup(uint64_t pinned_limit)
{
	pthread_mutex_lock(&P.mu);
	P.limit = pinned_limit;
	P.pinned_allocs = P.pinned_failures = P.pageable = P.pin_ns = 0;
	pthread_mutex_unlock(&P.mu);
}

/* Pinned sizes come in quarter-octave steps (at least 1 MiB): a later capture of a similar size
 * finds the buffer again, and at most a quarter is wasted. */
static size_t pinned_size(size_t len)
{
	if (len <= (1u << 20))
		return 1u << 20;
	int k = 63 - __builtin_clzll((unsigned long long)(len - 1));
	size_t step = (size_t)1 << (k - 2);
	return (len + step - 1) & ~(step - 1);
}

static int take_pinned(struct capture_hostbuf *b, size_t len)
{
	pthread_mutex_lock(&P.mu);
	/* Best fit among free buffers, not more than twice the size... */
	struct pool_node **best = NULL, **any = NULL;
	for (struct pool_node **pp = &P.free; *pp; pp = &(*pp)->next) {
		size_t c = (*pp)->cap;
		if (c < len)
			continue;
		if (!any || c < (*any)->cap)
			any = pp;
		if (c / 2 <= len && (!best || c < (*best)->cap))
			best = pp;
	}
	size_t want = pinned_size(len);
	int room = P.pinned_bytes <= P.limit && want <= P.limit - P.pinned_bytes;
	/* ...else a new one within the limit, else any bigger free one. */
	struct pool_node **use = best ? best : room ? NULL : any;
	if (use) {
		struct pool_node *n = *use;
		*use = n->next;
		pthread_mutex_unlock(&P.mu);
		b->data = n->p;
		b->cap = n->cap;
		b->pinned = 1;
		free(n);
		return 0;
	}
	if (!room || !cuda_fn.cuMemHostAlloc) {
		pthread_mutex_unlock(&P.mu);
		return -1;
	}
	P.pinned_bytes += want;
	pthread_mutex_unlock(&P.mu);
	void *p = NULL;
	uint64_t t0 = capture_now();
	CUresult r = cuda_fn.cuMemHostAlloc(&p, want, CU_MEMHOSTALLOC_PORTABLE);
	uint64_t t1 = capture_now();
	pthread_mutex_lock(&P.mu);
	P.pin_ns += t1 > t0 ? t1 - t0 : 0;
	if (r != CUDA_SUCCESS || !p) {
		P.pinned_bytes -= want;
		P.pinned_failures++;
		pthread_mutex_unlock(&P.mu);
		return -1;
	}
	P.pinned_allocs++;
	pthread_mutex_unlock(&P.mu);
	b->data = p;
	b->cap = want;
	b->pinned = 1;
	return 0;
}

int capture_hostbuf_get(struct capture_hostbuf *b, size_t len)
{
	memset(b, 0, sizeof *b);
	if (len == 0)
		return 0;
	if (len >= CAPTURE_PINNED_MIN && take_pinned(b, len) == 0) {
		b->len = len;
		return 0;
	}
	b->data = malloc(len);
	if (!b->data)
		return -1;
	b->cap = b->len = len;
	pthread_mutex_lock(&P.mu);
	P.pageable++;
	pthread_mutex_unlock(&P.mu);
	return 0;
}

void capture_hostbuf_put(struct capture_hostbuf *b)
{
	if (!b->data)
		return;
	if (b->pinned) {
		struct pool_node *n = malloc(sizeof *n);
		if (n) {
			n->p = b->data;
			n->cap = b->cap;
			pthread_mutex_lock(&P.mu);
			n->next = P.free;
			P.free = n;
			pthread_mutex_unlock(&P.mu);
		}
		/* Without a node the buffer stays pinned and unused; still counted in pinned_bytes. */
	} else {
		free(b->data);
	}
	memset(b, 0, sizeof *b);
}

void capture_pool_stats(struct capture_pool_stats *s)
{
	pthread_mutex_lock(&P.mu);
	s->pinned_bytes = P.pinned_bytes;
	s->pinned_allocs = P.pinned_allocs;
	s->pinned_failures = P.pinned_failures;
	s->pageable_buffers = P.pageable;
	s->pin_ns = P.pin_ns;
	pthread_mutex_unlock(&P.mu);
}

void capture_pool_after_fork_child(void)
{
	pthread_mutex_init(&P.mu, NULL);
	struct pool_node *n = P.free;
	while (n) {
		struct pool_node *next = n->next;
		free(n);
		n = next;
	}
	P.free = NULL;
	P.pinned_bytes = 0;
}

/* ---- pointers --------------------------------------------------------------------------------- */

static int attr(uint64_t *out, CUpointer_attribute a, uint64_t ptr)
{
	/* The attributes are 1 to 8 bytes wide (a bool, an enum, a pointer); read into a zeroed u64,
	 * which little-endian makes right for each. */
	*out = 0;
	return cuda_fn.cuPointerGetAttribute(out, a, (CUdeviceptr)ptr) == CUDA_SUCCESS ? 0 : -1;
}

int capture_classify(uint64_t value, uint64_t *base, uint64_t *bytes, int *where, const uint8_t **host)
{
	*base = *bytes = 0;
	*where = CAPTURE_AT_DEVICE;
	*host = NULL;
	if (value == 0 || !cuda_fn.cuMemGetAddressRange_v2)
		return CAPTURE_PTR_NONE;
	CUdeviceptr b = 0;
	size_t sz = 0;
	if (cuda_fn.cuMemGetAddressRange_v2(&b, &sz, (CUdeviceptr)value) != CUDA_SUCCESS || sz == 0) {
		/* Memory of another context (a peer device) is not in this context's ranges; the
		 * pointer attributes still know it. */
		uint64_t rb, rs;
		if (!cuda_fn.cuPointerGetAttribute || attr(&rb, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, value) ||
		    attr(&rs, CU_POINTER_ATTRIBUTE_RANGE_SIZE, value) || rs == 0 || rb > value ||
		    value - rb >= rs)
			return CAPTURE_PTR_NONE;
		b = (CUdeviceptr)rb;
		sz = (size_t)rs;
	}
	*base = b;
	*bytes = sz;
	if (!cuda_fn.cuPointerGetAttribute)
		return CAPTURE_PTR_DEVICE;
	uint64_t v;
	if (attr(&v, CU_POINTER_ATTRIBUTE_IS_MANAGED, b) == 0 && v)
		return CAPTURE_PTR_MANAGED;
	if (attr(&v, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, b) == 0 && v == CU_MEMORYTYPE_HOST) {
		uint64_t hp;
		if (attr(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, b) == 0 && hp) {
			*where = CAPTURE_AT_HOST;
			*host = (const uint8_t *)(uintptr_t)hp;
		}
	}
	return CAPTURE_PTR_DEVICE;
}

/* ---- snapshots -------------------------------------------------------------------------------- */

static uint64_t wait_limit_ns = CAPTURE_WAIT_LIMIT_NS;

void capture_set_wait_limit_ns(uint64_t ns) { wait_limit_ns = ns; }

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits until the stream's work is done: 0, -1 when the stream reports an error, 1 after the time
 * limit. cuStreamQuery is polled (back to back for the first 200 us, then with sleeps growing to
 * 1 ms) rather than cuStreamSynchronize called, so that a kernel which waits for something the
 * launching thread would do after the launch cannot hang the program, and so that the capture's
 * waits do not show up as the program's own synchronisations in the trace. */
static int wait_stream(CUstream s)
{
	if (!cuda_fn.cuStreamQuery)
		return cuda_fn.cuStreamSynchronize(s) == CUDA_SUCCESS ? 0 : -1;
	uint64_t t0 = mono_ns();
	long nap = 0;
	for (;;) {
		CUresult r = cuda_fn.cuStreamQuery(s);
		if (r == CUDA_SUCCESS)
			return 0;
		if (r != CUDA_ERROR_NOT_READY)
			return -1;
		uint64_t waited = mono_ns() - t0;
		if (waited >= wait_limit_ns)
			return 1;
		if (waited < 200000)
			continue;
		nap = nap ? (nap * 2 > 1000000 ? 1000000 : nap * 2) : 20000;
		struct timespec ts = { 0, nap };
		nanosleep(&ts, NULL);
	}
}

int capture_snapshot(struct capture_item *it, CUstream stream, int after, struct capture_snap_times *t)
{
	uint64_t t0 = capture_now();
	int w = wait_stream(stream);
	uint64_t t1 = capture_now();
	int pending = 0;
	for (uint32_t i = 0; i < it->nallocs; i++) {
		struct capture_alloc *a = &it->allocs[i];
		struct capture_hostbuf *b = after ? &a->after : &a->before;
		int *ok = after ? &a->after_ok : &a->before_ok;
		*ok = 0;
		if (w != 0 || !b->data || b->len < a->bytes)
			continue;
		if (a->where == CAPTURE_AT_HOST) {
			memcpy(b->data, a->host, a->bytes); /* the stream's work on it is complete */
			*ok = 1;
			it->copied += a->bytes;
		} else if (cuda_fn.cuMemcpyDtoHAsync_v2(b->data, (CUdeviceptr)a->base, a->bytes, stream) ==
		           CUDA_SUCCESS) {
			*ok = 2; /* enqueued: confirmed by the wait below */
			pending = 1;
		}
	}
	/* Only our copies are left on the stream: they finish. */
	int copies_done = !pending || wait_stream(stream) == 0;
	for (uint32_t i = 0; i < it->nallocs; i++) {
		struct capture_alloc *a = &it->allocs[i];
		int *ok = after ? &a->after_ok : &a->before_ok;
		if (*ok == 2) {
			*ok = copies_done;
			if (copies_done)
				it->copied += a->bytes;
		}
	}
	uint64_t t2 = capture_now();
	if (t) {
		t->wait_ns = t1 > t0 ? t1 - t0 : 0;
		t->copy_ns = t2 > t1 ? t2 - t1 : 0;
		t->timed_out = w == 1;
	}
	return w == 0;
}
