/* test_trace_spec.c: gputrace-format(5) says what the code does, and keeps saying it.
 *
 * The man page is the format's specification; this test keeps it from drifting away from the code.
 * It parses the page's machine-readable tables (between '.\" fields NAME TYPE SIZE' and
 * '.\" end fields', the record type table and the limits table) and checks them against
 *   - the structs in gputrace.h, through the format's schema (traces/schema.c, offsetof/sizeof);
 *     that table in turn must tile every struct exactly, so a field added to the header without a
 *     row fails here;
 *   - the codec's treatment of each field, which format.c takes from the schema (base, rel, d32);
 *   - the record type names and sizes, and the GT_MAX_* limits in format.h;
 *   - a real file from the writer, parsed with the page's own offsets for the file, chunk and block
 *     headers, and the page's FNV-1a check.
 * Plus claims the page makes in prose that the code must keep: padding written as zero, the one
 * unrepresentable rel value, the FNV test vectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "traces/format.h"
#include "traces/gputrace.h"
#include "traces/schema.h"

/* ---- the page's tables ---------------------------------------------------------------------- */

struct row {
	unsigned off, size;
	char type[16], enc[8], field[48];
};

struct table {
	char name[32];
	int type;
	unsigned size;
	int n;
	struct row rows[48];
};

struct type_row {
	int type;
	char name[32], encoding[16], size[16];
};

struct limit_row {
	char name[48];
	unsigned long long value;
};

static struct table tables[40];
static int ntables;
static struct type_row types[64];
static int ntypes;
static struct limit_row limits[32];
static int nlimits;
static char *page;

static char *read_page(void)
{
	const char *src = getenv("GT_SRCDIR");
	char path[1024];
	snprintf(path, sizeof path, "%s/man/gputrace-format.5", src && *src ? src : ".");
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the source root or set GT_SRCDIR)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *p = malloc((size_t)n + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	p[n] = '\0';
	fclose(f);
	return p;
}

static int group_setup(void **state)
{
	(void)state;
	page = read_page();
	char *save = NULL;
	char *copy = strdup(page);
	assert_non_null(copy);
	enum { NONE, FIELDS, TYPES, LIMITS } mode = NONE;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, ".\\\" end ", 8)) {
			mode = NONE;
			continue;
		}
		if (!strncmp(line, ".\\\" fields ", 11)) {
			assert_true(ntables < (int)(sizeof tables / sizeof tables[0]));
			struct table *t = &tables[ntables++];
			assert_int_equal(sscanf(line + 11, "%31s %d %u", t->name, &t->type, &t->size), 3);
			mode = FIELDS;
			continue;
		}
		if (!strcmp(line, ".\\\" types")) {
			mode = TYPES;
			continue;
		}
		if (!strcmp(line, ".\\\" limits")) {
			mode = LIMITS;
			continue;
		}
		const char *p = line;
		while (*p == ' ')
			p++;
		if (mode == FIELDS && isdigit((unsigned char)*p)) {
			struct table *t = &tables[ntables - 1];
			assert_true(t->n < (int)(sizeof t->rows / sizeof t->rows[0]));
			struct row *r = &t->rows[t->n++];
			if (sscanf(p, "%u %u %15s %7s %47s", &r->off, &r->size, r->type, r->enc, r->field) != 5)
				fail_msg("table %s: cannot parse row '%s'", t->name, line);
		} else if (mode == TYPES && isdigit((unsigned char)*p)) {
			struct type_row *r = &types[ntypes++];
			if (sscanf(p, "%d %31s %15s %15s", &r->type, r->name, r->encoding, r->size) != 4)
				fail_msg("type table: cannot parse row '%s'", line);
		} else if (mode == LIMITS && !strncmp(p, "GT_", 3)) {
			struct limit_row *r = &limits[nlimits++];
			if (sscanf(p, "%47s %llu", r->name, &r->value) != 2)
				fail_msg("limits table: cannot parse row '%s'", line);
		}
	}
	free(copy);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(page);
	return 0;
}

static const struct table *table_named(const char *name)
{
	for (int i = 0; i < ntables; i++)
		if (!strcmp(tables[i].name, name))
			return &tables[i];
	return NULL;
}

static const struct row *row_named(const struct table *t, const char *field)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].field, field))
			return &t->rows[i];
	fail_msg("table %s has no field %s", t->name, field);
	return NULL;
}

/* ---- record tables against the structs and the codec ------------------------------------------ */

/* The schema covers every byte of every struct, in order, apart from padding the page documents. */
static void test_field_table_tiles_structs(void **state)
{
	(void)state;
	for (size_t i = 0; i < gt_schema_count; i++) {
		const struct gt_record_schema *rf = &gt_schema[i];
		unsigned pos = 0;
		for (const struct gt_field *f = rf->fields; f->member; f++) {
			if (f->offset != pos)
				fail_msg("%s: %s at %u, expected %u (implicit padding or a missing field)",
				         rf->name, f->member, f->offset, pos);
			pos = f->offset + f->size;
		}
		/* Tail padding: only where the page documents it as a "(padding)" row. */
		if (pos != rf->size) {
			const struct table *t = table_named(rf->name);
			assert_non_null(t);
			const struct row *pad = row_named(t, "(padding)");
			assert_int_equal(pad->off, pos);
			assert_int_equal(pad->off + pad->size, rf->size);
		}
	}
	/* Every fixed type the library names has a field table, which the codec uses. */
	for (int t = GT_REC_FIRST_FIXED; t <= GT_REC_TYPE_MAX; t++)
		if (strcmp(gt_rec_type_name(t), "unknown") && !gt_fixed_desc(t))
			fail_msg("fixed type %d has no row in the schema", t);
}

/* What the codec does with the field at `off` of a record of `type` (format.c's offset lists,
 * gathered from the schema), in the page's words. */
static const char *codec_enc(int type, unsigned off)
{
	const struct gt_fixed_desc *d = gt_fixed_desc(type);
	if (!d)
		return "-";
	if (off == 0)
		return "base";
	for (unsigned k = 0; k < d->n_rel; k++)
		if (d->rel[k] == off)
			return "rel";
	for (unsigned k = 0; k < d->n_delta32; k++)
		if (d->delta32[k] == off)
			return "d32";
	return "-";
}

/* Each record table on the page lists exactly the struct's fields, at their offsets and sizes,
 * with their types, and the codec's treatment of each. */
static void test_page_record_tables_match_structs(void **state)
{
	(void)state;
	for (size_t i = 0; i < gt_schema_count; i++) {
		const struct gt_record_schema *rf = &gt_schema[i];
		const struct table *t = table_named(rf->name);
		if (!t)
			fail_msg("the page has no field table for %s", rf->name);
		assert_int_equal(t->type, rf->type);
		if (t->size != rf->size)
			fail_msg("%s: page says %u bytes, sizeof is %u", rf->name, t->size, rf->size);
		int k = 0;
		for (const struct gt_field *f = rf->fields; f->member; f++, k++) {
			if (k >= t->n)
				fail_msg("%s: field %s missing from the page", rf->name, f->member);
			const struct row *r = &t->rows[k];
			if (strcmp(r->field, f->member) || r->off != f->offset || r->size != f->size ||
			    strcmp(r->type, f->type))
				fail_msg("%s: page row %u %u %s %s, struct field %u %u %s %s", rf->name, r->off,
				         r->size, r->type, r->field, f->offset, f->size, f->type, f->member);
			if (strcmp(r->enc, codec_enc(rf->type, f->offset)))
				fail_msg("%s.%s: page says enc %s, the codec does %s", rf->name, f->member, r->enc,
				         codec_enc(rf->type, f->offset));
		}
		/* Anything after the fields can only be the documented padding. */
		for (; k < t->n; k++)
			if (strcmp(t->rows[k].field, "(padding)"))
				fail_msg("%s: page has %s, the struct does not", rf->name, t->rows[k].field);
	}
	/* And every record table on the page is a struct we know. */
	for (int i = 0; i < ntables; i++) {
		if (tables[i].type == 0)
			continue;
		size_t j = 0;
		while (j < gt_schema_count && strcmp(gt_schema[j].name, tables[i].name))
			j++;
		if (j == gt_schema_count)
			fail_msg("page table %s (type %d) has no struct", tables[i].name, tables[i].type);
	}
}

/* The codec's fields have the widths it codes them at: field 0 (and only it) is the u64 base, rel
 * fields are u64, d32 fields u32; format.c's offset lists hold exactly those; and the variable
 * records' structs are not delta-coded at all. */
static void test_codec_fields_have_their_widths(void **state)
{
	(void)state;
	for (size_t i = 0; i < gt_schema_count; i++) {
		const struct gt_record_schema *rf = &gt_schema[i];
		int fixed = rf->type >= GT_REC_FIRST_FIXED;
		unsigned n_rel = 0, n_delta32 = 0;
		if (fixed) {
			assert_ptr_equal(gt_fixed_desc(rf->type)->schema, rf);
			assert_int_equal(gt_fixed_desc(rf->type)->size, rf->size);
			assert_string_equal(rf->fields[0].type, "u64");
			assert_int_equal(rf->fields[0].codec, GT_CODEC_BASE);
		}
		for (const struct gt_field *f = rf->fields; f->member; f++) {
			n_rel += f->codec == GT_CODEC_REL;
			n_delta32 += f->codec == GT_CODEC_DELTA32;
			if (f->codec == GT_CODEC_PLAIN)
				continue;
			if (!fixed)
				fail_msg("%s.%s: a variable record's field is delta-coded", rf->name, f->member);
			if (f->codec == GT_CODEC_BASE && f != rf->fields)
				fail_msg("%s.%s: only field 0 is the base", rf->name, f->member);
			unsigned want = f->codec == GT_CODEC_DELTA32 ? 4 : 8;
			if (f->size != want)
				fail_msg("%s.%s: coded as %u bytes, the field has %u", rf->name, f->member, want,
				         f->size);
		}
		/* The codec's offset lists hold every coded field (none lost to GT_MAX_CODED_FIELDS). */
		if (fixed) {
			assert_int_equal(gt_fixed_desc(rf->type)->n_rel, n_rel);
			assert_int_equal(gt_fixed_desc(rf->type)->n_delta32, n_delta32);
		}
	}
}

/* What dump and the exports show: every field of a fixed record but its reserved ones, which must
 * therefore end the struct (gt_fields_of stops at the first); enumerations have their names. */
static void test_shown_fields_lead(void **state)
{
	(void)state;
	for (size_t i = 0; i < gt_schema_count; i++) {
		const struct gt_record_schema *rf = &gt_schema[i];
		if (rf->type < GT_REC_FIRST_FIXED)
			continue;
		size_t n, all = 0, reserved = 0;
		const struct gt_field *shown = gt_fields_of(rf->type, &n);
		assert_ptr_equal(shown, rf->fields);
		for (const struct gt_field *f = rf->fields; f->member; f++, all++) {
			if (f->kind == GT_FIELD_RESERVED) {
				assert_null(f->name);
				reserved++;
			} else if (all >= n) {
				fail_msg("%s.%s: shown, but after a reserved field", rf->name, f->member);
			} else {
				assert_non_null(f->name);
			}
			if (f->kind == GT_FIELD_ENUM)
				assert_non_null(f->enum_name);
		}
		assert_int_equal(n + reserved, all);
	}
	size_t n;
	assert_null(gt_fields_of(GT_REC_DEVICE, &n));
	assert_int_equal(n, 0);
}

/* The type table: numbers, names, encodings and fixed sizes, both ways. */
static void test_page_type_table(void **state)
{
	(void)state;
	int documented[GT_REC_TYPE_MAX + 1] = { 0 };
	for (int i = 0; i < ntypes; i++) {
		const struct type_row *r = &types[i];
		assert_true(r->type > 0 && r->type <= GT_REC_TYPE_MAX);
		documented[r->type] = 1;
		if (strcmp(r->name, gt_rec_type_name(r->type)))
			fail_msg("type %d: page says %s, the library %s", r->type, r->name,
			         gt_rec_type_name(r->type));
		const struct gt_fixed_desc *d = gt_fixed_desc(r->type);
		if (r->type >= GT_REC_FIRST_FIXED) {
			assert_string_equal(r->encoding, "fixed");
			assert_non_null(d);
			if ((unsigned)atoi(r->size) != d->size)
				fail_msg("%s: page says %s bytes, the codec %u", r->name, r->size, d->size);
		} else {
			assert_string_equal(r->encoding, "variable");
			assert_string_equal(r->size, "-");
		}
	}
	for (int t = 1; t <= GT_REC_TYPE_MAX; t++)
		if (strcmp(gt_rec_type_name(t), "unknown") && !documented[t])
			fail_msg("type %d (%s) is not in the page's type table", t, gt_rec_type_name(t));
}

static void test_page_limits(void **state)
{
	(void)state;
	static const struct { const char *name; unsigned long long value; } known[] = {
		{ "GT_MAX_CHUNK_RAW", GT_MAX_CHUNK_RAW }, { "GT_MAX_RECORD_SIZE", GT_MAX_RECORD_SIZE },
		{ "GT_MAX_VAR_RECORD", GT_MAX_VAR_RECORD }, { "GT_MAX_STRING_BYTES", GT_MAX_STRING_BYTES },
		{ "GT_MAX_STRINGS", GT_MAX_STRINGS }, { "GT_MAX_META", GT_MAX_META },
		{ "GT_MAX_DEVICES", GT_MAX_DEVICES }, { "GT_BLOB_PIECE_BYTES", GT_BLOB_PIECE_BYTES },
		{ "GT_MAX_STRING_LEN", GT_MAX_STRING_LEN }, { "GT_MAX_META_BYTES", GT_MAX_META_BYTES },
		{ "GT_MAX_DEVICE_NAME", GT_MAX_DEVICE_NAME }, { "GT_MAX_BLOB_BYTES", GT_MAX_BLOB_BYTES },
		{ "GT_MAX_BLOBS_TOTAL", GT_MAX_BLOBS_TOTAL }, { "GT_MAX_CAPTURE_BYTES", GT_MAX_CAPTURE_BYTES },
		{ "GT_MAX_CAPTURE_PARAMS", GT_MAX_CAPTURE_PARAMS },
	};
	const size_t n = sizeof known / sizeof known[0];
	assert_int_equal(nlimits, n);
	for (size_t i = 0; i < n; i++) {
		int found = 0;
		for (int j = 0; j < nlimits; j++)
			if (!strcmp(limits[j].name, known[i].name)) {
				found = 1;
				if (limits[j].value != known[i].value)
					fail_msg("%s: page %llu, format.h %llu", known[i].name, limits[j].value,
					         known[i].value);
			}
		if (!found)
			fail_msg("%s is not in the page's limits table", known[i].name);
	}
}

/* The page's CAPTURE rules: length = 96 + 48 x nparams + param_bytes, at most 4096 parameters,
 * each parameter inside the parameter bytes. */
static void test_capture_rules(void **state)
{
	(void)state;
	struct gt_capture c = { .capture_id = 1, .nparams = 2, .param_bytes = 16 };
	struct gt_capture_param p[2] = { { .offset = 0, .size = 8, .kind = GT_PARAM_POINTER },
		{ .offset = 8, .size = 8, .kind = GT_PARAM_SCALAR } };
	uint8_t bytes[16] = { 0 };
	uint8_t *rec;
	size_t len;
	assert_int_equal(gt_capture_encode(&c, p, bytes, &rec, &len), 0);
	assert_int_equal(len, 96 + 2 * 48 + 16);
	struct gt_event ev = { .type = GT_REC_CAPTURE };
	ev.u.var.data = rec;
	ev.u.var.len = (uint32_t)len;
	struct gt_capture back;
	const uint8_t *params, *pbytes;
	assert_int_equal(gt_capture_parse(&ev, &back, &params, &pbytes), 0);
	assert_ptr_equal(params, rec + 96);
	assert_ptr_equal(pbytes, rec + 96 + 2 * 48);
	ev.u.var.len = (uint32_t)len - 1;
	assert_int_equal(gt_capture_parse(&ev, &back, &params, &pbytes), GT_ERR_CORRUPT);
	ev.u.var.len = (uint32_t)len;
	gt_st32(rec + 96 + 48 + 4, 9); /* second parameter's size: 8 + 9 > 16 */
	assert_int_equal(gt_capture_parse(&ev, &back, &params, &pbytes), GT_ERR_CORRUPT);
	free(rec);
	c.nparams = 4097;
	struct gt_capture_param *many = calloc(4097, sizeof *many);
	assert_non_null(many);
	assert_int_equal(gt_capture_encode(&c, many, bytes, &rec, &len), GT_ERR_ARG);
	c.nparams = 4096;
	c.param_bytes = 0;
	assert_int_equal(gt_capture_encode(&c, many, NULL, &rec, &len), 0);
	ev.u.var.data = rec;
	ev.u.var.len = (uint32_t)len;
	assert_int_equal(gt_capture_parse(&ev, &back, &params, &pbytes), 0);
	gt_st32(rec + offsetof(struct gt_capture, nparams), 4097);
	assert_int_equal(gt_capture_parse(&ev, &back, &params, &pbytes), GT_ERR_CORRUPT);
	free(rec);
	free(many);
}

/* ---- the header tables against a real file ------------------------------------------------- */

static uint64_t ld(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The value of a documented field of a header at p. */
static uint64_t field(const struct table *t, const uint8_t *p, const char *name)
{
	const struct row *r = row_named(t, name);
	return ld(p + r->off, r->size);
}

static void assert_tiles(const struct table *t)
{
	unsigned pos = 0;
	for (int i = 0; i < t->n; i++) {
		assert_int_equal(t->rows[i].off, pos);
		pos += t->rows[i].size;
	}
	assert_int_equal(pos, t->size);
}

/* FNV-1a as the page writes it out, independent of gt_header_check. */
static uint32_t page_fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* A trace from the writer, parsed with nothing but the page's offsets: every header field holds
 * what the page says it holds. */
static void test_page_headers_parse_real_file(void **state)
{
	(void)state;
	const struct table *fh = table_named("file_header"), *ch = table_named("chunk_header"),
	                   *bh = table_named("block_header");
	assert_non_null(fh);
	assert_non_null(ch);
	assert_non_null(bh);
	assert_int_equal(fh->size, GT_FILE_HEADER_BYTES);
	assert_int_equal(ch->size, GT_CHUNK_HEADER_BYTES);
	assert_int_equal(bh->size, GT_BLOCK_HEADER_BYTES);
	assert_tiles(fh);
	assert_tiles(ch);
	assert_tiles(bh);

	char path[] = "/tmp/gt_spec_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
	uint64_t chunk_records[3] = { 0 };
	assert_int_equal(gt_writer_meta(w, "trace.synthetic", "1"), 0);
	uint32_t name = gt_writer_intern(w, "kernel_a");
	for (int i = 0; i < 10; i++) {
		struct gt_kernel k = { .start = 1000 + (uint64_t)i * 100, .end = 1050 + (uint64_t)i * 100,
			.name_id = name, .correlation_id = (uint32_t)i };
		assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
	}
	assert_int_equal(gt_writer_flush(w), 0);
	chunk_records[0] = gt_writer_records(w);
	struct gt_api a = { .start = 5, .end = 9, .name_id = name };
	assert_int_equal(gt_writer_add(w, GT_REC_API, &a), 0);
	chunk_records[1] = gt_writer_records(w) - chunk_records[0];
	chunk_records[2] = 1; /* END */
	assert_int_equal(gt_writer_close(w), 0);

	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	size_t size = (size_t)st.st_size;
	uint8_t *b = malloc(size);
	assert_non_null(b);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(b, 1, size, f), size);
	fclose(f);
	unlink(path);

	assert_memory_equal(b + row_named(fh, "magic")->off, "GPUTRACE", 8);
	assert_int_equal(field(fh, b, "major"), GT_FORMAT_MAJOR);
	assert_int_equal(field(fh, b, "minor"), GT_FORMAT_MINOR);
	assert_int_equal(field(fh, b, "header_bytes"), 32);
	assert_int_equal(field(fh, b, "flags"), 0);
	assert_true(field(fh, b, "created_ns") > 1500000000ull * 1000000000ull);

	size_t off = field(fh, b, "header_bytes");
	int seq = 0;
	while (off < size) {
		const uint8_t *h = b + off;
		assert_true(seq < 3);
		assert_int_equal(field(ch, h, "magic"), 0x4b435447u);
		assert_memory_equal(h, "GTCK", 4);
		assert_int_equal(field(ch, h, "flags"), 0);
		assert_int_equal(field(ch, h, "sequence"), seq);
		assert_int_equal(field(ch, h, "check"), page_fnv1a(h, row_named(ch, "check")->off));
		assert_int_equal(field(ch, h, "records"), chunk_records[seq]);
		size_t csize = field(ch, h, "compressed_bytes"), rsize = field(ch, h, "raw_bytes");
		assert_true(off + 32 + csize <= size);
		uint8_t *raw = malloc(rsize + 1);
		assert_non_null(raw);
		assert_int_equal(ZSTD_findFrameCompressedSize(h + 32, csize), csize);
		assert_int_equal(ZSTD_getFrameContentSize(h + 32, csize), rsize);
		assert_int_equal(ZSTD_decompress(raw, rsize, h + 32, csize), rsize);
		/* Blocks, with the page's block header offsets. */
		size_t p = 0;
		uint64_t nrec = 0, nblocks = 0;
		int last_type = 0;
		while (p < rsize) {
			const uint8_t *bk = raw + p;
			int type = (int)field(bh, bk, "type");
			unsigned enc = (unsigned)field(bh, bk, "encoding");
			uint64_t count = field(bh, bk, "count"), rs = field(bh, bk, "record_size");
			uint64_t payload = field(bh, bk, "payload_bytes");
			assert_true(type > last_type); /* ascending type order */
			last_type = type;
			if (type >= GT_REC_FIRST_FIXED) {
				assert_int_equal(enc, 1);
				assert_int_equal(rs, gt_fixed_desc(type)->size);
				assert_int_equal(payload, count * rs);
			} else {
				assert_int_equal(enc, 0);
				assert_int_equal(rs, 0);
			}
			p += 16 + payload;
			nrec += count;
			nblocks++;
		}
		assert_int_equal(p, rsize);
		assert_int_equal(nrec, field(ch, h, "records"));
		assert_int_equal(nblocks, field(ch, h, "blocks"));
		free(raw);
		off += 32 + csize;
		seq++;
	}
	assert_int_equal(off, size);
	assert_int_equal(seq, 3);
	free(b);
}

/* The page's FNV-1a test vectors, against the library's check. */
static void test_fnv_vectors(void **state)
{
	(void)state;
	assert_int_equal(gt_header_check((const uint8_t *)"", 0), 0x811c9dc5u);
	assert_int_equal(gt_header_check((const uint8_t *)"a", 1), 0xe40c292cu);
	assert_int_equal(gt_header_check((const uint8_t *)"foobar", 6), 0xbf9cf968u);
	assert_non_null(strstr(page, "0x811c9dc5"));
	assert_non_null(strstr(page, "0xe40c292c"));
	assert_non_null(strstr(page, "0xbf9cf968"));
}

/* "Padding must be written as zero": a caller's device struct with garbage in its tail padding
 * (and in reserved) still gives zeros in the file. */
static void test_device_padding_written_as_zero(void **state)
{
	(void)state;
	char path[] = "/tmp/gt_spec_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
	struct gt_device d;
	memset(&d, 0xff, sizeof d);
	d.device_id = 3;
	d.sm_count = 132;
	assert_int_equal(gt_writer_device(w, &d, "NVIDIA H200"), 0);
	assert_int_equal(gt_writer_close(w), 0);
	struct gt_reader *r;
	assert_int_equal(gt_reader_open(&r, path, NULL, 0), 0);
	struct gt_event ev;
	int seen = 0;
	while (gt_reader_next(r, &ev) > 0) {
		if (ev.type != GT_REC_DEVICE)
			continue;
		assert_int_equal(ev.u.var.len, sizeof(struct gt_device) + 11);
		const uint8_t *p = ev.u.var.data;
		size_t tail = offsetof(struct gt_device, uuid) + sizeof d.uuid;
		for (size_t i = tail; i < sizeof(struct gt_device); i++)
			if (p[i])
				fail_msg("device record byte %zu (padding) is 0x%02x", i, p[i]);
		assert_int_equal(gt_ld32(p + offsetof(struct gt_device, reserved)), 0);
		assert_int_equal(gt_ld32(p + offsetof(struct gt_device, name_len)), 11);
		assert_memory_equal(p + sizeof(struct gt_device), "NVIDIA H200", 11);
		seen++;
	}
	assert_int_equal(seen, 1);
	const char *name;
	const struct gt_device *back = gt_reader_device(r, 3, &name);
	assert_non_null(back);
	assert_string_equal(name, "NVIDIA H200");
	gt_reader_close(r);
	unlink(path);
}

/* The page's one unrepresentable value: a rel field at base + 2^63 reads back as 0; one less
 * (and one more) round-trips. */
static void test_rel_corner_value(void **state)
{
	(void)state;
	const uint64_t base = 1000;
	uint64_t ends[3] = { base + (1ull << 63), base + (1ull << 63) - 1, base + (1ull << 63) + 1 };
	uint64_t want[3] = { 0, ends[1], ends[2] };
	for (int i = 0; i < 3; i++) {
		char path[] = "/tmp/gt_spec_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		struct gt_writer *w;
		assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
		struct gt_kernel k = { .start = base, .end = ends[i] };
		assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
		assert_int_equal(gt_writer_close(w), 0);
		struct gt_reader *r;
		assert_int_equal(gt_reader_open(&r, path, NULL, 0), 0);
		struct gt_event ev;
		int rc;
		while ((rc = gt_reader_next(r, &ev)) > 0 && ev.type != GT_REC_KERNEL)
			;
		assert_int_equal(rc, 1);
		assert_int_equal(ev.u.kernel.start, base);
		assert_int_equal(ev.u.kernel.end, want[i]);
		gt_reader_close(r);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_table_tiles_structs),
		cmocka_unit_test(test_page_record_tables_match_structs),
		cmocka_unit_test(test_codec_fields_have_their_widths),
		cmocka_unit_test(test_shown_fields_lead),
		cmocka_unit_test(test_page_type_table),
		cmocka_unit_test(test_page_limits),
		cmocka_unit_test(test_capture_rules),
		cmocka_unit_test(test_page_headers_parse_real_file),
		cmocka_unit_test(test_fnv_vectors),
		cmocka_unit_test(test_device_padding_written_as_zero),
		cmocka_unit_test(test_rel_corner_value),
	};
	return cmocka_run_group_tests_name("trace format spec", tests, group_setup, group_teardown);
}
