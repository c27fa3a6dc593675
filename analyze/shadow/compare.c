/* compare.c: the element rules of compare.h, and a buffer's verdict, worst element and ULP histogram.
 *
 * Special values are decided before any bit arithmetic: two NaNs with the same bits have key
 * distance 0, and an infinity is one key away from the largest finite value, so neither the
 * distance nor the criteria may see them. Order of the tests: NaN (never matches), equality (covers
 * +0/-0 and equal infinities), any remaining infinity (never matches), then the three criteria.
 */
#include "analyze/shadow/compare.h"

#include "traces/gputrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t gt_elem_size(int type)
{
	switch (type) {
	case GT_REF_F32: return 4;
	case GT_REF_F64: return 8;
	case GT_REF_I8: case GT_REF_U8: return 1;
	case GT_REF_I16: case GT_REF_U16: return 2;
	case GT_REF_I32: case GT_REF_U32: return 4;
	case GT_REF_I64: case GT_REF_U64: return 8;
	}
	return 0;
}

const char *gt_elem_type_name(int type)
{
	switch (type) {
	case GT_REF_F32: return "f32";
	case GT_REF_F64: return "f64";
	case GT_REF_I8: return "i8";
	case GT_REF_U8: return "u8";
	case GT_REF_I16: return "i16";
	case GT_REF_U16: return "u16";
	case GT_REF_I32: return "i32";
	case GT_REF_U32: return "u32";
	case GT_REF_I64: return "i64";
	case GT_REF_U64: return "u64";
	}
	return "unknown";
}

int gt_elem_is_float(int type) { return type == GT_REF_F32 || type == GT_REF_F64; }

/* The three criteria on a finite, unequal pair; d = |g - r| computed by the caller in double. */
static int criteria(double g, double r, double d, uint64_t u, const struct gt_ref_tol *tol)
{
	if (!tol)
		return 0;
	if (tol->abs > 0 && d <= tol->abs)
		return 1;
	if (tol->rel > 0 && d <= tol->rel * fmax(fabs(g), fabs(r)))
		return 1;
	return tol->ulps > 0 && u <= tol->ulps;
}

/* Both widths in double, where a float converts exactly: its NaNs, infinities and equalities stay
 * what they were, the difference of two floats is exact, and (float)g gives g back for its ULPs. */
static int close_pair(double g, double r, int f32, const struct gt_ref_tol *tol, uint64_t *ulps)
{
	uint64_t u;
	int pass;
	if (isnan(g) || isnan(r)) {
		u = GT_ULP_INFINITE;
		pass = 0;
	} else if (g == r) {
		u = 0;
		pass = 1;
	} else if (isinf(g) || isinf(r)) {
		u = GT_ULP_INFINITE;
		pass = 0;
	} else {
		u = f32 ? gt_ulps_f32((float)g, (float)r) : gt_ulps_f64(g, r);
		pass = criteria(g, r, fabs(g - r), u, tol);
	}
	if (ulps)
		*ulps = u;
	return pass;
}

int gt_close_f32(float g, float r, const struct gt_ref_tol *tol, uint64_t *ulps)
{
	return close_pair(g, r, 1, tol, ulps);
}

int gt_close_f64(double g, double r, const struct gt_ref_tol *tol, uint64_t *ulps)
{
	return close_pair(g, r, 0, tol, ulps);
}

int gt_ulp_bucket(uint64_t ulps)
{
	if (ulps == GT_ULP_INFINITE)
		return GT_ULP_BUCKET_NONFINITE;
	if (ulps == 0)
		return 0;
	int k = 0;
	while (ulps) {
		ulps >>= 1;
		k++;
	}
	return k; /* 1 + floor(log2(ulps)) */
}

const char *gt_ulp_bucket_label(int b, char *buf, size_t len)
{
	if (b == GT_ULP_BUCKET_NONFINITE)
		snprintf(buf, len, "inf/NaN");
	else if (b <= 1)
		snprintf(buf, len, "%d", b < 0 ? 0 : b);
	else if (b == 64)
		snprintf(buf, len, "%llu-", 1ull << 63);
	else
		snprintf(buf, len, "%llu-%llu", 1ull << (b - 1), (1ull << b) - 1);
	return buf;
}

int gt_tol_any(const struct gt_ref_tol *t) { return t && (t->abs > 0 || t->rel > 0 || t->ulps > 0); }

const char *gt_tol_describe(const struct gt_ref_tol *t, char *buf, size_t len)
{
	size_t pos = 0;
	buf[0] = '\0';
	if (!gt_tol_any(t)) {
		snprintf(buf, len, "exact");
		return buf;
	}
	if (t->abs > 0)
		pos += (size_t)snprintf(buf + pos, len - pos, "abs %g", t->abs);
	if (t->rel > 0 && pos < len)
		pos += (size_t)snprintf(buf + pos, len - pos, "%srel %g", pos ? ", " : "", t->rel);
	if (t->ulps > 0 && pos < len)
		snprintf(buf + pos, len - pos, "%sulps %llu", pos ? ", " : "", (unsigned long long)t->ulps);
	return buf;
}

/* One element of an integer type as a signed and an unsigned view; distance is |g - r|. */
static void load_int(int type, const uint8_t *p, int64_t *s, uint64_t *u, int *is_signed)
{
	*is_signed = type == GT_REF_I8 || type == GT_REF_I16 || type == GT_REF_I32 || type == GT_REF_I64;
	switch (type) {
	case GT_REF_I8: { int8_t v; memcpy(&v, p, 1); *s = v; break; }
	case GT_REF_U8: { uint8_t v; memcpy(&v, p, 1); *u = v; break; }
	case GT_REF_I16: { int16_t v; memcpy(&v, p, 2); *s = v; break; }
	case GT_REF_U16: { uint16_t v; memcpy(&v, p, 2); *u = v; break; }
	case GT_REF_I32: { int32_t v; memcpy(&v, p, 4); *s = v; break; }
	case GT_REF_U32: { uint32_t v; memcpy(&v, p, 4); *u = v; break; }
	case GT_REF_I64: { int64_t v; memcpy(&v, p, 8); *s = v; break; }
	default: { uint64_t v; memcpy(&v, p, 8); *u = v; break; }
	}
	if (*is_signed)
		*u = (uint64_t)*s;
	else
		*s = (int64_t)*u;
}

static uint64_t int_distance(int64_t gs, uint64_t gu, int64_t rs, uint64_t ru, int is_signed)
{
	if (!is_signed)
		return gu > ru ? gu - ru : ru - gu;
	/* Differences of signed 64-bit values fit in uint64 when computed in unsigned arithmetic. */
	return gs > rs ? (uint64_t)gs - (uint64_t)rs : (uint64_t)rs - (uint64_t)gs;
}

/* Is candidate (ulps u, mismatch or not) worse than the current worst? Mismatches outrank passes;
 * within a class the larger distance wins; ties keep the lower index (the one seen first). */
static int worse(const struct gt_compare_result *out, int pass, uint64_t u)
{
	if (!out->has_worst)
		return 1;
	if (out->worst.pass != pass)
		return !pass;
	return u > out->worst.ulps;
}

/* One element as a double (integers converted). */
static double value_of(int type, const uint8_t *p)
{
	if (type == GT_REF_F32) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (type == GT_REF_F64) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	int64_t s;
	uint64_t u;
	int sg;
	load_int(type, p, &s, &u, &sg);
	return sg ? (double)s : (double)u;
}

/* The rule for one pair of elements: 1 pass, 0 mismatch; *u the distance. */
static int element_close(int type, const uint8_t *pg, const uint8_t *pr, const struct gt_ref_tol *tol,
                         uint64_t *u)
{
	if (type == GT_REF_F32) {
		float a, b;
		memcpy(&a, pg, 4);
		memcpy(&b, pr, 4);
		return gt_close_f32(a, b, tol, u);
	}
	if (type == GT_REF_F64) {
		double a, b;
		memcpy(&a, pg, 8);
		memcpy(&b, pr, 8);
		return gt_close_f64(a, b, tol, u);
	}
	int64_t gs, rs;
	uint64_t gu, ru;
	int sg;
	load_int(type, pg, &gs, &gu, &sg);
	load_int(type, pr, &rs, &ru, &sg);
	*u = int_distance(gs, gu, rs, ru, sg);
	return *u == 0;
}

int gt_compare_buffers(int type, const void *gpu, const void *ref, const void *before, uint64_t bytes,
                       const struct gt_ref_tol *tol, struct gt_compare_result *out)
{
	size_t es = gt_elem_size(type);
	memset(out, 0, sizeof *out);
	out->type = type;
	out->first_mismatch = UINT64_MAX;
	if (!es || (!gpu && bytes) || (!ref && bytes))
		return GT_ERR_ARG;
	if (!bytes)
		return 0;
	const uint8_t *g = gpu, *r = ref, *b = before;
	uint64_t n = bytes / es;
	out->elements = n;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *pg = g + i * es, *pr = r + i * es;
		uint64_t u;
		int pass;
		if (b && memcmp(pr, b + i * es, es) == 0 && memcmp(pg, pr, es) == 0) {
			/* Expected unchanged, and unchanged: bit-identical, distance 0 whatever the bits. */
			out->unchanged++;
			u = 0;
			pass = 1;
		} else {
			pass = element_close(type, pg, pr, tol, &u);
		}
		out->hist[gt_ulp_bucket(u)]++;
		if (!pass) {
			out->mismatches++;
			if (out->first_mismatch == UINT64_MAX)
				out->first_mismatch = i;
		}
		if (worse(out, pass, u)) {
			uint64_t gb = 0, rb = 0;
			memcpy(&gb, pg, es); /* little-endian: the low bytes */
			memcpy(&rb, pr, es);
			out->has_worst = 1;
			out->worst.index = i;
			out->worst.gpu_bits = gb;
			out->worst.ref_bits = rb;
			out->worst.gpu = value_of(type, pg);
			out->worst.ref = value_of(type, pr);
			out->worst.abs_err = fabs(out->worst.gpu - out->worst.ref);
			out->worst.ulps = u;
			out->worst.pass = pass;
		}
	}
	out->tail_bytes = bytes - n * es;
	uint64_t first;
	out->tail_mismatches = gt_compare_bytes(g + n * es, r + n * es, out->tail_bytes, &first);
	return 0;
}

int gt_compare_passed(const struct gt_compare_result *r)
{
	return r->mismatches == 0 && r->tail_mismatches == 0;
}

uint64_t gt_compare_bytes(const void *a, const void *b, uint64_t bytes, uint64_t *first)
{
	const uint8_t *p = a, *q = b;
	uint64_t n = 0;
	*first = UINT64_MAX;
	if (!bytes)
		return 0;
	/* Most of the time the buffers are equal: memcmp finds that at memory speed. */
	if (memcmp(p, q, bytes) == 0)
		return 0;
	for (uint64_t i = 0; i < bytes; i++) {
		if (p[i] != q[i]) {
			if (*first == UINT64_MAX)
				*first = i;
			n++;
		}
	}
	return n;
}
