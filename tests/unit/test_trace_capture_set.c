/* test_trace_capture_set.c: loading picked captures and their blobs from a trace (traces/capture_set.c).
 *
 * Traces are written with the real writer: captures through gt_capture_encode, blobs through
 * gt_writer_blob or, where a test needs pieces the writer would never write (out of order, in
 * disagreement, stating a size they do not carry), as hand-made GT_REC_BLOB records. Checked: the
 * bytes of a capture, its module image and its buffers; that the pick callback sees every capture
 * and only picked ones are kept; that every malformed blob counts as missing rather than being
 * misread or allocated at its stated size (the binary is linked with --wrap=realloc, so the
 * largest block the loader asks for is measured); the counters; and the errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/capture_set.h"

/* ---- every realloc of the process's own code, measured (tests/module.mk: --wrap=realloc) ---- */
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
static size_t realloc_max;

void *__wrap_realloc(void *p, size_t n)
{
	if (n > realloc_max)
		realloc_max = n;
	return __real_realloc(p, n);
}

/* ---- traces ------------------------------------------------------------------------------------ */
static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/gt_capset_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir) == 0 ? 0 : -1;
}

struct trace {
	char path[128];
	struct gt_writer *w;
};

static void trace_open(struct trace *t, const char *name)
{
	snprintf(t->path, sizeof t->path, "%s/%s.gtrace", dir, name);
	assert_int_equal(gt_writer_open(&t->w, t->path, 0, NULL), 0);
}

static void trace_close(struct trace *t)
{
	assert_int_equal(gt_writer_close(t->w), 0);
	t->w = NULL;
}

static void trace_remove(struct trace *t)
{
	assert_int_equal(unlink(t->path), 0);
}

/* One GT_REC_BLOB record as the writer's own pieces look, with whatever values the test wants. */
static void piece(struct trace *t, uint64_t id, uint64_t total, uint64_t offset, uint32_t kind,
                  const void *data, uint32_t n)
{
	struct gt_blob_piece p;
	memset(&p, 0, sizeof p);
	p.blob_id = id;
	p.total_bytes = total;
	p.offset = offset;
	p.kind = kind;
	p.piece_bytes = n;
	uint8_t *rec = malloc(sizeof p + n + 1);
	assert_non_null(rec);
	memcpy(rec, &p, sizeof p);
	if (n)
		memcpy(rec + sizeof p, data, n);
	assert_int_equal(gt_writer_add_var(t->w, GT_REC_BLOB, rec, sizeof p + n), 0);
	free(rec);
}

static uint64_t blob(struct trace *t, uint32_t kind, const void *data, uint64_t n)
{
	int64_t id = gt_writer_blob(t->w, kind, data, n);
	assert_true(id > 0);
	return (uint64_t)id;
}

/* A pointer parameter at offset 8 * i of an allocation of `bytes` at its own base. */
static struct gt_capture_param ptr(uint32_t i, uint64_t bytes, uint64_t before, uint64_t after)
{
	struct gt_capture_param p = { 8 * i, 8, GT_PARAM_POINTER, GT_PARAM_OK,
		                      0x7f0000000000ull + (uint64_t)i * 0x100000ull, bytes, before, after };
	return p;
}

/* A capture of `name` with np parameters, 8 bytes each in the parameter buffer. */
static void capture(struct trace *t, uint64_t id, const char *name, uint64_t cubin,
                    const struct gt_capture_param *p, uint32_t np)
{
	uint8_t args[8 * 16];
	assert_true(np <= 16);
	for (uint32_t i = 0; i < 8 * np; i++)
		args[i] = (uint8_t)(id * 16 + i);
	struct gt_capture c;
	memset(&c, 0, sizeof c);
	c.capture_id = id;
	c.timestamp = 1000 * id;
	c.cubin_blob_id = cubin;
	c.name_id = gt_writer_intern(t->w, name);
	assert_true(c.name_id != 0);
	c.correlation_id = (uint32_t)(100 + id);
	c.device_id = 0;
	c.grid[0] = c.grid[1] = c.grid[2] = 1;
	c.block[0] = 64, c.block[1] = c.block[2] = 1;
	c.nparams = np;
	c.param_bytes = 8 * np;
	c.flags = GT_CAPTURE_STREAM_SYNCED;
	c.launch_index = (uint32_t)id;
	uint8_t *rec;
	size_t len;
	assert_int_equal(gt_capture_encode(&c, p, args, &rec, &len), 0);
	assert_int_equal(gt_writer_add_var(t->w, GT_REC_CAPTURE, rec, len), 0);
	free(rec);
}

static void dropped(struct trace *t, uint32_t reason, uint64_t count)
{
	struct gt_dropped d;
	memset(&d, 0, sizeof d);
	d.timestamp = 5;
	d.count = count;
	d.reason = reason;
	assert_int_equal(gt_writer_add(t->w, GT_REC_DROPPED, &d), 0);
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

static int load(struct gt_capture_set *s, const char *path, gt_capture_pick_fn pick, void *ctx,
                char *err, size_t errlen)
{
	memset(s, 0x5a, sizeof *s); /* load must not read what was there */
	return gt_capture_set_load(s, path, pick, ctx, err, errlen);
}

/* ---- a whole capture ------------------------------------------------------------------------- */
static void test_capture_with_cubin_and_buffers(void **state)
{
	(void)state;
	struct trace t;
	trace_open(&t, "whole");
	struct gt_device d;
	memset(&d, 0, sizeof d);
	d.device_id = 0;
	d.cc_major = 9;
	d.cc_minor = 0;
	assert_int_equal(gt_writer_device(t.w, &d, "NVIDIA H200"), 0);
	uint8_t cubin[300], x[64], y0[256], y1[256];
	fill(cubin, sizeof cubin, 1);
	fill(x, sizeof x, 2);
	fill(y0, sizeof y0, 3);
	fill(y1, sizeof y1, 4);
	uint64_t bc = blob(&t, GT_BLOB_CUBIN, cubin, sizeof cubin);
	uint64_t bx = blob(&t, GT_BLOB_BUFFER, x, sizeof x);
	uint64_t by0 = blob(&t, GT_BLOB_BUFFER, y0, sizeof y0);
	uint64_t by1 = blob(&t, GT_BLOB_BUFFER, y1, sizeof y1);
	dropped(&t, GT_DROP_CAPTURE, 5);
	dropped(&t, GT_DROP_CUPTI, 7); /* not a capture's: not counted */
	assert_int_equal(gt_writer_flush(t.w), 0); /* the capture in another chunk than its blobs */
	struct gt_capture_param p[3] = {
		{ 0, 8, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
		ptr(1, sizeof x, bx, bx),   /* read only: one blob before and after */
		ptr(2, sizeof y0, by0, by1),
	};
	capture(&t, 1, "_Z5saxpyifPKfPf", bc, p, 3);
	dropped(&t, GT_DROP_CAPTURE, 2);
	trace_close(&t);

	struct gt_capture_set s;
	char err[256] = "untouched";
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_string_equal(err, "");
	assert_int_equal(s.n, 1);
	assert_int_equal(s.seen, 1);
	assert_int_equal(s.dropped, 7);
	assert_int_equal(s.complete, 1);
	const struct gt_captured_launch *l = &s.launch[0];
	assert_string_equal(l->name, "_Z5saxpyifPKfPf");
	assert_int_equal(l->c.capture_id, 1);
	assert_int_equal(l->c.correlation_id, 101);
	assert_int_equal(l->c.nparams, 3);
	assert_int_equal(l->c.param_bytes, 24);
	for (uint32_t i = 0; i < 24; i++)
		assert_int_equal(l->param_bytes[i], (uint8_t)(16 + i));
	assert_int_equal(l->cc_major, 9);
	assert_int_equal(l->cc_minor, 0);
	assert_string_equal(l->device_name, "NVIDIA H200");
	assert_non_null(l->image);
	assert_int_equal(l->image_bytes, sizeof cubin);
	assert_memory_equal(l->image, cubin, sizeof cubin);
	assert_null(l->params[0].before);
	assert_null(l->params[0].after);
	assert_int_equal(l->params[0].p.kind, GT_PARAM_SCALAR);
	assert_non_null(l->params[1].before);
	assert_memory_equal(l->params[1].before, x, sizeof x);
	assert_ptr_equal(l->params[1].before, l->params[1].after);
	assert_int_equal(l->params[2].p.alloc_bytes, sizeof y0);
	assert_memory_equal(l->params[2].before, y0, sizeof y0);
	assert_memory_equal(l->params[2].after, y1, sizeof y1);
	gt_capture_set_release(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.launch);
	gt_capture_set_release(&s); /* twice is harmless */
	gt_capture_set_release(NULL);
	trace_remove(&t);
}

/* ---- picking --------------------------------------------------------------------------------- */
struct picks {
	uint64_t ids[8];
	char names[8][32];
	int n;
	uint64_t keep;    /* the capture id to keep */
	int fail_at;      /* 1-based call that returns an error; 0: none */
};

static int pick(void *ctx, const struct gt_capture *c, const char *mangled)
{
	struct picks *k = ctx;
	assert_true(k->n < 8);
	k->ids[k->n] = c->capture_id;
	snprintf(k->names[k->n], sizeof k->names[0], "%s", mangled);
	k->n++;
	if (k->fail_at && k->n == k->fail_at)
		return GT_ERR_ARG;
	return c->capture_id == k->keep;
}

static void test_pick_sees_every_capture_keeps_picked(void **state)
{
	(void)state;
	struct trace t;
	trace_open(&t, "pick");
	uint8_t a[32], b[32], c[32];
	fill(a, sizeof a, 5);
	fill(b, sizeof b, 6);
	fill(c, sizeof c, 7);
	static const char *const names[] = { "_Z3onePf", "_Z3twoPf", "_Z5threePf" };
	const uint8_t *bufs[] = { a, b, c };
	for (uint64_t i = 0; i < 3; i++) {
		uint64_t id = blob(&t, GT_BLOB_BUFFER, bufs[i], 32);
		struct gt_capture_param p = ptr(0, 32, id, id);
		capture(&t, i + 1, names[i], 0, &p, 1);
	}
	trace_close(&t);

	struct gt_capture_set s;
	char err[256];
	struct picks k = { .n = 0, .keep = 2 };
	assert_int_equal(load(&s, t.path, pick, &k, err, sizeof err), 0);
	assert_int_equal(k.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(k.ids[i], (uint64_t)i + 1);
		assert_string_equal(k.names[i], names[i]);
	}
	assert_int_equal(s.seen, 3);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.launch[0].c.capture_id, 2);
	assert_string_equal(s.launch[0].name, "_Z3twoPf");
	assert_null(s.launch[0].image); /* no cubin saved */
	assert_int_equal(s.launch[0].image_bytes, 0);
	assert_memory_equal(s.launch[0].params[0].before, b, sizeof b);
	assert_int_equal(s.nblobs, 1); /* only the picked capture's blob is held */
	gt_capture_set_release(&s);

	/* Nothing picked: a set without launches, the counters still right. */
	k = (struct picks){ .n = 0, .keep = 99 };
	assert_int_equal(load(&s, t.path, pick, &k, err, sizeof err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.seen, 3);
	assert_int_equal(s.nblobs, 0);
	gt_capture_set_release(&s);

	/* No callback: every capture. */
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(s.n, 3);
	for (size_t i = 0; i < 3; i++)
		assert_memory_equal(s.launch[i].params[0].after, bufs[i], 32);
	gt_capture_set_release(&s);

	/* The callback's error stops the load with it; the set is released. */
	k = (struct picks){ .n = 0, .keep = 1, .fail_at = 2 };
	assert_int_equal(load(&s, t.path, pick, &k, err, sizeof err), GT_ERR_ARG);
	assert_int_equal(k.n, 2);
	assert_true(strlen(err) > 0);
	assert_int_equal(s.n, 0);
	assert_null(s.launch);
	assert_null(s.blobs);
	trace_remove(&t);
}

/* ---- malformed blobs ------------------------------------------------------------------------- */
static void test_bad_pieces_count_as_missing(void **state)
{
	(void)state;
	uint8_t v[32], cub[48];
	fill(v, sizeof v, 8);
	fill(cub, sizeof cub, 9);
	struct trace t;
	trace_open(&t, "pieces");
	/* 1000: out of order (second half first). */
	piece(&t, 1000, 32, 16, GT_BLOB_BUFFER, v + 16, 16);
	piece(&t, 1000, 32, 0, GT_BLOB_BUFFER, v, 16);
	/* 1001: the second piece states another total. */
	piece(&t, 1001, 32, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 1001, 48, 16, GT_BLOB_BUFFER, v + 16, 16);
	/* 1002: the second piece states another kind. */
	piece(&t, 1002, 32, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 1002, 32, 16, GT_BLOB_CUBIN, v + 16, 16);
	/* 1003: two good pieces (the control). */
	piece(&t, 1003, 32, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 1003, 32, 16, GT_BLOB_BUFFER, v + 16, 16);
	/* 1004: stops after its first piece. */
	piece(&t, 1004, 32, 0, GT_BLOB_BUFFER, v, 16);
	/* 1005: its first piece twice, then the second. */
	piece(&t, 1005, 32, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 1005, 32, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 1005, 32, 16, GT_BLOB_BUFFER, v + 16, 16);
	/* 1006: complete, but a buffer where the capture wants its cubin. */
	piece(&t, 1006, 48, 0, GT_BLOB_BUFFER, cub, 48);
	/* 1007: complete, but after its end one more piece that does not fit. */
	piece(&t, 1007, 32, 0, GT_BLOB_BUFFER, v, 32);
	piece(&t, 1007, 32, 32, GT_BLOB_BUFFER, v, 0);
	piece(&t, 1007, 32, 16, GT_BLOB_BUFFER, v, 16);
	/* 1009: its last two pieces swapped, every one the same size and kind, adding up to the total. */
	piece(&t, 1009, 24, 0, GT_BLOB_BUFFER, v, 8);
	piece(&t, 1009, 24, 16, GT_BLOB_BUFFER, v + 16, 8);
	piece(&t, 1009, 24, 8, GT_BLOB_BUFFER, v + 8, 8);
	/* 1010: an empty first piece (total 0, a cubin), then a piece that would redefine the blob as a
	 * 32-byte buffer: the first piece's statement holds, so it is missing. */
	piece(&t, 1010, 0, 0, GT_BLOB_CUBIN, v, 0);
	piece(&t, 1010, 32, 0, GT_BLOB_BUFFER, v, 32);
	struct gt_capture_param p[9] = {
		ptr(0, 32, 1000, 1003), ptr(1, 32, 1001, 1003), ptr(2, 32, 1002, 1003),
		ptr(3, 32, 1003, 1003), ptr(4, 32, 1004, 1003), ptr(5, 32, 1005, 1003),
		ptr(6, 32, 1007, 1003), ptr(7, 24, 1009, 0),   ptr(8, 32, 1010, 1003),
	};
	capture(&t, 1, "_Z1kPf", 1006, p, 9);
	/* Pieces after the capture count too (the loader reads the whole file again). */
	piece(&t, 1008, 48, 0, GT_BLOB_CUBIN, cub, 24);
	assert_int_equal(gt_writer_flush(t.w), 0);
	piece(&t, 1008, 48, 24, GT_BLOB_CUBIN, cub + 24, 24);
	struct gt_capture_param q = ptr(0, 32, 1003, 1003);
	capture(&t, 2, "_Z1kPf", 1008, &q, 1);
	trace_close(&t);

	struct gt_capture_set s;
	char err[256];
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(s.n, 2);
	const struct gt_captured_launch *l = &s.launch[0];
	assert_null(l->params[0].before);  /* out of order */
	assert_null(l->params[1].before);  /* totals disagree */
	assert_null(l->params[2].before);  /* kinds disagree */
	assert_non_null(l->params[3].before);
	assert_memory_equal(l->params[3].before, v, sizeof v);
	assert_null(l->params[4].before);  /* short */
	assert_null(l->params[5].before);  /* a piece twice */
	assert_null(l->params[6].before);  /* a piece past the end */
	assert_null(l->params[7].before);  /* swapped pieces */
	assert_null(l->params[8].before);  /* redefined after an empty first piece */
	for (int i = 0; i < 7; i++) {
		assert_non_null(l->params[i].after);
		assert_memory_equal(l->params[i].after, v, sizeof v);
	}
	assert_null(l->image);             /* the wrong kind */
	assert_int_equal(l->image_bytes, 0);
	assert_non_null(s.launch[1].image);
	assert_int_equal(s.launch[1].image_bytes, sizeof cub);
	assert_memory_equal(s.launch[1].image, cub, sizeof cub);
	assert_memory_equal(s.launch[1].params[0].before, v, sizeof v);
	gt_capture_set_release(&s);
	trace_remove(&t);
}

static void test_huge_stated_total_is_not_allocated(void **state)
{
	(void)state;
	uint8_t v[16];
	fill(v, sizeof v, 10);
	struct trace t;
	struct gt_capture_set s;
	char err[256];

	/* The largest total a reader accepts (1 GiB), with 16 bytes of data: missing, and the memory
	 * the load asked for follows the 16 bytes, not the total. */
	trace_open(&t, "huge");
	piece(&t, 2000, 1ull << 30, 0, GT_BLOB_BUFFER, v, 16);
	piece(&t, 2001, 16, 0, GT_BLOB_BUFFER, v, 16);
	struct gt_capture_param p[2] = { ptr(0, 16, 2000, 2001), ptr(1, 16, 2001, 2000) };
	capture(&t, 1, "_Z1kPf", 2000, p, 2);
	trace_close(&t);
	realloc_max = 0;
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(s.n, 1);
	assert_null(s.launch[0].params[0].before);
	assert_null(s.launch[0].params[1].after);
	assert_memory_equal(s.launch[0].params[0].after, v, sizeof v);
	assert_memory_equal(s.launch[0].params[1].before, v, sizeof v);
	assert_null(s.launch[0].image);
	/* The reader's own buffers (a chunk) are the largest; a blob's total would be 1 GiB. */
	assert_true(realloc_max > 0);
	assert_true(realloc_max < (8u << 20));
	gt_capture_set_release(&s);
	trace_remove(&t);

	/* 1 << 40 is past the format's cap on one blob: the reader refuses the trace, and the load
	 * fails with its reason, before anything of that size is asked for. */
	trace_open(&t, "huger");
	piece(&t, 2000, 1ull << 40, 0, GT_BLOB_BUFFER, v, 16);
	struct gt_capture_param q = ptr(0, 16, 2000, 2000);
	capture(&t, 1, "_Z1kPf", 0, &q, 1);
	trace_close(&t);
	realloc_max = 0;
	err[0] = 'x';
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), GT_ERR_TOO_LARGE);
	assert_non_null(strstr(err, "limit"));
	assert_true(realloc_max < (8u << 20));
	assert_int_equal(s.n, 0);
	assert_null(s.launch);
	trace_remove(&t);
}

static void test_size_other_than_the_allocation_is_missing(void **state)
{
	(void)state;
	uint8_t v[64];
	fill(v, sizeof v, 11);
	struct trace t;
	trace_open(&t, "sizes");
	uint64_t b32 = blob(&t, GT_BLOB_BUFFER, v, 32);
	uint64_t b64 = blob(&t, GT_BLOB_BUFFER, v, 64);
	uint64_t b0 = blob(&t, GT_BLOB_BUFFER, v, 0);
	struct gt_capture_param p[4] = {
		ptr(0, 64, b32, b64),  /* before shorter than the allocation */
		ptr(1, 16, b64, b32),  /* both longer */
		ptr(2, 0, b0, b0),     /* an empty allocation, captured empty */
		ptr(3, 64, b64, 0),    /* no after blob */
	};
	capture(&t, 1, "_Z1kPf", 0, p, 4);
	trace_close(&t);

	struct gt_capture_set s;
	char err[256];
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	const struct gt_captured_launch *l = &s.launch[0];
	assert_null(l->params[0].before);
	assert_non_null(l->params[0].after);
	assert_memory_equal(l->params[0].after, v, 64);
	assert_null(l->params[1].before);
	assert_null(l->params[1].after);
	assert_non_null(l->params[2].before); /* 0 bytes, but there */
	assert_non_null(l->params[2].after);
	assert_non_null(l->params[3].before);
	assert_null(l->params[3].after);
	gt_capture_set_release(&s);
	trace_remove(&t);
}

/* ---- counters and errors --------------------------------------------------------------------- */
static void test_incomplete_trace_and_counters(void **state)
{
	(void)state;
	uint8_t v[16];
	fill(v, sizeof v, 12);
	struct trace t;
	trace_open(&t, "cut");
	dropped(&t, GT_DROP_CAPTURE, 3);
	uint64_t b = blob(&t, GT_BLOB_BUFFER, v, 16);
	struct gt_capture_param p = ptr(0, 16, b, b);
	capture(&t, 1, "_Z1kPf", 0, &p, 1);
	capture(&t, 2, "_Z1kPf", 0, &p, 1);
	dropped(&t, GT_DROP_CAPTURE, 4);
	dropped(&t, GT_DROP_FILTERED, 100);
	assert_int_equal(gt_writer_flush(t.w), 0);
	gt_writer_abandon(t.w); /* no END record: what a crashed recorder leaves */
	struct gt_capture_set s;
	char err[256];
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(s.complete, 0);
	assert_int_equal(s.seen, 2);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.dropped, 7);
	assert_memory_equal(s.launch[1].params[0].before, v, sizeof v);
	gt_capture_set_release(&s);
	trace_remove(&t);

	/* A trace without captures. */
	trace_open(&t, "none");
	dropped(&t, GT_DROP_CAPTURE, 1);
	trace_close(&t);
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.seen, 0);
	assert_int_equal(s.dropped, 1);
	assert_int_equal(s.complete, 1);
	gt_capture_set_release(&s);
	trace_remove(&t);
}

static void test_errors(void **state)
{
	(void)state;
	struct gt_capture_set s;
	char err[256] = "";
	char path[128];
	snprintf(path, sizeof path, "%s/does-not-exist.gtrace", dir);
	int rc = load(&s, path, NULL, NULL, err, sizeof err);
	assert_true(rc < 0);
	assert_non_null(strstr(err, "does-not-exist.gtrace"));
	assert_int_equal(s.n, 0);
	assert_null(s.launch);
	/* Without room for a message. */
	assert_true(load(&s, path, NULL, NULL, NULL, 0) < 0);

	/* Not a trace at all. */
	snprintf(path, sizeof path, "%s/garbage.gtrace", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite("this is no trace, just words\n", 1, 29, f), 29);
	assert_int_equal(fclose(f), 0);
	err[0] = 0;
	assert_true(load(&s, path, NULL, NULL, err, sizeof err) < 0);
	assert_true(strlen(err) > 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(unlink(path), 0);

	/* A capture record whose lengths do not add up: corrupt, with the file named. */
	struct trace t;
	trace_open(&t, "corrupt");
	struct gt_capture c;
	memset(&c, 0, sizeof c);
	c.capture_id = 1;
	c.nparams = 1; /* but no parameter table follows */
	assert_int_equal(gt_writer_add_var(t.w, GT_REC_CAPTURE, &c, sizeof c), 0);
	trace_close(&t);
	err[0] = 0;
	assert_int_equal(load(&s, t.path, NULL, NULL, err, sizeof err), GT_ERR_CORRUPT);
	assert_non_null(strstr(err, "corrupt.gtrace"));
	assert_int_equal(s.n, 0);
	trace_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_with_cubin_and_buffers),
		cmocka_unit_test(test_pick_sees_every_capture_keeps_picked),
		cmocka_unit_test(test_bad_pieces_count_as_missing),
		cmocka_unit_test(test_huge_stated_total_is_not_allocated),
		cmocka_unit_test(test_size_other_than_the_allocation_is_missing),
		cmocka_unit_test(test_incomplete_trace_and_counters),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
