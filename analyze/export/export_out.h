/* export_out.h: the output buffer of gpuanalyze export and its number writers (export_out.c).
 *
 * Apart from the rest of export because it knows nothing of tracks or events: it is a 1 MiB buffer
 * flushed to a FILE or a gzip stream, and the hand-made writers of integers and microseconds that
 * the emitters call millions of times. Those writers, and put/reserve/commit, stay static inline
 * here so that each emitter inlines them as it did when export was one file; only the flushes,
 * taken once a megabyte, are out of line.
 */
#ifndef GT_EXPORT_OUT_H
#define GT_EXPORT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUT_BUF (1u << 20)

struct gt_gzw;
struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct gt_gzw *gz;
	int err;
	uint64_t bytes;
};

/* Writes the buffer out (to the gzip stream when there is one) and empties it; the first error
 * stays in o->err. */
void gt_ex_out_flush(struct out *o);
/* put's way when s does not fit: a flush, then s into the buffer, or written through when longer. */
void gt_ex_put_slow(struct out *o, const char *s, size_t n);

static inline void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n <= OUT_BUF) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		return;
	}
	gt_ex_put_slow(o, s, n);
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static inline void put_str(struct out *o, const char *s) { put(o, s, strlen(s)); }

/* The hot writers format into the buffer through a cursor: reserve room once per event, write
 * without bounds checks (each writer below knows its largest output), commit. */
static inline char *reserve(struct out *o, size_t n)
{
	if (o->len + n > OUT_BUF)
		gt_ex_out_flush(o);
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

#endif
