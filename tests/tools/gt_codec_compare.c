/* gt_codec_compare.c: measures the fixed-record encoding against the alternatives it was chosen over.
 *
 * gputrace-format(5) argues for fixed records, delta-encoded, byte-transposed, then zstd. This tool
 * makes that argument a measurement: it reads a trace's fixed records, cuts them per type into
 * blocks of --block records (default 8192, about what one 1 MiB chunk holds), and compresses each
 * block with zstd at the writer's level after each of these layouts:
 *   raw            the structs as they are
 *   transpose      byte transposition only
 *   delta          the format's deltas, records left as rows
 *   format         deltas then byte transposition (what the writer does)
 *   columns        deltas, then field by field (each field's values together, natural width)
 *   varint         deltas, then every integer field as LEB128 (i32 zigzagged), row by row
 *   varint-columns deltas, then LEB128 field by field
 * and prints compressed bytes per record for each. It also times decoding a block back to structs
 * for "format" (zstd, then un-transpose and undo deltas) against "varint" (zstd, then LEB128 parsing
 * alone, deltas not even undone: a lower bound on a varint reader's work).
 *
 *   gt_codec_compare [--block N] [--level L] [--max RECORDS] FILE
 */
#include "traces/format.h"
#include "traces/gputrace.h"
#include "traces/schema.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

enum { V_RAW, V_TRANSPOSE, V_DELTA, V_FORMAT, V_COLUMNS, V_VARINT, V_VARCOL, NV };
static const char *const vname[NV] = { "raw", "transpose", "delta", "format", "columns", "varint",
	"varint-columns" };

struct acc {
	uint64_t records;
	uint64_t bytes[NV];
};

static struct acc per_type[GT_REC_TYPE_MAX + 1], total;
static int level = 3;
static ZSTD_CCtx *cctx;
static ZSTD_DCtx *dctx;
static uint8_t *zbuf, *work, *work2, *work3;
static size_t zcap;
static double t_format, t_varint;
static uint64_t timed_records;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t zsize(const uint8_t *p, size_t n)
{
	size_t r = ZSTD_compressCCtx(cctx, zbuf, zcap, p, n, level);
	if (ZSTD_isError(r)) {
		fprintf(stderr, "gt_codec_compare: zstd: %s\n", ZSTD_getErrorName(r));
		exit(2);
	}
	return r;
}

static size_t leb128(uint8_t *o, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		o[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static uint64_t field_value(const uint8_t *p, const struct gt_field *f)
{
	switch (f->size) {
	case 1: return p[0];
	case 2: return gt_ld16(p);
	case 4:
		if (!strcmp(f->type, "i32"))
			return gt_zigzag((int32_t)gt_ld32(p));
		return gt_ld32(p);
	case 8: return gt_ld64(p);
	default: return 0;
	}
}

static int is_int(const struct gt_field *f)
{
	return f->size == 2 || f->size == 4 || f->size == 8;
}

/* Row-wise (cols = 0) or column-wise varints of the delta-coded records in rows. */
static size_t varints(const struct gt_record_schema *rf, const uint8_t *rows, uint32_t n,
                      uint8_t *out, int cols)
{
	size_t o = 0;
	if (!cols) {
		for (uint32_t i = 0; i < n; i++)
			for (const struct gt_field *f = rf->fields; f->member; f++) {
				const uint8_t *p = rows + (size_t)i * rf->size + f->offset;
				if (is_int(f))
					o += leb128(out + o, field_value(p, f));
				else {
					memcpy(out + o, p, f->size);
					o += f->size;
				}
			}
	} else {
		for (const struct gt_field *f = rf->fields; f->member; f++)
			for (uint32_t i = 0; i < n; i++) {
				const uint8_t *p = rows + (size_t)i * rf->size + f->offset;
				if (is_int(f))
					o += leb128(out + o, field_value(p, f));
				else {
					memcpy(out + o, p, f->size);
					o += f->size;
				}
			}
	}
	return o;
}

/* Parses row-wise varints back into records (no delta decoding): the varint reader's least work. */
static void parse_varints(const struct gt_record_schema *rf, const uint8_t *in, uint32_t n,
                          uint8_t *rows)
{
	size_t q = 0;
	for (uint32_t i = 0; i < n; i++)
		for (const struct gt_field *f = rf->fields; f->member; f++) {
			uint8_t *p = rows + (size_t)i * rf->size + f->offset;
			if (!is_int(f)) {
				memcpy(p, in + q, f->size);
				q += f->size;
				continue;
			}
			uint64_t v = 0;
			unsigned s = 0;
			uint8_t b;
			do {
				b = in[q++];
				v |= (uint64_t)(b & 0x7f) << s;
				s += 7;
			} while (b & 0x80);
			if (f->size == 8)
				gt_st64(p, v);
			else if (f->size == 4)
				gt_st32(p, (uint32_t)v);
			else
				gt_st16(p, (uint16_t)v);
		}
}

static void block(int type, const uint8_t *recs, uint32_t n)
{
	const struct gt_fixed_desc *d = gt_fixed_desc(type);
	const struct gt_record_schema *rf = d->schema;
	size_t size = d->size, len = (size_t)n * size;
	struct acc *a = &per_type[type];
	size_t b[NV];

	b[V_RAW] = zsize(recs, len);
	memcpy(work, recs, len);
	gt_encode_fixed(NULL, work, n, (uint32_t)size, work2);
	b[V_TRANSPOSE] = zsize(work2, len);
	memcpy(work, recs, len);
	gt_encode_fixed(d, work, n, (uint32_t)size, work2); /* work: deltas, rows; work2: format */
	b[V_FORMAT] = zsize(work2, len);
	b[V_DELTA] = zsize(work, len);
	size_t o = 0;
	for (const struct gt_field *f = rf->fields; f->member; f++)
		for (uint32_t i = 0; i < n; i++) {
			memcpy(work3 + o, work + (size_t)i * size + f->offset, f->size);
			o += f->size;
		}
	b[V_COLUMNS] = zsize(work3, o);

	/* Decode timings, each on its own compressed block (repeated so that small blocks register). */
	int reps = 3;
	size_t zf = ZSTD_compressCCtx(cctx, zbuf, zcap, work2, len, level);
	double t0 = now_s();
	for (int r = 0; r < reps; r++) {
		size_t got = ZSTD_decompressDCtx(dctx, work3, len * 2 + 64, zbuf, zf);
		if (ZSTD_isError(got) || got != len)
			exit(3);
		gt_decode_fixed(d, work3, n, (uint32_t)size, work2);
	}
	t_format += now_s() - t0;
	if (memcmp(work2, recs, len) != 0) {
		fprintf(stderr, "gt_codec_compare: format round trip failed\n");
		exit(3);
	}

	size_t vlen = varints(rf, work, n, work3, 0);
	b[V_VARINT] = zsize(work3, vlen);
	size_t zv = ZSTD_compressCCtx(cctx, zbuf, zcap, work3, vlen, level);
	t0 = now_s();
	for (int r = 0; r < reps; r++) {
		size_t got = ZSTD_decompressDCtx(dctx, work3, len * 2 + 64, zbuf, zv);
		if (ZSTD_isError(got) || got != vlen)
			exit(3);
		parse_varints(rf, work3, n, work2);
	}
	t_varint += now_s() - t0;
	if (memcmp(work2, work, len) != 0) {
		fprintf(stderr, "gt_codec_compare: varint round trip failed\n");
		exit(3);
	}
	timed_records += (uint64_t)n * reps;

	vlen = varints(rf, work, n, work3, 1);
	b[V_VARCOL] = zsize(work3, vlen);

	a->records += n;
	total.records += n;
	for (int v = 0; v < NV; v++) {
		a->bytes[v] += b[v];
		total.bytes[v] += b[v];
	}
}

int main(int argc, char **argv)
{
	uint32_t bn = 8192;
	uint64_t max = UINT64_MAX;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--block") && i + 1 < argc)
			bn = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--level") && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			max = strtoull(argv[++i], NULL, 10);
		else
			path = argv[i];
	}
	if (!path || bn == 0) {
		fprintf(stderr, "usage: gt_codec_compare [--block N] [--level L] [--max RECORDS] FILE\n");
		return 2;
	}
	char err[512];
	struct gt_reader *r;
	if (gt_reader_open(&r, path, err, sizeof err)) {
		fprintf(stderr, "gt_codec_compare: cannot open trace: %s\n", err);
		return 2;
	}
	size_t maxlen = (size_t)bn * GT_MAX_RECORD_SIZE;
	uint8_t *bufs[GT_REC_TYPE_MAX + 1] = { 0 };
	uint32_t fill[GT_REC_TYPE_MAX + 1] = { 0 };
	zcap = ZSTD_compressBound(maxlen * 2);
	cctx = ZSTD_createCCtx();
	dctx = ZSTD_createDCtx();
	zbuf = malloc(zcap);
	work = malloc(maxlen);
	work2 = malloc(maxlen);
	work3 = malloc(maxlen * 2 + 64); /* varints can exceed the record size */
	if (!cctx || !dctx || !zbuf || !work || !work2 || !work3) {
		fprintf(stderr, "gt_codec_compare: out of memory\n");
		return 2;
	}
	struct gt_event ev;
	int rc;
	uint64_t seen = 0;
	while (seen < max && (rc = gt_reader_next(r, &ev)) > 0) {
		const struct gt_fixed_desc *d = gt_fixed_desc(ev.type);
		if (!d)
			continue;
		if (!bufs[ev.type] && !(bufs[ev.type] = malloc((size_t)bn * d->size))) {
			fprintf(stderr, "gt_codec_compare: out of memory\n");
			return 2;
		}
		memcpy(bufs[ev.type] + (size_t)fill[ev.type] * d->size, &ev.u, d->size);
		if (++fill[ev.type] == bn) {
			block(ev.type, bufs[ev.type], bn);
			fill[ev.type] = 0;
		}
		seen++;
	}
	if (seen < max && rc < 0) {
		fprintf(stderr, "gt_codec_compare: %s\n", gt_reader_error(r));
		return 2;
	}
	for (int t = 0; t <= GT_REC_TYPE_MAX; t++) {
		if (fill[t])
			block(t, bufs[t], fill[t]);
		free(bufs[t]);
	}
	printf("compressed bytes per record, zstd level %d, blocks of %u records per type\n", level, bn);
	printf("%-13s %9s %5s", "type", "records", "size");
	for (int v = 0; v < NV; v++)
		printf(" %*s", v == V_VARCOL ? 14 : 9, vname[v]);
	printf("\n");
	for (int t = 0; t <= GT_REC_TYPE_MAX + 1; t++) {
		const struct acc *a = t <= GT_REC_TYPE_MAX ? &per_type[t] : &total;
		if (!a->records)
			continue;
		printf("%-13s %9" PRIu64 " %5u", t <= GT_REC_TYPE_MAX ? gt_rec_type_name(t) : "all",
		       a->records, t <= GT_REC_TYPE_MAX ? gt_fixed_desc(t)->size : 0);
		for (int v = 0; v < NV; v++)
			printf(" %*.3f", v == V_VARCOL ? 14 : 9, (double)a->bytes[v] / (double)a->records);
		printf("\n");
	}
	printf("decode to structs, records/s on one core: format %.3g (zstd + un-transpose + "
	       "deltas), varint %.3g (zstd + LEB128 parse only)\n",
	       t_format > 0 ? (double)timed_records / t_format : 0.0,
	       t_varint > 0 ? (double)timed_records / t_varint : 0.0);
	gt_reader_close(r);
	ZSTD_freeCCtx(cctx);
	ZSTD_freeDCtx(dctx);
	free(zbuf);
	free(work);
	free(work2);
	free(work3);
	return 0;
}
