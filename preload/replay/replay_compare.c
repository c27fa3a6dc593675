/* replay_compare.c: element distances between two copies of a buffer (replay_compare.h). */
#include "preload/replay/replay_compare.h"

#include "common/ulp.h"

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

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Element i of a and b as numbers, and how far apart they are: for floats the ULP distance of
 * common/ulp.h (the analyzer's: NaN is the largest, +0 and -0 are 0 apart), for integers |a - b|. */
static uint64_t distance(const uint8_t *pa, const uint8_t *pb, enum replay_dtype t, double *va,
                         double *vb)
{
	switch (t) {
	case RD_F32: {
		float fa, fb;
		memcpy(&fa, pa, 4);
		memcpy(&fb, pb, 4);
		*va = fa;
		*vb = fb;
		return gt_ulps_f32(fa, fb);
	}
	case RD_F64: {
		double fa, fb;
		memcpy(&fa, pa, 8);
		memcpy(&fb, pb, 8);
		*va = fa;
		*vb = fb;
		return gt_ulps_f64(fa, fb);
	}
	case RD_I32: {
		int32_t ia, ib;
		memcpy(&ia, pa, 4);
		memcpy(&ib, pb, 4);
		*va = ia;
		*vb = ib;
		return absdiff((uint64_t)((int64_t)ia + 2147483648ll), (uint64_t)((int64_t)ib + 2147483648ll));
	}
	case RD_U32: {
		uint32_t ua, ub;
		memcpy(&ua, pa, 4);
		memcpy(&ub, pb, 4);
		*va = ua;
		*vb = ub;
		return absdiff(ua, ub);
	}
	case RD_U8:
		break;
	}
	*va = pa[0];
	*vb = pb[0];
	return absdiff(pa[0], pb[0]);
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
		uint64_t dist = distance(pa, pb, t, &va, &vb);
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
