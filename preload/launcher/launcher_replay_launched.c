/* launcher_replay_launched.c: the worker's kernels in a replay trace (launcher_replay_launched.h). */
#include "preload/launcher/launcher_replay_launched.h"

#include "common/grow.h"

#include <stdlib.h>
#include <string.h>

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int is_launch_call(const char *name)
{
	return strncmp(name, "cuLaunch", 8) == 0 || strncmp(name, "cudaLaunch", 10) == 0;
}

int replay_launched_read(struct replay_launched *l, struct gt_reader *r)
{
	memset(l, 0, sizeof *l);
	size_t cap = 0;
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_API || !is_launch_call(gt_reader_string(r, ev.u.api.name_id)))
			continue;
		uint32_t *ids = gt_grow(l->ids, &cap, l->n, sizeof *ids, 256);
		if (!ids) {
			replay_launched_free(l);
			return -1;
		}
		l->ids = ids;
		l->ids[l->n++] = ev.u.api.correlation_id;
	}
	if (more < 0) {
		replay_launched_free(l);
		return -1;
	}
	if (l->n)
		qsort(l->ids, l->n, sizeof *l->ids, by_id);
	return 0;
}

int replay_launched_by_worker(const struct replay_launched *l, uint32_t correlation_id)
{
	return !l->n || bsearch(&correlation_id, l->ids, l->n, sizeof *l->ids, by_id) != NULL;
}

void replay_launched_free(struct replay_launched *l)
{
	free(l->ids);
	memset(l, 0, sizeof *l);
}
