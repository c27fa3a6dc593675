/* test_cupti_capture_nvinfo.c: reading kernel parameter layouts out of cubins (cupti/nvinfo.c).
 *
 * Two kinds of input. Sections cut out of a real cubin (nvcc 13.0, -arch=sm_90, CUDA 13.0.88) pin
 * the format as the toolkit writes it today: KPARAM_INFO records in descending ordinal order, a
 * by-value 12-byte struct, char/short/double parameters with alignment gaps, a 5008-byte struct
 * that switches nvcc to KPARAM_INFO_V2, and a kernel without parameters. Hand-made sections and
 * ELF images cover what the toolkit might write tomorrow and what a damaged image holds: ascending
 * order, V1 and V2 mixed, unknown attributes of every format, and every malformation the parser
 * must refuse rather than misread. The same builders give the image facts (SM from e_flags, module
 * state sections), the launch-bounds records (.maxntid / .reqntid) and capture_modules' choice among
 * several images that hold one kernel name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cupti/capture_modules.h"
#include "cupti/nvinfo.h"

/* ---- sections from a real cubin ------------------------------------------------------------------
 * Source (k.cu):
 *   struct Big { char b[5008]; };  struct S12 { float a, b, c; };
 *   extern "C" __global__ void plain(int n, float a, const float *x, float *y);
 *   __global__ void big(Big s, int *out);
 *   __global__ void mixed(char c, double d, S12 s, short h, int *p);
 *   __global__ void none();
 * nvcc -cubin -arch=sm_90 -o k.cubin k.cu, then the bytes of each .nv.info.<name> section. */

/* .nv.info.plain: (int, float, const float *, float *) */
static const uint8_t sec_plain[] = {
	0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, 0x04, 0x17, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0xf0, 0x21, 0x00,
	0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x08, 0x00,
	0x00, 0xf0, 0x21, 0x00, 0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x04, 0x00, 0x00, 0xf0, 0x11, 0x00, 0x04, 0x17, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x11, 0x00,
	0x03, 0x50, 0x00, 0x00, 0x03, 0x1b, 0xff, 0x00, 0x03, 0x5f, 0x01, 0x01,
	0x04, 0x1c, 0x08, 0x00, 0x40, 0x00, 0x00, 0x00, 0xf0, 0x00, 0x00, 0x00,
	0x03, 0x19, 0x18, 0x00, 0x04, 0x0a, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00,
	0x10, 0x02, 0x18, 0x00, 0x04, 0x36, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
};

/* .nv.info._Z5mixedcd3S12sPi: (char, double, S12, short, int *) */
static const uint8_t sec_mixed[] = {
	0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, 0x04, 0x17, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x20, 0x00, 0x00, 0xf0, 0x21, 0x00,
	0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x1c, 0x00,
	0x00, 0xf0, 0x09, 0x00, 0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x00, 0x00, 0xf0, 0x31, 0x00, 0x04, 0x17, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0xf0, 0x21, 0x00,
	0x04, 0x17, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0xf0, 0x05, 0x00, 0x03, 0x50, 0x00, 0x00, 0x03, 0x1b, 0xff, 0x00,
	0x03, 0x5f, 0x01, 0x01, 0x04, 0x1c, 0x04, 0x00, 0xe0, 0x00, 0x00, 0x00,
	0x03, 0x19, 0x28, 0x00, 0x04, 0x0a, 0x08, 0x00, 0x16, 0x00, 0x00, 0x00,
	0x10, 0x02, 0x28, 0x00, 0x04, 0x36, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
};

/* .nv.info._Z3big3BigPi: (Big, int *), KPARAM_INFO_V2 */
static const uint8_t sec_big[] = {
	0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, 0x04, 0x45, 0x0c, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x90, 0x13, 0x08, 0x00, 0x00, 0x00,
	0x04, 0x45, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x90, 0x13, 0x00, 0x00, 0x03, 0x50, 0x00, 0x00, 0x03, 0x1b, 0xff, 0x00,
	0x03, 0x5f, 0x01, 0x01, 0x04, 0x1c, 0x04, 0x00, 0x70, 0x00, 0x00, 0x00,
	0x03, 0x19, 0x98, 0x13, 0x04, 0x0a, 0x08, 0x00, 0x17, 0x00, 0x00, 0x00,
	0x10, 0x02, 0x98, 0x13, 0x04, 0x36, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
};

/* .nv.info._Z4nonev: no parameters */
static const uint8_t sec_none[] = {
	0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, 0x03, 0x50, 0x00, 0x00,
	0x03, 0x1b, 0xff, 0x00, 0x03, 0x5f, 0x01, 0x01, 0x04, 0x1c, 0x04, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x04, 0x36, 0x04, 0x00, 0x08, 0x00, 0x00, 0x00,
};

static void expect_layout(const uint8_t *sec, size_t len, uint32_t n, const uint32_t *off,
                          const uint32_t *size, uint32_t cbank)
{
	struct nvinfo_layout l;
	assert_int_equal(nvinfo_parse(sec, len, &l), 0);
	assert_int_equal(l.nparams, n);
	assert_int_equal(l.cbank_param_size, cbank);
	uint32_t end = 0;
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(l.params[i].offset, off[i]);
		assert_int_equal(l.params[i].size, size[i]);
		end = off[i] + size[i];
	}
	assert_int_equal(l.param_bytes, end);
	nvinfo_free(&l);
	assert_null(l.params);
}

static void test_real_sections_descending_ordinals(void **state)
{
	(void)state;
	const uint32_t po[] = { 0, 4, 8, 16 }, ps[] = { 4, 4, 8, 8 };
	expect_layout(sec_plain, sizeof sec_plain, 4, po, ps, 24);
	/* char at 0, double aligned to 8, a 12-byte struct at 16, short at 28, pointer at 32. */
	const uint32_t mo[] = { 0, 8, 16, 28, 32 }, ms[] = { 1, 8, 12, 2, 8 };
	expect_layout(sec_mixed, sizeof sec_mixed, 5, mo, ms, 40);
}

static void test_real_section_kparam_info_v2(void **state)
{
	(void)state;
	const uint32_t bo[] = { 0, 5008 }, bs[] = { 5008, 8 };
	expect_layout(sec_big, sizeof sec_big, 2, bo, bs, 5016);
}

static void test_real_section_without_parameters(void **state)
{
	(void)state;
	struct nvinfo_layout l;
	assert_int_equal(nvinfo_parse(sec_none, sizeof sec_none, &l), 0);
	assert_int_equal(l.nparams, 0);
	assert_int_equal(l.param_bytes, 0);
	assert_null(l.params);
	assert_int_equal(nvinfo_parse(NULL, 0, &l), 0); /* an empty section: no parameters either */
	assert_int_equal(l.nparams, 0);
}

/* ---- hand-made sections ------------------------------------------------------------------------- */

struct sec {
	uint8_t b[1024];
	size_t n;
};

static void put(struct sec *s, const void *p, size_t n)
{
	assert_true(s->n + n <= sizeof s->b);
	memcpy(s->b + s->n, p, n);
	s->n += n;
}
static void put16(struct sec *s, uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(s, b, 2); }
static void put32(struct sec *s, uint32_t v) { put16(s, (uint16_t)v); put16(s, (uint16_t)(v >> 16)); }

static void kparam(struct sec *s, uint16_t ord, uint16_t off, uint32_t size)
{
	uint8_t h[4] = { 4, 0x17, 12, 0 };
	put(s, h, 4);
	put32(s, 0);
	put16(s, ord);
	put16(s, off);
	put32(s, (size << 18) | 0x1f000u); /* cbank 0x1f in the low bits, as nvcc writes */
}

static void kparam_v2(struct sec *s, uint16_t ord, uint16_t off, uint16_t size)
{
	uint8_t h[4] = { 4, 0x45, 12, 0 };
	put(s, h, 4);
	put32(s, 0);
	put16(s, ord);
	put16(s, off);
	put16(s, size);
	put16(s, 0);
}

static void other_records(struct sec *s)
{
	uint8_t nval[4] = { 1, 0x01, 0, 0 }, bval[4] = { 2, 0x02, 7, 0 }, hval[4] = { 3, 0x1b, 0xff, 0 };
	uint8_t sval[10] = { 4, 0x37, 6, 0, 1, 2, 3, 4, 5, 6 };
	put(s, nval, 4);
	put(s, bval, 4);
	put(s, hval, 4);
	put(s, sval, sizeof sval);
}

static void test_descending_mixed_v1_v2_and_unknown_records(void **state)
{
	(void)state;
	struct sec s = { .n = 0 };
	other_records(&s);
	kparam(&s, 3, 24, 8);
	kparam_v2(&s, 2, 16, 8);
	other_records(&s);
	kparam(&s, 1, 4, 4);
	kparam_v2(&s, 0, 0, 4);
	uint8_t cb[4] = { 3, 0x19, 32, 0 };
	put(&s, cb, 4);
	const uint32_t o[] = { 0, 4, 16, 24 }, z[] = { 4, 4, 8, 8 };
	expect_layout(s.b, s.n, 4, o, z, 32);
}

static void test_ascending_order_is_read_the_same(void **state)
{
	(void)state;
	struct sec s = { .n = 0 };
	kparam(&s, 0, 0, 1);
	kparam(&s, 1, 8, 8);
	kparam(&s, 2, 16, 12);
	const uint32_t o[] = { 0, 8, 16 }, z[] = { 1, 8, 12 };
	expect_layout(s.b, s.n, 3, o, z, 0);
}

static void expect_reject(const struct sec *s)
{
	struct nvinfo_layout l;
	assert_int_equal(nvinfo_parse(s->b, s->n, &l), NVINFO_ERR_FORMAT);
	assert_null(l.params);
	assert_int_equal(l.nparams, 0);
}

static void test_malformed_sections_are_refused(void **state)
{
	(void)state;
	struct sec s;

	/* a format-4 record whose length runs past the section */
	s.n = 0;
	kparam(&s, 0, 0, 4);
	s.b[2] = 40;
	expect_reject(&s);

	/* a format this parser does not know (its size would be a guess) */
	s.n = 0;
	kparam(&s, 0, 0, 4);
	uint8_t bad[4] = { 5, 0x17, 0, 0 };
	put(&s, bad, 4);
	expect_reject(&s);

	/* a record cut after its first byte pair */
	s.n = 0;
	kparam(&s, 0, 0, 4);
	uint8_t half[2] = { 3, 0x19 };
	put(&s, half, 2);
	expect_reject(&s);

	/* a gap in the ordinals: two records, ordinals 0 and 2 */
	s.n = 0;
	kparam(&s, 2, 8, 4);
	kparam(&s, 0, 0, 4);
	expect_reject(&s);

	/* the same ordinal twice */
	s.n = 0;
	kparam(&s, 1, 4, 4);
	kparam(&s, 1, 8, 4);
	expect_reject(&s);

	/* overlapping parameters */
	s.n = 0;
	kparam(&s, 1, 4, 4);
	kparam(&s, 0, 0, 8);
	expect_reject(&s);

	/* a parameter of size 0 */
	s.n = 0;
	kparam(&s, 0, 0, 0);
	expect_reject(&s);

	/* a KPARAM_INFO record too short to hold its fields */
	s.n = 0;
	uint8_t shortrec[12] = { 4, 0x17, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	put(&s, shortrec, sizeof shortrec);
	expect_reject(&s);

	/* KPARAM_INFO in a 4-byte format */
	s.n = 0;
	uint8_t hv[4] = { 3, 0x17, 4, 0 };
	put(&s, hv, 4);
	expect_reject(&s);
}

static void test_layout_equal(void **state)
{
	(void)state;
	struct nvinfo_layout a, b;
	assert_int_equal(nvinfo_parse(sec_plain, sizeof sec_plain, &a), 0);
	assert_int_equal(nvinfo_parse(sec_plain, sizeof sec_plain, &b), 0);
	assert_true(nvinfo_layout_equal(&a, &b));
	b.params[2].size = 4;
	assert_false(nvinfo_layout_equal(&a, &b));
	b.params[2].size = 8;
	b.params[3].offset = 20;
	assert_false(nvinfo_layout_equal(&a, &b));
	b.nparams = 3;
	assert_false(nvinfo_layout_equal(&a, &b));
	b.nparams = 4;
	nvinfo_free(&a);
	nvinfo_free(&b);
}

/* ---- ELF images ---------------------------------------------------------------------------------- */

struct elf {
	uint8_t b[8192];
	size_t n;
};

static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) { st16(p, (uint16_t)v); st16(p + 2, (uint16_t)(v >> 16)); }
static void st64(uint8_t *p, uint64_t v) { st32(p, (uint32_t)v); st32(p + 4, (uint32_t)(v >> 32)); }

struct esec {
	const char *name;
	const void *data;
	size_t len;
	uint32_t type;
};

/* Lays out: header, section data, the name table, the section table (null section first). */
static void build_elf(struct elf *e, const struct esec *secs, size_t nsec)
{
	memset(e, 0, sizeof *e);
	uint8_t *b = e->b;
	b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 2, b[5] = 1, b[6] = 1;
	st16(b + 0x12, 190); /* EM_CUDA */
	size_t at = 64;
	uint64_t off[16], nameoff[16];
	assert_true(nsec < 15);
	for (size_t i = 0; i < nsec; i++) {
		off[i] = at;
		memcpy(b + at, secs[i].data, secs[i].len);
		at += (secs[i].len + 3) & ~(size_t)3;
	}
	uint64_t strtab = at;
	b[at++] = 0;
	for (size_t i = 0; i < nsec; i++) {
		nameoff[i] = at - strtab;
		size_t l = strlen(secs[i].name) + 1;
		memcpy(b + at, secs[i].name, l);
		at += l;
	}
	uint64_t shstr_name = at - strtab;
	memcpy(b + at, ".shstrtab", 10);
	at += 10;
	uint64_t strtab_len = at - strtab;
	at = (at + 7) & ~(size_t)7;
	uint64_t shoff = at;
	size_t shnum = nsec + 2; /* null, the sections, .shstrtab */
	for (size_t i = 0; i < nsec; i++) {
		uint8_t *s = b + shoff + (i + 1) * 64;
		st32(s, (uint32_t)nameoff[i]);
		st32(s + 4, secs[i].type ? secs[i].type : 0x70000000u);
		st64(s + 24, off[i]);
		st64(s + 32, secs[i].len);
	}
	uint8_t *s = b + shoff + (nsec + 1) * 64;
	st32(s, (uint32_t)shstr_name);
	st32(s + 4, 3); /* SHT_STRTAB */
	st64(s + 24, strtab);
	st64(s + 32, strtab_len);
	st64(b + 0x28, shoff);
	st16(b + 0x34, 64);
	st16(b + 0x3a, 64);
	st16(b + 0x3c, (uint16_t)shnum);
	st16(b + 0x3e, (uint16_t)(nsec + 1));
	e->n = shoff + shnum * 64;
}

static const uint8_t global_info[] = { 0x04, 0x2f, 0x08, 0x00, 1, 0, 0, 0, 2, 0, 0, 0 };
static const char text_bytes[] = "not a section anyone parses";

static void standard_image(struct elf *e)
{
	const struct esec secs[] = {
		{ ".text._Z5saxpyifPKfPf", text_bytes, sizeof text_bytes, 1 },
		{ ".nv.info", global_info, sizeof global_info, 0 },
		{ ".nv.info._Z5saxpyifPKfPf", sec_plain, sizeof sec_plain, 0 },
		{ ".nv.info._Z5saxpy", sec_none, sizeof sec_none, 0 },
		{ ".nv.info._Z5mixedcd3S12sPi", sec_mixed, sizeof sec_mixed, 0 },
	};
	build_elf(e, secs, sizeof secs / sizeof secs[0]);
}

static void test_find_section_by_exact_name(void **state)
{
	(void)state;
	struct elf e;
	standard_image(&e);
	assert_true(nvinfo_is_elf64(e.b, e.n));
	const uint8_t *sec = NULL;
	size_t len = 0;
	const char *n = "_Z5saxpyifPKfPf";
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 1);
	assert_int_equal(len, sizeof sec_plain);
	assert_memory_equal(sec, sec_plain, len);
	/* A prefix of another kernel's name is a different kernel. */
	n = "_Z5saxpy";
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 1);
	assert_int_equal(len, sizeof sec_none);
	n = "_Z5sax";
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 0);
	/* The global .nv.info is no kernel's. */
	assert_int_equal(nvinfo_find_section(e.b, e.n, "", 0, &sec, &len), 0);
	/* And the parsed section is the right layout. */
	n = "_Z5mixedcd3S12sPi";
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 1);
	struct nvinfo_layout l;
	assert_int_equal(nvinfo_parse(sec, len, &l), 0);
	assert_int_equal(l.nparams, 5);
	nvinfo_free(&l);
}

struct names {
	char list[8][64];
	int n;
	int stop_at;
};

static int collect(void *ctx, const char *name, size_t len)
{
	struct names *c = ctx;
	assert_true(len < 64 && c->n < 8);
	memcpy(c->list[c->n], name, len);
	c->list[c->n][len] = 0;
	c->n++;
	return c->n == c->stop_at ? 42 : 0;
}

static void test_for_each_kernel_lists_every_kernel(void **state)
{
	(void)state;
	struct elf e;
	standard_image(&e);
	struct names c = { .n = 0, .stop_at = 0 };
	assert_int_equal(nvinfo_for_each_kernel(e.b, e.n, collect, &c), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.list[0], "_Z5saxpyifPKfPf");
	assert_string_equal(c.list[1], "_Z5saxpy");
	assert_string_equal(c.list[2], "_Z5mixedcd3S12sPi");
	struct names d = { .n = 0, .stop_at = 2 };
	assert_int_equal(nvinfo_for_each_kernel(e.b, e.n, collect, &d), 42);
	assert_int_equal(d.n, 2);
}

static void test_damaged_images_are_refused(void **state)
{
	(void)state;
	struct elf e;
	const uint8_t *sec;
	size_t len;
	const char *n = "_Z5saxpyifPKfPf";
	struct names c = { .n = 0, .stop_at = 0 };

	standard_image(&e);
	/* cut inside the section table */
	assert_int_equal(nvinfo_find_section(e.b, e.n - 10, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);
	assert_int_equal(nvinfo_for_each_kernel(e.b, e.n - 10, collect, &c), NVINFO_ERR_FORMAT);
	/* not ELF, 32-bit, big-endian, too short */
	e.b[1] = 'X';
	assert_false(nvinfo_is_elf64(e.b, e.n));
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);
	standard_image(&e);
	e.b[4] = 1;
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);
	standard_image(&e);
	e.b[5] = 2;
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);
	assert_false(nvinfo_is_elf64(e.b, 63));
	assert_false(nvinfo_is_elf64(NULL, 100));

	/* a section table offset far past the end (and one that would wrap) */
	standard_image(&e);
	st64(e.b + 0x28, 1ull << 40);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);
	st64(e.b + 0x28, UINT64_MAX - 8);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);

	/* a string-table index out of range */
	standard_image(&e);
	st16(e.b + 0x3e, 99);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);

	/* section entries smaller than ELF64's */
	standard_image(&e);
	st16(e.b + 0x3a, 40);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);

	/* the wanted section's bytes past the end of the image */
	standard_image(&e);
	uint64_t shoff = 0;
	for (int i = 7; i >= 0; i--)
		shoff = (shoff << 8) | e.b[0x28 + i];
	uint8_t *s3 = e.b + shoff + 3 * 64; /* .nv.info._Z5saxpyifPKfPf */
	st64(s3 + 32, 1ull << 32);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), NVINFO_ERR_FORMAT);

	/* a name offset outside the name table: that section has no name, the others still do */
	standard_image(&e);
	st32(s3, 0x7fffffff);
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 0);
	c.n = 0;
	assert_int_equal(nvinfo_for_each_kernel(e.b, e.n, collect, &c), 0);
	assert_int_equal(c.n, 2);
}

static void test_extended_section_count(void **state)
{
	(void)state;
	/* e_shnum = 0 and e_shstrndx = SHN_XINDEX: the real values live in section 0. */
	struct elf e;
	standard_image(&e);
	uint16_t shnum = (uint16_t)(e.b[0x3c] | (e.b[0x3d] << 8));
	uint16_t strndx = (uint16_t)(e.b[0x3e] | (e.b[0x3f] << 8));
	uint64_t shoff = 0;
	for (int i = 7; i >= 0; i--)
		shoff = (shoff << 8) | e.b[0x28 + i];
	st64(e.b + shoff + 32, shnum);
	st32(e.b + shoff + 40, strndx);
	st16(e.b + 0x3c, 0);
	st16(e.b + 0x3e, 0xffff);
	const uint8_t *sec;
	size_t len;
	const char *n = "_Z5mixedcd3S12sPi";
	assert_int_equal(nvinfo_find_section(e.b, e.n, n, strlen(n), &sec, &len), 1);
	assert_int_equal(len, sizeof sec_mixed);
}

/* ---- image facts: the SM and the module's state -------------------------------------------------- */

static void set_sm(struct elf *e, uint8_t abi, uint32_t flags)
{
	e->b[8] = abi; /* e_ident[EI_ABIVERSION] */
	st32(e->b + 0x30, flags);
}

static void test_image_facts_sm_from_flags(void **state)
{
	(void)state;
	struct elf e;
	struct nvinfo_image f;
	standard_image(&e);
	/* e_flags of nvcc 13.0 cubins (ABI version 8): sm_90, sm_100, sm_120. */
	static const struct { uint32_t flags, sm; } real[] = {
		{ 0x6005a04u, 90 }, { 0x6006402u, 100 }, { 0x6007802u, 120 },
	};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		set_sm(&e, 8, real[i].flags);
		memset(&f, 0xff, sizeof f);
		assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
		assert_int_equal(f.sm, real[i].sm);
		assert_int_equal(f.state_sections, 0);
		assert_int_equal(f.state_bytes, 0);
	}
	/* A later ABI keeps the ABI-8 layout. */
	set_sm(&e, 9, 0x6005a04u);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 90);
	/* Older ABIs keep the SM in the low byte: the same flags read 4 there (no SM: 0), and 0x46 is
	 * sm_70. */
	set_sm(&e, 7, 0x6005a04u);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 0);
	set_sm(&e, 7, 0x00500546u);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 70);
	set_sm(&e, 0, 0x0000005au);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 90);
	/* ABI 8 with the SM byte 0 (or below sm_10): unknown. */
	set_sm(&e, 8, 0x6000004u);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 0);
	set_sm(&e, 8, 0x6000904u);
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 0);
}

static void test_image_facts_state_sections(void **state)
{
	(void)state;
	/* As nvcc 13.0 lays out `__device__ int g[10]; __device__ int gi = 5; __constant__ float c[4];`:
	 * .nv.global is NOBITS (40 bytes), .nv.global.init 4, .nv.constant3 16. Names that only begin
	 * like them (a kernel's constant bank, a longer name) are no module state. */
	static const uint8_t zeros[64] = { 0 };
	const struct esec secs[] = {
		{ ".nv.info._Z5saxpyifPKfPf", sec_plain, sizeof sec_plain, 0 },
		{ ".nv.global", zeros, 40, 8 /* SHT_NOBITS */ },
		{ ".nv.constant0._Z5saxpyifPKfPf", zeros, 24, 1 },
		{ ".nv.global.init", zeros, 4, 1 },
		{ ".nv.globalx", zeros, 8, 1 },
		{ ".nv.constant3", zeros, 16, 1 },
		{ ".nv.constant", zeros, 12, 1 },
	};
	struct elf e;
	build_elf(&e, secs, sizeof secs / sizeof secs[0]);
	set_sm(&e, 8, 0x6005a04u);
	struct nvinfo_image f;
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), 0);
	assert_int_equal(f.sm, 90);
	assert_int_equal(f.state_sections, 3);
	assert_int_equal(f.state_bytes, 60);
}

static void test_image_facts_damaged(void **state)
{
	(void)state;
	struct elf e;
	struct nvinfo_image f;
	standard_image(&e);
	set_sm(&e, 8, 0x6005a04u);
	memset(&f, 0xff, sizeof f);
	assert_int_equal(nvinfo_image_facts(e.b, e.n - 10, &f), NVINFO_ERR_FORMAT);
	assert_int_equal(f.sm, 0); /* cleared, not half-filled */
	assert_int_equal(f.state_sections, 0);
	assert_int_equal(f.state_bytes, 0);
	assert_int_equal(nvinfo_image_facts(e.b, 63, &f), NVINFO_ERR_FORMAT);
	e.b[4] = 1; /* ELFCLASS32 */
	assert_int_equal(nvinfo_image_facts(e.b, e.n, &f), NVINFO_ERR_FORMAT);
}

/* ---- launch bounds -------------------------------------------------------------------------------- */

/* The records as nvcc 13.0 writes them for sm_90: __launch_bounds__(64), and ptxas's .reqntid 64,1,1. */
static const uint8_t rec_max64[] = { 0x04, 0x05, 0x0c, 0x00, 0x40, 0x00, 0x00, 0x00,
	                             0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 };
static const uint8_t rec_req64[] = { 0x04, 0x10, 0x0c, 0x00, 0x40, 0x00, 0x00, 0x00,
	                             0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 };

static void bounds_rec(struct sec *s, uint8_t attr, uint32_t x, uint32_t y, uint32_t z)
{
	uint8_t h[4] = { 4, attr, 12, 0 };
	put(s, h, 4);
	put32(s, x);
	put32(s, y);
	put32(s, z);
}

static int fits(const struct sec *s, uint32_t x, uint32_t y, uint32_t z)
{
	const uint32_t block[3] = { x, y, z };
	return nvinfo_block_fits(s->b, s->n, block);
}

static void test_block_fits_max_threads(void **state)
{
	(void)state;
	struct sec s = { .n = 0 };
	/* The real section's records around the bound, as in a kernel's .nv.info section. */
	put(&s, sec_plain, sizeof sec_plain);
	put(&s, rec_max64, sizeof rec_max64);
	other_records(&s);
	assert_int_equal(fits(&s, 64, 1, 1), 1);  /* exactly at the bound */
	assert_int_equal(fits(&s, 65, 1, 1), 0);  /* one over */
	assert_int_equal(fits(&s, 1, 1, 1), 1);
	assert_int_equal(fits(&s, 32, 2, 1), 1);  /* 64 threads in another shape: a maximum, not a shape */
	assert_int_equal(fits(&s, 4, 4, 4), 1);
	assert_int_equal(fits(&s, 8, 8, 2), 0);   /* 128 */
	assert_int_equal(fits(&s, 1, 1, 65), 0);
	/* A block whose thread count overflows 64 bits saturates rather than wrapping to 0. */
	assert_int_equal(fits(&s, 1u << 22, 1u << 21, 1u << 21), 0);
	assert_int_equal(fits(&s, UINT32_MAX, UINT32_MAX, UINT32_MAX), 0);
	/* The same bound built by hand reads the same (x = 64 in bytes 4-7 of the record). */
	struct sec t = { .n = 0 };
	bounds_rec(&t, NVINFO_ATTR_MAX_THREADS, 64, 1, 1);
	assert_int_equal(t.n, sizeof rec_max64);
	assert_memory_equal(t.b, rec_max64, sizeof rec_max64);
	/* A bound stated in 3 dimensions: 16 x 4 x 2 = 128 threads. */
	t.n = 0;
	bounds_rec(&t, NVINFO_ATTR_MAX_THREADS, 16, 4, 2);
	assert_int_equal(fits(&t, 128, 1, 1), 1);
	assert_int_equal(fits(&t, 129, 1, 1), 0);
	assert_int_equal(fits(&t, 2, 2, 32), 1);
}

static void test_block_fits_reqntid(void **state)
{
	(void)state;
	struct sec s = { .n = 0 };
	put(&s, sec_none, sizeof sec_none);
	put(&s, rec_req64, sizeof rec_req64);
	assert_int_equal(fits(&s, 64, 1, 1), 1);
	assert_int_equal(fits(&s, 32, 2, 1), 0);  /* the same 64 threads in another shape */
	assert_int_equal(fits(&s, 1, 1, 64), 0);
	assert_int_equal(fits(&s, 63, 1, 1), 0);  /* fewer threads do not fit either */
	assert_int_equal(fits(&s, 65, 1, 1), 0);
	assert_int_equal(fits(&s, 64, 1, 2), 0);
	/* Both records: the block must satisfy each. */
	struct sec t = { .n = 0 };
	bounds_rec(&t, NVINFO_ATTR_REQNTID, 32, 2, 1);
	bounds_rec(&t, NVINFO_ATTR_MAX_THREADS, 64, 1, 1);
	assert_int_equal(fits(&t, 32, 2, 1), 1);
	assert_int_equal(fits(&t, 64, 1, 1), 0);
	t.n = 0;
	bounds_rec(&t, NVINFO_ATTR_REQNTID, 128, 1, 1);
	bounds_rec(&t, NVINFO_ATTR_MAX_THREADS, 64, 1, 1);
	assert_int_equal(fits(&t, 128, 1, 1), 0);
}

static void test_block_fits_without_bounds_and_truncated(void **state)
{
	(void)state;
	struct sec s = { .n = 0 };
	/* No bound at all: any block fits (the real sections of kernels without __launch_bounds__). */
	put(&s, sec_plain, sizeof sec_plain);
	assert_int_equal(fits(&s, 1024, 1, 1), 1);
	assert_int_equal(fits(&s, 4096, 4096, 64), 1);
	assert_int_equal(nvinfo_block_fits(NULL, 0, (const uint32_t[3]){ 7, 7, 7 }), 1);
	/* Another attribute with the same values is no bound (0x04 is not MAX_THREADS). */
	s.n = 0;
	bounds_rec(&s, 0x04, 64, 1, 1);
	assert_int_equal(fits(&s, 1024, 1, 1), 1);

	/* A bound record cut short by the end of the section. */
	s.n = 0;
	put(&s, sec_none, sizeof sec_none);
	put(&s, rec_max64, sizeof rec_max64 - 2);
	assert_int_equal(fits(&s, 32, 1, 1), NVINFO_ERR_FORMAT);
	s.n = 0;
	put(&s, rec_req64, 3); /* not even a record header */
	assert_int_equal(fits(&s, 64, 1, 1), NVINFO_ERR_FORMAT);
	/* An unknown format before the bound: the rest cannot be read. */
	s.n = 0;
	uint8_t bad[4] = { 7, 0x05, 0, 0 };
	put(&s, bad, 4);
	put(&s, rec_max64, sizeof rec_max64);
	assert_int_equal(fits(&s, 32, 1, 1), NVINFO_ERR_FORMAT);
	/* And an error past a bound that fails is still an error, not "does not fit". */
	s.n = 0;
	put(&s, rec_max64, sizeof rec_max64);
	put(&s, bad, 4);
	assert_int_equal(fits(&s, 128, 1, 1), NVINFO_ERR_FORMAT);
}

/* ---- capture_modules: which kept image a launch used ---------------------------------------------- */

static int keep_all(void *ctx, const char *mangled)
{
	(void)ctx;
	(void)mangled;
	return 1;
}

/* One image holding kernel _Z1kPf with a MAX_THREADS bound of max (0: none), and a filler section
 * that makes images with the same bound differ. */
static void bounded_image(struct elf *e, uint32_t max, uint32_t tag)
{
	struct sec s = { .n = 0 };
	put(&s, sec_none, sizeof sec_none);
	if (max)
		bounds_rec(&s, NVINFO_ATTR_MAX_THREADS, max, 1, 1);
	uint8_t fill[4];
	st32(fill, tag);
	const struct esec secs[] = {
		{ ".text._Z1kPf", fill, sizeof fill, 1 },
		{ ".nv.info._Z1kPf", s.b, s.n, 0 },
	};
	build_elf(e, secs, 2); /* copies the bytes */
}

static struct capture_module *find_k(uint32_t x, uint32_t *holding)
{
	const uint32_t block[3] = { x, 1, 1 };
	return capture_modules_find("_Z1kPf", block, holding);
}

static void test_modules_pick_the_variant_that_admits_the_block(void **state)
{
	(void)state;
	capture_modules_reset();
	struct elf a, b, other;
	bounded_image(&a, 64, 1);
	bounded_image(&b, 256, 2);
	standard_image(&other); /* other kernels: counts in no holding */
	assert_int_equal(capture_modules_add(a.b, a.n, 11, keep_all, NULL), 1);
	assert_int_equal(capture_modules_add(b.b, b.n, 12, keep_all, NULL), 1); /* newer */
	assert_int_equal(capture_modules_add(other.b, other.n, 13, keep_all, NULL), 1);

	uint32_t holding = 99;
	struct capture_module *m = find_k(128, &holding);
	assert_non_null(m);
	assert_int_equal(m->module_id, 12); /* only the 256 one admits 128 threads */
	assert_int_equal(holding, 2);
	holding = 99;
	m = find_k(32, &holding);
	assert_non_null(m);
	assert_int_equal(m->module_id, 12); /* both admit it: the newest */
	assert_int_equal(holding, 2);
	assert_int_equal(m->size, b.n);
	assert_memory_equal(m->image, b.b, b.n);
	capture_modules_reset();

	/* The other way round (the 64 one newer), so that "newest" and "fits" part ways. */
	bounded_image(&a, 256, 3);
	bounded_image(&b, 64, 4);
	assert_int_equal(capture_modules_add(a.b, a.n, 21, keep_all, NULL), 1);
	assert_int_equal(capture_modules_add(b.b, b.n, 22, keep_all, NULL), 1);
	assert_int_equal(capture_modules_add(other.b, other.n, 23, keep_all, NULL), 1);
	holding = 99;
	assert_int_equal(find_k(128, &holding)->module_id, 21); /* the older, the one that fits */
	assert_int_equal(holding, 2);
	assert_int_equal(find_k(64, NULL)->module_id, 22);      /* at the bound: the newest fits */
	assert_int_equal(find_k(65, NULL)->module_id, 21);      /* one over */
	assert_int_equal(find_k(32, NULL)->module_id, 22);
	/* Neither admits the block: the newest, as a guess. */
	holding = 99;
	assert_int_equal(find_k(512, &holding)->module_id, 22);
	assert_int_equal(holding, 2);
	/* No block given: the newest. */
	assert_int_equal(capture_modules_find("_Z1kPf", NULL, &holding)->module_id, 22);
	/* A kernel of one image only, and one of none. */
	holding = 99;
	m = capture_modules_find("_Z5mixedcd3S12sPi", NULL, &holding);
	assert_non_null(m);
	assert_int_equal(m->module_id, 23);
	assert_int_equal(holding, 1);
	holding = 99;
	assert_null(capture_modules_find("_Z1k", (const uint32_t[3]){ 1, 1, 1 }, &holding));
	assert_int_equal(holding, 0);

	/* The same image again is kept once: it counts once in holding. */
	assert_int_equal(capture_modules_add(a.b, a.n, 24, keep_all, NULL), 1);
	holding = 99;
	m = find_k(128, &holding);
	assert_int_equal(m->module_id, 21);
	assert_int_equal(m->loads, 2);
	assert_int_equal(holding, 2);
	uint64_t kept, bytes, seen;
	capture_modules_stats(&kept, &bytes, &seen);
	assert_int_equal(kept, 3);
	assert_int_equal(bytes, a.n + b.n + other.n);
	assert_int_equal(seen, 4);
	capture_modules_reset();
	assert_null(find_k(32, NULL));
}

static void test_modules_damaged_bounds_do_not_fit(void **state)
{
	(void)state;
	/* A variant whose bound record does not parse is not chosen as fitting over a good one. */
	capture_modules_reset();
	struct elf good, bad;
	bounded_image(&good, 256, 5);
	struct sec s = { .n = 0 };
	put(&s, sec_none, sizeof sec_none);
	put(&s, rec_max64, sizeof rec_max64 - 4); /* runs past the section */
	const struct esec secs[] = { { ".nv.info._Z1kPf", s.b, s.n, 0 } };
	build_elf(&bad, secs, 1);
	assert_int_equal(capture_modules_add(good.b, good.n, 31, keep_all, NULL), 1);
	assert_int_equal(capture_modules_add(bad.b, bad.n, 32, keep_all, NULL), 1);
	uint32_t holding = 0;
	assert_int_equal(find_k(32, &holding)->module_id, 31);
	assert_int_equal(holding, 2);
	capture_modules_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_sections_descending_ordinals),
		cmocka_unit_test(test_real_section_kparam_info_v2),
		cmocka_unit_test(test_real_section_without_parameters),
		cmocka_unit_test(test_descending_mixed_v1_v2_and_unknown_records),
		cmocka_unit_test(test_ascending_order_is_read_the_same),
		cmocka_unit_test(test_malformed_sections_are_refused),
		cmocka_unit_test(test_layout_equal),
		cmocka_unit_test(test_find_section_by_exact_name),
		cmocka_unit_test(test_for_each_kernel_lists_every_kernel),
		cmocka_unit_test(test_damaged_images_are_refused),
		cmocka_unit_test(test_extended_section_count),
		cmocka_unit_test(test_image_facts_sm_from_flags),
		cmocka_unit_test(test_image_facts_state_sections),
		cmocka_unit_test(test_image_facts_damaged),
		cmocka_unit_test(test_block_fits_max_threads),
		cmocka_unit_test(test_block_fits_reqntid),
		cmocka_unit_test(test_block_fits_without_bounds_and_truncated),
		cmocka_unit_test(test_modules_pick_the_variant_that_admits_the_block),
		cmocka_unit_test(test_modules_damaged_bounds_do_not_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
