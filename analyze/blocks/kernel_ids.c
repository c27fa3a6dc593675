/* kernel_ids.c: kernels by name across files through each file's string ids, and the warm-up drop
 * (kernel_ids.h), shared by summary and samples. */
#include "analyze/blocks/kernel_ids.h"

#include "common/fnv.h"
#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

static int name_is(const void *ctx, size_t i, const void *name)
{
	return strcmp(((const struct gt_kernel_ids *)ctx)->name[i], name) == 0;
}

static uint64_t name_hash(const void *ctx, size_t i)
{
	return gt_fnv1a64_str(((const struct gt_kernel_ids *)ctx)->name[i]);
}

uint32_t gt_kernel_ids_resolve(struct gt_kernel_ids *ki, const struct gt_reader *r, uint32_t id,
                               gt_kernel_make_fn make, void *ctx)
{
	if (id > gt_reader_string_count(r))
		id = 0;
	if ((size_t)id >= ki->nids) {
		size_t n = ki->nids ? ki->nids : 256;
		while (n <= id)
			n *= 2;
		uint32_t *m = realloc(ki->of_id, n * sizeof *m);
		if (!m)
			return 0;
		memset(m + ki->nids, 0, (n - ki->nids) * sizeof *m);
		ki->of_id = m;
		ki->nids = n;
	}
	if (ki->of_id[id])
		return ki->of_id[id];
	const char *name = gt_reader_string(r, id);
	uint64_t h = gt_fnv1a64_str(name);
	size_t i = gt_slots_find(&ki->by_name, h, name_is, ki, name);
	if (i == GT_SLOTS_NONE) {
		const char **names = gt_grow(ki->name, &ki->cap, ki->n, sizeof *names, 64);
		if (!names)
			return 0;
		ki->name = names;
		if (ki->n >= GT_SLOTS_MAX || !(names[ki->n] = make(ctx, name)) ||
		    gt_slots_add(&ki->by_name, h, ki->n, name_hash, ki))
			return 0;
		i = ki->n++;
	}
	return ki->of_id[id] = (uint32_t)i + 1;
}

void gt_kernel_ids_next_file(struct gt_kernel_ids *ki)
{
	if (ki->nids)
		memset(ki->of_id, 0, ki->nids * sizeof *ki->of_id);
}

void gt_kernel_ids_release(struct gt_kernel_ids *ki)
{
	free(ki->of_id);
	free(ki->name);
	gt_slots_release(&ki->by_name);
	memset(ki, 0, sizeof *ki);
}

size_t gt_summary_drop_warmup(struct gt_warmup *w, void *vals, int wide, size_t *n)
{
	size_t nw = gt_warmup_positions(w);
	for (size_t k = nw; k-- > 0;) {
		size_t pos = w->heap[k].pos, last = --*n;
		if (wide)
			((uint64_t *)vals)[pos] = ((uint64_t *)vals)[last];
		else
			((uint32_t *)vals)[pos] = ((uint32_t *)vals)[last];
	}
	gt_warmup_reset(w);
	return nw;
}
