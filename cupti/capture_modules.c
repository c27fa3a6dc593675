/* capture_modules.c: kept cubins of loaded modules (capture_modules.h). */
#include "cupti/capture_modules.h"
#include "common/fnv.h"
#include "cupti/nvinfo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct capture_module *head; /* newest first */
static uint64_t n_kept, bytes_kept, n_seen;

struct keep_ctx {
	int (*keep)(void *ctx, const char *mangled);
	void *ctx;
	char *name;
	size_t cap;
};

static int any_selected(void *vctx, const char *name, size_t len)
{
	struct keep_ctx *k = vctx;
	if (len + 1 > k->cap) {
		char *n = realloc(k->name, len + 1);
		if (!n)
			return NVINFO_ERR_NOMEM;
		k->name = n;
		k->cap = len + 1;
	}
	memcpy(k->name, name, len);
	k->name[len] = 0;
	return k->keep(k->ctx, k->name) ? 1 : 0;
}

int capture_modules_add(const void *image, size_t size, uint32_t module_id,
                        int (*keep)(void *ctx, const char *mangled), void *ctx)
{
	pthread_mutex_lock(&mu);
	n_seen++;
	pthread_mutex_unlock(&mu);
	if (!nvinfo_is_elf64(image, size))
		return 0;
	struct keep_ctx k = { keep, ctx, NULL, 0 };
	int sel = nvinfo_for_each_kernel(image, size, any_selected, &k);
	free(k.name);
	if (sel == NVINFO_ERR_FORMAT)
		return 0; /* a section table we cannot read: no layout from this image */
	if (sel < 0)
		return -1;
	if (sel == 0)
		return 0;
	uint64_t h = gt_fnv1a64(image, size);
	pthread_mutex_lock(&mu);
	for (struct capture_module *m = head; m; m = m->next) {
		if (m->hash == h && m->size == size && memcmp(m->image, image, size) == 0) {
			m->loads++;
			pthread_mutex_unlock(&mu);
			return 1;
		}
	}
	pthread_mutex_unlock(&mu);
	struct capture_module *m = calloc(1, sizeof *m);
	uint8_t *copy = malloc(size);
	if (!m || !copy) {
		free(m);
		free(copy);
		return -1;
	}
	memcpy(copy, image, size);
	m->module_id = module_id;
	m->loads = 1;
	m->size = size;
	m->image = copy;
	m->hash = h;
	pthread_mutex_lock(&mu);
	/* Another thread may have added the same image meanwhile; two copies only cost memory. */
	m->next = head;
	head = m;
	n_kept++;
	bytes_kept += size;
	pthread_mutex_unlock(&mu);
	return 1;
}

struct capture_module *capture_modules_find(const char *mangled, const uint32_t *block, uint32_t *holding)
{
	size_t nl = strlen(mangled);
	uint32_t n = 0;
	pthread_mutex_lock(&mu);
	struct capture_module *newest = NULL, *fitting = NULL;
	for (struct capture_module *m = head; m; m = m->next) {
		const uint8_t *sec;
		size_t sl;
		if (nvinfo_find_section(m->image, m->size, mangled, nl, &sec, &sl) != 1)
			continue;
		n++;
		if (!newest)
			newest = m;
		if (!fitting && (!block || nvinfo_block_fits(sec, sl, block) == 1))
			fitting = m;
	}
	pthread_mutex_unlock(&mu);
	if (holding)
		*holding = n;
	return fitting ? fitting : newest;
}

void capture_modules_stats(uint64_t *kept, uint64_t *kept_bytes, uint64_t *seen)
{
	pthread_mutex_lock(&mu);
	*kept = n_kept;
	*kept_bytes = bytes_kept;
	*seen = n_seen;
	pthread_mutex_unlock(&mu);
}

void capture_modules_reset(void)
{
	pthread_mutex_lock(&mu);
	struct capture_module *m = head;
	head = NULL;
	n_kept = bytes_kept = n_seen = 0;
	pthread_mutex_unlock(&mu);
	while (m) {
		struct capture_module *next = m->next;
		free(m->image);
		free(m);
		m = next;
	}
}

void capture_modules_after_fork_child(void)
{
	pthread_mutex_init(&mu, NULL);
}
