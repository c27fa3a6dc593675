/* timeline.c: event times, records sorted by time, and unions of intervals (see timeline.h).
 *
 * The sort is an insertion sort for nearly sorted arrays (the common case for one type of record
 * from one stream; a sorted one is detected in one pass and left alone), finished by the tool's
 * one LSD radix sort (common/radix.h: the key minus its minimum, in digits of at most 11 bits over
 * the bits that vary, so a trace spanning 10 s takes four passes). Both move whole records (16 to
 * 40 bytes) rather than indices: the engines read their records in time order afterwards, and a
 * sequential read of moved records beats a gather through an index.
 */
#include "analyze/blocks/timeline.h"

#include "common/grow.h"
#include "common/radix.h"
#include "traces/schema.h"

#include <stdlib.h>
#include <string.h>

/* Every kind's time is its schema row's: field 0, unless its flags mark the times bad. */
uint64_t gt_tl_event_time(const struct gt_event *ev)
{
	const struct gt_record_schema *k = gt_kind(ev->type);
	if (!k || gt_kind_bad_times(k, &ev->u))
		return 0;
	return gt_kind_start(&ev->u);
}

/* ---- records ---------------------------------------------------------------------------------- */

void gt_tl_vec_init(struct gt_tl_vec *v, size_t size)
{
	memset(v, 0, sizeof *v);
	v->size = size;
}

void gt_tl_vec_release(struct gt_tl_vec *v)
{
	if (!v)
		return;
	gt_growbuf_release(&v->buf);
	v->n = 0;
}

void *gt_tl_vec_grow_slow(struct gt_tl_vec *v)
{
	if (v->n > SIZE_MAX / v->size - 1 || gt_growbuf_reserve(&v->buf, (v->n + 1) * v->size))
		return NULL;
	return (char *)v->buf.p + v->n * v->size;
}

int gt_tl_vec_sort(struct gt_tl_vec *v) { return gt_tl_sort(v->buf.p, v->n, v->size); }

static inline uint64_t key_at(const char *base, size_t i, size_t size)
{
	uint64_t k;
	memcpy(&k, base + i * size, sizeof k);
	return k;
}

/* Stable insertion sort by the leading key; 1 when done within budget moves, else 0 (the array is
 * then a permutation of the input in which equal keys keep their order). */
static int insertion_sort(void *base, size_t n, size_t size, size_t budget)
{
	char *b = base;
	char tmp[64];
	if (size > sizeof tmp)
		return 0;
	size_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t k = key_at(b, i, size);
		if (key_at(b, i - 1, size) <= k)
			continue;
		memcpy(tmp, b + i * size, size);
		size_t j = i; /* the hole */
		while (j > 0 && key_at(b, j - 1, size) > k) {
			if (++moves > budget) {
				memcpy(b + j * size, tmp, size); /* fill the hole: still a permutation */
				return 0;
			}
			memcpy(b + j * size, b + (j - 1) * size, size);
			j--;
		}
		memcpy(b + j * size, tmp, size);
	}
	return 1;
}

int gt_tl_sort(void *base, size_t n, size_t size)
{
	if (n < 2)
		return 0;
	/* Nearly sorted arrays are the common case (records of one kind arrive nearly in time order;
	 * NVTX ranges arrive as they close, each parent after its children), and a sorted one costs
	 * the insertion sort one read: it moves each record only as far as it is out of place, with no
	 * scratch memory. It gives up after 4 n moves, leaving the array in a stable partial order,
	 * and the radix sort (common/radix.h) finishes. */
	if (insertion_sort(base, n, size, 4 * n))
		return 0;
	return gt_radix_sort(base, n, size) ? GT_ERR_NOMEM : 0;
}

/* ---- unions ----------------------------------------------------------------------------------- */

void gt_tl_union_init(struct gt_tl_union *u) { memset(u, 0, sizeof *u); }

void gt_tl_union_release(struct gt_tl_union *u)
{
	if (!u)
		return;
	gt_growbuf_release(&u->sbuf);
	gt_growbuf_release(&u->bbuf);
	memset(u, 0, sizeof *u);
}

int gt_tl_union_reserve(struct gt_tl_union *u, size_t need)
{
	if (need <= u->cap)
		return 0;
	if (need > SIZE_MAX / 2 / sizeof *u->s ||
	    gt_growbuf_reserve(&u->sbuf, need * sizeof *u->s) ||
	    gt_growbuf_reserve(&u->bbuf, need * sizeof *u->before))
		return GT_ERR_NOMEM;
	u->s = u->sbuf.p;
	u->before = u->bbuf.p;
	size_t a = u->sbuf.cap / sizeof *u->s, b = u->bbuf.cap / sizeof *u->before;
	u->cap = a < b ? a : b;
	return 0;
}

int gt_tl_union_add_slow(struct gt_tl_union *u, uint64_t start, uint64_t end)
{
	if (gt_tl_union_reserve(u, u->n + 1))
		return GT_ERR_NOMEM;
	return gt_tl_union_add(u, start, end);
}

int gt_tl_union_build(struct gt_tl_union *u, const void *recs, size_t n, size_t size)
{
	u->n = 0;
	u->total = 0;
	if (gt_tl_union_reserve(u, n))
		return GT_ERR_NOMEM;
	const char *p = recs;
	for (size_t i = 0; i < n; i++, p += size) {
		uint64_t iv[2];
		memcpy(iv, p, sizeof iv);
		if (gt_tl_union_add(u, iv[0], iv[1]))
			return GT_ERR_NOMEM;
	}
	return 0;
}

int gt_tl_union_intersect(const struct gt_tl_union *a, const struct gt_tl_union *b,
                          struct gt_tl_union *out)
{
	out->n = 0;
	out->total = 0;
	if (gt_tl_union_reserve(out, a->n + b->n))
		return GT_ERR_NOMEM;
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		uint64_t s = a->s[i].start > b->s[j].start ? a->s[i].start : b->s[j].start;
		uint64_t e = a->s[i].end < b->s[j].end ? a->s[i].end : b->s[j].end;
		if (s < e && gt_tl_union_add(out, s, e))
			return GT_ERR_NOMEM;
		if (a->s[i].end < b->s[j].end)
			i++;
		else
			j++;
	}
	return 0;
}

int gt_tl_union_merge(const struct gt_tl_union *a, const struct gt_tl_union *b, struct gt_tl_union *out)
{
	out->n = 0;
	out->total = 0;
	if (gt_tl_union_reserve(out, a->n + b->n))
		return GT_ERR_NOMEM;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		const struct gt_tl_span *s;
		if (j >= b->n || (i < a->n && a->s[i].start <= b->s[j].start))
			s = &a->s[i++];
		else
			s = &b->s[j++];
		if (gt_tl_union_add(out, s->start, s->end))
			return GT_ERR_NOMEM;
	}
	return 0;
}

size_t gt_tl_union_find(const struct gt_tl_union *u, uint64_t t)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->s[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Length covered before t: the spans that end by t in full, and the part of the one holding t. */
static uint64_t covered_before(const struct gt_tl_union *u, uint64_t t)
{
	size_t i = gt_tl_union_find(u, t); /* first span ending after t */
	if (i == u->n)
		return u->total;
	uint64_t c = u->before[i];
	if (t > u->s[i].start)
		c += t - u->s[i].start;
	return c;
}

uint64_t gt_tl_union_cover(const struct gt_tl_union *u, uint64_t a, uint64_t b)
{
	if (b <= a || u->n == 0)
		return 0;
	return covered_before(u, b) - covered_before(u, a);
}

/* ---- cursor ----------------------------------------------------------------------------------- */

void gt_tl_cursor_init(struct gt_tl_cursor *c, const void *recs, size_t n, size_t size, size_t filter_off,
                       uint32_t filter_val)
{
	memset(c, 0, sizeof *c);
	c->recs = recs;
	c->n = n;
	c->size = size;
	c->filter_off = filter_off;
	c->filter_val = filter_val;
}

void gt_tl_cursor_release(struct gt_tl_cursor *c)
{
	if (!c)
		return;
	free(c->buf);
	memset(c, 0, sizeof *c);
}

/* The next record that passes the filter, from c->next on; 0 when there is none. */
static int next_rec(struct gt_tl_cursor *c, uint64_t *start, uint64_t *end)
{
	while (c->next < c->n) {
		const char *r = c->recs + c->next++ * c->size;
		if (c->filter_off) {
			uint32_t v;
			memcpy(&v, r + c->filter_off, sizeof v);
			if (v != c->filter_val)
				continue;
		}
		uint64_t iv[2];
		memcpy(iv, r, sizeof iv);
		if (iv[1] <= iv[0])
			continue; /* covers nothing */
		*start = iv[0];
		*end = iv[1];
		return 1;
	}
	return 0;
}

/* Merges records into one more span at the end of the buffer: 1, 0 when the records are used up,
 * or GT_ERR_NOMEM. A span is complete when the next record starts after its end; that record
 * begins the next span (the cursor steps back to it). */
static int more(struct gt_tl_cursor *c)
{
	uint64_t s, e, s2, e2;
	if (!next_rec(c, &s, &e))
		return 0;
	for (;;) {
		size_t back = c->next;
		if (!next_rec(c, &s2, &e2))
			break;
		if (s2 > e) {
			c->next = back;
			break;
		}
		if (e2 > e)
			e = e2;
	}
	if (c->head > 0 && c->head * 2 >= c->len) {
		/* drop what no window can reach any more */
		memmove(c->buf, c->buf + c->head, (c->len - c->head) * sizeof *c->buf);
		c->at -= c->head;
		c->len -= c->head;
		c->head = 0;
	}
	struct gt_tl_span *q = gt_grow(c->buf, &c->cap, c->len, sizeof *q, 16);
	if (!q)
		return GT_ERR_NOMEM;
	c->buf = q;
	c->buf[c->len].start = s;
	c->buf[c->len].end = e;
	c->len++;
	return 1;
}

void gt_tl_cursor_begin(struct gt_tl_cursor *c, uint64_t a, uint64_t b, uint64_t next_a)
{
	c->a = a;
	c->b = b;
	c->next_a = next_a;
	while (c->head < c->len && c->buf[c->head].end <= a)
		c->head++;
	c->at = c->head;
}

int gt_tl_cursor_next(struct gt_tl_cursor *c, struct gt_tl_span *span)
{
	for (;;) {
		if (c->at == c->len) {
			int rc = more(c);
			if (rc <= 0)
				return rc;
		}
		const struct gt_tl_span *x = &c->buf[c->at];
		if (x->start >= c->b || c->b <= c->a)
			return 0; /* kept for the windows that follow */
		uint64_t s = x->start > c->a ? x->start : c->a, e = x->end < c->b ? x->end : c->b;
		/* Nothing later reaches a span that ends by the next window's start: drop it now (spans
		 * are disjoint and ordered, so those before it go too). */
		if (x->end <= c->next_a && c->at == c->head)
			c->head++;
		c->at++;
		if (e > s) {
			span->start = s;
			span->end = e;
			return 1;
		}
	}
}

int gt_tl_cursor_sum(struct gt_tl_cursor *c, uint64_t a, uint64_t b, uint64_t next_a, uint64_t *total)
{
	gt_tl_cursor_begin(c, a, b, next_a);
	struct gt_tl_span x;
	uint64_t t = 0;
	int rc;
	while ((rc = gt_tl_cursor_next(c, &x)) > 0)
		t += x.end - x.start;
	*total = t;
	return rc < 0 ? rc : 0;
}

uint64_t gt_tl_spans_overlap(const struct gt_tl_span *x, size_t nx, const struct gt_tl_span *y, size_t ny)
{
	uint64_t t = 0;
	size_t i = 0, j = 0;
	while (i < nx && j < ny) {
		uint64_t s = x[i].start > y[j].start ? x[i].start : y[j].start;
		uint64_t e = x[i].end < y[j].end ? x[i].end : y[j].end;
		if (s < e)
			t += e - s;
		if (x[i].end < y[j].end)
			i++;
		else
			j++;
	}
	return t;
}

size_t gt_tl_spans_merge(const struct gt_tl_span *x, size_t nx, const struct gt_tl_span *y, size_t ny,
                         struct gt_tl_span *out)
{
	size_t i = 0, j = 0, n = 0;
	while (i < nx || j < ny) {
		const struct gt_tl_span *s = (j >= ny || (i < nx && x[i].start <= y[j].start)) ? &x[i++] : &y[j++];
		if (n && s->start <= out[n - 1].end) {
			if (s->end > out[n - 1].end)
				out[n - 1].end = s->end;
		} else {
			out[n++] = *s;
		}
	}
	return n;
}

uint64_t gt_tl_spans_total(const struct gt_tl_span *x, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += x[i].end - x[i].start;
	return t;
}

int gt_tl_sort_ties(void *base, size_t n, size_t size, uint64_t (*end)(const void *rec, void *ctx),
                    void *ctx)
{
	char *b = base;
	size_t j;
	for (size_t i = 0; i < n; i = j) {
		uint64_t start, key;
		memcpy(&start, b + i * size, sizeof start);
		int ordered = 1;
		uint64_t prev = end(b + i * size, ctx);
		for (j = i + 1; j < n; j++) {
			memcpy(&key, b + j * size, sizeof key);
			if (key != start)
				break;
			uint64_t e = end(b + j * size, ctx);
			ordered &= e <= prev;
			prev = e;
		}
		if (ordered)
			continue;
		for (size_t k = i; k < j; k++) {
			key = UINT64_MAX - end(b + k * size, ctx);
			memcpy(b + k * size, &key, sizeof key);
		}
		int rc = gt_tl_sort(b + i * size, j - i, size);
		for (size_t k = i; k < j; k++)
			memcpy(b + k * size, &start, sizeof start);
		if (rc)
			return rc;
	}
	return 0;
}
