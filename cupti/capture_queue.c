/* capture_queue.c: the queue of finished captures and their writing (capture_item.h).
 *
 * Launching threads push under a mutex; the writer thread takes the whole list at once and writes
 * it without holding the lock, so a launch never waits for compression or the disk.
 */
#include "cupti/capture_copy.h"
#include "cupti/capture_item.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static struct capture_item *qhead, *qtail;

void capture_item_free(struct capture_item *it)
{
	if (!it)
		return;
	for (uint32_t i = 0; i < it->nallocs; i++) {
		capture_hostbuf_put(&it->allocs[i].before);
		capture_hostbuf_put(&it->allocs[i].after);
	}
	free(it->allocs);
	free(it->params);
	free(it->param_alloc);
	free(it->param_bytes);
	free(it->name);
	free(it);
}

void capture_queue_push(struct capture_item *it)
{
	it->next = NULL;
	pthread_mutex_lock(&qmu);
	if (qtail)
		qtail->next = it;
	else
		qhead = it;
	qtail = it;
	pthread_mutex_unlock(&qmu);
}

struct capture_item *capture_queue_take(void)
{
	pthread_mutex_lock(&qmu);
	struct capture_item *l = qhead;
	qhead = qtail = NULL;
	pthread_mutex_unlock(&qmu);
	return l;
}

void capture_queue_drop(void)
{
	struct capture_item *it = capture_queue_take();
	while (it) {
		struct capture_item *next = it->next;
		capture_item_free(it);
		it = next;
	}
}

void capture_queue_after_fork_child(void)
{
	pthread_mutex_init(&qmu, NULL);
	/* The items' pinned buffers belong to the parent's CUDA context: free only what malloc gave
	 * (the pool forgets its pinned memory in the child, see capture_pool_after_fork_child). */
	struct capture_item *it = qhead;
	qhead = qtail = NULL;
	while (it) {
		struct capture_item *next = it->next;
		for (uint32_t i = 0; i < it->nallocs; i++) {
			struct capture_hostbuf *b[2] = { &it->allocs[i].before, &it->allocs[i].after };
			for (int k = 0; k < 2; k++)
				if (b[k]->pinned)
					memset(b[k], 0, sizeof *b[k]);
		}
		capture_item_free(it);
		it = next;
	}
}

static int write_overhead(struct gt_writer *w, uint64_t start, uint64_t end, uint64_t thread)
{
	if (!start || end < start)
		return 0; /* no clock: nothing honest to write */
	struct gt_overhead o = { .start = start, .end = end, .object_id = thread,
		.kind = GT_OVERHEAD_CAPTURE, .object_kind = GT_OBJECT_THREAD };
	return gt_writer_add(w, GT_REC_OVERHEAD, &o);
}

int capture_item_write(struct gt_writer *w, struct capture_item *it)
{
	if (it->module && !it->module->blob_id) {
		int64_t id = gt_writer_blob(w, GT_BLOB_CUBIN, it->module->image, it->module->size);
		if (id < 0)
			return (int)id;
		it->module->blob_id = (uint64_t)id;
	}
	it->hdr.cubin_blob_id = it->module ? it->module->blob_id : 0;
	uint64_t *ids = it->nallocs ? calloc((size_t)it->nallocs * 2, sizeof *ids) : NULL;
	if (it->nallocs && !ids)
		return GT_ERR_NOMEM;
	int rc = 0;
	for (uint32_t i = 0; i < it->nallocs && rc == 0; i++) {
		struct capture_alloc *a = &it->allocs[i];
		if (a->before_ok) {
			int64_t id = gt_writer_blob(w, GT_BLOB_BUFFER, a->before.data, a->bytes);
			if (id < 0)
				rc = (int)id;
			else
				ids[2 * i] = (uint64_t)id;
		}
		if (rc == 0 && a->after_ok) {
			/* Inputs the kernel only read come back unchanged: written once, named twice. */
			if (a->before_ok && memcmp(a->before.data, a->after.data, a->bytes) == 0) {
				ids[2 * i + 1] = ids[2 * i];
			} else {
				int64_t id = gt_writer_blob(w, GT_BLOB_BUFFER, a->after.data, a->bytes);
				if (id < 0)
					rc = (int)id;
				else
					ids[2 * i + 1] = (uint64_t)id;
			}
		}
	}
	if (rc == 0) {
		for (uint32_t i = 0; i < it->hdr.nparams; i++) {
			int32_t a = it->param_alloc[i];
			if (a >= 0) {
				it->params[i].before_blob = ids[2 * a];
				it->params[i].after_blob = ids[2 * a + 1];
			}
		}
		it->hdr.name_id = gt_writer_intern(w, it->name ? it->name : "");
		if (it->name && *it->name && it->hdr.name_id == 0)
			rc = GT_ERR_NOMEM;
	}
	free(ids);
	if (rc == 0) {
		uint8_t *rec = NULL;
		size_t len = 0;
		rc = gt_capture_encode(&it->hdr, it->params, it->param_bytes, &rec, &len);
		if (rc == 0)
			rc = gt_writer_add_var(w, GT_REC_CAPTURE, rec, len);
		free(rec);
	}
	if (rc == 0)
		rc = write_overhead(w, it->enter_start, it->enter_end, it->thread);
	if (rc == 0)
		rc = write_overhead(w, it->exit_start, it->exit_end, it->thread);
	return rc;
}
