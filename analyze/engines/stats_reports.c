/* stats_reports.c: the nsys-style summary reports of stats_reports.h.
 *
 * Every report is "a value per record, grouped": a record costs a look-up of its group (by string
 * id for names, which are dense per file, so an array; by a map for composite keys) and a 16-byte
 * sample (group, value). At the end the samples are sorted by group with timeline.h's stable radix
 * sort and each group's run goes through stats.h. Groups are keyed by the bytes of what they are
 * (a name's text, not its id), so that two ids a hostile trace gives the same text make one group.
 *
 * nvtx_kern_sum joins three record kinds: kernels to their launching calls by correlation id (both
 * sorted by it), then the calls to the ranges open at their start, one sweep per thread over ranges
 * sorted by start with a stack of the open ones (start/end ranges: one sweep over every thread).
 */
#include "analyze/engines/stats_reports.h"

#include "common/fnv.h"
#include "common/grow.h"
#include "common/slots.h"
#include "analyze/support/demangle.h"
#include "traces/gputrace.h"
#include "analyze/support/idmap.h"
#include "analyze/support/load.h"
#include "analyze/blocks/launch_join.h"
#include "analyze/blocks/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const gt_stats_report_names[] = {
	"cuda_api_sum", "nvtx_sum", "nvtx_kern_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
	"cuda_gpu_mem_size_sum", "kern_launch_sum", NULL,
};

/* ---- groups keyed by bytes ------------------------------------------------------------------- */

/* A group holds only its key (the row's strings point into it) and what its row is made from,
 * not the row itself: a hostile trace may give a million groups, and a row is 248 bytes. */
enum group_shape { SHAPE_NAME = 0, SHAPE_RANGE, SHAPE_LAUNCH, SHAPE_OPERATION };

struct group {
	char *key;               /* the key's bytes, NUL-terminated */
	size_t len;
	uint64_t hash;
	char *demangled;         /* kernel groups */
	const char *copy_kind;   /* operation groups */
	int shape;               /* enum group_shape: how the key is laid out */
};

struct gtab {
	struct group *g;
	size_t n, cap;
	struct gt_slots index;   /* key bytes -> index in g */
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	uint64_t h = gt_fnv1a64(p, n);
	h ^= h >> 31;
	return h * 0x9e3779b97f4a7c15ull;
}

struct gkey {
	const void *p;
	size_t len;
	uint64_t hash;
};

static int group_is(const void *ctx, size_t i, const void *key)
{
	const struct group *g = &((const struct group *)ctx)[i];
	const struct gkey *k = key;
	return g->hash == k->hash && g->len == k->len && !memcmp(g->key, k->p, k->len);
}

static uint64_t group_hash(const void *ctx, size_t i) { return ((const struct group *)ctx)[i].hash; }

/* The index of the group with these key bytes, made when new (demangle: a kernel name, whose
 * demangled form is made once); SIZE_MAX when out of memory. */
static size_t gtab_find(struct gtab *t, const void *key, size_t len, int demangle)
{
	struct gkey k = { key, len, hash_bytes(key, len) };
	size_t found = gt_slots_find(&t->index, k.hash, group_is, t->g, &k);
	if (found != GT_SLOTS_NONE)
		return found;
	if (t->n >= UINT32_MAX - 1)
		return SIZE_MAX;
	struct group *q = gt_grow(t->g, &t->cap, t->n, sizeof *q, 64);
	if (!q)
		return SIZE_MAX;
	t->g = q;
	struct group *g = &t->g[t->n];
	memset(g, 0, sizeof *g);
	if (!(g->key = malloc(len + 1)))
		return SIZE_MAX;
	memcpy(g->key, key, len);
	g->key[len] = '\0';
	g->len = len;
	g->hash = k.hash;
	if ((demangle && !(g->demangled = gt_demangle(g->key))) ||
	    gt_slots_add(&t->index, k.hash, t->n, group_hash, t->g)) {
		free(g->key);
		free(g->demangled);
		return SIZE_MAX;
	}
	return t->n++;
}

/* After the last look-up: the index goes and the array is cut to its groups, for the rows'
 * strings point into the keys, which stay until the report is released. */
static void gtab_settle(struct gtab *t)
{
	gt_slots_release(&t->index);
	if (t->n && t->n < t->cap) {
		struct group *q = realloc(t->g, t->n * sizeof *q);
		if (q) { /* else the larger array serves as well */
			t->g = q;
			t->cap = t->n;
		}
	}
}

/* The row of group g, its statistics not yet filled in. */
static struct gt_stats_row row_of(const struct group *g)
{
	struct gt_stats_row row;
	memset(&row, 0, sizeof row);
	row.name = g->key;
	row.demangled = g->demangled;
	row.copy_kind = g->copy_kind;
	if (g->shape == SHAPE_RANGE) { /* "domain\0name\0style" */
		row.domain = g->key;
		row.name = row.domain + strlen(row.domain) + 1;
		row.style = row.name + strlen(row.name) + 1;
	} else if (g->shape == SHAPE_LAUNCH) { /* "name\0" and 9 u32: grid, block, smem, registers */
		uint32_t cfg[9];
		memcpy(cfg, g->key + strlen(g->key) + 1, sizeof cfg);
		memcpy(row.grid, cfg, sizeof row.grid);
		memcpy(row.block, cfg + 3, sizeof row.block);
		row.static_smem = cfg[6];
		row.dynamic_smem = cfg[7];
		row.registers = cfg[8];
	}
	return row;
}

static void gtab_release(struct gtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->g[i].key);
		free(t->g[i].demangled);
	}
	free(t->g);
	gt_slots_release(&t->index);
	memset(t, 0, sizeof *t);
}

/* ---- state --------------------------------------------------------------------------------- */

struct sample {                  /* sorted by group */
	uint64_t group, value;
};

struct call {                    /* a CUDA API call, for nvtx_kern_sum */
	uint64_t key;            /* the sort key of the moment */
	uint64_t start;
	uint32_t corr, thread;
};

struct kern {                    /* a kernel, for nvtx_kern_sum */
	uint64_t corr;
	uint64_t dur;
	uint64_t kgroup;
};

struct range {                   /* a closed NVTX range, for nvtx_kern_sum */
	uint64_t start, end;
	uint32_t thread, rgroup;
	uint32_t start_end, pad;
};

struct launch {                  /* a kernel with its launching call */
	uint64_t key;
	uint64_t start;
	uint64_t dur;
	uint32_t thread, kgroup;
	uint64_t idx;            /* position in the first order, for "inside no range" */
};

struct attribution {             /* a kernel in a range instance */
	uint64_t key, other, dur;
};

struct report_state {
	struct gtab main, ranges, kernels; /* ranges, kernels: nvtx_kern_sum's two sides */
	struct gt_tl_vec samples;
	uint32_t *by_id;         /* this file's string id -> group index + 1 */
	size_t nby_id;
	struct gt_idmap nvtx_ids; /* (name id, domain id, style) -> group index of the range table */
	struct gt_tl_vec calls, kerns, rngs;
};

static int sample(struct report_state *st, size_t group, uint64_t value)
{
	struct sample *s = gt_tl_vec_push(&st->samples);
	if (!s)
		return GT_ERR_NOMEM;
	s->group = group;
	s->value = value;
	return 0;
}

/* The group of string id `id` in t, by its text; SIZE_MAX when out of memory. Ids are dense per
 * file (and there is one file), so a cache by id makes a record's look-up an array access. */
static size_t group_of_id(struct report_state *st, struct gtab *t, const struct gt_reader *r, uint32_t id,
                          int demangle)
{
	if (id > gt_reader_string_count(r))
		id = 0;
	if (id >= st->nby_id) {
		size_t n = st->nby_id ? st->nby_id : 256;
		while (n <= id)
			n *= 2;
		uint32_t *q = realloc(st->by_id, n * sizeof *q);
		if (!q)
			return SIZE_MAX;
		memset(q + st->nby_id, 0, (n - st->nby_id) * sizeof *q);
		st->by_id = q;
		st->nby_id = n;
	}
	if (!st->by_id[id]) {
		const char *s = gt_reader_string(r, id);
		size_t g = gtab_find(t, s, strlen(s), demangle);
		if (g == SIZE_MAX)
			return g;
		st->by_id[id] = (uint32_t)g + 1;
	}
	return st->by_id[id] - 1;
}

/* An NVTX range's group in t: domain, name and style, as "domain\0name\0style". */
static size_t range_group(struct report_state *st, struct gtab *t, const struct gt_reader *r,
                          const struct gt_nvtx *n)
{
	int start_end = n->kind == GT_NVTX_START_END;
	uint64_t key = (uint64_t)n->name_id | (uint64_t)n->domain_id << 31 | (uint64_t)start_end << 62;
	if (n->name_id >= 1u << 31 || n->domain_id >= 1u << 31)
		key = UINT64_MAX; /* not from a reader, which keeps far fewer strings: looked up by text */
	size_t g = key == UINT64_MAX ? SIZE_MAX : gt_idmap_get(&st->nvtx_ids, key);
	if (g != SIZE_MAX)
		return g;
	const char *dom = n->domain_id ? gt_reader_string(r, n->domain_id) : "";
	const char *name = gt_reader_string(r, n->name_id);
	const char *style = start_end ? "StartEnd" : "PushPop";
	size_t ld = strlen(dom), ln = strlen(name), ls = strlen(style);
	char *buf = malloc(ld + ln + ls + 3);
	if (!buf)
		return SIZE_MAX;
	memcpy(buf, dom, ld + 1);
	memcpy(buf + ld + 1, name, ln + 1);
	memcpy(buf + ld + ln + 2, style, ls + 1);
	g = gtab_find(t, buf, ld + ln + ls + 2, 0);
	free(buf);
	if (g == SIZE_MAX)
		return g;
	t->g[g].shape = SHAPE_RANGE;
	if (key != UINT64_MAX && gt_idmap_put(&st->nvtx_ids, key, g))
		return SIZE_MAX;
	return g;
}

const char *gt_stats_operation_name(int copy_kind)
{
	static const char *const names[] = {
		"[CUDA memcpy unknown]", "[CUDA memcpy Host-to-Device]", "[CUDA memcpy Device-to-Host]",
		"[CUDA memcpy Host-to-Array]", "[CUDA memcpy Array-to-Host]", "[CUDA memcpy Array-to-Array]",
		"[CUDA memcpy Array-to-Device]", "[CUDA memcpy Device-to-Array]", "[CUDA memcpy Device-to-Device]",
		"[CUDA memcpy Host-to-Host]", "[CUDA memcpy Peer-to-Peer]",
	};
	return copy_kind >= 0 && copy_kind < (int)(sizeof names / sizeof names[0]) ? names[copy_kind] : names[0];
}

static size_t operation_group(struct gtab *t, int copy_kind, int memset)
{
	const char *op = memset ? "[CUDA memset]" : gt_stats_operation_name(copy_kind);
	size_t g = gtab_find(t, op, strlen(op), 0);
	if (g != SIZE_MAX)
		t->g[g].copy_kind = memset ? "memset" : gt_copy_kind_name(copy_kind);
	return g;
}

/* kern_launch_sum: the kernel's name and its configuration, as bytes. */
static size_t launch_group(struct gtab *t, const struct gt_reader *r, const struct gt_kernel *k)
{
	const char *name = gt_reader_string(r, k->name_id > gt_reader_string_count(r) ? 0 : k->name_id);
	uint32_t cfg[9] = { k->grid_x, k->grid_y, k->grid_z, k->block_x, k->block_y, k->block_z,
		            k->static_smem, k->dynamic_smem, k->registers };
	size_t ln = strlen(name);
	char *buf = malloc(ln + 1 + sizeof cfg);
	if (!buf)
		return SIZE_MAX;
	memcpy(buf, name, ln + 1);
	memcpy(buf + ln + 1, cfg, sizeof cfg);
	size_t g = gtab_find(t, buf, ln + 1 + sizeof cfg, 1);
	free(buf);
	if (g == SIZE_MAX)
		return g;
	t->g[g].shape = SHAPE_LAUNCH;
	return g;
}

/* ---- records ------------------------------------------------------------------------------- */

static int kernel_good(const struct gt_kernel *k) { return !(k->flags & GT_KERNEL_BAD_TIMES) && k->end >= k->start; }

static int on_kernel(struct gt_stats_report *rep, const struct gt_reader *r, const struct gt_kernel *k)
{
	struct report_state *st = rep->state;
	rep->trace.records++;
	if (!kernel_good(k)) {
		rep->trace.bad_times++;
		return 0;
	}
	size_t g;
	switch (rep->kind) {
	case GT_STATS_GPU_KERN_SUM: g = group_of_id(st, &st->main, r, k->name_id, 1); break;
	case GT_STATS_KERN_LAUNCH_SUM: g = launch_group(&st->main, r, k); break;
	default: {
		g = group_of_id(st, &st->kernels, r, k->name_id, 1);
		struct kern *x = g == SIZE_MAX ? NULL : gt_tl_vec_push(&st->kerns);
		if (!x)
			return GT_ERR_NOMEM;
		*x = (struct kern){ k->correlation_id, k->end - k->start, g };
		return 0;
	}
	}
	return g == SIZE_MAX ? GT_ERR_NOMEM : sample(st, g, k->end - k->start);
}

static int on_api(struct gt_stats_report *rep, const struct gt_reader *r, const struct gt_api *a)
{
	struct report_state *st = rep->state;
	rep->trace.records++;
	if (rep->kind == GT_STATS_NVTX_KERN_SUM) {
		struct call *c = gt_tl_vec_push(&st->calls);
		if (!c)
			return GT_ERR_NOMEM;
		*c = (struct call){ a->start, a->start, a->correlation_id, (uint32_t)a->thread_id };
		return 0;
	}
	if (a->end < a->start) {
		rep->trace.bad_times++;
		return 0;
	}
	size_t g = group_of_id(st, &st->main, r, a->name_id, 0);
	return g == SIZE_MAX ? GT_ERR_NOMEM : sample(st, g, a->end - a->start);
}

static int on_nvtx(struct gt_stats_report *rep, const struct gt_reader *r, const struct gt_nvtx *n)
{
	struct report_state *st = rep->state;
	if (!gt_stats_trace_nvtx(&rep->trace, n, 0))
		return 0;
	struct gtab *t = rep->kind == GT_STATS_NVTX_SUM ? &st->main : &st->ranges;
	size_t g = range_group(st, t, r, n);
	if (g == SIZE_MAX)
		return GT_ERR_NOMEM;
	if (rep->kind == GT_STATS_NVTX_SUM)
		return sample(st, g, n->end - n->start);
	struct range *x = gt_tl_vec_push(&st->rngs);
	if (!x)
		return GT_ERR_NOMEM;
	*x = (struct range){ n->start, n->end, n->thread_id, (uint32_t)g, n->kind == GT_NVTX_START_END, 0 };
	return 0;
}

static int on_memory_op(struct gt_stats_report *rep, uint64_t start, uint64_t end, uint64_t bytes, int copy_kind,
                        int memset, int tool)
{
	struct report_state *st = rep->state;
	rep->trace.records++;
	if (tool) {
		rep->trace.tool_copies++;
		return 0;
	}
	if (end < start) {
		rep->trace.bad_times++;
		return 0;
	}
	size_t g = operation_group(&st->main, copy_kind, memset);
	if (g == SIZE_MAX)
		return GT_ERR_NOMEM;
	return sample(st, g, rep->kind == GT_STATS_GPU_MEM_SIZE_SUM ? bytes : end - start);
}

static int on_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_stats_report *rep = ctx;
	switch (rep->kind) {
	case GT_STATS_CUDA_API_SUM:
		return ev->type == GT_REC_API ? on_api(rep, r, &ev->u.api) : 0;
	case GT_STATS_NVTX_SUM:
		return ev->type == GT_REC_NVTX ? on_nvtx(rep, r, &ev->u.nvtx) : 0;
	case GT_STATS_NVTX_KERN_SUM:
		if (ev->type == GT_REC_API)
			return on_api(rep, r, &ev->u.api);
		if (ev->type == GT_REC_NVTX)
			return on_nvtx(rep, r, &ev->u.nvtx);
		return ev->type == GT_REC_KERNEL ? on_kernel(rep, r, &ev->u.kernel) : 0;
	case GT_STATS_GPU_KERN_SUM:
	case GT_STATS_KERN_LAUNCH_SUM:
		return ev->type == GT_REC_KERNEL ? on_kernel(rep, r, &ev->u.kernel) : 0;
	default:
		if (ev->type == GT_REC_MEMCPY) {
			const struct gt_memcpy *m = &ev->u.memcpy;
			return on_memory_op(rep, m->start, m->end, m->bytes, m->copy_kind, 0, (m->flags & GT_COPY_TOOL) != 0);
		}
		if (ev->type == GT_REC_MEMSET) {
			const struct gt_memset *m = &ev->u.memset;
			return on_memory_op(rep, m->start, m->end, m->bytes, 0, 1, 0);
		}
		return 0;
	}
}

/* ---- nvtx_kern_sum: kernels into range instances --------------------------------------------- */

static int cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	if (a->start_end != b->start_end)
		return a->start_end < b->start_end ? -1 : 1;
	if (!a->start_end && a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end < b->end) - (a->end > b->end); /* the longer first: it holds the other */
}

static int add_launch(void *out, const void *call, const void *kern)
{
	const struct call *c = call;
	const struct kern *k = kern;
	struct launch *l = gt_tl_vec_push(out);
	if (!l)
		return GT_ERR_NOMEM;
	*l = (struct launch){ c->start, c->start, k->dur, c->thread, (uint32_t)k->kgroup, 0 };
	return 0;
}

/* Pairs each kernel with the earliest call of its correlation id: the launches, in *out. */
static int join_calls(struct gt_stats_report *rep, struct gt_tl_vec *out)
{
	struct report_state *st = rep->state;
	int rc = gt_launch_join(&st->calls, offsetof(struct call, corr), &st->kerns, add_launch, out,
	                        &rep->trace.no_call);
	if (rc)
		return rc;
	gt_tl_vec_release(&st->calls);
	gt_tl_vec_release(&st->kerns);
	return 0;
}

/* The sweep's stack of open ranges. A range on it is closed once the sweep's time reaches its end
 * (the time only grows, so it stays closed); closed ranges are popped when on top, and skipped when
 * under an open one (start/end ranges, and hostile push/pop ones, need not nest). To keep each
 * launch's cost O(GT_NVTX_KERN_MAX_OPEN log n) however deep the stack: the ends of the ranges on it
 * are in a min-heap, so that each range is found closed once, when the time passes its end; a
 * closed position links to the next position below that may be open (union-find, with the links
 * shortened as they are followed), so that the innermost open ranges are found without walking
 * the closed ones; and the open ones are counted, so that those past the cap are counted without
 * being visited. */
struct open_stack {
	size_t *pos;             /* position -> range index */
	size_t *link;            /* closed position -> 1 + the position below it to look at; 0: none */
	unsigned char *closed;   /* per position */
	size_t *where;           /* range index - r0 -> position + 1; 0: not on the stack */
	size_t *heap, nheap;     /* range indexes, by end */
	size_t top, open;
};

static int ends_before(const struct range *rg, size_t a, size_t b) { return rg[a].end < rg[b].end; }

static void heap_push(struct open_stack *s, const struct range *rg, size_t r)
{
	size_t i = s->nheap++;
	while (i > 0 && ends_before(rg, r, s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = r;
}

static size_t heap_pop(struct open_stack *s, const struct range *rg)
{
	size_t top = s->heap[0], last = s->heap[--s->nheap], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ends_before(rg, s->heap[c + 1], s->heap[c]))
			c++;
		if (!ends_before(rg, s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* Marks closed every range on the stack whose end is <= t, then pops the closed ones on top. */
static void close_until(struct open_stack *s, const struct range *rg, size_t r0, uint64_t t)
{
	while (s->nheap && rg[s->heap[0]].end <= t) {
		size_t r = heap_pop(s, rg), w = s->where[r - r0];
		if (!w)
			continue; /* popped already */
		s->closed[w - 1] = 1;
		s->link[w - 1] = w - 1; /* 1 + (w - 1 - 1): the position below */
		s->open--;
	}
	while (s->top && s->closed[s->top - 1])
		s->where[s->pos[--s->top] - r0] = 0;
}

/* 1 + the highest open position <= p - 1 (p is 1 + a position); 0 when none. */
static size_t find_open(struct open_stack *s, size_t p)
{
	size_t q = p;
	while (q && s->closed[q - 1])
		q = s->link[q - 1];
	while (p && s->closed[p - 1]) { /* shorten the links followed */
		size_t next = s->link[p - 1];
		s->link[p - 1] = q;
		p = next;
	}
	return q;
}

static void stack_clear(struct open_stack *s, size_t r0)
{
	while (s->top)
		s->where[s->pos[--s->top] - r0] = 0;
	s->nheap = 0;
	s->open = 0;
}

/* One sweep: launches sorted by (thread, start) for push/pop ranges, by start for start/end ones;
 * ranges [r0, r1) sorted alike. Each launch goes into the open ranges that hold it, the innermost
 * GT_NVTX_KERN_MAX_OPEN of them. */
static int sweep(struct gt_stats_report *rep, const struct launch *l, size_t nl, const struct range *rg, size_t r0,
                 size_t r1, int by_thread, unsigned char *attributed, struct gt_tl_vec *att)
{
	size_t n = r1 - r0 + 1;
	struct open_stack s = { 0 };
	s.pos = malloc(n * sizeof *s.pos);
	s.link = malloc(n * sizeof *s.link);
	s.closed = malloc(n);
	s.where = calloc(n, sizeof *s.where);
	s.heap = malloc(n * sizeof *s.heap);
	int rc = s.pos && s.link && s.closed && s.where && s.heap ? 0 : GT_ERR_NOMEM;
	size_t next = r0;
	uint32_t thread = 0;
	for (size_t i = 0; !rc && i < nl; i++) {
		uint64_t t = l[i].start;
		if (by_thread && (i == 0 || l[i].thread != thread)) {
			thread = l[i].thread;
			stack_clear(&s, r0);
			while (next < r1 && rg[next].thread < thread)
				next++;
		}
		while (next < r1 && (!by_thread || rg[next].thread == thread) && rg[next].start <= t) {
			close_until(&s, rg, r0, rg[next].start);
			s.pos[s.top] = next;
			s.closed[s.top] = 0;
			s.where[next - r0] = ++s.top;
			s.open++;
			heap_push(&s, rg, next++);
		}
		close_until(&s, rg, r0, t);
		size_t seen = 0;
		for (size_t p = find_open(&s, s.top); p && seen < GT_NVTX_KERN_MAX_OPEN; p = find_open(&s, p - 1)) {
			const struct range *x = &rg[s.pos[p - 1]];
			struct attribution *a = gt_tl_vec_push(att);
			if (!a) {
				rc = GT_ERR_NOMEM;
				break;
			}
			*a = (struct attribution){ s.pos[p - 1], (uint64_t)x->rgroup << 32 | l[i].kgroup, l[i].dur };
			attributed[l[i].idx] = 1;
			seen++;
		}
		rep->capped += s.open - seen;
	}
	free(s.pos);
	free(s.link);
	free(s.closed);
	free(s.where);
	free(s.heap);
	return rc;
}

static int attribute(struct gt_stats_report *rep, struct gt_tl_vec *att)
{
	struct report_state *st = rep->state;
	struct gt_tl_vec lv;
	gt_tl_vec_init(&lv, sizeof(struct launch));
	int rc = join_calls(rep, &lv);
	struct launch *by_start = NULL;
	unsigned char *attributed = NULL;
	size_t n = lv.n;
	if (rc || (rc = gt_tl_vec_sort(&lv)) != 0) /* by the call's start */
		goto done;
	by_start = malloc((n ? n : 1) * sizeof *by_start);
	attributed = calloc(n ? n : 1, 1);
	if (!by_start || !attributed) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	struct launch *l = lv.buf.p;
	for (size_t i = 0; i < n; i++) {
		l[i].idx = i;
		by_start[i] = l[i];
		l[i].key = l[i].thread;
	}
	if ((rc = gt_tl_vec_sort(&lv)) != 0) /* by thread, then start: the sort is stable */
		goto done;
	struct range *rg = st->rngs.buf.p;
	size_t nr = st->rngs.n, npp = 0;
	if (nr) /* qsort wants an array, even of none */
		qsort(rg, nr, sizeof *rg, cmp_range);
	while (npp < nr && !rg[npp].start_end)
		npp++;
	rc = sweep(rep, l, n, rg, 0, npp, 1, attributed, att);
	if (!rc)
		rc = sweep(rep, by_start, n, rg, npp, nr, 0, attributed, att);
	for (size_t i = 0; !rc && i < n; i++)
		rep->outside += !attributed[i];
done:
	free(by_start);
	free(attributed);
	gt_tl_vec_release(&lv);
	return rc;
}

/* The rows of nvtx_kern_sum: attributions sorted by range instance, then (stably) by pair, so
 * that each pair's run lists its instances in order and distinct ones are counted in passing. */
static int kern_rows(struct gt_stats_report *rep)
{
	struct report_state *st = rep->state;
	struct gt_tl_vec att;
	gt_tl_vec_init(&att, sizeof(struct attribution));
	int rc = attribute(rep, &att);
	if (!rc && (rc = gt_tl_vec_sort(&att)) == 0) {
		struct attribution *a = att.buf.p;
		for (size_t i = 0; i < att.n; i++) {
			uint64_t t = a[i].key;
			a[i].key = a[i].other;
			a[i].other = t;
		}
		rc = gt_tl_vec_sort(&att);
	}
	uint64_t *vals = rc ? NULL : malloc((att.n ? att.n : 1) * sizeof *vals);
	if (!rc && !vals)
		rc = GT_ERR_NOMEM;
	size_t cap = 0;
	const struct attribution *a = att.buf.p;
	for (size_t i = 0; !rc && i < att.n;) {
		size_t j = i, inst = 0;
		for (; j < att.n && a[j].key == a[i].key; j++) {
			inst += j == i || a[j].other != a[j - 1].other;
			vals[j - i] = a[j].dur;
		}
		if (rep->nrows == cap) {
			cap = cap ? cap * 2 : 64;
			struct gt_stats_row *q = realloc(rep->rows, cap * sizeof *q);
			if (!q) {
				rc = GT_ERR_NOMEM;
				break;
			}
			rep->rows = q;
		}
		struct gt_stats_row *row = &rep->rows[rep->nrows++];
		*row = row_of(&st->ranges.g[a[i].key >> 32]);
		const struct group *k = &st->kernels.g[a[i].key & 0xffffffffu];
		row->kernel = k->key;
		row->kernel_demangled = k->demangled;
		row->instances = inst;
		gt_stats_compute_u64(&row->st, vals, j - i);
		i = j;
	}
	free(vals);
	gt_tl_vec_release(&att);
	return rc;
}

/* ---- the other reports' rows --------------------------------------------------------------- */

static int sample_rows(struct gt_stats_report *rep)
{
	struct report_state *st = rep->state;
	if (gt_tl_vec_sort(&st->samples))
		return GT_ERR_NOMEM;
	size_t n = st->samples.n, ng = st->main.n;
	uint64_t *vals = malloc((n ? n : 1) * sizeof *vals);
	if (!vals || !(rep->rows = calloc(ng ? ng : 1, sizeof *rep->rows))) {
		free(vals);
		return GT_ERR_NOMEM;
	}
	const struct sample *s = st->samples.buf.p;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		for (; j < n && s[j].group == s[i].group; j++)
			vals[j - i] = s[j].value;
		struct gt_stats_row *row = &rep->rows[rep->nrows++];
		*row = row_of(&st->main.g[s[i].group]);
		gt_stats_compute_u64(&row->st, vals, j - i);
		i = j;
	}
	free(vals);
	gt_tl_vec_release(&st->samples);
	return 0;
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

static int cmp_u32s(const uint32_t *a, const uint32_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct gt_stats_row *a = pa, *b = pb;
	if (a->st.total != b->st.total)
		return a->st.total > b->st.total ? -1 : 1;
	int c = cmp_str(a->name, b->name);
	c = c ? c : cmp_str(a->domain, b->domain);
	c = c ? c : cmp_str(a->style, b->style);
	return c ? c : cmp_str(a->kernel, b->kernel);
}

static int cmp_launch_rows(const void *pa, const void *pb)
{
	const struct gt_stats_row *a = pa, *b = pb;
	if (a->st.n != b->st.n)
		return a->st.n > b->st.n ? -1 : 1;
	int c = cmp_str(a->name, b->name);
	c = c ? c : cmp_u32s(a->grid, b->grid, 3);
	c = c ? c : cmp_u32s(a->block, b->block, 3);
	const uint32_t x[] = { a->static_smem, a->dynamic_smem, a->registers };
	const uint32_t y[] = { b->static_smem, b->dynamic_smem, b->registers };
	return c ? c : cmp_u32s(x, y, 3);
}

int gt_stats_report_run(struct gt_stats_report *rep, int kind, const char *path)
{
	memset(rep, 0, sizeof *rep);
	rep->kind = kind;
	if (!(rep->trace.path = strdup(path)) || !(rep->state = calloc(1, sizeof *rep->state)))
		return GT_ERR_NOMEM;
	struct report_state *st = rep->state;
	gt_tl_vec_init(&st->samples, sizeof(struct sample));
	gt_tl_vec_init(&st->calls, sizeof(struct call));
	gt_tl_vec_init(&st->kerns, sizeof(struct kern));
	gt_tl_vec_init(&st->rngs, sizeof(struct range));
	int rc = gt_stats_trace_read(&rep->trace, on_record, rep);
	free(st->by_id);
	st->by_id = NULL;
	st->nby_id = 0;
	gt_idmap_release(&st->nvtx_ids);
	gtab_settle(&st->main);
	gtab_settle(&st->ranges);
	gtab_settle(&st->kernels);
	if (!rc)
		rc = kind == GT_STATS_NVTX_KERN_SUM ? kern_rows(rep) : sample_rows(rep);
	if (rc)
		return rc;
	for (size_t i = 0; i < rep->nrows; i++)
		rep->total += rep->rows[i].st.total;
	for (size_t i = 0; i < rep->nrows; i++)
		rep->rows[i].pct = rep->total > 0 ? 100 * rep->rows[i].st.total / rep->total : NAN;
	if (rep->nrows)
		qsort(rep->rows, rep->nrows, sizeof *rep->rows,
		      kind == GT_STATS_KERN_LAUNCH_SUM ? cmp_launch_rows : cmp_rows);
	return 0;
}

void gt_stats_report_release(struct gt_stats_report *rep)
{
	if (!rep)
		return;
	struct report_state *st = rep->state;
	if (st) {
		gtab_release(&st->main);
		gtab_release(&st->ranges);
		gtab_release(&st->kernels);
		gt_tl_vec_release(&st->samples);
		gt_tl_vec_release(&st->calls);
		gt_tl_vec_release(&st->kerns);
		gt_tl_vec_release(&st->rngs);
		gt_idmap_release(&st->nvtx_ids);
		free(st->by_id);
		free(st);
	}
	free(rep->rows);
	gt_stats_trace_release(&rep->trace);
	memset(rep, 0, sizeof *rep);
}
