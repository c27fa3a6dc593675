/* timeline.h: events in time order, and the time covered by sets of intervals.
 *
 * The pieces that split, bandwidth and findings share (and that any later command that asks "when,
 * and for how long at once" can reuse):
 *
 *   - where a trace starts: gt_tl_event_time() gives the CUPTI timestamp of any event, so that every
 *     command measures "time from trace start" from the same origin (the earliest such timestamp;
 *     in a recording, the PROCESS start record);
 *   - a growable array of fixed-size records (gt_tl_vec), for what a command keeps per event while
 *     it streams a trace, sorted afterwards by the record's first field (a uint64_t time) with a
 *     stable radix sort: CUPTI hands records over in buffers, so file order is not time order, but
 *     it is close to it, and an array that is already sorted costs one pass to check;
 *   - the union of intervals (gt_tl_union): "GPU busy" is the time during which at least one
 *     kernel ran, not the sum of kernel durations (concurrent kernels would count twice). A union is
 *     built once from intervals sorted by start, then answers "how much of [a, b) is covered" in
 *     O(log n) through prefix sums, so that a million units can each ask about their own interval.
 *     Unions intersect (copies that overlap kernels) and merge (all GPU work);
 *   - a cursor over the union (gt_tl_cursor), for many consecutive windows (units of work, time
 *     slices) asked in order of their start: it merges a sorted array into disjoint spans as the
 *     windows move forward and keeps only the spans a later window can still reach, so it needs
 *     no memory per interval; each window gets its spans clipped to it, which combine into
 *     overlaps and unions of several kinds (gt_tl_spans_*) within the window.
 *
 * Intervals are half-open, [start, end), in nanoseconds. An interval with end <= start covers
 * nothing and is left out of a union.
 */
#ifndef GT_TIMELINE_H
#define GT_TIMELINE_H

#include "analyze/support/growbuf.h"
#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

/* The CUPTI-clock time of an event, or 0 when it has none: the start of kernels (unless flagged
 * GT_KERNEL_BAD_TIMES), copies, memsets, API calls, syncs, NVTX ranges, overheads and graph
 * launches; the timestamp of memory, dropped, process and clock-sample records; clock_sync's
 * cupti_ns. Variable records (strings, devices, ...) have none. The trace's origin ("trace start")
 * is the smallest non-zero value over its events. */
uint64_t gt_tl_event_time(const struct gt_event *ev);

/* ---- records kept while streaming ------------------------------------------------------------
 * size is a multiple of 8 and each record begins with its uint64_t sort key (a start time). */
struct gt_tl_vec {
	struct gt_growbuf buf;
	size_t n;                /* records */
	size_t size;             /* bytes per record */
};

void gt_tl_vec_init(struct gt_tl_vec *v, size_t size);
void gt_tl_vec_release(struct gt_tl_vec *v);
/* Room for one more record at the end: its address (count it with v->n++ after filling), or NULL
 * when out of memory. */
void *gt_tl_vec_grow_slow(struct gt_tl_vec *v);
static inline void *gt_tl_vec_push(struct gt_tl_vec *v)
{
	if ((v->n + 1) * v->size <= v->buf.cap)
		return (char *)v->buf.p + v->n++ * v->size;
	void *p = gt_tl_vec_grow_slow(v);
	if (p)
		v->n++;
	return p;
}
static inline void *gt_tl_vec_at(const struct gt_tl_vec *v, size_t i)
{
	return (char *)v->buf.p + i * v->size;
}
/* Sorts by the leading uint64_t key, ascending and stable (equal keys keep their order). 0, or
 * GT_ERR_NOMEM (v unchanged). */
int gt_tl_vec_sort(struct gt_tl_vec *v);
/* The same for any array of n records of size bytes (a multiple of 8), key first. */
int gt_tl_sort(void *base, size_t n, size_t size);
/* In an array sorted by its leading key (a start time), each run of records with one key, stably
 * by end(record, ctx) descending, so that a slice or range that encloses the others of its run
 * comes first. A run already in that order (the usual: runs are short) is left alone; any other
 * is radix-sorted with the key UINT64_MAX - end put in the start's place, the start put back after
 * (a program may start any number of ranges, or calls on as many threads, at one instant, and an
 * insertion sort would move each past all the others). 0, or GT_ERR_NOMEM. */
int gt_tl_sort_ties(void *base, size_t n, size_t size, uint64_t (*end)(const void *rec, void *ctx),
                    void *ctx);

/* ---- unions of intervals -------------------------------------------------------------------- */
struct gt_tl_span {
	uint64_t start, end;
};

struct gt_tl_union {
	struct gt_tl_span *s;    /* disjoint, sorted, none empty; touching intervals are one span */
	uint64_t *before;        /* before[i]: total length of spans 0..i-1 */
	size_t n, cap;
	uint64_t total;          /* total length of all spans */
	struct gt_growbuf sbuf, bbuf; /* where s and before live (huge pages once large) */
};

void gt_tl_union_init(struct gt_tl_union *u);
void gt_tl_union_release(struct gt_tl_union *u);
/* Builds u from n records of size bytes (a multiple of 8) sorted by start, each beginning with
 * uint64_t start, end. 0 or GT_ERR_NOMEM. */
int gt_tl_union_build(struct gt_tl_union *u, const void *recs, size_t n, size_t size);
/* Adds one interval; intervals must come in order of start (the union is extended at its end).
 * 0 or GT_ERR_NOMEM. */
int gt_tl_union_add_slow(struct gt_tl_union *u, uint64_t start, uint64_t end);
static inline int gt_tl_union_add(struct gt_tl_union *u, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (u->n && start <= u->s[u->n - 1].end) {
		struct gt_tl_span *last = &u->s[u->n - 1];
		if (end > last->end) {
			u->total += end - last->end;
			last->end = end;
		}
		return 0;
	}
	if (u->n < u->cap) {
		/* Spans before this one are final: nothing later can start before their end. */
		u->before[u->n] = u->total;
		u->s[u->n].start = start;
		u->s[u->n].end = end;
		u->n++;
		u->total += end - start;
		return 0;
	}
	return gt_tl_union_add_slow(u, start, end);
}
/* Room for at least n spans, so that adding them allocates nothing more. 0 or GT_ERR_NOMEM. */
int gt_tl_union_reserve(struct gt_tl_union *u, size_t n);
/* out = a intersected with b; out = a united with b. out must be initialised and is replaced. */
int gt_tl_union_intersect(const struct gt_tl_union *a, const struct gt_tl_union *b,
                          struct gt_tl_union *out);
int gt_tl_union_merge(const struct gt_tl_union *a, const struct gt_tl_union *b, struct gt_tl_union *out);
/* Length of [a, b) covered by u (0 when b <= a). O(log n). */
uint64_t gt_tl_union_cover(const struct gt_tl_union *u, uint64_t a, uint64_t b);
/* Index of the first span that ends after t (u->n if none). */
size_t gt_tl_union_find(const struct gt_tl_union *u, uint64_t t);

/* ---- a cursor over the union of sorted intervals ------------------------------------------------
 * Over n records of size bytes sorted by start, each beginning with uint64_t start, end; with
 * filter_off > 0 only the records whose uint32_t at that byte offset equals filter_val.
 *
 *     gt_tl_cursor_begin(&c, a, b, next_a);
 *     while (gt_tl_cursor_next(&c, &span) > 0) ...   // the union's spans in [a, b), clipped
 *
 * Windows are asked in order of a (never decreasing); next_a is the start of the window that will
 * follow (UINT64_MAX after the last): spans ending by then are dropped as soon as they are read, so
 * consecutive windows that do not overlap need no memory however long they are, and overlapping
 * ones (units on two threads) keep just the spans they share. */
struct gt_tl_cursor {
	const char *recs;
	size_t n, size, next;    /* next: the first record not merged yet */
	size_t filter_off;
	uint32_t filter_val;
	struct gt_tl_span *buf;  /* merged spans still reachable: buf[head .. len) */
	size_t head, len, cap;
	size_t at;               /* the window's next span in buf */
	uint64_t a, b, next_a;
};

void gt_tl_cursor_init(struct gt_tl_cursor *c, const void *recs, size_t n, size_t size, size_t filter_off,
                       uint32_t filter_val);
void gt_tl_cursor_release(struct gt_tl_cursor *c);
void gt_tl_cursor_begin(struct gt_tl_cursor *c, uint64_t a, uint64_t b, uint64_t next_a);
/* 1 and *span set (clipped to the window, never empty); 0 at the window's end; GT_ERR_NOMEM. */
int gt_tl_cursor_next(struct gt_tl_cursor *c, struct gt_tl_span *span);
/* The union's length inside [a, b) into *total: begin, then every span summed. 0, or GT_ERR_NOMEM.
 * Unsigned: the spans are disjoint and inside the window, so the sum is at most b - a, whatever
 * the timestamps (a hostile trace may hold any 64-bit value). */
int gt_tl_cursor_sum(struct gt_tl_cursor *c, uint64_t a, uint64_t b, uint64_t next_a, uint64_t *total);

/* Lists of disjoint sorted spans: the length of their intersection, and their union (into out,
 * which must have room for na + nb spans; returns its count). */
uint64_t gt_tl_spans_overlap(const struct gt_tl_span *x, size_t nx, const struct gt_tl_span *y, size_t ny);
size_t gt_tl_spans_merge(const struct gt_tl_span *x, size_t nx, const struct gt_tl_span *y, size_t ny,
                         struct gt_tl_span *out);
uint64_t gt_tl_spans_total(const struct gt_tl_span *x, size_t n);

#endif
