/* bandwidth.c: copy bandwidth by device, copy kind, memory and size; peaks; flags (bandwidth.h).
 *
 * A copy costs a look-up of its group and an append of its GB/s and size (16 bytes). Groups are
 * few (kinds x memories x six buckets) but one per device too, so the last group hit is tried
 * first and a map finds the others. Synchronous copies
 * keep their interval too (32 bytes), for the critical-path test, which needs every other GPU
 * operation of the trace: rather than keep all of them, the caller streams them past
 * gt_bw_mark_busy (bandwidth's own second pass, or findings' arrays), which finds the synchronous
 * copies that may overlap one among those sorted by start, galloping from where the last look-up
 * ended: work arrives nearly in time order, so that is a step or two (where it is not, the
 * operations are kept and settled at the end: "operations kept for later"). Rates are sorted as
 * the bit patterns of positive doubles, which order as the values do, by stats.h's radix sort.
 */
#include "analyze/engines/bandwidth.h"
#include "analyze/blocks/event_origin.h"

#include "analyze/support/failure.h"
#include "analyze/support/gallop.h"
#include "analyze/support/growbuf.h"
#include "analyze/support/idmap.h"
#include "analyze/support/load.h"
#include "analyze/support/trace_end.h"
#include "common/grow.h"
#include "common/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const bucket_names[GT_BW_NBUCKETS] = {
	"<4KiB", "4-64KiB", "64KiB-1MiB", "1-16MiB", "16-256MiB", ">=256MiB",
};

const char *gt_bw_bucket_name(int bucket)
{
	return bucket >= 0 && bucket < GT_BW_NBUCKETS ? bucket_names[bucket] : "?";
}

int gt_bw_bucket_of(uint64_t bytes)
{
	int b = 0;
	for (uint64_t lim = 4096; b < GT_BW_NBUCKETS - 1 && bytes >= lim; lim *= 16)
		b++;
	return b;
}

struct acc {
	uint32_t device_id;
	uint8_t copy_kind, src_kind, dst_kind, bucket;
	uint64_t count, bytes, small;
	double time_ns;
	double *gbps;                /* per copy, in file order until finish sorts them */
	uint64_t *size;              /* per copy, paired with gbps until then */
	size_t n, cap;
	struct gt_growbuf gbuf, sbuf; /* where gbps and size live (huge pages once large) */
	double *crates;              /* call GB/s of the copies paired with their call (gt_bw_finish) */
	size_t nc, capc;
	struct gt_growbuf cbuf;
	uint64_t calls;
	double call_time_ns;
};

struct sync_copy {               /* sorted by start; 32 bytes, as there may be millions */
	uint64_t start, end;
	uint64_t bytes;              /* the copy's bytes, bits 0..55; its copy kind, 56..62; bit 63:
	                              * some other GPU work overlapped it */
	uint32_t device, stream;
};
#define SC_BYTES(c) ((c)->bytes & ((1ull << 56) - 1))
#define SC_KIND(c) ((int)((c)->bytes >> 56 & 0x7f))
#define SC_BUSY (1ull << 63)

struct sync_call {               /* a synchronous copy call (cudaMemcpy, cuMemcpyHtoD_v2, ...) */
	uint64_t corr;               /* sort key */
	uint64_t start, end;
};

struct copy_link {               /* a copy without the async flag, to pair with its call */
	uint64_t corr;               /* sort key */
	uint64_t bytes;
	uint32_t group;              /* index in bw_state.a */
	uint32_t pageable;
};

struct busy_op {                 /* an operation kept for settle_kept */
	uint64_t start, end;
	uint32_t device, stream;
	uint32_t is_copy, pad;
};

struct bw_state {
	struct acc *a;
	size_t n, cap;
	size_t last;                 /* index + 1 of the last group hit */
	struct gt_tl_vec syncs;
	size_t hint;                 /* where the last gt_bw_mark_busy looked */
	uint64_t max_sync;           /* longest synchronous copy, ns */
	int sorted;
	struct gt_idmap groups;      /* group key (group_key) -> index in a */
	struct gt_idmap devices;     /* device id -> index in b->devices (load_devices) */
	uint64_t visits, calls;      /* gt_bw_mark_busy: copies looked at, calls */
	struct gt_tl_vec kept;       /* operations kept past the visits' budget (struct busy_op) */
	int keeping, keep_failed;
	struct gt_tl_vec copy_calls, links; /* struct sync_call, struct copy_link */
	signed char *sync_name;      /* per API name's string id: 1 a synchronous copy call, -1 not */
	size_t nsync_name;
};

const char *gt_bw_rate_name(int rate) { return rate == GT_BW_RATE_CALL ? "call" : "dma"; }

static int host_kind_of(int copy_kind, int src, int dst)
{
	switch (copy_kind) {
	case GT_COPY_HTOD:
	case GT_COPY_HTOA: return src;
	case GT_COPY_DTOH:
	case GT_COPY_ATOH: return dst;
	default: return -1;
	}
}

static int is_dtod(int copy_kind)
{
	return copy_kind == GT_COPY_DTOD || copy_kind == GT_COPY_DTOA || copy_kind == GT_COPY_ATOD ||
	       copy_kind == GT_COPY_ATOA;
}

int gt_bw_init(struct gt_bandwidth *b, const char *path, const char *peaks_path)
{
	memset(b, 0, sizeof *b);
	b->peaks_path = peaks_path;
	b->peaks_given = peaks_path != NULL;
	if (!(b->path = strdup(path)) || !(b->state = calloc(1, sizeof *b->state)))
		return GT_ERR_NOMEM;
	gt_tl_vec_init(&b->state->syncs, sizeof(struct sync_copy));
	gt_tl_vec_init(&b->state->kept, sizeof(struct busy_op));
	gt_tl_vec_init(&b->state->copy_calls, sizeof(struct sync_call));
	gt_tl_vec_init(&b->state->links, sizeof(struct copy_link));
	return 0;
}

static struct acc *group_for(struct bw_state *st, const struct gt_memcpy *m, int bucket)
{
	if (st->last) {
		struct acc *a = &st->a[st->last - 1];
		if (a->device_id == m->device_id && a->copy_kind == m->copy_kind && a->src_kind == m->src_kind &&
		    a->dst_kind == m->dst_kind && a->bucket == bucket)
			return a;
	}
	/* by a map, not a scan: a trace may copy on any number of devices */
	uint64_t key = (uint64_t)m->device_id << 32 | (uint64_t)m->copy_kind << 24 | (uint64_t)m->src_kind << 16 |
	               (uint64_t)m->dst_kind << 8 | (uint8_t)bucket;
	size_t i = gt_idmap_get(&st->groups, key);
	if (i != SIZE_MAX) {
		st->last = i + 1;
		return &st->a[i];
	}
	if (gt_idmap_put(&st->groups, key, st->n))
		return NULL;
	struct acc *q = gt_grow(st->a, &st->cap, st->n, sizeof *q, 16);
	if (!q)
		return NULL;
	st->a = q;
	struct acc *a = &st->a[st->n++];
	memset(a, 0, sizeof *a);
	a->device_id = m->device_id;
	a->copy_kind = m->copy_kind;
	a->src_kind = m->src_kind;
	a->dst_kind = m->dst_kind;
	a->bucket = (uint8_t)bucket;
	st->last = st->n;
	return a;
}

static void flag_add(struct gt_bw_flag *f, const struct gt_memcpy *m)
{
	f->count++;
	f->bytes += m->bytes;
	f->time_ns += (double)(m->end - m->start);
	if (!f->first_start || m->start < f->first_start) {
		f->first_start = m->start;
		f->first_stream = m->stream_id;
		f->first_copy_kind = m->copy_kind;
	}
}

static int on_memcpy(struct gt_bandwidth *b, const struct gt_memcpy *m)
{
	struct bw_state *st = b->state;
	b->copies++;
	if (m->end < m->start) {
		b->copies_bad++;
		return 0;
	}
	if (!(m->flags & GT_COPY_ASYNC)) {
		flag_add(&b->sync, m);
		struct sync_copy *s = gt_tl_vec_push(&st->syncs);
		if (!s)
			return GT_ERR_NOMEM;
		s->start = m->start;
		s->end = m->end;
		s->bytes = (m->bytes < (1ull << 56) ? m->bytes : (1ull << 56) - 1) | (uint64_t)(m->copy_kind & 0x7f) << 56;
		s->device = m->device_id;
		s->stream = m->stream_id;
		if (m->end - m->start > st->max_sync)
			st->max_sync = m->end - m->start;
	}
	if (host_kind_of(m->copy_kind, m->src_kind, m->dst_kind) == GT_MEM_PAGEABLE)
		flag_add(&b->pageable, m);
	if (m->end == m->start || m->bytes == 0) {
		b->copies_no_rate++;
		return 0;
	}
	struct acc *a = group_for(st, m, gt_bw_bucket_of(m->bytes));
	if (!a)
		return GT_ERR_NOMEM;
	if (a->n == a->cap) {
		if (gt_growbuf_reserve(&a->gbuf, (a->n + 1) * sizeof *a->gbps) ||
		    gt_growbuf_reserve(&a->sbuf, (a->n + 1) * sizeof *a->size))
			return GT_ERR_NOMEM;
		a->gbps = a->gbuf.p;
		a->size = a->sbuf.p;
		size_t c1 = a->gbuf.cap / sizeof *a->gbps, c2 = a->sbuf.cap / sizeof *a->size;
		a->cap = c1 < c2 ? c1 : c2;
	}
	if (!(m->flags & GT_COPY_ASYNC)) {
		struct copy_link *l = gt_tl_vec_push(&st->links);
		if (!l)
			return GT_ERR_NOMEM;
		*l = (struct copy_link){ m->correlation_id, m->bytes, (uint32_t)(a - st->a),
			                 host_kind_of(m->copy_kind, m->src_kind, m->dst_kind) == GT_MEM_PAGEABLE };
	}
	a->size[a->n] = m->bytes;
	a->gbps[a->n++] = (double)m->bytes / (double)(m->end - m->start);
	a->count++;
	a->bytes += m->bytes;
	a->time_ns += (double)(m->end - m->start);
	return 0;
}

/* cudaMemcpy, cudaMemcpy2D, cudaMemcpyToSymbol, cuMemcpy, cuMemcpyHtoD_v2, ...: not the Async ones. */
static int is_sync_copy_call(const char *name)
{
	return (!strncmp(name, "cudaMemcpy", 10) || !strncmp(name, "cuMemcpy", 8)) && !strstr(name, "Async");
}

static int on_api(struct gt_bandwidth *b, const struct gt_reader *r, const struct gt_api *a)
{
	struct bw_state *st = b->state;
	uint32_t id = a->name_id <= gt_reader_string_count(r) ? a->name_id : 0;
	if (id >= st->nsync_name && gt_grow_zeroed(&st->sync_name, &st->nsync_name, (size_t)id + 1, 1, 256))
		return GT_ERR_NOMEM;
	if (!st->sync_name[id])
		st->sync_name[id] = is_sync_copy_call(gt_reader_string(r, id)) ? 1 : -1;
	if (st->sync_name[id] < 0)
		return 0;
	struct sync_call *c = gt_tl_vec_push(&st->copy_calls);
	if (!c)
		return GT_ERR_NOMEM;
	*c = (struct sync_call){ a->correlation_id, a->start, a->end };
	return 0;
}

int gt_bw_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_bandwidth *b = ctx;
	gt_event_origin(&b->origin, ev);
	if (ev->type == GT_REC_MEMCPY)
		return on_memcpy(b, &ev->u.memcpy);
	if (ev->type == GT_REC_API)
		return on_api(b, r, &ev->u.api);
	return 0;
}

int gt_bw_end_pass(struct gt_bandwidth *b, const struct gt_reader *r)
{
	struct bw_state *st = b->state;
	if (gt_trace_end(r, &b->complete, &b->lost_bytes, &b->synthetic))
		return GT_ERR_NOMEM;
	if (gt_tl_vec_sort(&st->syncs))
		return GT_ERR_NOMEM;
	st->sorted = 1;
	return st->syncs.n > 0;
}

/* ---- operations kept for later -------------------------------------------------------------------
 * The look-up in gt_bw_mark_busy visits every synchronous copy that starts in [start - longest
 * synchronous copy, end): a step or two in a real trace, but every copy before it when one of them
 * lasts the whole run, and every copy at an instant where a program issues thousands at once; so
 * N^2 in all. Past a budget of visits the operations are kept instead (32 bytes each) and settled
 * at once in gt_bw_finish: a copy is busy when the operations on its device that start before its
 * end outnumber those that end by its start and the copies that are itself (same stream, start and
 * end: the look-up skips those), each counted by bisection in a sorted array. */
static int cmp_op_start(const void *pa, const void *pb)
{
	const struct busy_op *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int cmp_op_end(const void *pa, const void *pb)
{
	const struct busy_op *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

static int cmp_op_same(const void *pa, const void *pb)
{
	const struct busy_op *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* How many of v[0..n), sorted by cmp, order before key (below = 1) or not after it (below = 0). */
static size_t ops_before(const struct busy_op *v, size_t n, const struct busy_op *key,
                         int (*cmp)(const void *, const void *), int below)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(&v[mid], key);
		if (c < 0 || (!below && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kept operations' verdict on every synchronous copy not yet found busy. */
static int settle_kept(struct bw_state *st)
{
	size_t n = st->kept.n;
	if (!n)
		return 0;
	struct busy_op *by_start = st->kept.buf.p, *by_end = malloc(n * sizeof *by_end),
	               *copies = malloc(n * sizeof *copies);
	if (!by_end || !copies) {
		free(by_end);
		free(copies);
		return GT_ERR_NOMEM;
	}
	size_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		by_end[i] = by_start[i];
		if (by_start[i].is_copy)
			copies[nc++] = by_start[i];
	}
	qsort(by_start, n, sizeof *by_start, cmp_op_start);
	qsort(by_end, n, sizeof *by_end, cmp_op_end);
	qsort(copies, nc, sizeof *copies, cmp_op_same);
	struct sync_copy *c = st->syncs.buf.p;
	for (size_t k = 0; k < st->syncs.n; k++) {
		if (c[k].bytes & SC_BUSY)
			continue;
		struct busy_op at_end = { .start = c[k].end, .device = c[k].device },
		               at_start = { .end = c[k].start, .device = c[k].device },
		               self = { c[k].start, c[k].end, c[k].device, c[k].stream, 1, 0 };
		/* start < its end, less end <= its start: those overlap it (each has end > start) */
		size_t over = ops_before(by_start, n, &at_end, cmp_op_start, 1) -
		              ops_before(by_end, n, &at_start, cmp_op_end, 0);
		size_t itself = ops_before(copies, nc, &self, cmp_op_same, 0) -
		                ops_before(copies, nc, &self, cmp_op_same, 1);
		if (over > itself)
			c[k].bytes |= SC_BUSY;
	}
	free(by_end);
	free(copies);
	return 0;
}

/* gt_gallop_lower's test: does synchronous copy i start before *from? */
static int starts_before(const void *ctx, size_t i, const void *from)
{
	return ((const struct sync_copy *)ctx)[i].start < *(const uint64_t *)from;
}

void gt_bw_mark_busy(struct gt_bandwidth *b, uint32_t device, uint32_t stream, uint64_t start,
                     uint64_t end, int is_copy)
{
	struct bw_state *st = b->state;
	size_t n = st->syncs.n;
	if (!n || end <= start)
		return;
	st->calls++;
	if (!st->keeping && st->visits > 8 * ((uint64_t)n + st->calls) + 65536)
		st->keeping = 1;
	if (st->keeping) {
		struct busy_op *o = gt_tl_vec_push(&st->kept);
		if (!o) {
			st->keep_failed = 1; /* reported by gt_bw_finish */
			return;
		}
		*o = (struct busy_op){ start, end, device, stream, (uint32_t)is_copy, 0 };
		return;
	}
	struct sync_copy *c = st->syncs.buf.p;
	/* The synchronous copies that may overlap [start, end) start before end and at or after
	 * start - max_sync. Work comes nearly in time order, so the first of them is searched from
	 * where the last search ended, by galloping, then bisecting. */
	uint64_t from = start > st->max_sync ? start - st->max_sync : 0;
	size_t lo = gt_gallop_lower(n, st->hint, starts_before, c, &from);
	st->hint = lo;
	for (size_t k = lo; k < n && c[k].start < end; k++) {
		st->visits++;
		if (c[k].device != device || c[k].end <= start || (c[k].bytes & SC_BUSY))
			continue;
		if (is_copy && c[k].stream == stream && c[k].start == start && c[k].end == end)
			continue; /* itself */
		c[k].bytes |= SC_BUSY;
	}
}

/* A peaks file that is not a regular file, or is too large to be one (peaks.h): one warning, and
 * the peaks are left out as if there were none. */
static int peaks_refused(struct gt_bandwidth *b, const char *file, const char *why)
{
	for (size_t k = 0; k < b->ndevices; k++)
		gt_peaks_release(&b->devices[k].peaks);
	for (size_t k = 0; k < b->ndevices; k++)
		memset(&b->devices[k].peaks, 0, sizeof b->devices[k].peaks);
	snprintf(b->peaks_error, sizeof b->peaks_error, "%s", why);
	gt_fail_warn("peaks file '%s' (%s) not read: %s; measured peaks left out", file,
	             b->peaks_given ? "--peaks" : "GPUTRACE_PEAKS or the default place", why);
	return 0;
}

/* Device descriptions and thresholds, and the measured peaks for each device that copied. */
static int load_devices(struct gt_bandwidth *b, const struct gt_reader *r)
{
	struct bw_state *st = b->state;
	size_t cap = 0;
	for (size_t i = 0; i < st->n; i++) {
		uint32_t id = st->a[i].device_id;
		if (gt_idmap_get(&st->devices, id) != SIZE_MAX)
			continue;
		if (gt_idmap_put(&st->devices, id, b->ndevices))
			return GT_ERR_NOMEM;
		if (b->ndevices == cap) {
			cap = cap ? cap * 2 : 4;
			struct gt_bw_device *q = realloc(b->devices, cap * sizeof *q);
			if (!q)
				return GT_ERR_NOMEM;
			b->devices = q;
		}
		struct gt_bw_device *d = &b->devices[b->ndevices++];
		memset(d, 0, sizeof *d);
		d->device_id = id;
		const char *name = NULL;
		const struct gt_device *dev = gt_reader_device(r, id, &name);
		if (dev) {
			d->known = 1;
			snprintf(d->name, sizeof d->name, "%s", name ? name : "");
			gt_device_uuid_string(dev, d->uuid, sizeof d->uuid);
			d->peak_pcie = gt_device_peak_pcie_bw(dev) / 1e9;
			d->peak_mem = gt_device_peak_mem_bw(dev) / 1e9;
			/* B >= 4 t0 peak: bytes = 4 * ns * (bytes per ns = GB/s). */
			d->small_host = d->peak_pcie > 0 ? 4 * GT_BW_FIXED_COST_NS * d->peak_pcie : 0;
			d->small_dtod = d->peak_mem > 0 ? 4 * GT_BW_FIXED_COST_NS * d->peak_mem / 2 : 0;
		}
	}
	/* The measured peaks. */
	char def[4096];
	const char *file = b->peaks_path ? b->peaks_path : gt_peaks_default_path(def, sizeof def, NULL);
	if (file && !(b->peaks_file = strdup(file)))
		return GT_ERR_NOMEM;
	if (!file)
		return 0;
	struct stat sb;
	if (!b->peaks_given && stat(file, &sb) != 0 && errno == ENOENT) {
		b->peaks_missing = 1;
		return 0;
	}
	for (size_t k = 0; k < b->ndevices; k++) {
		struct gt_bw_device *d = &b->devices[k];
		char err[200];
		int rc = gt_peaks_load(&d->peaks, file, d->uuid, err, sizeof err);
		if (rc == GT_ERR_NOMEM)
			return rc;
		if (rc == GT_ERR_ARG)
			return peaks_refused(b, file, err);
		if (rc) {
			snprintf(b->peaks_error, sizeof b->peaks_error, "%s", err);
			if (b->peaks_given)
				return gt_fail(rc, "cannot read peaks file '%s': %s", file, err);
			return 0;
		}
	}
	if (!b->ndevices && b->peaks_given) {
		/* Nothing to match, but a given file must still be readable. */
		char err[200];
		int rc = 0;
		FILE *f = gt_peaks_open(file, err, sizeof err, &rc);
		if (!f && rc == GT_ERR_ARG)
			return peaks_refused(b, file, err);
		if (!f)
			return gt_fail(GT_ERR_IO, "cannot read peaks file '%s': %s", file, err);
		fclose(f);
	}
	return 0;
}

/* Sorts rates, which are positive and finite: for such doubles the IEEE bit patterns order as the
 * values do, so stats.h's radix sort of integers sorts them (a million copies' rates in a few
 * passes rather than qsort's comparisons). */
static void sort_rates(double *x, size_t n)
{
	uint64_t *u = malloc((n ? n : 1) * sizeof *u);
	if (!u) {
		gt_stats_sort_double(x, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(&u[i], &x[i], sizeof *u);
	gt_stats_sort_u64(u, n);
	for (size_t i = 0; i < n; i++)
		memcpy(&x[i], &u[i], sizeof *u);
	free(u);
}

static const struct gt_bw_device *device_of(const struct gt_bandwidth *b, uint32_t id)
{
	size_t i = gt_idmap_get(&b->state->devices, id);
	return i < b->ndevices ? &b->devices[i] : NULL;
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct gt_bw_group *a = pa, *b = pb;
	if (a->device_id != b->device_id)
		return a->device_id < b->device_id ? -1 : 1;
	if (a->copy_kind != b->copy_kind)
		return a->copy_kind < b->copy_kind ? -1 : 1;
	int c = strcmp(a->memory, b->memory);
	if (c)
		return c;
	return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

/* Each copy without the async flag meets its call: both sorted by correlation id (stably, so the
 * first call of an id in the file is the one taken). A copy alone on its call gets a call rate. */
static int pair_calls(struct gt_bandwidth *b)
{
	struct bw_state *st = b->state;
	if (gt_tl_vec_sort(&st->copy_calls) || gt_tl_vec_sort(&st->links))
		return GT_ERR_NOMEM;
	const struct copy_link *l = st->links.buf.p;
	const struct sync_call *c = st->copy_calls.buf.p;
	size_t nl = st->links.n, ncl = st->copy_calls.n, j = 0;
	for (size_t i = 0; i < nl;) {
		size_t k = i;
		while (k < nl && l[k].corr == l[i].corr)
			k++;
		while (j < ncl && c[j].corr < l[i].corr)
			j++;
		if (j < ncl && c[j].corr == l[i].corr) {
			if (k - i > 1) {
				b->calls_shared += k - i;
			} else if (c[j].end <= c[j].start) {
				b->calls_bad++;
			} else {
				struct acc *a = &st->a[l[i].group];
				double ns = (double)(c[j].end - c[j].start);
				if (a->nc == a->capc) {
					if (gt_growbuf_reserve(&a->cbuf, (a->nc + 1) * sizeof *a->crates))
						return GT_ERR_NOMEM;
					a->crates = a->cbuf.p;
					a->capc = a->cbuf.cap / sizeof *a->crates;
				}
				a->crates[a->nc++] = (double)l[i].bytes / ns;
				a->calls++;
				a->call_time_ns += ns;
				b->sync.calls++;
				b->sync.call_time_ns += ns;
				if (l[i].pageable) {
					b->pageable.calls++;
					b->pageable.call_time_ns += ns;
				}
			}
		}
		i = k;
	}
	gt_tl_vec_release(&st->copy_calls);
	gt_tl_vec_release(&st->links);
	return 0;
}

/* The measured peak a group is judged against, and by which of its medians (bandwidth.h). */
static void judge_measured(struct gt_bw_group *g, const struct gt_bw_device *d)
{
	g->measured_kind = g->measured_rate = -1;
	int kind = gt_peak_kind_for(g->copy_kind, g->host_kind);
	if (!d || kind < 0)
		return;
	int rate = GT_BW_RATE_DMA;
	if (g->host_kind == GT_MEM_PAGEABLE) {
		if (g->calls && d->peaks.have[kind])
			rate = GT_BW_RATE_CALL;
		else
			kind = gt_peak_kind_for(g->copy_kind, GT_MEM_PINNED); /* the staged DMA vs the pinned rate */
	}
	if (!d->peaks.have[kind])
		return;
	g->measured_kind = kind;
	g->measured_rate = rate;
	g->peak_measured = d->peaks.p[kind].gbps;
	g->pct_measured = 100 * (rate == GT_BW_RATE_CALL ? g->call_median : g->median) / g->peak_measured;
}

int gt_bw_finish(struct gt_bandwidth *b, const struct gt_reader *r)
{
	struct bw_state *st = b->state;
	if (st->keep_failed || settle_kept(st))
		return GT_ERR_NOMEM;
	int rc = load_devices(b, r);
	if (rc || (rc = pair_calls(b)) != 0)
		return rc;
	/* The synchronous copies no other work overlapped. */
	for (size_t i = 0; i < st->syncs.n; i++) {
		const struct sync_copy *c = gt_tl_vec_at(&st->syncs, i);
		if (c->bytes & SC_BUSY)
			continue;
		struct gt_memcpy m = { .start = c->start, .end = c->end, .bytes = SC_BYTES(c),
			.stream_id = c->stream, .copy_kind = (uint8_t)SC_KIND(c) };
		flag_add(&b->sync_critical, &m);
	}
	if (!(b->groups = calloc(st->n ? st->n : 1, sizeof *b->groups)))
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < st->n; i++) {
		struct acc *a = &st->a[i];
		struct gt_bw_group *g = &b->groups[b->ngroups++];
		g->device_id = a->device_id;
		g->copy_kind = a->copy_kind;
		g->src_kind = a->src_kind;
		g->dst_kind = a->dst_kind;
		g->host_kind = host_kind_of(a->copy_kind, a->src_kind, a->dst_kind);
		if (g->host_kind >= 0)
			snprintf(g->memory, sizeof g->memory, "%s", gt_mem_kind_name(g->host_kind));
		else if (a->src_kind == a->dst_kind)
			snprintf(g->memory, sizeof g->memory, "%s", gt_mem_kind_name(a->src_kind));
		else
			snprintf(g->memory, sizeof g->memory, "%s->%s", gt_mem_kind_name(a->src_kind),
			         gt_mem_kind_name(a->dst_kind));
		g->bucket = a->bucket;
		g->count = a->count;
		g->bytes = a->bytes;
		g->time_ns = a->time_ns;
		const struct gt_bw_device *d = device_of(b, a->device_id);
		g->peak_theory = g->peak_measured = g->pct_theory = g->pct_measured = NAN;
		double peak = 0, small = 0;
		if (d && g->host_kind >= 0) {
			peak = d->peak_pcie;
			small = d->small_host;
		} else if (d && is_dtod(a->copy_kind)) {
			peak = d->peak_mem;
			small = d->small_dtod;
		}
		/* Small copies, while rates and sizes are still paired (a copy's duration is
		 * bytes / rate). */
		for (size_t k = 0; small > 0 && k < a->n; k++) {
			if ((double)a->size[k] >= small)
				continue;
			g->small++;
			b->small.count++;
			b->small.bytes += a->size[k];
			b->small.time_ns += (double)a->size[k] / a->gbps[k];
		}
		sort_rates(a->gbps, a->n);
		g->median = gt_stats_percentile_double(a->gbps, a->n, 50);
		g->p10 = gt_stats_percentile_double(a->gbps, a->n, 10);
		g->p90 = gt_stats_percentile_double(a->gbps, a->n, 90);
		if (peak > 0) {
			g->peak_theory = peak;
			g->pct_theory = 100 * g->median / peak;
		}
		sort_rates(a->crates, a->nc);
		g->calls = a->calls;
		g->call_time_ns = a->call_time_ns;
		g->call_median = gt_stats_percentile_double(a->crates, a->nc, 50);
		g->call_p10 = gt_stats_percentile_double(a->crates, a->nc, 10);
		g->call_p90 = gt_stats_percentile_double(a->crates, a->nc, 90);
		judge_measured(g, d);
		gt_growbuf_release(&a->gbuf);
		gt_growbuf_release(&a->sbuf);
		gt_growbuf_release(&a->cbuf);
		a->gbps = a->crates = NULL;
		a->size = NULL;
	}
	qsort(b->groups, b->ngroups, sizeof *b->groups, cmp_groups);
	return 0;
}

int gt_bandwidth_run(struct gt_bandwidth *b, const char *path, const char *peaks_path)
{
	int rc = gt_bw_init(b, path, peaks_path);
	if (rc)
		return rc;
	struct gt_reader *r;
	if ((rc = gt_load_open(&r, path)) != 0)
		return rc;
	rc = gt_load_stream(r, gt_bw_record, b);
	if (!rc) {
		rc = gt_bw_end_pass(b, r);
		if (rc == 1) {
			/* Second pass: the GPU work that may overlap the synchronous copies. */
			if ((rc = gt_reader_rewind(r)) != 0) {
				rc = gt_fail(rc, "cannot read trace '%s': %s", path, gt_strerror(rc));
			} else {
				struct gt_event ev;
				while ((rc = gt_reader_next(r, &ev)) > 0) {
					switch (ev.type) {
					case GT_REC_KERNEL:
						if (!(ev.u.kernel.flags & GT_KERNEL_BAD_TIMES))
							gt_bw_mark_busy(b, ev.u.kernel.device_id, ev.u.kernel.stream_id,
							                ev.u.kernel.start, ev.u.kernel.end, 0);
						break;
					case GT_REC_MEMCPY:
						gt_bw_mark_busy(b, ev.u.memcpy.device_id, ev.u.memcpy.stream_id,
						                ev.u.memcpy.start, ev.u.memcpy.end, 1);
						break;
					case GT_REC_MEMSET:
						gt_bw_mark_busy(b, ev.u.memset.device_id, ev.u.memset.stream_id,
						                ev.u.memset.start, ev.u.memset.end, 0);
						break;
					}
				}
				if (rc < 0)
					rc = gt_fail(rc, "cannot read trace '%s': %s", path, gt_reader_error(r));
			}
		}
		if (!rc)
			rc = gt_bw_finish(b, r);
	}
	gt_reader_close(r);
	return rc;
}

void gt_bandwidth_release(struct gt_bandwidth *b)
{
	if (!b)
		return;
	if (b->state) {
		for (size_t i = 0; i < b->state->n; i++)
{
			gt_growbuf_release(&b->state->a[i].gbuf);
			gt_growbuf_release(&b->state->a[i].sbuf);
			gt_growbuf_release(&b->state->a[i].cbuf);
		}
		gt_tl_vec_release(&b->state->copy_calls);
		gt_tl_vec_release(&b->state->links);
		free(b->state->sync_name);
		free(b->state->a);
		gt_tl_vec_release(&b->state->syncs);
		gt_idmap_release(&b->state->groups);
		gt_tl_vec_release(&b->state->kept);
		gt_idmap_release(&b->state->devices);
		free(b->state);
	}
	for (size_t i = 0; i < b->ndevices; i++)
		gt_peaks_release(&b->devices[i].peaks);
	free(b->devices);
	free(b->groups);
	free(b->peaks_file);
	free(b->path);
	free(b->synthetic);
	memset(b, 0, sizeof *b);
}
