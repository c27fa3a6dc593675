/* format.c: the fixed-record codec and the format's tables of names.
 *
 * Fixed records are stored as deltas, then byte-transposed: byte j of record i goes to position
 * j * n + i. In a steady loop the high bytes of every delta, and every constant field, become long runs
 * of one value that zstd compresses to almost nothing; only the jitter in the low bytes costs space.
 * Field 0 of each type (its first u64) is the base timestamp, stored as the zigzag delta to the
 * previous record's base in the block; "rel" timestamps are stored relative to their own record's base
 * (0 stays 0: "not measured"); "delta32" fields (correlation ids) as the wrapping difference to the
 * previous record's. Which field is coded how is the schema's (schema.c).
 */
#include "traces/format.h"

#include <pthread.h>
#include <stddef.h>

/* The codec's view of each fixed record type, built once from the schema: the offsets it codes, so
 * that the per-record loops below touch only those fields. */
static struct gt_fixed_desc descs[GT_REC_TYPE_MAX + 1];
static pthread_once_t descs_once = PTHREAD_ONCE_INIT;

static void descs_build(void)
{
	for (size_t i = 0; i < gt_schema_count; i++) {
		const struct gt_record_schema *s = &gt_schema[i];
		if (s->type < GT_REC_FIRST_FIXED || s->type > GT_REC_TYPE_MAX)
			continue;
		struct gt_fixed_desc *d = &descs[s->type];
		d->schema = s;
		d->size = s->size;
		for (const struct gt_field *f = s->fields; f->member; f++) {
			/* test_trace_spec checks that no type codes more than GT_MAX_CODED_FIELDS. */
			if (f->codec == GT_CODEC_REL && d->n_rel < GT_MAX_CODED_FIELDS)
				d->rel[d->n_rel++] = f->offset;
			else if (f->codec == GT_CODEC_DELTA32 && d->n_delta32 < GT_MAX_CODED_FIELDS)
				d->delta32[d->n_delta32++] = f->offset;
		}
	}
}

const struct gt_fixed_desc *gt_fixed_desc(int type)
{
	if (type < GT_REC_FIRST_FIXED || type > GT_REC_TYPE_MAX)
		return NULL;
	/* Readers on several threads may ask first at once: the table is built exactly once. */
	if (pthread_once(&descs_once, descs_build) != 0)
		return NULL;
	return descs[type].size ? &descs[type] : NULL;
}

uint32_t gt_header_check(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

/* Apply (encode) or undo (decode) the deltas on records laid out contiguously, size bytes each.
 * Fields beyond size (an older writer's shorter record) are left alone. */
static void deltas_encode(const struct gt_fixed_desc *d, uint8_t *recs, uint32_t n, uint32_t size)
{
	/* Walk backwards so that each record still sees its predecessor's original values. */
	for (uint32_t i = n; i-- > 0;) {
		uint8_t *r = recs + (size_t)i * size;
		uint64_t base = gt_ld64(r);
		const uint8_t *prev = i ? r - size : NULL;
		for (unsigned k = 0; k < d->n_rel; k++) {
			if (d->rel[k] + 8u > size)
				continue;
			uint64_t v = gt_ld64(r + d->rel[k]);
			gt_st64(r + d->rel[k], v ? gt_zigzag((int64_t)(v - base)) + 1 : 0);
		}
		for (unsigned k = 0; k < d->n_delta32; k++) {
			if (d->delta32[k] + 4u > size)
				continue;
			uint32_t p = prev ? gt_ld32(prev + d->delta32[k]) : 0;
			gt_st32(r + d->delta32[k], gt_ld32(r + d->delta32[k]) - p);
		}
		uint64_t pbase = prev ? gt_ld64(prev) : 0;
		if (size >= 8)
			gt_st64(r, gt_zigzag((int64_t)(base - pbase)));
	}
}

static void deltas_decode(const struct gt_fixed_desc *d, uint8_t *recs, uint32_t n, uint32_t size)
{
	uint64_t pbase = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *r = recs + (size_t)i * size;
		const uint8_t *prev = i ? r - size : NULL;
		if (size < 8)
			continue;
		uint64_t base = pbase + (uint64_t)gt_unzigzag(gt_ld64(r));
		gt_st64(r, base);
		pbase = base;
		for (unsigned k = 0; k < d->n_rel; k++) {
			if (d->rel[k] + 8u > size)
				continue;
			uint64_t e = gt_ld64(r + d->rel[k]);
			gt_st64(r + d->rel[k], e ? base + (uint64_t)gt_unzigzag(e - 1) : 0);
		}
		for (unsigned k = 0; k < d->n_delta32; k++) {
			if (d->delta32[k] + 4u > size)
				continue;
			uint32_t p = prev ? gt_ld32(prev + d->delta32[k]) : 0;
			gt_st32(r + d->delta32[k], gt_ld32(r + d->delta32[k]) + p);
		}
	}
}

void gt_encode_fixed(const struct gt_fixed_desc *d, uint8_t *recs, uint32_t n, uint32_t size,
                     uint8_t *out)
{
	if (d)
		deltas_encode(d, recs, n, size);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *r = recs + (size_t)i * size;
		for (uint32_t j = 0; j < size; j++)
			out[(size_t)j * n + i] = r[j];
	}
}

void gt_decode_fixed(const struct gt_fixed_desc *d, const uint8_t *in, uint32_t n, uint32_t size,
                     uint8_t *out)
{
	/* Transpose in tiles of 64 records so that both sides stay in cache. */
	for (uint32_t i0 = 0; i0 < n; i0 += 64) {
		uint32_t i1 = n - i0 < 64 ? n : i0 + 64;
		for (uint32_t j = 0; j < size; j++) {
			const uint8_t *src = in + (size_t)j * n;
			for (uint32_t i = i0; i < i1; i++)
				out[(size_t)i * size + j] = src[i];
		}
	}
	if (d)
		deltas_decode(d, out, n, size);
}

/* ---- names ----------------------------------------------------------------------------------- */

/* gt_rec_type_name() is the schema's (schema.c): a kind's name is part of its row. */

const char *gt_copy_kind_name(int kind)
{
	static const char *const names[] = { "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
		"AtoD", "DtoA", "DtoD", "HtoH", "PtoP" };
	if (kind < 0 || kind >= (int)(sizeof names / sizeof names[0]))
		return "unknown";
	return names[kind];
}

const char *gt_mem_kind_name(int kind)
{
	static const char *const names[] = { "unknown", "pageable", "pinned", "device", "array",
		"managed", "device-static", "managed-static" };
	if (kind < 0 || kind >= (int)(sizeof names / sizeof names[0]))
		return "unknown";
	return names[kind];
}

const char *gt_sync_kind_name(int kind)
{
	static const char *const names[] = { "unknown", "event", "stream-wait-event", "stream",
		"context" };
	if (kind < 0 || kind >= (int)(sizeof names / sizeof names[0]))
		return "unknown";
	return names[kind];
}

const char *gt_drop_reason_name(int reason)
{
	switch (reason) {
	case GT_DROP_CUPTI: return "dropped by CUPTI";
	case GT_DROP_BUFFER_LOST: return "buffer lost";
	case GT_DROP_FILTERED: return "filtered out";
	case GT_DROP_BAD_RECORD: return "impossible values";
	case GT_DROP_CAPTURE: return "capture skipped";
	case GT_DROP_UNKNOWN_KIND: return "activity kind not translated";
	default: return "unknown";
	}
}

const char *gt_strerror(int err)
{
	switch (err) {
	case GT_OK: return "success";
	case GT_ERR_IO: return "input/output error";
	case GT_ERR_NOMEM: return "out of memory";
	case GT_ERR_MAGIC: return "not a gputrace file";
	case GT_ERR_VERSION: return "unsupported format version";
	case GT_ERR_CORRUPT: return "corrupt trace";
	case GT_ERR_CHECKSUM: return "checksum mismatch";
	case GT_ERR_TOO_LARGE: return "size beyond the format's limits";
	case GT_ERR_ARG: return "invalid argument";
	case GT_ERR_EMPTY: return "empty or truncated before its header";
	case GT_ERR_EXISTS: return "file exists";
	case GT_ERR_STATE: return "operation not valid in this state";
	default: return "unknown error";
	}
}

/* ---- peaks ----------------------------------------------------------------------------------- */

double gt_device_peak_mem_bw(const struct gt_device *d)
{
	if (!d || !d->mem_clock_khz || !d->mem_bus_width_bits)
		return 0;
	/* Double data rate: two transfers per clock, bus width in bits. */
	return 2.0 * (double)d->mem_clock_khz * 1e3 * (double)d->mem_bus_width_bits / 8.0;
}

double gt_device_peak_pcie_bw(const struct gt_device *d)
{
	/* Transfer rate per lane (GT/s) and the line code's efficiency, per generation. Gen 6 uses FLIT
	 * mode: 242 payload bytes of every 256. */
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	static const double eff[] = { 0, 0.8, 0.8, 128.0 / 130.0, 128.0 / 130.0, 128.0 / 130.0,
		242.0 / 256.0 };
	if (!d || d->pcie_gen == 0 || d->pcie_gen >= sizeof gts / sizeof gts[0] || !d->pcie_width)
		return 0;
	return gts[d->pcie_gen] * 1e9 * eff[d->pcie_gen] / 8.0 * (double)d->pcie_width;
}
