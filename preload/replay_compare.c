/* replay_compare.c: element distances between two copies of a buffer (replay_compare.h). */
#include "replay_compare.h"

#include <math.h>
#include <string.h>

int replay_dtype_parse(const char *s, enum replay_dtype *out)
{
	static const char *const names[] = { "f32", "f64", "i32", "u32", "u8" };
	for (int i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum replay_dtype)i;
			return 0;
		}
	return -1;
}

const char *replay_dtype_name(enum replay_dtype t)
{
	switch (t) {
	case RD_F32: return "f32";
	case RD_F64: return "f64";
	case RD_I32: return "i32";
	case RD_U32: return "u32";
	case RD_U8: return "u8";
	}
	return "?";
}

static size_t dtype_bytes(enum replay_dtype t)
{
	return t == RD_F64 ? 8 : t == RD_U8 ? 1 : 4;
}

/* Bits of an IEEE float mapped so that integer order is the values' order and +0 and -0 share one
 * key (the usual sign-magnitude to biased mapping): the smallest denormals either side of zero are
 * 2 apart, as the analyzer's ULP distances count them. */
static uint64_t ordered32(uint32_t u)
{
	return (u & 0x80000000u) ? 0x80000000u - (uint64_t)(u & 0x7fffffffu) : 0x80000000u + (uint64_t)u;
}
static uint64_t ordered64(uint64_t u)
{
	const uint64_t bias = 1ull << 63;
	return (u >> 63) ? bias - (u & (bias - 1)) : bias + u;
}
static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

static void element(const uint8_t *p, enum replay_dtype t, double *v, uint64_t *key, int *nan)
{
	*nan = 0;
	switch (t) {
	case RD_F32: {
		uint32_t u;
		float f;
		memcpy(&u, p, 4);
		memcpy(&f, p, 4);
		*v = f;
		*nan = isnan(f);
		*key = ordered32(u);
		break;
	}
	case RD_F64: {
		uint64_t u;
		double f;
		memcpy(&u, p, 8);
		memcpy(&f, p, 8);
		*v = f;
		*nan = isnan(f);
		*key = ordered64(u);
		break;
	}
	case RD_I32: {
		int32_t i;
		memcpy(&i, p, 4);
		*v = i;
		*key = (uint64_t)((int64_t)i + 2147483648ll);
		break;
	}
	case RD_U32: {
		uint32_t u;
		memcpy(&u, p, 4);
		*v = u;
		*key = u;
		break;
	}
	case RD_U8:
		*v = p[0];
		*key = p[0];
		break;
	}
}

int replay_compare(const uint8_t *a, const uint8_t *b, size_t n, enum replay_dtype want,
                   struct replay_diff *d)
{
	memset(d, 0, sizeof *d);
	enum replay_dtype t = n % dtype_bytes(want) ? RD_U8 : want;
	size_t w = dtype_bytes(t);
	d->dtype = t;
	d->elements = n / w;
	if (memcmp(a, b, n) == 0)
		return 1;
	int have = 0;
	for (size_t i = 0; i < d->elements; i++) {
		const uint8_t *pa = a + i * w, *pb = b + i * w;
		if (memcmp(pa, pb, w) == 0)
			continue;
		d->differing++;
		double va, vb;
		uint64_t ka, kb;
		int na, nb;
		element(pa, t, &va, &ka, &na);
		element(pb, t, &vb, &kb, &nb);
		uint64_t dist = (na || nb) ? UINT64_MAX : (va == vb ? 0 : absdiff(ka, kb));
		if (!have || dist > d->worst_ulps) {
			have = 1;
			d->worst_ulps = dist;
			d->worst_index = i;
			d->worst_a = va;
			d->worst_b = vb;
		}
	}
	return 0;
}
