/* export_tracks.c: pass 1 of gpuanalyze export (export.c): which records are slices and on which
 * track, the hash of tracks (an index of common/slots.h), the per-track slice vectors, the
 * correlation id pages that say how many arrows to draw, and the devices seen. Separate from the
 * placement (export_lanes.c) and the writing (export_chrome.c, export_csv.c), which read what it
 * collects; slice_of is the one definition of a slice that both passes follow. */
#include "analyze/export/export_internal.h"
#include "traces/schema.h"

/* ---- tracks --------------------------------------------------------------------------------- */

static uint64_t track_hash(int kind, uint32_t device, uint64_t key)
{
	uint64_t h = (uint64_t)kind * 0x9e3779b97f4a7c15ull ^ (uint64_t)device * 0xc2b2ae3d27d4eb4full ^ key;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

/* What gt_ex_track_of looks for, and the test and rehash that common/slots.h calls back. */
struct track_id {
	int kind;
	uint32_t device;
	uint64_t key;
};

static int track_is(const void *ctx, size_t i, const void *key)
{
	const struct track *t = &((const struct track *)ctx)[i];
	const struct track_id *id = key;
	return t->kind == id->kind && t->device == id->device && t->key == id->key;
}

static uint64_t track_rehash(const void *ctx, size_t i)
{
	const struct track *t = &((const struct track *)ctx)[i];
	return track_hash(t->kind, t->device, t->key);
}

/* Remembers t (index i) as the last track of its kind: consecutive records mostly share one. */
static struct track *track_last(struct ex *x, size_t i)
{
	struct track *t = &x->t[i];
	x->last[t->kind] = (uint32_t)i + 1;
	x->last_key[t->kind] = t->key;
	x->last_dev[t->kind] = t->device;
	return t;
}

/* A new track (kind, device, key) at the end of x->t, entered in the hash; NULL: no memory. */
static struct track *track_new(struct ex *x, const struct track_id *id, uint64_t h)
{
	if (x->nt == x->capt) {
		size_t cap = x->capt ? x->capt * 2 : 16;
		struct track *t = realloc(x->t, cap * sizeof *t);
		if (!t)
			return NULL;
		x->t = t;
		x->capt = cap;
	}
	if (gt_slots_add(&x->slots, h, x->nt, track_rehash, x->t))
		return NULL;
	struct track *t = &x->t[x->nt++];
	memset(t, 0, sizeof *t);
	t->kind = id->kind;
	t->device = id->device;
	t->key = id->key;
	t->first = UINT64_MAX;
	t->nlanes = 1;
	for (int i = 0; i < NSRC; i++)
		gt_tl_vec_init(&t->sl[i], sizeof(struct slice));
	return t;
}

/* The track of (kind, device, key), made on first sight in pass 1. NULL: no memory, or (pass 2)
 * a track pass 1 did not see, which cannot happen for the same file. */
struct track *gt_ex_track_of(struct ex *x, int kind, uint32_t device, uint64_t key, int make)
{
	uint32_t c = x->last[kind];
	if (c && x->last_key[kind] == key && x->last_dev[kind] == device)
		return &x->t[c - 1];
	struct track_id id = { kind, device, key };
	uint64_t h = track_hash(kind, device, key);
	size_t i = gt_slots_find(&x->slots, h, track_is, x->t, &id);
	if (i != GT_SLOTS_NONE)
		return track_last(x, i);
	if (!make || !track_new(x, &id, h))
		return NULL;
	return track_last(x, x->nt - 1);
}

/* Which events are slices, and where they go: the one definition both passes follow, so that their
 * sequence numbers agree. Returns 1 for a slice; -1 for an event left out (bad times, unclosed).
 * The interval is the window's (gt_xwin_raw_times, which gives NVTX marks none: they are instants),
 * checked once for every type. */
int gt_ex_slice_of(const struct gt_event *ev, int *kind, uint32_t *device, uint64_t *key, uint64_t *start,
                   uint64_t *end)
{
	if (!gt_xwin_raw_times(ev, start, end))
		return 0;
	*device = 0;
	*key = 0;
	int left_out = 0;
	switch (ev->type) {
	case GT_REC_KERNEL:
		*kind = TK_STREAM, *device = ev->u.kernel.device_id, *key = ev->u.kernel.stream_id;
		left_out = (ev->u.kernel.flags & GT_KERNEL_BAD_TIMES) != 0;
		break;
	case GT_REC_MEMCPY: *kind = TK_STREAM, *device = ev->u.memcpy.device_id, *key = ev->u.memcpy.stream_id; break;
	case GT_REC_MEMSET: *kind = TK_STREAM, *device = ev->u.memset.device_id, *key = ev->u.memset.stream_id; break;
	case GT_REC_API: *kind = TK_THREAD, *key = ev->u.api.thread_id; break;
	case GT_REC_SYNC: *kind = TK_SYNC; break;
	case GT_REC_NVTX:
		/* Push/pop ranges nest on their thread; start/end ranges need not, and share a track. */
		*kind = ev->u.nvtx.kind == GT_NVTX_PUSH_POP ? TK_THREAD : TK_NVTX;
		*key = ev->u.nvtx.kind == GT_NVTX_PUSH_POP ? ev->u.nvtx.thread_id : 0;
		left_out = ev->u.nvtx.end == 0; /* never closed */
		break;
	case GT_REC_OVERHEAD: *kind = TK_OVERHEAD; break;
	default: return 0; /* graph launches: no track of their own */
	}
	return left_out || *end < *start ? -1 : 1;
}

/* ---- correlation ids ------------------------------------------------------------------------- */

/* The byte of corr into *b, its page made if need be and if fewer than max_pages exist (else *b is
 * NULL). 0, or GT_ERR_NOMEM. */
int gt_ex_corr_make(struct pages *p, uint32_t corr, uint64_t max_pages, uint8_t **b)
{
	uint8_t **page = &p->p[corr >> 16];
	if (!*page && p->n < max_pages) {
		if (!(*page = calloc(65536, 1)))
			return GT_ERR_NOMEM;
		p->n++;
	}
	*b = *page ? &(*page)[corr & 0xffff] : NULL;
	return 0;
}

/* Pass 1: a GPU operation (api 0) or an API call (api 1) with correlation id corr, counted for
 * the arrows pass 2 draws (Chrome only); an operation whose page is over budget is counted as
 * flows_unmapped. */
static int note_corr(struct ex *x, uint32_t corr, int api)
{
	if (!corr || x->opt->format != GT_EXPORT_CHROME)
		return 0;
	uint8_t *b;
	if (gt_ex_corr_make(x->cnt, corr, PAGES_FREE + x->res->events / PAGE_RECORDS, &b))
		return GT_ERR_NOMEM;
	if (!b)
		x->res->flows_unmapped += !api;
	else if (api)
		*b |= API_SEEN;
	else if ((*b & ~API_SEEN) < FLOW_CAP)
		(*b)++;
	return 0;
}

void gt_ex_pages_free(struct pages *p)
{
	if (!p)
		return;
	for (size_t i = 0, left = p->n; i < 65536 && left; i++)
		if (p->p[i]) {
			free(p->p[i]);
			left--;
		}
	free(p);
}

static int note_device(struct ex *x, uint32_t d)
{
	for (size_t i = 0; i < x->ndevs; i++)
		if (x->devs[i] == d)
			return 0;
	if (x->ndevs < sizeof x->devs / sizeof *x->devs)
		x->devs[x->ndevs++] = d;
	return 0;
}

/* ---- pass 1 --------------------------------------------------------------------------------- */

int gt_ex_collect(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct ex *x = ctx;
	if (ev->type < GT_REC_FIRST_FIXED)
		return 0;
	x->res->events++;
	uint64_t ts = gt_tl_event_time(ev);
	if (ts && ts < x->origin)
		x->origin = ts;
	if (ev->type == GT_REC_MEMORY) {
		/* Every one, in a window too: the sums at its start need what came before. */
		const struct gt_memory *m = &ev->u.memory;
		note_device(x, m->device_id);
		struct memrec *mr = gt_tl_vec_push(&x->mem);
		if (!mr)
			return GT_ERR_NOMEM;
		*mr = (struct memrec){ m->timestamp, m->bytes, m->device_id, m->op, m->mem_kind, 0 };
	}
	int keep = gt_xwin_keep(x->win, &x->clock, r, ev);
	if (keep <= 0) {
		x->win->left_out += !keep;
		return keep;
	}
	int kind;
	uint32_t device;
	uint64_t key, start, end;
	int s = gt_ex_slice_of(ev, &kind, &device, &key, &start, &end);
	if (s < 0) {
		if (ev->type == GT_REC_NVTX && ev->u.nvtx.end == 0)
			x->res->unclosed++;
		else
			x->res->bad_times++;
	} else if (s > 0) {
		struct track *t = gt_ex_track_of(x, kind, device, key, 1);
		if (!t)
			return GT_ERR_NOMEM;
		if (x->nslices >= UINT32_MAX)
			return GT_ERR_TOO_LARGE;
		struct slice *sl = gt_tl_vec_push(&t->sl[src_of(ev->type)]);
		if (!sl)
			return GT_ERR_NOMEM;
		sl->start = start;
		sl->seq = (uint32_t)x->nslices;
		if (end - start >= LONG_DUR) {
			sl->dur = LONG_DUR;
			struct longend *l = gt_tl_vec_push(&x->longs);
			if (!l)
				return GT_ERR_NOMEM;
			l->seq = x->nslices;
			l->end = end;
		} else {
			sl->dur = (uint32_t)(end - start);
		}
		if (start < t->first)
			t->first = start;
		x->nslices++;
	}
	/* The devices seen: those of every kept event whose kind has one (schema.h). */
	uint32_t dev;
	const struct gt_record_schema *k = gt_kind(ev->type);
	if (k && gt_kind_device(k, &ev->u, &dev))
		note_device(x, dev);
	switch (ev->type) {
	case GT_REC_KERNEL:
	case GT_REC_MEMCPY:
	case GT_REC_MEMSET: {
		uint32_t corr = ev->type == GT_REC_KERNEL   ? ev->u.kernel.correlation_id
		                : ev->type == GT_REC_MEMCPY ? ev->u.memcpy.correlation_id
		                                            : ev->u.memset.correlation_id;
		if (s > 0 && note_corr(x, corr, 0))
			return GT_ERR_NOMEM;
		break;
	}
	case GT_REC_API:
		if (!x->host_pid)
			x->host_pid = ev->u.api.process_id;
		if (s > 0 && note_corr(x, ev->u.api.correlation_id, 1))
			return GT_ERR_NOMEM;
		break;
	case GT_REC_NVTX:
		if (ev->u.nvtx.kind == GT_NVTX_MARK && !gt_ex_track_of(x, TK_THREAD, 0, ev->u.nvtx.thread_id, 1))
			return GT_ERR_NOMEM;
		break;
	default: break;
	}
	return 0;
}

void gt_ex_track_label(const struct track *t, uint32_t lane, char *buf, size_t len)
{
	int k;
	switch (t->kind) {
	case TK_STREAM: k = snprintf(buf, len, "stream %llu", (unsigned long long)t->key); break;
	case TK_THREAD: k = snprintf(buf, len, "thread %llu", (unsigned long long)t->key); break;
	case TK_SYNC: k = snprintf(buf, len, "synchronisation waits"); break;
	case TK_NVTX: k = snprintf(buf, len, "NVTX start/end ranges"); break;
	default: k = snprintf(buf, len, "CUPTI overhead"); break;
	}
	if (lane && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " (overlap %u)", lane);
}
