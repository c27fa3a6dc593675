/* buffers.c: the activity buffer pool and CUPTI's buffer callbacks (see buffers.h). */
#include "cupti/buffers.h"
#include "common/grow.h"
#include "cupti/libs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static struct cupti_buffer *free_list;
static unsigned free_count;
static struct cupti_buffer *done_head, *done_tail;
static int wake_flag;
static size_t buf_bytes = 4u << 20;
static unsigned max_bufs = 256;
static struct buffers_stats st;

/* Every buffer we ever allocated, to tell ours from another client's when CUPTI hands one back. */
static struct cupti_buffer **registry;
static size_t reg_count, reg_cap;

static struct cupti_buffer *alloc_buffer(void)
{
	struct cupti_buffer *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	/* CUPTI requires 8-byte alignment; 64 keeps the buffer on its own cache lines. */
	if (posix_memalign((void **)&b->data, 64, buf_bytes) != 0) {
		free(b);
		return NULL;
	}
	return b;
}

/* Called with the lock held. */
static int registry_add(struct cupti_buffer *b)
{
	struct cupti_buffer **r = gt_grow(registry, &reg_cap, reg_count, sizeof *r, 64);
	if (!r)
		return -1;
	registry = r;
	registry[reg_count++] = b;
	st.allocated++;
	return 0;
}

static struct cupti_buffer *registry_find(const uint8_t *data)
{
	for (size_t i = reg_count; i-- > 0;)
		if (registry[i]->data == data)
			return registry[i];
	return NULL;
}

int buffers_init(size_t buffer_bytes, unsigned initial, unsigned max_buffers)
{
	if (buffer_bytes >= 64 << 10)
		buf_bytes = buffer_bytes & ~(size_t)63;
	max_bufs = max_buffers ? max_buffers : 256;
	buffers_top_up(initial);
	return free_count ? 0 : -1;
}

void buffers_top_up(unsigned spare)
{
	for (;;) {
		pthread_mutex_lock(&lock);
		int need = free_count < spare && reg_count < max_bufs;
		pthread_mutex_unlock(&lock);
		if (!need)
			return;
		struct cupti_buffer *b = alloc_buffer();
		if (!b)
			return;
		pthread_mutex_lock(&lock);
		if (registry_add(b) != 0) {
			pthread_mutex_unlock(&lock);
			free(b->data);
			free(b);
			return;
		}
		b->next = free_list;
		free_list = b;
		free_count++;
		pthread_mutex_unlock(&lock);
	}
}

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*max_records = 0;
	pthread_mutex_lock(&lock);
	struct cupti_buffer *b = free_list;
	if (b) {
		free_list = b->next;
		free_count--;
	}
	if (b || reg_count >= max_bufs) {
		if (b) {
			st.requested++;
			st.outstanding++;
		} else {
			st.refused++;
		}
		/* Ask the writer to top the pool up before the next request. */
		wake_flag = 1;
		pthread_cond_signal(&ready);
		pthread_mutex_unlock(&lock);
		*buffer = b ? b->data : NULL;
		*size = b ? buf_bytes : 0;
		return;
	}
	pthread_mutex_unlock(&lock);
	/* The pool ran dry: allocate here rather than lose records, and count it. */
	b = alloc_buffer();
	pthread_mutex_lock(&lock);
	if (b && registry_add(b) == 0) {
		st.pool_misses++;
		st.requested++;
		st.outstanding++;
	} else {
		if (b) {
			free(b->data);
			free(b);
		}
		b = NULL;
		st.refused++;
	}
	pthread_mutex_unlock(&lock);
	*buffer = b ? b->data : NULL;
	*size = b ? buf_bytes : 0;
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                 size_t valid)
{
	(void)size;
	size_t dropped = 0;
	if (cupti_fn.cuptiActivityGetNumDroppedRecords &&
	    cupti_fn.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) != CUPTI_SUCCESS)
		dropped = 0;
	pthread_mutex_lock(&lock);
	struct cupti_buffer *b = registry_find(buffer);
	if (b) {
		st.outstanding--;
	} else {
		/* Not ours: another CUPTI client in this process registered its callbacks, and CUPTI
		 * now mixes its buffers with ours. Read it, never free or reuse it. */
		b = calloc(1, sizeof *b);
		st.foreign++;
		if (!b) {
			pthread_mutex_unlock(&lock);
			return;
		}
		b->data = buffer;
		b->foreign = 1;
	}
	st.completed++;
	b->valid = valid;
	b->dropped = dropped;
	b->next = NULL;
	if (done_tail)
		done_tail->next = b;
	else
		done_head = b;
	done_tail = b;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
}

int buffers_register(void)
{
	return (int)cupti_fn.cuptiActivityRegisterCallbacks(on_request, on_complete);
}

void buffers_wait(unsigned timeout_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&lock);
	while (!done_head && !wake_flag) {
		if (pthread_cond_timedwait(&ready, &lock, &ts) != 0)
			break;
	}
	wake_flag = 0;
	pthread_mutex_unlock(&lock);
}

void buffers_wake(void)
{
	pthread_mutex_lock(&lock);
	wake_flag = 1;
	pthread_cond_broadcast(&ready);
	pthread_mutex_unlock(&lock);
}

struct cupti_buffer *buffers_take_completed(void)
{
	pthread_mutex_lock(&lock);
	struct cupti_buffer *b = done_head;
	done_head = done_tail = NULL;
	pthread_mutex_unlock(&lock);
	return b;
}

void buffers_release(struct cupti_buffer *b)
{
	if (!b)
		return;
	if (b->foreign) {
		free(b); /* the wrapper only: the data belongs to the other client */
		return;
	}
	b->valid = 0;
	b->dropped = 0;
	pthread_mutex_lock(&lock);
	b->next = free_list;
	free_list = b;
	free_count++;
	pthread_mutex_unlock(&lock);
}

void buffers_get_stats(struct buffers_stats *s)
{
	pthread_mutex_lock(&lock);
	*s = st;
	pthread_mutex_unlock(&lock);
}

void buffers_fork_prepare(void) { pthread_mutex_lock(&lock); }
void buffers_fork_parent(void) { pthread_mutex_unlock(&lock); }

void buffers_after_fork_child(void)
{
	/* The lock was taken in the prepare handler by the forking thread, which is this thread in
	 * the child: re-initialise rather than unlock, as POSIX allows for a copy of a mutex. */
	pthread_mutex_init(&lock, NULL);
	pthread_cond_init(&ready, NULL);
	/* Completed buffers belong to the parent's trace: drop them from our queue (the memory is
	 * this process's copy; put it back in the pool). Outstanding ones are lost to us. */
	struct cupti_buffer *b = done_head;
	while (b) {
		struct cupti_buffer *n = b->next;
		if (b->foreign) {
			free(b);
		} else {
			b->next = free_list;
			free_list = b;
			free_count++;
		}
		b = n;
	}
	done_head = done_tail = NULL;
	wake_flag = 0;
	memset(&st, 0, sizeof st);
	st.allocated = reg_count;
}
