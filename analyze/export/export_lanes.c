/* export_lanes.c: between the two passes of gpuanalyze export (export.c), every track's slices
 * sorted and placed on lanes (a tree of maxima over the lanes' keys and a heap of slice ends), then
 * the tracks ordered and given their process and thread ids. Separate because it is an algorithm of
 * its own: it reads the slices pass 1 collected and leaves the moved list pass 2 reads. */
#include "analyze/export/export_internal.h"

#include "common/grow.h"

#define MAX_LANES 65535u

/* ---- placing slices on lanes ----------------------------------------------------------------- */

struct lane {
	uint64_t last_end;       /* device tracks: where the lane is free from */
	struct gt_tl_span *stack;/* host tracks: the open slices, outermost first */
	size_t n, cap;
	uint64_t key;            /* see placer */
};

static uint64_t slice_end(const struct ex *x, const struct slice *s)
{
	if (s->dur != LONG_DUR)
		return s->start + s->dur;
	/* Long slices were appended in sequence order: binary search. */
	size_t lo = 0, hi = x->longs.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct longend *l = gt_tl_vec_at(&x->longs, mid);
		if (l->seq < s->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ((const struct longend *)gt_tl_vec_at(&x->longs, lo))->end;
}

/* Slices with equal starts: the longer first, so that an enclosing slice is placed before the
 * slices it encloses (gt_tl_sort_ties). */
static uint64_t slice_end_of(const void *rec, void *ctx) { return slice_end(ctx, rec); }

/* Sorts by start, stably. CUPTI's records are nearly in time order on a track (a range's record
 * comes after the calls it encloses, buffers interleave a little), so an insertion sort that gives
 * up after 16 moves per record on average does most tracks in one pass without the radix sort's
 * scratch memory; what it leaves, the radix sort finishes (both are stable). */
static int sort_slices(struct gt_tl_vec *v)
{
	struct slice *s = v->buf.p;
	size_t n = v->n, budget = 16 * n + 1024, moves = 0;
	for (size_t i = 1; i < n; i++) {
		if (s[i].start >= s[i - 1].start)
			continue;
		struct slice k = s[i];
		size_t j = i;
		while (j > 0 && s[j - 1].start > k.start) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = k;
		moves += i - j;
		if (moves > budget)
			return gt_tl_vec_sort(v);
	}
	return 0;
}

/* The next slice in (start ascending, end descending) order over the track's sorted vectors. */
static const struct slice *next_slice(const struct ex *x, struct track *t, size_t *pos, uint64_t *end)
{
	const struct slice *best = NULL;
	uint64_t best_end = 0;
	int bi = -1;
	for (int i = 0; i < NSRC; i++) {
		if (pos[i] >= t->sl[i].n)
			continue;
		const struct slice *c = gt_tl_vec_at(&t->sl[i], pos[i]);
		uint64_t ce = slice_end(x, c);
		if (!best || c->start < best->start || (c->start == best->start && ce > best_end)) {
			best = c;
			best_end = ce;
			bi = i;
		}
	}
	if (best) {
		pos[bi]++;
		*end = best_end;
	}
	return best;
}

/* Which lane a slice goes on: the first lane that can take it. A device lane can when its last
 * slice has ended by the slice's start; a host lane when, its slices that ended by then taken off,
 * it is empty or its innermost open slice encloses the new one and started before it. Lanes may be
 * many (a program can launch thousands of kernels at one instant on one stream, or start as many
 * ranges together on one thread), so the first that can is not looked for lane by lane: each lane
 * has a key, and a tree of maxima over the keys finds the first lane whose key reaches a bound.
 * A device lane's key is UINT64_MAX - its last end (it can take slices starting from that end on);
 * a host lane's is UINT64_MAX when empty, its innermost slice's end when that began before now
 * (the start being placed), else 0 (a slice that starts with its parent would look like it). Host
 * lanes' keys change as time passes: a heap of their innermost slices' ends says when one ends, and
 * the lanes whose key is 0 because their slice began now are listed to be keyed again once later
 * slices come. Each slice enters the tree, the heap and the list a few times: O(n log n). */
struct lane_end {
	uint64_t end;
	size_t lane;
};

struct placer {
	int nest;                /* host track */
	uint64_t now;            /* the start being placed */
	struct lane *lanes;
	size_t nl, capl;
	uint64_t *tree;          /* tree[1] the root; the leaves, lanes' keys, from tree[tsize] */
	size_t tsize;
	struct lane_end *heap;   /* host: each lane's innermost slice end, soonest first (stale ones too) */
	size_t nheap, capheap;
	size_t *blocked;         /* host: lanes keyed 0 since their innermost slice began now */
	size_t nblocked, capblocked;
};

static void placer_release(struct placer *p)
{
	for (size_t l = 0; l < p->nl; l++)
		free(p->lanes[l].stack);
	free(p->lanes);
	free(p->tree);
	free(p->heap);
	free(p->blocked);
}

/* Room for one more after the n elements of *a (common/grow.h's doubling): 0 or GT_ERR_NOMEM. */
static int grow_array(void **a, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0; /* the common case, per slice: no call */
	void *q = gt_grow(*a, cap, n, elem, 8);
	if (!q)
		return GT_ERR_NOMEM;
	*a = q;
	return 0;
}

static void tree_set(struct placer *p, size_t l, uint64_t key)
{
	p->lanes[l].key = key;
	size_t i = p->tsize + l;
	p->tree[i] = key;
	for (i /= 2; i; i /= 2)
		p->tree[i] = p->tree[2 * i] > p->tree[2 * i + 1] ? p->tree[2 * i] : p->tree[2 * i + 1];
}

/* Twice the leaves (lanes beyond nl keyed 0, and never taken: see tree_first). */
static int tree_grow(struct placer *p)
{
	size_t ts = p->tsize ? p->tsize * 2 : 16;
	uint64_t *t = calloc(2 * ts, sizeof *t);
	if (!t)
		return GT_ERR_NOMEM;
	for (size_t l = 0; l < p->nl; l++)
		t[ts + l] = p->lanes[l].key;
	for (size_t i = ts - 1; i; i--)
		t[i] = t[2 * i] > t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
	free(p->tree);
	p->tree = t;
	p->tsize = ts;
	return 0;
}

/* The first lane whose key is at least bound, or SIZE_MAX. */
static size_t tree_first(const struct placer *p, uint64_t bound)
{
	if (!p->tsize || p->tree[1] < bound)
		return SIZE_MAX;
	size_t i = 1;
	while (i < p->tsize)
		i = p->tree[2 * i] >= bound ? 2 * i : 2 * i + 1;
	return i - p->tsize < p->nl ? i - p->tsize : SIZE_MAX;
}

static int heap_push(struct placer *p, uint64_t end, size_t lane)
{
	if (grow_array((void **)&p->heap, &p->capheap, p->nheap, sizeof *p->heap))
		return GT_ERR_NOMEM;
	size_t i = p->nheap++;
	while (i && p->heap[(i - 1) / 2].end > end) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = (struct lane_end){ end, lane };
	return 0;
}

static struct lane_end heap_pop(struct placer *p)
{
	struct lane_end top = p->heap[0], last = p->heap[--p->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= p->nheap)
			break;
		if (c + 1 < p->nheap && p->heap[c + 1].end < p->heap[c].end)
			c++;
		if (p->heap[c].end >= last.end)
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->nheap)
		p->heap[i] = last;
	return top;
}

/* Keys lane l for now. */
static int lane_rekey(struct placer *p, size_t l)
{
	const struct lane *L = &p->lanes[l];
	uint64_t key;
	if (!p->nest)
		key = UINT64_MAX - L->last_end;
	else if (!L->n)
		key = UINT64_MAX;
	else if (L->stack[L->n - 1].start < p->now)
		key = L->stack[L->n - 1].end;
	else {
		key = 0;
		if (grow_array((void **)&p->blocked, &p->capblocked, p->nblocked, sizeof *p->blocked))
			return GT_ERR_NOMEM;
		p->blocked[p->nblocked++] = l;
	}
	tree_set(p, l, key);
	return 0;
}

/* Host lanes as they are at st: the slices ended by then taken off, the lanes blocked at an earlier
 * start keyed again. */
static int placer_advance(struct placer *p, uint64_t st)
{
	if (!p->nest)
		return 0;
	if (st > p->now) {
		p->now = st;
		while (p->nblocked)
			if (lane_rekey(p, p->blocked[--p->nblocked]))
				return GT_ERR_NOMEM;
	}
	while (p->nheap && p->heap[0].end <= st) {
		size_t l = heap_pop(p).lane;
		struct lane *L = &p->lanes[l];
		if (!L->n || L->stack[L->n - 1].end > st)
			continue; /* stale: the lane's innermost slice is another one now */
		while (L->n && L->stack[L->n - 1].end <= st)
			L->n--;
		if ((L->n && heap_push(p, L->stack[L->n - 1].end, l)) || lane_rekey(p, l))
			return GT_ERR_NOMEM;
	}
	return 0;
}

/* The lane for [st, en) (a new one when none can take it), the slice put on it. */
static int placer_put(struct placer *p, uint64_t st, uint64_t en, size_t *lane)
{
	if (placer_advance(p, st))
		return GT_ERR_NOMEM;
	size_t l = tree_first(p, p->nest ? (en ? en : 1) : UINT64_MAX - st);
	if (l == SIZE_MAX) {
		if (p->nl == MAX_LANES) {
			l = p->nl - 1; /* cannot happen in a real trace; the last lane takes the rest */
		} else {
			if (grow_array((void **)&p->lanes, &p->capl, p->nl, sizeof *p->lanes))
				return GT_ERR_NOMEM;
			memset(&p->lanes[p->nl++], 0, sizeof *p->lanes);
			if (p->nl > p->tsize && tree_grow(p))
				return GT_ERR_NOMEM;
			l = p->nl - 1;
		}
	}
	struct lane *L = &p->lanes[l];
	if (p->nest) {
		if (grow_array((void **)&L->stack, &L->cap, L->n, sizeof *L->stack) || heap_push(p, en, l))
			return GT_ERR_NOMEM;
		L->stack[L->n++] = (struct gt_tl_span){ st, en };
	}
	if (en > L->last_end)
		L->last_end = en;
	*lane = l;
	return lane_rekey(p, l);
}

static int place_track(struct ex *x, struct track *t)
{
	for (int i = 0; i < NSRC; i++)
		if (sort_slices(&t->sl[i]) || gt_tl_sort_ties(t->sl[i].buf.p, t->sl[i].n, sizeof(struct slice), slice_end_of, x))
			return GT_ERR_NOMEM;
	struct placer p;
	memset(&p, 0, sizeof p);
	p.nest = t->kind == TK_THREAD;
	size_t pos[NSRC] = { 0 };
	int rc = 0;
	const struct slice *sl;
	uint64_t en;
	while (!rc && (sl = next_slice(x, t, pos, &en)) != NULL) {
		size_t l;
		if ((rc = placer_put(&p, sl->start, en, &l)) != 0)
			break;
		if (l) {
			struct moved *m = gt_tl_vec_push(&x->moved);
			if (!m) {
				rc = GT_ERR_NOMEM;
				break;
			}
			m->seq = sl->seq;
			m->lane = l;
			x->res->overlapped++;
		}
	}
	t->nlanes = p.nl ? (uint32_t)p.nl : 1;
	placer_release(&p);
	/* The slices are not needed any more: the lanes say where each goes. */
	for (int i = 0; i < NSRC; i++)
		gt_tl_vec_release(&t->sl[i]);
	return rc;
}

static int cmp_tracks(const void *pa, const void *pb)
{
	const struct track *a = *(struct track *const *)pa, *b = *(struct track *const *)pb;
	int ha = a->kind != TK_STREAM, hb = b->kind != TK_STREAM;
	if (ha != hb)
		return hb - ha; /* host first */
	if (!ha) {
		/* By process first: with several traces, devices beyond the 64th share one. */
		if (a->pid != b->pid)
			return a->pid < b->pid ? -1 : 1;
		if (a->device != b->device)
			return a->device < b->device ? -1 : 1;
		return a->key < b->key ? -1 : a->key > b->key;
	}
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

int gt_ex_place(struct ex *x)
{
	for (size_t i = 0; i < x->nt; i++) {
		int rc = place_track(x, &x->t[i]);
		if (rc)
			return rc;
		x->res->subtracks += x->t[i].nlanes - 1;
	}
	x->res->tracks += x->nt;
	if (gt_tl_vec_sort(&x->moved))
		return GT_ERR_NOMEM;
	/* tids: per process from 1, host threads by their first slice, then the other host tracks;
	 * device streams by id. The order table does not move the tracks (the hash holds indices). */
	struct track **ord = malloc((x->nt ? x->nt : 1) * sizeof *ord);
	if (!ord)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < x->nt; i++) {
		ord[i] = &x->t[i];
		ord[i]->pid = ord[i]->kind == TK_STREAM ? dev_pid(x, ord[i]->device) : x->host_pid;
	}
	qsort(ord, x->nt, sizeof *ord, cmp_tracks);
	uint32_t tid = 1, pid = 0;
	int have = 0;
	for (size_t i = 0; i < x->nt; i++) {
		struct track *t = ord[i];
		uint32_t p = t->pid;
		if (!have || p != pid)
			tid = 1;
		have = 1;
		pid = p;
		t->pid = p;
		t->tid0 = tid;
		tid += t->nlanes;
		t->nids = (size_t)snprintf(t->ids, sizeof t->ids, "\"pid\":%u,\"tid\":%u", t->pid, t->tid0);
	}
	free(ord);
	return 0;
}
