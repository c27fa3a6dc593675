/* capture_set.c: load picked captures and the blobs they use (see capture_set.h). */
#include "traces/capture_set.h"

#include "common/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_capture_blob {
	uint64_t id;
	uint64_t total;                /* the size its first piece states */
	uint64_t got;                  /* bytes received, in order */
	size_t cap;                    /* bytes allocated: grows with what arrives, never to total at once */
	uint8_t *data;
	uint32_t kind;
	int started;                   /* a first piece was seen: total and kind are set */
	int bad;                       /* a piece out of order, or disagreeing on size or kind */
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static struct gt_capture_blob *blob_find(const struct gt_capture_set *s, uint64_t id)
{
	size_t lo = 0, hi = s->nblobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->blobs[mid].id == id)
			return &s->blobs[mid];
		if (s->blobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const uint8_t *blob_bytes(const struct gt_capture_set *s, uint64_t id, uint32_t kind,
                                 uint64_t *bytes)
{
	const struct gt_capture_blob *b = id ? blob_find(s, id) : NULL;
	if (!b || b->bad || b->got != b->total || b->kind != kind)
		return NULL;
	if (bytes)
		*bytes = b->total;
	return b->data ? b->data : (const uint8_t *)"";
}

/* Pass 1: one picked capture, copied out of the reader's chunk. */
static int keep_capture(struct gt_capture_set *s, size_t *cap, const struct gt_reader *r,
                        const struct gt_capture *c, const uint8_t *params_raw,
                        const uint8_t *param_bytes, const char *name)
{
	struct gt_captured_launch *grown = gt_grow(s->launch, cap, s->n, sizeof *grown, 8);
	if (!grown)
		return GT_ERR_NOMEM;
	s->launch = grown;
	struct gt_captured_launch *l = &s->launch[s->n];
	memset(l, 0, sizeof *l);
	l->c = *c;
	const char *dev_name = NULL;
	const struct gt_device *d = gt_reader_device(r, c->device_id, &dev_name);
	if (d) {
		l->cc_major = d->cc_major;
		l->cc_minor = d->cc_minor;
	}
	l->name = strdup(name);
	l->device_name = strdup(dev_name ? dev_name : "");
	l->params = calloc(c->nparams ? c->nparams : 1, sizeof *l->params);
	l->param_bytes = malloc(c->param_bytes ? c->param_bytes : 1);
	s->n++; /* counted now so that release frees whatever was allocated */
	if (!l->name || !l->device_name || !l->params || !l->param_bytes)
		return GT_ERR_NOMEM;
	for (uint32_t i = 0; i < c->nparams; i++)
		gt_capture_param_get(params_raw, i, &l->params[i].p);
	while (l->declared < c->nparams && l->params[l->declared].p.kind != GT_PARAM_INNER_POINTER)
		l->declared++;
	if (c->param_bytes)
		memcpy(l->param_bytes, param_bytes, c->param_bytes);
	return 0;
}

static int pass_captures(struct gt_capture_set *s, struct gt_reader *r, gt_capture_pick_fn pick,
                         void *ctx, char *err, size_t errlen)
{
	size_t cap = 0;
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_DROPPED && ev.u.dropped.reason == GT_DROP_CAPTURE) {
			s->dropped += ev.u.dropped.count;
			continue;
		}
		if (ev.type != GT_REC_CAPTURE)
			continue;
		struct gt_capture c;
		const uint8_t *params_raw, *param_bytes;
		if (gt_capture_parse(&ev, &c, &params_raw, &param_bytes) != 0)
			return fail(err, errlen, GT_ERR_CORRUPT, "%s: a capture record is corrupt (chunk at byte %llu)",
			            gt_reader_path(r), (unsigned long long)ev.offset);
		s->seen++;
		const char *name = gt_reader_string(r, c.name_id);
		int want = pick ? pick(ctx, &c, name) : 1;
		if (want < 0)
			return fail(err, errlen, want, "%s", gt_strerror(want));
		if (want && keep_capture(s, &cap, r, &c, params_raw, param_bytes, name) != 0)
			return fail(err, errlen, GT_ERR_NOMEM, "out of memory holding the captures");
	}
	if (more < 0)
		return fail(err, errlen, more, "%s", gt_reader_error(r));
	struct gt_tail t;
	gt_reader_tail(r, &t);
	s->complete = t.complete;
	return 0;
}

/* The blob ids the picked launches use, sorted and unique, as empty blobs. */
static int want_blobs(struct gt_capture_set *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += 1 + 2 * (size_t)s->launch[i].c.nparams;
	uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
	if (!ids)
		return GT_ERR_NOMEM;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct gt_captured_launch *l = &s->launch[i];
		if (l->c.cubin_blob_id)
			ids[k++] = l->c.cubin_blob_id;
		for (uint32_t j = 0; j < l->c.nparams; j++) {
			if (l->params[j].p.before_blob)
				ids[k++] = l->params[j].p.before_blob;
			if (l->params[j].p.after_blob)
				ids[k++] = l->params[j].p.after_blob;
		}
	}
	qsort(ids, k, sizeof *ids, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || ids[i] != ids[u - 1])
			ids[u++] = ids[i];
	s->blobs = calloc(u ? u : 1, sizeof *s->blobs);
	if (!s->blobs) {
		free(ids);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < u; i++)
		s->blobs[i].id = ids[i];
	s->nblobs = u;
	free(ids);
	return 0;
}

static int add_piece(struct gt_capture_blob *b, const struct gt_blob_piece *p, const uint8_t *data)
{
	if (b->bad)
		return 0;
	if (!b->started) {
		/* The first piece states the size and kind; later ones must agree (an empty first
		 * piece included, so that a later one cannot redefine the blob). */
		b->started = 1;
		b->total = p->total_bytes;
		b->kind = p->kind;
	}
	if (p->total_bytes != b->total || p->kind != b->kind || p->offset != b->got ||
	    p->piece_bytes > b->total - b->got) {
		b->bad = 1;
		return 0;
	}
	if (b->got + p->piece_bytes > b->cap) {
		/* Double what is held, up to the stated total: memory follows the bytes that arrive. */
		uint64_t want = b->cap ? (uint64_t)b->cap * 2 : 4096;
		if (want < b->got + p->piece_bytes)
			want = b->got + p->piece_bytes;
		if (want > b->total)
			want = b->total;
		if (want > SIZE_MAX)
			return GT_ERR_NOMEM;
		uint8_t *d = realloc(b->data, (size_t)want);
		if (!d)
			return GT_ERR_NOMEM;
		b->data = d;
		b->cap = (size_t)want;
	}
	if (p->piece_bytes)
		memcpy(b->data + b->got, data, p->piece_bytes);
	b->got += p->piece_bytes;
	return 0;
}

static int pass_blobs(struct gt_capture_set *s, struct gt_reader *r, char *err, size_t errlen)
{
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_BLOB)
			continue;
		struct gt_blob_piece p;
		const uint8_t *data;
		if (gt_parse_blob(&ev, &p, &data) != 0)
			continue; /* a corrupt piece: its blob stays short and counts as missing */
		struct gt_capture_blob *b = blob_find(s, p.blob_id);
		if (b && add_piece(b, &p, data) != 0)
			return fail(err, errlen, GT_ERR_NOMEM, "out of memory holding the captured buffers");
	}
	if (more < 0)
		return fail(err, errlen, more, "%s", gt_reader_error(r));
	return 0;
}

static void link_blobs(struct gt_capture_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct gt_captured_launch *l = &s->launch[i];
		l->image = blob_bytes(s, l->c.cubin_blob_id, GT_BLOB_CUBIN, &l->image_bytes);
		if (!l->image)
			l->image_bytes = 0;
		for (uint32_t j = 0; j < l->c.nparams; j++) {
			struct gt_captured_param *p = &l->params[j];
			uint64_t nb = 0, na = 0;
			p->before = blob_bytes(s, p->p.before_blob, GT_BLOB_BUFFER, &nb);
			p->after = blob_bytes(s, p->p.after_blob, GT_BLOB_BUFFER, &na);
			/* A buffer is usable only as large as its allocation says. */
			if (p->before && nb != p->p.alloc_bytes)
				p->before = NULL;
			if (p->after && na != p->p.alloc_bytes)
				p->after = NULL;
		}
	}
}

int gt_capture_set_load(struct gt_capture_set *s, const char *path, gt_capture_pick_fn pick,
                        void *ctx, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (err && errlen)
		err[0] = '\0';
	struct gt_reader *r;
	int rc = gt_reader_open(&r, path, err, errlen);
	if (rc)
		return rc;
	rc = pass_captures(s, r, pick, ctx, err, errlen);
	if (!rc && s->n) {
		rc = want_blobs(s);
		if (rc)
			fail(err, errlen, rc, "out of memory");
		else if ((rc = gt_reader_rewind(r)) != 0)
			fail(err, errlen, rc, "%s: cannot read it again: %s", path, gt_strerror(rc));
		else
			rc = pass_blobs(s, r, err, errlen);
	}
	gt_reader_close(r);
	if (rc) {
		gt_capture_set_release(s);
		return rc;
	}
	link_blobs(s);
	return 0;
}

void gt_capture_set_release(struct gt_capture_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->launch[i].name);
		free(s->launch[i].device_name);
		free(s->launch[i].params);
		free(s->launch[i].param_bytes);
	}
	free(s->launch);
	for (size_t i = 0; i < s->nblobs; i++)
		free(s->blobs[i].data);
	free(s->blobs);
	memset(s, 0, sizeof *s);
}

const char *gt_captured_param_problem(const struct gt_captured_launch *l, uint32_t i)
{
	const struct gt_captured_param *p = &l->params[i];
	switch (p->p.status) {
	case GT_PARAM_MANAGED: return "points into managed memory, which the capture does not copy";
	case GT_PARAM_TOO_LARGE: return "points into an allocation over the capture's byte cap, so it was not copied";
	case GT_PARAM_COPY_FAILED: return "points into memory the capture could not copy";
	}
	if (p->p.offset > l->c.param_bytes || p->p.size > l->c.param_bytes - p->p.offset)
		return "lies outside the captured parameter bytes";
	if (!GT_PARAM_IS_POINTER(p->p.kind) || p->p.status != GT_PARAM_OK)
		return NULL;
	if (p->p.size != 8)
		return "is a pointer that is not 8 bytes";
	if (!p->before || !p->after)
		return "points into an allocation whose copies are missing from the trace";
	uint64_t v;
	memcpy(&v, l->param_bytes + p->p.offset, 8);
	if (v < p->p.alloc_base || v - p->p.alloc_base > p->p.alloc_bytes)
		return "does not point into the allocation the capture names for it";
	return NULL;
}
