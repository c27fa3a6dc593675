/* export.c: Chrome Trace Event JSON and timeline CSV from a trace, in two passes (export.h).
 *
 * Pass 1 reads the trace once and keeps, per track, 16 bytes per slice (start, duration, sequence
 * number), the memory records (for the counters, which must be summed in time order), and per
 * correlation id how many GPU operations carry it and whether an API call does (two bytes per id,
 * in pages). Between the passes each track's slices are sorted by start and placed on lanes: a
 * lane is a track of its own in the output, so that every track holds slices that nest (host
 * threads) or never overlap (device streams). Pass 2 reads the trace again and writes each event
 * as it comes, looking up its lane by sequence number; only the memory counters wait for the end.
 *
 * The writing is the cost that matters (a 10 M-event trace is about a gigabyte of JSON), so the
 * output is formatted by hand into a 1 MiB buffer: integers by digit loops, nanoseconds as
 * microseconds with three decimals by integer division, names escaped once per string id and
 * cached. printf is used only for metadata.
 */
#include "export.h"

#include "demangle.h"
#include "diag.h"
#include "escape.h"
#include "export_window.h"
#include "gzwrite.h"
#include "load.h"
#include "progress.h"
#include "timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_PID_BASE 1000000u
#define FLOW_CAP 127u          /* flows per correlation id; the count shares a byte with a flag */
#define API_SEEN 0x80u
#define LONG_DUR UINT32_MAX    /* a slice of 4.29 s or more: its end is in the long-ends table */
#define MAX_LANES 65535u
#define OUT_BUF (1u << 20)

enum tk { TK_STREAM = 0, TK_THREAD, TK_SYNC, TK_NVTX, TK_OVERHEAD, TK_COUNT };

/* A track's slices are kept apart by record type: the writer stores a chunk's records type by type,
 * so one type's records are nearly in time order while two types interleaved are not. Each vector
 * is sorted cheaply, and placement merges them. */
#define NSRC 3
static int src_of(int type)
{
	return type == GT_REC_MEMCPY || type == GT_REC_NVTX ? 1 : type == GT_REC_MEMSET ? 2 : 0;
}

struct slice {
	uint64_t start;
	uint32_t dur;            /* LONG_DUR: see longs */
	uint32_t seq;
};

struct longend {
	uint64_t seq, end;
};

struct moved {
	uint64_t seq, lane;
};

struct cname {
	char *s;
	size_t n;
};

struct memrec {
	uint64_t ts, bytes;
	uint32_t device;
	uint8_t op, kind;
	uint16_t pad;
};

struct track {
	int kind;                /* enum tk */
	uint32_t device;
	uint64_t key;            /* stream id or thread id */
	struct gt_tl_vec sl[NSRC]; /* struct slice, one vector per source record type (see src_of) */
	uint64_t first;          /* earliest start, orders the host threads */
	uint32_t nlanes, tid0, pid;
	char ids[48];            /* "pid":P,"tid":T of lane 0, for the writers */
	size_t nids;
};

/* One byte per correlation id, in 64 KiB pages made on first use. CUPTI hands out ids in order
 * (one per API call, recorded or not), so a real trace fills its pages densely; a hostile one may
 * spread a few records over all 2^32 ids, a page for each. Pages are therefore budgeted: at most
 * PAGES_FREE plus one per PAGE_RECORDS records read, so memory stays under 256 bytes a record; an
 * id on a page over budget gets no arrow, and is counted (flows_unmapped). */
#define PAGES_FREE 64u
#define PAGE_RECORDS 256u
struct pages {
	uint8_t *p[65536];
	size_t n;                /* pages made */
};

struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct gt_gzw *gz;
	int err;
	uint64_t bytes;
};

struct ex {
	const struct gt_export_options *opt;
	struct gt_export_result *res;
	const char *path;
	uint64_t origin;
	struct gt_xclock clock;  /* how this trace's times are shown (export_window.h) */
	struct gt_xwin *win;     /* what is kept */
	const struct gt_xfile *file; /* several traces: this one (NULL: one trace) */
	uint32_t pid_base;       /* several traces: this one's host pid; its devices' follow */
	uint32_t file_pid;       /* several traces: the process id the trace names */
	uint64_t flow_base;      /* several traces: the trace's position << 39, above every corr * 128 + k */
	char prefix[72];         /* several traces: "rank 0 " before CSV process names */
	const struct gt_xfile *files; /* several traces: all of them */
	size_t nfiles;
	char *synthetic;         /* the first trace's META trace.synthetic that says so */
	int complete;            /* every trace was complete */
	int header_done;
	struct track *t;
	size_t nt, capt;
	uint32_t *slots;         /* (kind, device, key) hash: index + 1 */
	size_t nslots;
	uint32_t last[TK_COUNT]; /* index + 1 of the last track of each kind, and its identity */
	uint64_t last_key[TK_COUNT];
	uint32_t last_dev[TK_COUNT];
	uint64_t nslices, seq;
	struct gt_tl_vec longs;  /* struct longend, in seq order */
	struct gt_tl_vec moved;  /* struct moved: the slices not on lane 0, by seq */
	size_t moved_pos;        /* pass 2: the next entry of moved */
	struct pages *cnt, *next;
	struct gt_tl_vec mem;    /* struct memrec */
	uint32_t devs[64];       /* devices seen (more are folded into the last) */
	size_t ndevs;
	uint32_t host_pid;
	struct cname *names;     /* per string id: escaped (JSON or CSV) name, raw then demangled */
	size_t nnames;
	struct out o;
	int first_event;
	uint32_t op_key;         /* the copy or memset kind op_name was made for (0: none) */
	char op_name[96];
};

/* ---- output --------------------------------------------------------------------------------- */

static void out_flush(struct out *o)
{
	if (!o->len || o->err) {
		o->len = 0;
		return;
	}
	if (o->gz) {
		int e = gt_gzw_write(o->gz, o->buf, o->len);
		if (e)
			o->err = e;
	} else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
		o->err = GT_ERR_IO;
	}
	o->bytes += o->len;
	o->len = 0;
}

static void put_slow(struct out *o, const char *s, size_t n);

static inline void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n <= OUT_BUF) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		return;
	}
	put_slow(o, s, n);
}

static void put_slow(struct out *o, const char *s, size_t n)
{
	out_flush(o);
	if (n > OUT_BUF) {
		/* Longer than the buffer (a huge name): written through. */
		if (!o->err && o->gz)
			o->err = gt_gzw_write(o->gz, s, n);
		else if (!o->err && fwrite(s, 1, n, o->f) != n)
			o->err = GT_ERR_IO;
		o->bytes += n;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static inline void put_str(struct out *o, const char *s) { put(o, s, strlen(s)); }

/* The hot writers format into the buffer through a cursor: reserve room once per event, write
 * without bounds checks (each writer below knows its largest output), commit. */
static inline char *reserve(struct out *o, size_t n)
{
	if (o->len + n > OUT_BUF)
		out_flush(o);
	return o->buf + o->len;
}

static inline void commit(struct out *o, char *p) { o->len = (size_t)(p - o->buf); }

#define W_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* At most 20 bytes. */
static inline char *w_u64(char *p, uint64_t v)
{
	char b[20];
	int i = 20;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		b[--i] = digits2[d + 1];
		b[--i] = digits2[d];
	}
	if (v >= 10) {
		b[--i] = digits2[v * 2 + 1];
		b[--i] = digits2[v * 2];
	} else {
		b[--i] = (char)('0' + v);
	}
	memcpy(p, b + i, (size_t)(20 - i));
	return p + 20 - i;
}

/* "80x45x1": at most 62 bytes. */
static inline char *w_dims(char *p, uint32_t a, uint32_t b, uint32_t c)
{
	p = w_u64(p, a);
	*p++ = 'x';
	p = w_u64(p, b);
	*p++ = 'x';
	return w_u64(p, c);
}

/* Nanoseconds as microseconds with three decimals, exactly: at most 21 bytes. */
static inline char *w_us(char *p, uint64_t ns)
{
	p = w_u64(p, ns / 1000);
	unsigned f = (unsigned)(ns % 1000);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	p[2] = digits2[(f % 100) * 2];
	p[3] = digits2[(f % 100) * 2 + 1];
	return p + 4;
}

static inline void put_u64(struct out *o, uint64_t v)
{
	char b[24];
	int i = sizeof b;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, b + i, sizeof b - (size_t)i);
}

static inline void put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		PUTS(o, "-");
		put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

/* Nanoseconds as microseconds with three decimals: exact, never through a double. */
static inline void put_us(struct out *o, uint64_t ns)
{
	char b[32];
	int i = sizeof b;
	uint64_t frac = ns % 1000, v = ns / 1000;
	b[--i] = (char)('0' + frac % 10);
	b[--i] = (char)('0' + frac / 10 % 10);
	b[--i] = (char)('0' + frac / 100);
	b[--i] = '.';
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(o, b + i, sizeof b - (size_t)i);
}

/* s escaped for JSON (with quotes) or CSV (quoted when needed, formulas neutralised) by escape.h's
 * rules, as a malloc'd string. */
static char *escape(const char *s, int json)
{
	return gt_esc_dup(json ? gt_esc_json : gt_esc_csv, s);
}

static inline void put_escaped(struct ex *x, const char *s)
{
	char *e = escape(s, x->opt->format == GT_EXPORT_CHROME);
	if (!e) {
		x->o.err = GT_ERR_NOMEM;
		return;
	}
	put_str(&x->o, e);
	free(e);
}

/* The name of string id `id`, escaped, demangled or not; cached per id with its length (*len). */
static const char *name_of(struct ex *x, const struct gt_reader *r, uint32_t id, int demangle, size_t *len)
{
	if (id > gt_reader_string_count(r))
		id = 0;
	if (id >= x->nnames) {
		size_t n = x->nnames ? x->nnames : 256;
		while (n <= id)
			n *= 2;
		struct cname *a = realloc(x->names, n * 2 * sizeof *a);
		if (!a)
			return NULL;
		memset(a + 2 * x->nnames, 0, (n - x->nnames) * 2 * sizeof *a);
		x->names = a;
		x->nnames = n;
	}
	struct cname *c = &x->names[2 * (size_t)id + (demangle ? 1 : 0)];
	if (!c->s) {
		const char *s = gt_reader_string(r, id);
		char *d = NULL;
		if (!s[0])
			s = demangle ? "(unnamed)" : "";
		else if (demangle && !(d = gt_demangle(s)))
			return NULL;
		c->s = escape(d ? d : s, x->opt->format == GT_EXPORT_CHROME);
		free(d);
		if (!c->s)
			return NULL;
		c->n = strlen(c->s);
	}
	if (len)
		*len = c->n;
	return c->s;
}

/* ---- tracks --------------------------------------------------------------------------------- */

static uint64_t track_hash(int kind, uint32_t device, uint64_t key)
{
	uint64_t h = (uint64_t)kind * 0x9e3779b97f4a7c15ull ^ (uint64_t)device * 0xc2b2ae3d27d4eb4full ^ key;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static int rehash(struct ex *x, size_t n)
{
	uint32_t *s = calloc(n, sizeof *s);
	if (!s)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < x->nt; i++) {
		const struct track *t = &x->t[i];
		size_t h = track_hash(t->kind, t->device, t->key) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(x->slots);
	x->slots = s;
	x->nslots = n;
	return 0;
}

/* The track of (kind, device, key), made on first sight in pass 1. NULL: no memory, or (pass 2)
 * a track pass 1 did not see, which cannot happen for the same file. */
static struct track *track_of(struct ex *x, int kind, uint32_t device, uint64_t key, int make)
{
	uint32_t c = x->last[kind];
	if (c && x->last_key[kind] == key && x->last_dev[kind] == device)
		return &x->t[c - 1];
	if (x->nslots) {
		size_t h = track_hash(kind, device, key) & (x->nslots - 1);
		while (x->slots[h]) {
			struct track *t = &x->t[x->slots[h] - 1];
			if (t->kind == kind && t->device == device && t->key == key) {
				x->last[kind] = x->slots[h];
				x->last_key[kind] = key;
				x->last_dev[kind] = device;
				return t;
			}
			h = (h + 1) & (x->nslots - 1);
		}
	}
	if (!make)
		return NULL;
	if (x->nt * 2 >= x->nslots && rehash(x, x->nslots ? x->nslots * 2 : 64))
		return NULL;
	if (x->nt == x->capt) {
		size_t cap = x->capt ? x->capt * 2 : 16;
		struct track *t = realloc(x->t, cap * sizeof *t);
		if (!t)
			return NULL;
		x->t = t;
		x->capt = cap;
	}
	struct track *t = &x->t[x->nt];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->device = device;
	t->key = key;
	t->first = UINT64_MAX;
	t->nlanes = 1;
	for (int i = 0; i < NSRC; i++)
		gt_tl_vec_init(&t->sl[i], sizeof(struct slice));
	size_t h = track_hash(kind, device, key) & (x->nslots - 1);
	while (x->slots[h])
		h = (h + 1) & (x->nslots - 1);
	x->slots[h] = (uint32_t)++x->nt;
	x->last[kind] = (uint32_t)x->nt;
	x->last_key[kind] = key;
	x->last_dev[kind] = device;
	return t;
}

/* Which events are slices, and where they go: the one definition both passes follow, so that their
 * sequence numbers agree. Returns 1 for a slice; -1 for an event left out (bad times, unclosed). */
static int slice_of(const struct gt_event *ev, int *kind, uint32_t *device, uint64_t *key, uint64_t *start,
                    uint64_t *end)
{
	switch (ev->type) {
	case GT_REC_KERNEL: {
		const struct gt_kernel *k = &ev->u.kernel;
		if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start)
			return -1;
		*kind = TK_STREAM, *device = k->device_id, *key = k->stream_id, *start = k->start, *end = k->end;
		return 1;
	}
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		if (m->end < m->start)
			return -1;
		*kind = TK_STREAM, *device = m->device_id, *key = m->stream_id, *start = m->start, *end = m->end;
		return 1;
	}
	case GT_REC_MEMSET: {
		const struct gt_memset *m = &ev->u.memset;
		if (m->end < m->start)
			return -1;
		*kind = TK_STREAM, *device = m->device_id, *key = m->stream_id, *start = m->start, *end = m->end;
		return 1;
	}
	case GT_REC_API: {
		const struct gt_api *a = &ev->u.api;
		if (a->end < a->start)
			return -1;
		*kind = TK_THREAD, *device = 0, *key = a->thread_id, *start = a->start, *end = a->end;
		return 1;
	}
	case GT_REC_SYNC: {
		const struct gt_sync *s = &ev->u.sync;
		if (s->end < s->start)
			return -1;
		*kind = TK_SYNC, *device = 0, *key = 0, *start = s->start, *end = s->end;
		return 1;
	}
	case GT_REC_NVTX: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		if (n->kind == GT_NVTX_MARK)
			return 0;
		if (n->end == 0 || n->end < n->start)
			return -1;
		*kind = n->kind == GT_NVTX_PUSH_POP ? TK_THREAD : TK_NVTX;
		*device = 0;
		*key = n->kind == GT_NVTX_PUSH_POP ? n->thread_id : 0;
		*start = n->start;
		*end = n->end;
		return 1;
	}
	case GT_REC_OVERHEAD: {
		const struct gt_overhead *v = &ev->u.overhead;
		if (v->end < v->start)
			return -1;
		*kind = TK_OVERHEAD, *device = 0, *key = 0, *start = v->start, *end = v->end;
		return 1;
	}
	default: return 0;
	}
}

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

/* ---- correlation ids ------------------------------------------------------------------------- */

/* The byte of corr; NULL when its page was never made. */
static uint8_t *corr_find(const struct pages *p, uint32_t corr)
{
	uint8_t *page = p->p[corr >> 16];
	return page ? &page[corr & 0xffff] : NULL;
}

/* The byte of corr into *b, its page made if need be and if fewer than max_pages exist (else *b is
 * NULL). 0, or GT_ERR_NOMEM. */
static int corr_make(struct pages *p, uint32_t corr, uint64_t max_pages, uint8_t **b)
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
	if (corr_make(x->cnt, corr, PAGES_FREE + x->res->events / PAGE_RECORDS, &b))
		return GT_ERR_NOMEM;
	if (!b)
		x->res->flows_unmapped += !api;
	else if (api)
		*b |= API_SEEN;
	else if ((*b & ~API_SEEN) < FLOW_CAP)
		(*b)++;
	return 0;
}

static void pages_free(struct pages *p)
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

/* Several traces: every trace's host and devices are processes of their own, numbered from the
 * trace's pid_base (its host), devices after it by the order they were seen (at most 64: more share
 * the last). One trace: the device's own number over DEVICE_PID_BASE. */
static uint32_t pid_base_of(size_t index) { return (uint32_t)(index + 1) * 1000u; }

static uint32_t dev_pid(const struct ex *x, uint32_t d)
{
	if (!x->file)
		return DEVICE_PID_BASE + d;
	size_t i = 0;
	while (i + 1 < x->ndevs && x->devs[i] != d)
		i++;
	return x->pid_base + 1 + (uint32_t)i;
}

/* ---- pass 1 --------------------------------------------------------------------------------- */

static int collect(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
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
	int s = slice_of(ev, &kind, &device, &key, &start, &end);
	if (s < 0) {
		if (ev->type == GT_REC_NVTX && ev->u.nvtx.end == 0)
			x->res->unclosed++;
		else
			x->res->bad_times++;
	} else if (s > 0) {
		struct track *t = track_of(x, kind, device, key, 1);
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
	switch (ev->type) {
	case GT_REC_KERNEL:
	case GT_REC_MEMCPY:
	case GT_REC_MEMSET: {
		uint32_t corr = ev->type == GT_REC_KERNEL   ? ev->u.kernel.correlation_id
		                : ev->type == GT_REC_MEMCPY ? ev->u.memcpy.correlation_id
		                                            : ev->u.memset.correlation_id;
		note_device(x, ev->type == GT_REC_KERNEL   ? ev->u.kernel.device_id
		               : ev->type == GT_REC_MEMCPY ? ev->u.memcpy.device_id
		                                           : ev->u.memset.device_id);
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
		if (ev->u.nvtx.kind == GT_NVTX_MARK && !track_of(x, TK_THREAD, 0, ev->u.nvtx.thread_id, 1))
			return GT_ERR_NOMEM;
		break;
	case GT_REC_CLOCK_SAMPLE: note_device(x, ev->u.clock_sample.device_id); break;
	default: break;
	}
	return 0;
}

/* ---- placing slices on lanes ----------------------------------------------------------------- */

struct lane {
	uint64_t last_end;       /* device tracks: where the lane is free from */
	struct gt_tl_span *stack;/* host tracks: the open slices, outermost first */
	size_t n, cap;
	uint64_t key;            /* see placer */
};

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

static int grow_array(void **a, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	void *q = realloc(*a, c * elem);
	if (!q)
		return GT_ERR_NOMEM;
	*a = q;
	*cap = c;
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
	if (grow_array((void **)&p->heap, &p->capheap, p->nheap + 1, sizeof *p->heap))
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
		if (grow_array((void **)&p->blocked, &p->capblocked, p->nblocked + 1, sizeof *p->blocked))
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
			if (grow_array((void **)&p->lanes, &p->capl, p->nl + 1, sizeof *p->lanes))
				return GT_ERR_NOMEM;
			memset(&p->lanes[p->nl++], 0, sizeof *p->lanes);
			if (p->nl > p->tsize && tree_grow(p))
				return GT_ERR_NOMEM;
			l = p->nl - 1;
		}
	}
	struct lane *L = &p->lanes[l];
	if (p->nest) {
		if (grow_array((void **)&L->stack, &L->cap, L->n + 1, sizeof *L->stack) || heap_push(p, en, l))
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

static int place(struct ex *x)
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

/* ---- pass 2: Chrome JSON -------------------------------------------------------------------- */

static void ev_begin(struct ex *x)
{
	if (x->first_event)
		PUTS(&x->o, "\n{");
	else
		PUTS(&x->o, ",\n{");
	x->first_event = 0;
	x->res->written++;
}

/* Pass 2: the lane of the next slice (slices come in seq order, and so does the moved list). */
static uint32_t lane_of(struct ex *x)
{
	uint64_t seq = x->seq++;
	if (x->moved_pos < x->moved.n) {
		const struct moved *m = gt_tl_vec_at(&x->moved, x->moved_pos);
		if (m->seq == seq) {
			x->moved_pos++;
			return (uint32_t)m->lane;
		}
	}
	return 0;
}

static uint64_t rel(const struct ex *x, uint64_t ns) { return gt_xclock_rel(&x->clock, ns); }

/* A slice's shown duration: its own, unless its ends are mapped onto another clock. */
static uint64_t shown_dur(const struct ex *x, uint64_t start, uint64_t end)
{
	return x->clock.mapped ? rel(x, end) - rel(x, start) : end - start;
}


static void track_label(const struct track *t, uint32_t lane, char *buf, size_t len)
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

static void meta_event(struct ex *x, uint32_t pid, int thread, uint32_t tid, const char *what, const char *name,
                       uint64_t sort)
{
	ev_begin(x);
	PUTS(&x->o, "\"ph\":\"M\",\"pid\":");
	put_u64(&x->o, pid);
	if (thread) {
		PUTS(&x->o, ",\"tid\":");
		put_u64(&x->o, tid);
	}
	PUTS(&x->o, ",\"name\":\"");
	put_str(&x->o, what);
	if (name) {
		PUTS(&x->o, "\",\"args\":{\"name\":");
		put_escaped(x, name);
	} else {
		PUTS(&x->o, "\",\"args\":{\"sort_index\":");
		put_u64(&x->o, sort);
	}
	PUTS(&x->o, "}}");
	x->res->metadata++;
}

static void metadata(struct ex *x, const struct gt_reader *r)
{
	char buf[512];
	const char *pname = gt_reader_meta(r, "process.name");
	/* Several traces: the trace's label first ("rank 1 host: ..."), its own pid in the name (the
	 * process ids are the export's), processes in the order the traces were given. */
	const char *label = x->file ? x->file->label : "";
	const char *sp = x->file ? " " : "";
	uint32_t real_pid = x->file ? x->file_pid : x->host_pid;
	if (pname)
		snprintf(buf, sizeof buf, "%s%shost: %s (pid %u)", label, sp, pname, real_pid);
	else
		snprintf(buf, sizeof buf, "%s%shost (pid %u)", label, sp, real_pid);
	meta_event(x, x->host_pid, 0, 0, "process_name", buf, 0);
	meta_event(x, x->host_pid, 0, 0, "process_sort_index", NULL, x->file ? x->pid_base : 0);
	for (size_t i = 0; i < x->ndevs; i++) {
		const char *dn = NULL;
		uint32_t d = x->devs[i];
		if (gt_reader_device(r, d, &dn) && dn && *dn)
			snprintf(buf, sizeof buf, "%s%sGPU %u: %s", label, sp, d, dn);
		else
			snprintf(buf, sizeof buf, "%s%sGPU %u", label, sp, d);
		uint32_t pid = dev_pid(x, d);
		meta_event(x, pid, 0, 0, "process_name", buf, 0);
		meta_event(x, pid, 0, 0, "process_sort_index", NULL, x->file ? pid : 1 + (uint64_t)d);
	}
	for (size_t i = 0; i < x->nt; i++) {
		const struct track *t = &x->t[i];
		for (uint32_t l = 0; l < t->nlanes; l++) {
			track_label(t, l, buf, sizeof buf);
			meta_event(x, t->pid, 1, t->tid0 + l, "thread_name", buf, 0);
			meta_event(x, t->pid, 1, t->tid0 + l, "thread_sort_index", NULL, t->tid0 + l);
		}
	}
}

/* "pid":P,"tid":T of a track's lane, at most 44 bytes: lane 0's is made once. */
static inline char *w_ids(char *p, const struct track *t, uint32_t lane)
{
	if (!lane) {
		memcpy(p, t->ids, t->nids);
		return p + t->nids;
	}
	p = W_LIT(p, "\"pid\":");
	p = w_u64(p, t->pid);
	p = W_LIT(p, ",\"tid\":");
	return w_u64(p, t->tid0 + lane);
}

static void slice_head(struct ex *x, const struct track *t, uint32_t lane, uint64_t start, uint64_t end,
                       const char *name, size_t name_len, const char *cat)
{
	struct out *o = &x->o;
	size_t catn = strlen(cat); /* ours, short */
	int small = name_len < 4096;
	char *p = reserve(o, 128 + catn + (small ? name_len : 0));
	p = W_LIT(p, ",\n{\"ph\":\"X\",");
	p = w_ids(p, t, lane);
	p = W_LIT(p, ",\"ts\":");
	p = w_us(p, rel(x, start));
	p = W_LIT(p, ",\"dur\":");
	p = w_us(p, shown_dur(x, start, end));
	p = W_LIT(p, ",\"name\":");
	if (small) {
		memcpy(p, name, name_len);
		p += name_len;
	} else {
		commit(o, p);
		put(o, name, name_len);
		p = reserve(o, 32 + catn);
	}
	p = W_LIT(p, ",\"cat\":\"");
	memcpy(p, cat, catn);
	p = W_LIT(p + catn, "\",\"args\":{");
	commit(o, p);
	x->res->written++;
	x->res->slices++;
}

static inline void arg_un(struct ex *x, const char *key, size_t n, uint64_t v, int first)
{
	char *p = reserve(&x->o, n + 32);
	if (!first)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, key, n);
	p = W_LIT(p + n, "\":");
	commit(&x->o, w_u64(p, v));
}

/* key is a literal of ours: its length is known when compiling. */
#define arg_u(x, key, v, first) arg_un((x), (key), sizeof(key) - 1, (v), (first))

static void flow(struct ex *x, char ph, uint64_t id, const struct track *t, uint32_t lane, uint64_t ts)
{
	struct out *o = &x->o;
	char *p = reserve(o, 160);
	p = ph == 'f' ? W_LIT(p, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":") : W_LIT(p, ",\n{\"ph\":\"s\",\"id\":");
	p = w_u64(p, id);
	*p++ = ',';
	p = w_ids(p, t, lane);
	p = W_LIT(p, ",\"ts\":");
	p = w_us(p, rel(x, ts));
	p = W_LIT(p, ",\"name\":\"launch\",\"cat\":\"flow\"}");
	commit(o, p);
	x->res->written++;
	if (ph == 'f')
		x->res->flows++; /* an arrow is its two ends */
}

/* ts: shown ns (rel). */
static void counter(struct ex *x, uint32_t pid, uint64_t ts, const char *name, const char *key, int64_t v)
{
	ev_begin(x);
	PUTS(&x->o, "\"ph\":\"C\",\"pid\":");
	put_u64(&x->o, pid);
	PUTS(&x->o, ",\"ts\":");
	put_us(&x->o, ts);
	PUTS(&x->o, ",\"name\":\"");
	put_str(&x->o, name);
	PUTS(&x->o, "\",\"args\":{\"");
	put_str(&x->o, key);
	PUTS(&x->o, "\":");
	put_i64(&x->o, v);
	PUTS(&x->o, "}}");
	x->res->counters++;
}

/* ts: shown ns (rel). */
static void instant(struct ex *x, uint32_t pid, uint32_t tid, char scope, uint64_t ts, const char *name_json,
                    const char *cat)
{
	ev_begin(x);
	PUTS(&x->o, "\"ph\":\"i\",\"s\":\"");
	put(&x->o, &scope, 1);
	PUTS(&x->o, "\",\"pid\":");
	put_u64(&x->o, pid);
	PUTS(&x->o, ",\"tid\":");
	put_u64(&x->o, tid);
	PUTS(&x->o, ",\"ts\":");
	put_us(&x->o, ts);
	PUTS(&x->o, ",\"name\":");
	put_str(&x->o, name_json);
	PUTS(&x->o, ",\"cat\":\"");
	put_str(&x->o, cat);
	PUTS(&x->o, "\"}");
	x->res->instants++;
}

static const char *mem_group(int kind)
{
	switch (kind) {
	case GT_MEM_DEVICE:
	case GT_MEM_DEVICE_STATIC:
	case GT_MEM_ARRAY: return "device memory in use (bytes)";
	case GT_MEM_PINNED: return "pinned host memory in use (bytes)";
	case GT_MEM_MANAGED:
	case GT_MEM_MANAGED_STATIC: return "managed memory in use (bytes)";
	case GT_MEM_PAGEABLE: return "pageable host memory in use (bytes)";
	default: return "other memory in use (bytes)";
	}
}

/* Flow arrows of an API call (start) or of a GPU operation (finish), by correlation id. */
static void flows_of_call(struct ex *x, uint32_t corr, const struct track *t, uint32_t lane, uint64_t mid)
{
	uint8_t *b = corr ? corr_find(x->cnt, corr) : NULL;
	if (!b || !(*b & API_SEEN))
		return;
	unsigned n = *b & ~API_SEEN;
	for (unsigned k = 0; k < n; k++)
		flow(x, 's', x->flow_base + (uint64_t)corr * 128 + k, t, lane, mid);
}

static int flow_of_op(struct ex *x, uint32_t corr, const struct track *t, uint32_t lane, uint64_t mid)
{
	uint8_t *b = corr ? corr_find(x->cnt, corr) : NULL;
	if (!b || !(*b & API_SEEN))
		return 0;
	/* x->next makes a page only where x->cnt has one: within the same budget */
	uint8_t *k;
	if (corr_make(x->next, corr, UINT64_MAX, &k) || !k)
		return GT_ERR_NOMEM;
	if (*k >= (*b & ~API_SEEN)) {
		x->res->flows_capped++;
		return 0;
	}
	flow(x, 'f', x->flow_base + (uint64_t)corr * 128 + (*k)++, t, lane, mid);
	return 0;
}

static int emit_chrome(struct ex *x, const struct gt_reader *r, const struct gt_event *ev)
{
	int kind;
	uint32_t device;
	uint64_t key, start, end;
	int s = slice_of(ev, &kind, &device, &key, &start, &end);
	const struct track *t = NULL;
	uint32_t lane = 0;
	if (s > 0) {
		if (!(t = track_of(x, kind, device, key, 0)))
			return GT_ERR_STATE;
		lane = lane_of(x);
	}
	const char *nm;
	size_t nlen = 0;
	char buf[160];
	uint64_t mid = start + (end - start) / 2;
	switch (ev->type) {
	case GT_REC_KERNEL: {
		if (s <= 0)
			return 0;
		const struct gt_kernel *k = &ev->u.kernel;
		if (!(nm = name_of(x, r, k->name_id, 1, &nlen)))
			return GT_ERR_NOMEM;
		slice_head(x, t, lane, start, end, nm, nlen, "kernel");
		/* By hand: this is the line written millions of times (at most 10 numbers of 20 digits). */
		struct out *o = &x->o;
		char *p = reserve(o, 400);
		p = W_LIT(p, "\"correlation\":");
		p = w_u64(p, k->correlation_id);
		p = W_LIT(p, ",\"grid\":\"");
		p = w_dims(p, k->grid_x, k->grid_y, k->grid_z);
		p = W_LIT(p, "\",\"block\":\"");
		p = w_dims(p, k->block_x, k->block_y, k->block_z);
		p = W_LIT(p, "\",\"registers\":");
		p = w_u64(p, k->registers);
		p = W_LIT(p, ",\"static_smem\":");
		p = w_u64(p, k->static_smem);
		p = W_LIT(p, ",\"dynamic_smem\":");
		p = w_u64(p, k->dynamic_smem);
		if (k->flags & GT_KERNEL_HAS_QUEUED && k->queued && k->queued <= start) {
			p = W_LIT(p, ",\"queued_to_start_ns\":");
			p = w_u64(p, start - k->queued);
		}
		if (k->graph_id) {
			p = W_LIT(p, ",\"graph\":");
			p = w_u64(p, k->graph_id);
		}
		p = W_LIT(p, "}}");
		commit(o, p);
		return flow_of_op(x, k->correlation_id, t, lane, mid);
	}
	case GT_REC_MEMCPY: {
		if (s <= 0)
			return 0;
		const struct gt_memcpy *m = &ev->u.memcpy;
		uint32_t mk = 1u << 24 | (uint32_t)m->copy_kind << 16 | (uint32_t)m->src_kind << 8 | m->dst_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "\"memcpy %s %s->%s\"", gt_copy_kind_name(m->copy_kind),
			         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
			x->op_key = mk;
		}
		slice_head(x, t, lane, start, end, x->op_name, strlen(x->op_name), "memcpy");
		arg_u(x, "correlation", m->correlation_id, 1);
		arg_u(x, "bytes", m->bytes, 0);
		if (m->flags & GT_COPY_ASYNC)
			PUTS(&x->o, ",\"async\":\"yes\"}}");
		else
			PUTS(&x->o, ",\"async\":\"no\"}}");
		return flow_of_op(x, m->correlation_id, t, lane, mid);
	}
	case GT_REC_MEMSET: {
		if (s <= 0)
			return 0;
		const struct gt_memset *m = &ev->u.memset;
		uint32_t mk = 2u << 24 | m->mem_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "\"memset %s\"", gt_mem_kind_name(m->mem_kind));
			x->op_key = mk;
		}
		slice_head(x, t, lane, start, end, x->op_name, strlen(x->op_name), "memset");
		arg_u(x, "correlation", m->correlation_id, 1);
		arg_u(x, "bytes", m->bytes, 0);
		arg_u(x, "value", m->value, 0);
		PUTS(&x->o, "}}");
		return flow_of_op(x, m->correlation_id, t, lane, mid);
	}
	case GT_REC_API: {
		if (s <= 0)
			return 0;
		const struct gt_api *a = &ev->u.api;
		if (!(nm = name_of(x, r, a->name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		slice_head(x, t, lane, start, end, nm, nlen, a->domain == GT_API_DRIVER ? "cuda_driver" : "cuda_runtime");
		arg_u(x, "correlation", a->correlation_id, 1);
		if (a->return_value) {
			PUTS(&x->o, ",\"return\":");
			put_i64(&x->o, a->return_value);
		}
		PUTS(&x->o, "}}");
		flows_of_call(x, a->correlation_id, t, lane, mid);
		return 0;
	}
	case GT_REC_SYNC: {
		if (s <= 0)
			return 0;
		const struct gt_sync *y = &ev->u.sync;
		/* One of a few names (no snprintf for each of a million syncs). */
		const char *kn = gt_sync_kind_name(y->kind);
		size_t kl = strlen(kn);
		if (kl > sizeof buf - 8)
			kl = sizeof buf - 8;
		memcpy(buf, "\"sync ", 6);
		memcpy(buf + 6, kn, kl);
		buf[6 + kl] = '"';
		slice_head(x, t, lane, start, end, buf, kl + 7, "sync");
		arg_u(x, "correlation", y->correlation_id, 1);
		if (y->stream_id != UINT32_MAX)
			arg_u(x, "stream", y->stream_id, 0);
		PUTS(&x->o, "}}");
		return 0;
	}
	case GT_REC_NVTX: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		if (!(nm = name_of(x, r, n->name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		if (n->kind == GT_NVTX_MARK) {
			const struct track *th = track_of(x, TK_THREAD, 0, n->thread_id, 0);
			if (th && n->start)
				instant(x, th->pid, th->tid0, 't', rel(x, n->start), nm, "nvtx");
			return 0;
		}
		if (s <= 0)
			return 0;
		slice_head(x, t, lane, start, end, nm, nlen, "nvtx");
		arg_u(x, "depth", n->depth, 1);
		if (n->domain_id) {
			const char *dom = name_of(x, r, n->domain_id, 0, NULL);
			if (!dom)
				return GT_ERR_NOMEM;
			PUTS(&x->o, ",\"domain\":");
			put_str(&x->o, dom);
		}
		if (n->kind == GT_NVTX_START_END)
			arg_u(x, "thread", n->thread_id, 0);
		PUTS(&x->o, "}}");
		return 0;
	}
	case GT_REC_OVERHEAD: {
		if (s <= 0)
			return 0;
		const struct gt_overhead *v = &ev->u.overhead;
		snprintf(buf, sizeof buf, "\"overhead kind %u\"", v->kind);
		if (v->kind == GT_OVERHEAD_CAPTURE)
			snprintf(buf, sizeof buf, "\"shadow capture\"");
		slice_head(x, t, lane, start, end, buf, strlen(buf), "overhead");
		arg_u(x, "object", v->object_id, 1);
		PUTS(&x->o, "}}");
		return 0;
	}
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		if (!c->timestamp)
			return 0;
		uint32_t pid = dev_pid(x, c->device_id);
		uint64_t ts = rel(x, c->timestamp);
		counter(x, pid, ts, "SM clock (MHz)", "MHz", c->sm_clock_mhz);
		counter(x, pid, ts, "memory clock (MHz)", "MHz", c->mem_clock_mhz);
		counter(x, pid, ts, "temperature (C)", "C", c->temperature_c);
		counter(x, pid, ts, "power (mW)", "mW", c->power_mw);
		return 0;
	}
	case GT_REC_PROCESS: {
		const struct gt_process *p = &ev->u.process;
		if (!p->timestamp)
			return 0;
		switch (p->event) {
		case GT_PROCESS_START: snprintf(buf, sizeof buf, "\"process start\""); break;
		case GT_PROCESS_EXIT: snprintf(buf, sizeof buf, "\"process exit (status %d)\"", p->status); break;
		case GT_PROCESS_SIGNAL: snprintf(buf, sizeof buf, "\"process killed by signal %d\"", p->status); break;
		case GT_PROCESS_FORKED: snprintf(buf, sizeof buf, "\"forked from %d\"", p->status); break;
		case GT_PROCESS_EXEC: snprintf(buf, sizeof buf, "\"exec: trace ends\""); break;
		case GT_PROCESS_TRACING_OFF: snprintf(buf, sizeof buf, "\"tracing stopped\""); break;
		case GT_PROCESS_WINDOW_OPEN: snprintf(buf, sizeof buf, "\"recording window %d opens\"", p->status); break;
		case GT_PROCESS_WINDOW_CLOSE: snprintf(buf, sizeof buf, "\"recording window %d closes\"", p->status); break;
		default: snprintf(buf, sizeof buf, "\"process event %u\"", p->event); break;
		}
		instant(x, x->host_pid, 0, 'p', rel(x, p->timestamp), buf, "process");
		return 0;
	}
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		snprintf(buf, sizeof buf, "\"%llu records dropped (%s)\"", (unsigned long long)d->count,
		         gt_drop_reason_name((int)d->reason));
		/* Without a time: at the start of what is shown. */
		instant(x, x->host_pid, 0, 'g', d->timestamp ? rel(x, d->timestamp) : x->win->start, buf, "dropped");
		return 0;
	}
	default: return 0;
	}
}

static int cmp_mem(const void *a, const void *b)
{
	const struct memrec *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Host memory (groups 1 and 3: pinned, pageable) belongs on the host's process; device memory on
 * its device. */
static uint32_t mem_pid(const struct ex *x, size_t group, uint32_t device)
{
	return group == 1 || group == 3 ? x->host_pid : dev_pid(x, device);
}

/* Memory in use per (device, kind group), in time order; a free never takes it below 0. */
static int memory_counters(struct ex *x)
{
	if (gt_tl_vec_sort(&x->mem))
		return GT_ERR_NOMEM;
	/* Stable by time already; group by device too (a stable sort keeps time order within one). */
	struct memrec *m = x->mem.buf.p;
	size_t n = x->mem.n;
	if (n > 1) {
		/* Few devices: an insertion of each device's records in turn would do, but qsort on
		 * (device, ts) keeps it simple; equal keys may reorder, which changes no sum. */
		qsort(m, n, sizeof *m, cmp_mem);
	}
	const char *groups[5] = { "device memory in use (bytes)", "pinned host memory in use (bytes)",
		                  "managed memory in use (bytes)", "pageable host memory in use (bytes)",
		                  "other memory in use (bytes)" };
	/* A window shows the sums from its start: what the records before it added up to is drawn at
	 * the start (carried), just before the first record from there on changes it. */
	uint64_t sum[5] = { 0 };
	int carried[5] = { 0 };
	uint32_t dev = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || i == 0 || m[i].device != dev) {
			for (size_t gi = 0; i && gi < 5; gi++)
				if (carried[gi])
					counter(x, mem_pid(x, gi, dev), x->win->start, groups[gi], "bytes", (int64_t)sum[gi]);
			if (i == n)
				break;
			memset(sum, 0, sizeof sum);
			memset(carried, 0, sizeof carried);
			dev = m[i].device;
		}
		const char *g = mem_group(m[i].kind);
		size_t gi = 0;
		while (gi < 4 && strcmp(groups[gi], g) != 0)
			gi++;
		if (m[i].op != GT_MEMORY_ALLOC && m[i].op != GT_MEMORY_FREE)
			continue;
		uint64_t ts = rel(x, m[i].ts);
		for (size_t k = 0; ts >= x->win->start && k < 5; k++)
			if (carried[k]) {
				counter(x, mem_pid(x, k, dev), x->win->start, groups[k], "bytes", (int64_t)sum[k]);
				carried[k] = 0;
			}
		if (m[i].op == GT_MEMORY_ALLOC)
			sum[gi] += m[i].bytes;
		else
			sum[gi] = sum[gi] > m[i].bytes ? sum[gi] - m[i].bytes : 0;
		if (ts < x->win->start)
			carried[gi] = 1;
		else if (ts <= x->win->end)
			counter(x, mem_pid(x, gi, dev), ts, g, "bytes", (int64_t)sum[gi]);
	}
	return 0;
}

/* Several traces: each one's path, label, process ids and clock. */
static void traces_data(struct ex *x)
{
	struct out *o = &x->o;
	PUTS(o, ",\"traces\":[");
	for (size_t i = 0; i < x->nfiles; i++) {
		const struct gt_xfile *f = &x->files[i];
		put_str(o, i ? ",{\"path\":" : "{\"path\":");
		put_escaped(x, f->path);
		PUTS(o, ",\"label\":");
		put_escaped(x, f->label);
		PUTS(o, ",\"host_pid\":");
		put_u64(o, pid_base_of(i));
		PUTS(o, ",\"process_id\":");
		put_u64(o, f->pid);
		PUTS(o, ",\"origin_ns\":");
		put_u64(o, f->origin);
		PUTS(o, ",\"clock\":\"");
		put_str(o, f->clock.mapped ? gt_align_state_name(f->align.state) : "own");
		PUTS(o, "\"}");
	}
	PUTS(o, "],\"origin_realtime_ns\":");
	put_i64(o, x->nfiles && x->files[0].clock.mapped ? x->files[0].clock.origin_host : 0);
	PUTS(o, ",\"time\":\"ts and dur in microseconds (3 decimals: exact nanoseconds) since "
	        "origin_realtime_ns on CLOCK_REALTIME (traces whose clock is own: since their own origin_ns "
	        "on their CUPTI clock)\"");
}

/* A window or a kernel filter: what was asked and what it left out. */
static void window_data(struct ex *x)
{
	struct out *o = &x->o;
	const struct gt_export_options *op = x->opt;
	if (!x->win->active && !(op->kernels && op->kernels->active))
		return;
	PUTS(o, ",\"window\":");
	if (x->win->active) {
		PUTS(o, "{\"start_us\":");
		put_us(o, x->win->start);
		PUTS(o, ",\"end_us\":");
		if (x->win->end == UINT64_MAX)
			PUTS(o, "null");
		else
			put_us(o, x->win->end);
		PUTS(o, ",\"range\":");
		if (op->range)
			put_escaped(x, op->range);
		else
			PUTS(o, "null");
		PUTS(o, "}");
	} else {
		PUTS(o, "null");
	}
	PUTS(o, ",\"kernel_filter\":");
	if (op->kernels && op->kernels->active)
		put_escaped(x, op->kernels->pattern);
	else
		PUTS(o, "null");
	PUTS(o, ",\"records_left_out\":");
	put_u64(o, x->win->left_out);
}

static void other_data(struct ex *x)
{
	struct out *o = &x->o;
	struct gt_export_result *s = x->res;
	PUTS(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"gpuanalyze export " GT_TOOL_VERSION "\"");
	if (x->nfiles > 1) {
		traces_data(x);
	} else {
		PUTS(o, ",\"trace\":");
		put_escaped(x, x->path);
		PUTS(o, ",\"origin_ns\":");
		put_u64(o, x->origin);
		PUTS(o, ",\"time\":\"ts and dur in microseconds (3 decimals: exact nanoseconds) since origin_ns on the "
		        "CUPTI clock\"");
	}
	window_data(x);
	PUTS(o, ",\"synthetic\":");
	if (x->synthetic)
		put_escaped(x, x->synthetic);
	else
		PUTS(o, "null");
	PUTS(o, ",\"complete\":");
	if (x->complete)
		PUTS(o, "true");
	else
		PUTS(o, "false");
	PUTS(o, ",\"slices\":");
	put_u64(o, s->slices);
	PUTS(o, ",\"tracks\":");
	put_u64(o, s->tracks);
	PUTS(o, ",\"overlap_tracks\":");
	put_u64(o, s->subtracks);
	PUTS(o, ",\"slices_on_overlap_tracks\":");
	put_u64(o, s->overlapped);
	PUTS(o, ",\"flows\":");
	put_u64(o, s->flows);
	PUTS(o, ",\"flows_capped\":");
	put_u64(o, s->flows_capped);
	PUTS(o, ",\"flows_unmapped\":");
	put_u64(o, s->flows_unmapped);
	PUTS(o, ",\"bad_times_left_out\":");
	put_u64(o, s->bad_times);
	PUTS(o, ",\"nvtx_unclosed_left_out\":");
	put_u64(o, s->unclosed);
	PUTS(o, "}}\n");
}

/* ---- pass 2: CSV ------------------------------------------------------------------------------ */

static void csv_track(struct ex *x, const struct track *t, uint32_t lane)
{
	char buf[160];
	if (t->kind == TK_STREAM)
		snprintf(buf, sizeof buf, "%sGPU %u,", x->prefix, t->device);
	else
		snprintf(buf, sizeof buf, "%shost,", x->prefix);
	put_str(&x->o, buf);
	track_label(t, 0, buf, sizeof buf);
	put_str(&x->o, buf);
	PUTS(&x->o, ",");
	put_u64(&x->o, lane);
}

/* Several traces: the trace's label before a CSV process name ("rank 0 GPU 0"): at most 71 bytes. */
static inline char *w_prefix(char *p, const struct ex *x)
{
	size_t n = strlen(x->prefix);
	memcpy(p, x->prefix, n);
	return p + n;
}

/* The rows written millions of times, kernels and API calls on the timeline, formatted by hand
 * (the generic path below takes twice as long through snprintf). The same columns and words. */
static int csv_fast(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, const struct track *t,
                    uint32_t lane, uint64_t start, uint64_t end)
{
	struct out *o = &x->o;
	size_t nlen;
	const char *nm;
	int kernel = ev->type == GT_REC_KERNEL;
	if (!(nm = name_of(x, r, kernel ? ev->u.kernel.name_id : ev->u.api.name_id, kernel, &nlen)))
		return GT_ERR_NOMEM;
	char *p = reserve(o, 320);
	p = kernel ? W_LIT(p, "kernel,") : W_LIT(p, "api,");
	p = w_u64(p, start);
	*p++ = ',';
	p = w_u64(p, end);
	*p++ = ',';
	p = w_u64(p, end - start);
	*p++ = ',';
	p = w_us(p, rel(x, start));
	*p++ = ',';
	p = w_prefix(p, x);
	if (kernel) {
		p = W_LIT(p, "GPU ");
		p = w_u64(p, t->device);
		p = W_LIT(p, ",stream ");
	} else {
		p = W_LIT(p, "host,thread ");
	}
	p = w_u64(p, t->key);
	*p++ = ',';
	p = w_u64(p, lane);
	*p++ = ',';
	commit(o, p);
	put(o, nm, nlen);
	p = reserve(o, 256);
	*p++ = ',';
	if (kernel) {
		const struct gt_kernel *k = &ev->u.kernel;
		p = w_u64(p, k->correlation_id);
		p = W_LIT(p, ",,grid ");
		p = w_dims(p, k->grid_x, k->grid_y, k->grid_z);
		p = W_LIT(p, " block ");
		p = w_dims(p, k->block_x, k->block_y, k->block_z);
		p = W_LIT(p, " registers ");
		p = w_u64(p, k->registers);
		p = W_LIT(p, " smem ");
		p = w_u64(p, k->static_smem);
		*p++ = '+';
		p = w_u64(p, k->dynamic_smem);
	} else {
		const struct gt_api *a = &ev->u.api;
		p = w_u64(p, a->correlation_id);
		p = a->domain == GT_API_DRIVER ? W_LIT(p, ",,driver return ") : W_LIT(p, ",,runtime return ");
		if (a->return_value < 0) {
			*p++ = '-';
			p = w_u64(p, (uint64_t)0 - (uint64_t)(int64_t)a->return_value);
		} else {
			p = w_u64(p, (uint64_t)a->return_value);
		}
	}
	*p++ = '\n';
	commit(o, p);
	x->res->written++;
	return 0;
}

/* The process, track and lane columns of a slice's row (csv_track's words): at most 143 bytes. */
static char *w_track_cols(char *p, const struct ex *x, const struct track *t, uint32_t lane)
{
	p = w_prefix(p, x);
	switch (t->kind) {
	case TK_STREAM:
		p = W_LIT(p, "GPU ");
		p = w_u64(p, t->device);
		p = W_LIT(p, ",stream ");
		p = w_u64(p, t->key);
		break;
	case TK_THREAD:
		p = W_LIT(p, "host,thread ");
		p = w_u64(p, t->key);
		break;
	case TK_SYNC: p = W_LIT(p, "host,synchronisation waits"); break;
	case TK_NVTX: p = W_LIT(p, "host,NVTX start/end ranges"); break;
	default: p = W_LIT(p, "host,CUPTI overhead"); break;
	}
	*p++ = ',';
	return w_u64(p, lane);
}

/* The other slices' rows (copies, memsets, syncs, NVTX ranges), by hand like csv_fast: the same
 * columns and words as emit_csv's general path, which a start of 0 (printed as an empty field
 * there) still takes. */
static int csv_slice(struct ex *x, const struct gt_reader *r, const struct gt_event *ev, const struct track *t,
                     uint32_t lane, uint64_t start, uint64_t end)
{
	struct out *o = &x->o;
	const char *nm;
	size_t nlen;
	switch (ev->type) {
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		uint32_t mk = 1u << 24 | (uint32_t)m->copy_kind << 16 | (uint32_t)m->src_kind << 8 | m->dst_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "memcpy %s %s->%s", gt_copy_kind_name(m->copy_kind),
			         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
			x->op_key = mk;
		}
		nm = x->op_name;
		break;
	}
	case GT_REC_MEMSET: {
		uint32_t mk = 2u << 24 | ev->u.memset.mem_kind;
		if (mk != x->op_key) {
			snprintf(x->op_name, sizeof x->op_name, "memset %s", gt_mem_kind_name(ev->u.memset.mem_kind));
			x->op_key = mk;
		}
		nm = x->op_name;
		break;
	}
	case GT_REC_SYNC: nm = gt_sync_kind_name(ev->u.sync.kind); break;
	default:
		if (!(nm = name_of(x, r, ev->u.nvtx.name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		break;
	}
	if (ev->type != GT_REC_NVTX)
		nlen = strlen(nm); /* our own words, short */
	const char *tn = gt_rec_type_name(ev->type);
	size_t tl = strlen(tn);
	char *p = reserve(o, 224 + tl);
	memcpy(p, tn, tl);
	p += tl;
	*p++ = ',';
	if (start)
		p = w_u64(p, start);
	*p++ = ',';
	p = w_u64(p, end);
	*p++ = ',';
	p = w_u64(p, end - start);
	*p++ = ',';
	if (start)
		p = w_us(p, rel(x, start));
	*p++ = ',';
	p = w_track_cols(p, x, t, lane);
	*p++ = ',';
	if (ev->type == GT_REC_SYNC)
		p = W_LIT(p, "sync ");
	commit(o, p);
	put(o, nm, nlen);
	p = reserve(o, 160);
	*p++ = ',';
	switch (ev->type) {
	case GT_REC_MEMCPY:
		p = w_u64(p, ev->u.memcpy.correlation_id);
		*p++ = ',';
		p = w_u64(p, ev->u.memcpy.bytes);
		p = ev->u.memcpy.flags & GT_COPY_ASYNC ? W_LIT(p, ",async") : W_LIT(p, ",sync");
		break;
	case GT_REC_MEMSET:
		p = w_u64(p, ev->u.memset.correlation_id);
		*p++ = ',';
		p = w_u64(p, ev->u.memset.bytes);
		p = W_LIT(p, ",value ");
		p = w_u64(p, ev->u.memset.value);
		break;
	case GT_REC_SYNC:
		p = w_u64(p, ev->u.sync.correlation_id);
		p = W_LIT(p, ",,");
		break;
	default: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		p = n->kind == GT_NVTX_PUSH_POP ? W_LIT(p, ",,push-pop depth ") : W_LIT(p, ",,start-end depth ");
		p = w_u64(p, n->depth);
		p = W_LIT(p, " thread ");
		p = w_u64(p, n->thread_id);
		break;
	}
	}
	*p++ = '\n';
	commit(o, p);
	x->res->written++;
	return 0;
}

/* type,start_ns,end_ns,duration_ns,ts_us,process,track,lane,name,correlation_id,bytes,detail */
static int emit_csv(struct ex *x, const struct gt_reader *r, const struct gt_event *ev)
{
	int kind;
	uint32_t device;
	uint64_t key, start, end;
	int s = slice_of(ev, &kind, &device, &key, &start, &end);
	const struct track *t = NULL;
	uint32_t lane = 0;
	if (s > 0) {
		if (!(t = track_of(x, kind, device, key, 0)))
			return GT_ERR_STATE;
		lane = lane_of(x);
	}
	if (s > 0 && (ev->type == GT_REC_KERNEL || ev->type == GT_REC_API))
		return csv_fast(x, r, ev, t, lane, start, end);
	if (s > 0 && (ev->type == GT_REC_MEMCPY || ev->type == GT_REC_MEMSET || ev->type == GT_REC_SYNC ||
	              ev->type == GT_REC_NVTX))
		return csv_slice(x, r, ev, t, lane, start, end);
	int interval = gt_xwin_raw_times(ev, &start, &end);
	uint64_t ts = interval ? start : gt_tl_event_time(ev);
	struct out *o = &x->o;
	const char *nm = "";
	size_t nlen = 0;
	char detail[200] = "", proc[40] = "host", nbuf[160];
	uint64_t corr = 0, bytes = 0;
	int has_corr = 0, has_bytes = 0;
	switch (ev->type) {
	case GT_REC_KERNEL: {
		const struct gt_kernel *k = &ev->u.kernel;
		if (!(nm = name_of(x, r, k->name_id, 1, &nlen)))
			return GT_ERR_NOMEM;
		corr = k->correlation_id, has_corr = 1;
		snprintf(proc, sizeof proc, "GPU %u", k->device_id);
		snprintf(detail, sizeof detail, "grid %ux%ux%u block %ux%ux%u registers %u smem %u+%u", k->grid_x,
		         k->grid_y, k->grid_z, k->block_x, k->block_y, k->block_z, k->registers, k->static_smem,
		         k->dynamic_smem);
		break;
	}
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		snprintf(nbuf, sizeof nbuf, "memcpy %s %s->%s", gt_copy_kind_name(m->copy_kind),
		         gt_mem_kind_name(m->src_kind), gt_mem_kind_name(m->dst_kind));
		nm = nbuf;
		corr = m->correlation_id, has_corr = 1, bytes = m->bytes, has_bytes = 1;
		snprintf(proc, sizeof proc, "GPU %u", m->device_id);
		snprintf(detail, sizeof detail, "%s", m->flags & GT_COPY_ASYNC ? "async" : "sync");
		break;
	}
	case GT_REC_MEMSET: {
		const struct gt_memset *m = &ev->u.memset;
		snprintf(nbuf, sizeof nbuf, "memset %s", gt_mem_kind_name(m->mem_kind));
		nm = nbuf;
		corr = m->correlation_id, has_corr = 1, bytes = m->bytes, has_bytes = 1;
		snprintf(proc, sizeof proc, "GPU %u", m->device_id);
		snprintf(detail, sizeof detail, "value %u", m->value);
		break;
	}
	case GT_REC_API: {
		const struct gt_api *a = &ev->u.api;
		if (!(nm = name_of(x, r, a->name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		corr = a->correlation_id, has_corr = 1;
		snprintf(detail, sizeof detail, "%s return %d", a->domain == GT_API_DRIVER ? "driver" : "runtime",
		         a->return_value);
		break;
	}
	case GT_REC_SYNC: {
		const struct gt_sync *y = &ev->u.sync;
		snprintf(nbuf, sizeof nbuf, "sync %s", gt_sync_kind_name(y->kind));
		nm = nbuf;
		corr = y->correlation_id, has_corr = 1;
		break;
	}
	case GT_REC_NVTX: {
		const struct gt_nvtx *n = &ev->u.nvtx;
		if (!(nm = name_of(x, r, n->name_id, 0, &nlen)))
			return GT_ERR_NOMEM;
		snprintf(detail, sizeof detail, "%s depth %u thread %u",
		         n->kind == GT_NVTX_MARK ? "mark" : n->kind == GT_NVTX_PUSH_POP ? "push-pop" : "start-end", n->depth,
		         n->thread_id);
		if (n->kind == GT_NVTX_MARK)
			t = track_of(x, TK_THREAD, 0, n->thread_id, 0);
		else if (n->end == 0)
			end = 0, interval = 0; /* never closed: no end to print */
		break;
	}
	case GT_REC_MEMORY: {
		const struct gt_memory *m = &ev->u.memory;
		snprintf(nbuf, sizeof nbuf, "%s %s",
		         m->op == GT_MEMORY_ALLOC ? "alloc" : m->op == GT_MEMORY_FREE ? "free" : "memory",
		         gt_mem_kind_name(m->mem_kind));
		nm = nbuf;
		corr = m->correlation_id, has_corr = 1, bytes = m->bytes, has_bytes = 1;
		snprintf(detail, sizeof detail, "address 0x%llx", (unsigned long long)m->address);
		snprintf(proc, sizeof proc, "GPU %u", m->device_id);
		break;
	}
	case GT_REC_OVERHEAD: {
		const struct gt_overhead *v = &ev->u.overhead;
		if (v->kind == GT_OVERHEAD_CAPTURE)
			snprintf(nbuf, sizeof nbuf, "shadow capture");
		else
			snprintf(nbuf, sizeof nbuf, "overhead kind %u", v->kind);
		nm = nbuf;
		snprintf(detail, sizeof detail, "object %llu", (unsigned long long)v->object_id);
		break;
	}
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		nm = "clock sample";
		snprintf(detail, sizeof detail, "SM %u MHz memory %u MHz %u C %u mW utilization %u%% throttle 0x%llx",
		         c->sm_clock_mhz, c->mem_clock_mhz, c->temperature_c, c->power_mw, c->utilization_gpu,
		         (unsigned long long)c->throttle_reasons);
		snprintf(proc, sizeof proc, "GPU %u", c->device_id);
		break;
	}
	case GT_REC_PROCESS: {
		const struct gt_process *p = &ev->u.process;
		nm = "process";
		snprintf(detail, sizeof detail, "pid %u event %u status %d", p->pid, p->event, p->status);
		break;
	}
	case GT_REC_DROPPED: {
		const struct gt_dropped *d = &ev->u.dropped;
		snprintf(nbuf, sizeof nbuf, "dropped %s", gt_drop_reason_name((int)d->reason));
		nm = nbuf;
		snprintf(detail, sizeof detail, "%llu records", (unsigned long long)d->count);
		break;
	}
	case GT_REC_CLOCK_SYNC: {
		const struct gt_clock_sync *c = &ev->u.clock_sync;
		nm = "clock sync";
		snprintf(detail, sizeof detail, "realtime %llu monotonic %llu", (unsigned long long)c->realtime_ns,
		         (unsigned long long)c->monotonic_ns);
		break;
	}
	case GT_REC_GRAPH_LAUNCH: {
		const struct gt_graph_launch *g = &ev->u.graph_launch;
		nm = "graph launch";
		corr = g->correlation_id, has_corr = 1;
		snprintf(detail, sizeof detail, "graph %u stream %u", g->graph_id, g->stream_id);
		break;
	}
	default: return 0;
	}
	if (s < 0) {
		size_t k = strlen(detail);
		snprintf(detail + k, sizeof detail - k, "%s%s", k ? "; " : "",
		         ev->type == GT_REC_NVTX && ev->u.nvtx.end == 0 ? "never closed: not on the timeline"
		                                                        : "bad timestamps: not on the timeline");
	}
	put_str(o, gt_rec_type_name(ev->type));
	PUTS(o, ",");
	if (ts)
		put_u64(o, ts);
	PUTS(o, ",");
	if (interval)
		put_u64(o, end);
	PUTS(o, ",");
	if (interval && end >= start)
		put_u64(o, end - start);
	PUTS(o, ",");
	if (ts)
		put_us(o, rel(x, ts));
	PUTS(o, ",");
	if (t) {
		csv_track(x, t, lane);
	} else {
		put_str(o, x->prefix);
		put_str(o, proc);
		PUTS(o, ",,");
	}
	PUTS(o, ",");
	put_str(o, nm); /* names from the trace are cached escaped; the others are our words (no comma) */
	PUTS(o, ",");
	if (has_corr)
		put_u64(o, corr);
	PUTS(o, ",");
	if (has_bytes)
		put_u64(o, bytes);
	PUTS(o, ",");
	put_str(o, detail);
	PUTS(o, "\n");
	x->res->written++;
	return 0;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Frees what one trace needed and readies x for the next (the output and the totals stay). */
static void ex_file_release(struct ex *x)
{
	for (size_t i = 0; i < x->nt; i++)
		for (int k = 0; k < NSRC; k++)
			gt_tl_vec_release(&x->t[i].sl[k]);
	free(x->t);
	free(x->slots);
	gt_tl_vec_release(&x->longs);
	gt_tl_vec_release(&x->moved);
	pages_free(x->cnt);
	pages_free(x->next);
	gt_tl_vec_release(&x->mem);
	for (size_t i = 0; i < 2 * x->nnames; i++)
		free(x->names[i].s);
	free(x->names);
	x->t = NULL, x->nt = x->capt = 0;
	x->slots = NULL, x->nslots = 0;
	memset(x->last, 0, sizeof x->last);
	x->nslices = x->seq = 0;
	x->moved_pos = 0;
	x->cnt = x->next = NULL;
	x->ndevs = 0;
	x->host_pid = x->file_pid = 0;
	x->names = NULL, x->nnames = 0;
	x->op_key = 0;
	gt_xwin_next_file(x->win);
}

/* One trace: pass 1, placement, pass 2, its counters. file: NULL for one trace. */
static int export_file(struct ex *x, const char *path, const struct gt_xfile *file, size_t index)
{
	const struct gt_export_options *o = x->opt;
	x->path = path;
	x->file = x->nfiles > 1 ? file : NULL; /* one trace keeps the one-trace layout, in a window too */
	x->origin = UINT64_MAX;
	x->clock = file ? file->clock : (struct gt_xclock){ 0 };
	gt_tl_vec_init(&x->longs, sizeof(struct longend));
	gt_tl_vec_init(&x->mem, sizeof(struct memrec));
	gt_tl_vec_init(&x->moved, sizeof(struct moved));
	x->cnt = calloc(1, sizeof *x->cnt);
	x->next = calloc(1, sizeof *x->next);
	if (!x->cnt || !x->next)
		return GT_ERR_NOMEM;
	if (x->file) {
		x->flow_base = (uint64_t)index << 39;
		x->pid_base = pid_base_of(index);
		snprintf(x->prefix, sizeof x->prefix, "%s ", file->label);
	}
	struct gt_reader *r;
	int rc = gt_load_open(&r, path);
	if (rc)
		return rc;
	/* Pass 1. A failure of our own (memory) comes back through the loader, which reports it. */
	gt_progress_stage("placing", 0);
	rc = gt_load_stream(r, collect, x);
	if (rc)
		goto done;
	struct gt_tail t;
	gt_reader_tail(r, &t);
	gt_progress_stage("writing", t.records);
	if (x->origin == UINT64_MAX)
		x->origin = 0;
	if (!file)
		x->clock.origin = x->origin;
	if (!index)
		x->res->origin = x->origin;
	if (!x->host_pid) {
		const char *p = gt_reader_meta(r, "process.pid");
		x->host_pid = p ? (uint32_t)strtoul(p, NULL, 10) : 0;
		if (!x->host_pid)
			x->host_pid = 1;
	}
	if (x->file) {
		x->file_pid = x->host_pid;
		x->host_pid = x->pid_base;
	}
	if ((rc = place(x)) != 0)
		goto done;
	if ((rc = gt_reader_rewind(r)) != 0)
		goto done;
	if (!x->header_done) {
		x->header_done = 1;
		if (o->gzip && !(x->o.gz = gt_gzw_open(x->o.f))) {
			rc = GT_ERR_NOMEM;
			goto done;
		}
		if (o->format == GT_EXPORT_CHROME)
			PUTS(&x->o, "{\"traceEvents\":[");
		else
			PUTS(&x->o, "type,start_ns,end_ns,duration_ns,ts_us,process,track,lane,name,correlation_id,bytes,detail\n");
	}
	if (o->format == GT_EXPORT_CHROME)
		metadata(x, r);
	/* Pass 2: the loader already said what was wrong with the file (and warned about its end). */
	struct gt_event ev;
	int n = 0;
	while (!x->o.err && (n = gt_reader_next(r, &ev)) > 0) {
		gt_progress_tick(r);
		if (ev.type < GT_REC_FIRST_FIXED)
			continue;
		if ((rc = gt_xwin_keep(x->win, &x->clock, r, &ev)) < 0)
			goto done;
		if (!rc)
			continue;
		rc = o->format == GT_EXPORT_CHROME ? emit_chrome(x, r, &ev) : emit_csv(x, r, &ev);
		if (rc)
			goto done;
	}
	if (!x->o.err && n < 0) {
		rc = gt_error("cannot read trace '%s': %s", path, gt_load_reason(gt_reader_error(r), path));
		goto done;
	}
	if (o->format == GT_EXPORT_CHROME && (rc = memory_counters(x)) != 0)
		goto done;
	const char *syn = gt_load_synthetic(r);
	if (syn && !x->synthetic && !(x->synthetic = strdup(syn))) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	gt_reader_tail(r, &t);
	x->complete &= t.complete;
	if (file) {
		/* The prescan's record, written to once here: the only trace export_file is given. */
		struct gt_xfile *f = (struct gt_xfile *)file;
		f->pid = x->file_pid;
		f->complete = t.complete;
	}
done:
	gt_progress_stage(NULL, 0);
	gt_reader_close(r);
	return rc;
}

int gt_export_run_files(char *const *paths, size_t n, FILE *out, const struct gt_export_options *o,
                        struct gt_export_result *res)
{
	memset(res, 0, sizeof *res);
	if (n > GT_EXPORT_MAX_FILES)
		return gt_error("export: at most %d traces in one timeline, not %zu", GT_EXPORT_MAX_FILES, n);
	const struct gt_xwin_request q = { o->start_ns, o->end_ns, o->has_start, o->has_end, o->range, o->kernels };
	struct gt_xwin win;
	struct gt_xfile *files = NULL;
	int rc = 0;
	if (n > 1 || gt_xwin_needs_prescan(&q)) {
		if (!(files = calloc(n, sizeof *files)))
			return GT_ERR_NOMEM;
		for (size_t i = 0; i < n; i++) {
			files[i].path = paths[i];
			gt_align_init(&files[i].align);
		}
		rc = gt_xwin_prescan(files, n, &q, &win);
	} else {
		gt_xwin_init(&win, &q);
	}
	struct ex x;
	memset(&x, 0, sizeof x);
	x.opt = o;
	x.res = res;
	x.win = &win;
	x.files = files;
	x.nfiles = n;
	x.first_event = 1;
	x.complete = 1;
	x.o.f = out;
	if (!rc && !(x.o.buf = malloc(OUT_BUF)))
		rc = GT_ERR_NOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = export_file(&x, paths[i], files ? &files[i] : NULL, i);
		ex_file_release(&x);
	}
	if (!rc) {
		if (o->format == GT_EXPORT_CHROME)
			other_data(&x);
		out_flush(&x.o);
		res->bytes = x.o.bytes;
		rc = x.o.err;
	}
	if (x.o.gz) {
		int grc = gt_gzw_close(x.o.gz);
		if (!rc)
			rc = grc;
	}
	gt_progress_done();
	free(x.o.buf);
	free(x.synthetic);
	gt_xwin_release(&win);
	gt_xfiles_release(files, n);
	free(files);
	return rc;
}

int gt_export_run(const char *path, FILE *out, const struct gt_export_options *o, struct gt_export_result *res)
{
	char *paths[1] = { (char *)(uintptr_t)path };
	return gt_export_run_files(paths, 1, out, o, res);
}
